"""`convbound list | show | check | solve`: the encoded results of `bounds`."""

from __future__ import annotations

from typing import Any

import click
from rich.table import Table

from reports.cli.common import (
    console,
    echo_json,
    esc,
    id_column,
    out_console,
    parse_assignments,
    parse_number,
    text_column,
)

_KV = click.argument("assignments", nargs=-1, metavar="KEY=VALUE...")
_ID = click.argument("result_id", required=False, metavar="RESULT_ID")
_FILE = click.option("--file", "toml_file", default=None, metavar="FILE.toml",
                     help="A result written as TOML (formulas parsed without executing code) instead of RESULT_ID.")


def _resolve(result_id: str | None, toml_file: str | None, assignments: tuple[str, ...] = ()):
    """The result named by RESULT_ID or read from --file, and the KEY=VALUE words."""
    from bounds.core.errors import UserInputError

    if toml_file is not None:
        from bounds.tomlresult import load_result

        if result_id is not None and "=" in result_id:  # no RESULT_ID: the first word is a KEY=VALUE
            assignments = (result_id, *assignments)
        elif result_id is not None:
            raise UserInputError(f"give RESULT_ID or --file, not both (got {result_id!r} and --file {toml_file})")
        return load_result(toml_file), assignments
    if result_id is None:
        raise UserInputError("missing RESULT_ID (e.g. FAST.T1; see 'convbound list') or --file FILE.toml")
    from bounds import get

    return get(result_id), assignments


def register(cli: click.Group) -> None:
    cli.add_command(list_cmd)
    cli.add_command(show_cmd)
    cli.add_command(check_cmd)
    cli.add_command(solve_cmd)


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def list_cmd(as_json: bool) -> None:
    """Every encoded result: ID, paper, kind, title (variants as ID@variant)."""
    from bounds.registry import summaries  # from the catalogue: builds no result, loads no sympy
    from bounds.survey_rows import ENTRIES  # survey rows with no stated rate: listed, not results

    fields = ("id", "key", "paper", "kind", "title", "variant", "reconstructed", "source", "status", "flags", "origin")
    rows: list[dict[str, Any]] = [{f: s[f] for f in fields} for s in summaries()]
    if as_json:
        echo_json(rows + [{"id": e.id, "key": e.id, "paper": "Survey (partial participation)", "kind": "no rate",
                           "title": f"{e.method} {e.ref}: {e.guarantee}", "participation": e.participation,
                           "source": f"{e.seed}, {e.locator}", "flags": len(e.flags), "origin": "built-in"}
                          for e in ENTRIES])
        return
    plugged = any(row["origin"] != "built-in" for row in rows)
    table = Table(id_column("ID (ID@variant)", (r["key"] for r in rows)), text_column("paper"), text_column("kind"),
                  text_column("title"), text_column("where in the paper"), text_column("status (flags)"),
                  *([text_column("origin")] if plugged else []), title=f"{len(rows)} encoded results")
    for row in rows:
        cells = [esc(row["key"]), esc(row["paper"]), esc(row["kind"]),
                 esc(str(row["title"]) + (" [reconstructed]" if row["reconstructed"] else "")),
                 esc(_locator(row["source"])), esc(f"{row['status']} ({row['flags']})")]
        table.add_row(*cells, *([esc("" if row["origin"] == "built-in" else row["origin"])] if plugged else []))
    con = out_console()
    con.print(table)
    entries = Table(id_column("ID", (e.id for e in ENTRIES)), text_column("method"), text_column("participation model"),
                    text_column("guarantee stated"), text_column("flags"),
                    title=f"{len(ENTRIES)} survey rows with no stated rate (catalogue entries; 'show ID' for details)")
    for e in ENTRIES:
        entries.add_row(esc(e.id), esc(f"{e.method} {e.ref}"), esc(e.participation), esc(e.guarantee),
                        esc(str(len(e.flags))))
    con.print(entries)


def _locator(source: str) -> str:
    """'Theorem 1' from '000_cd604....txt, Theorem 1': the paper column names the paper, the seed file is noise
    (`show ID` prints the full provenance)."""
    head, _, rest = str(source).partition(", ")
    return rest if head.endswith(".txt") and rest else str(source)


@click.command("show")
@_ID
@_FILE
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--latex", "as_latex", is_flag=True, help="Print the conclusion as LaTeX only.")
def show_cmd(result_id: str | None, toml_file: str | None, as_json: bool, as_latex: bool) -> None:
    """Symbols, hypotheses, conclusion, provenance and variant flags of RESULT_ID (or ID@variant)."""
    from bounds import variants
    from bounds.survey_rows import entry

    found = entry(result_id) if result_id and toml_file is None else None
    if found is not None:
        _show_entry(found, as_json)
        return
    res, _ = _resolve(result_id, toml_file)
    if as_json:
        from reports.cli.decision_lines import decision_json, result_decision

        echo_json({**res.to_dict(), "decision": decision_json(result_decision(res, toml_file is not None))})
        return
    if as_latex:
        click.echo(res.latex())
        return
    # read from the result, not from to_dict(): that renders every term and hypothesis as LaTeX too,
    # which the text view does not show (about a tenth of `show`'s time, issue 30)
    from sympy import sstr

    from reports.cli.decision_lines import decision_lines, result_decision

    prov = res.provenance
    con = console()
    con.print(f"[bold]{esc(res.key)}[/bold]  " + esc(f"{res.title}  ({res.kind.value}; variant {res.variant}"
              + (", reconstructed" if res.reconstructed else "") + ")"))
    decision = result_decision(res, toml_file is not None)
    for line in decision_lines(decision) if decision is not None else ["decision: not decided (a result read from "
                                                                        "a file; 'convbound decide' decides registered "
                                                                        "results)"]:
        con.print(esc(line))
    con.print(esc(f"paper: {prov.cited()}"))
    con.print(esc(f"seed text: {prov.seed}" + (f" (spec {prov.spec})" if prov.spec else "")))
    con.print(esc(f"status: {', '.join(s.value for s in res.status)}"))
    # a path is never folded: a reader copies it whole (a temporary folder's path passes 80 columns)
    con.print(esc(f"origin: {res.origin if toml_file is None else 'file ' + toml_file}"), soft_wrap=True)
    con.print(esc(f"LHS measures: {res.lhs}"))
    con.print("[bold]conclusion:[/bold]")
    click.echo(res.text().split("\n", 2)[2])
    table = Table("symbol", "meaning", "domain", title="symbols")
    for s in res.symbols:
        table.add_row(esc(s.name + (f" (or {s.name}2 = square)" if s.squared_input else "")), esc(s.meaning),
                      esc(s.domain.describe + (" (user-supplied, not in the sources)" if s.unrecovered else "")))
    con.print(table)
    for agg in res.aggregates:
        con.print(esc(f"{agg.name} = {sstr(agg.display)}  (from {', '.join(agg.inputs)})"))
    if res.rate:
        con.print(esc("rate: " + ", ".join(f"{k}^{v}" for k, v in res.rate)))
    for flag in res.flags:
        con.print(f"[yellow]flag:[/yellow] {esc(flag)}")
    con.print(esc("UNRECOVERED: " + _unrecovered(res)))
    others = [v.key for v in variants(res.id) if v.key != res.key] if toml_file is None else []
    if others:
        con.print(esc("other variants: " + ", ".join(others)))


def _unrecovered(res) -> str:
    """What the sources do not give for ``res``: its unrecovered symbols and flags, or 'nothing marked'."""
    parts = [f"{s.name} ({s.meaning})" for s in res.symbols if s.unrecovered]
    parts += [f for f in res.flags if "UNRECOVERED" in f]
    parts += [f"{u.name}: {u.needs}" for u in res.assumptions if "UNRECOVERED" in u.needs]
    if not parts and "UNRECOVERED" in {s.value for s in res.status}:
        parts.append("status UNRECOVERED without a named part (see the flags)")
    return "; ".join(parts) if parts else "nothing is marked UNRECOVERED"


def _show_entry(e, as_json: bool) -> None:
    """A survey row with no stated rate: its participation model, guarantee, conditions and flags."""
    if as_json:
        echo_json(e.to_dict())
        return
    con = console()
    con.print(f"[bold]{esc(e.id)}[/bold]  " + esc(f"{e.method} {e.ref}  (survey row with no stated rate; not a result)"))
    con.print(esc(f"source: {e.seed}, {e.locator} (spec survey_methods.md)"))
    con.print(esc(f"participation model: {e.participation}"))
    con.print(esc(f"statement: {e.guarantee}"))
    con.print(esc("hypotheses stated: " + ("; ".join(e.conditions) if e.conditions else "none")))
    for flag in e.flags:
        con.print(f"[yellow]flag:[/yellow] {esc(flag)}")
    con.print(esc(f"UNRECOVERED: {e.unrecovered}"))


@click.command("check")
@_ID
@_KV
@_FILE
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def check_cmd(result_id: str | None, assignments: tuple[str, ...], toml_file: str | None, as_json: bool) -> None:
    """Evaluate RESULT_ID's bound at KEY=VALUE and check each hypothesis (margin >= 0 = slack).

    Vectors are comma-separated (r=0.375,0.5), matrices use ';' between rows; sigma2=... gives sigma^2.
    model=NAME|FILE (an availability model, as in `region --model`) decides whether the rates r are
    achievable, for the F3AST results that assume it; without it that hypothesis is not checked.
    """
    from bounds import variants

    res, assignments = _resolve(result_id, toml_file, assignments)
    values = parse_assignments(assignments)
    model_spec = values.pop(MODEL_KEY, None)
    report = res.check(values, _decisions(res, values, model_spec))
    out = report.to_dict()
    from reports.cli.decision_lines import decision_json, result_decision

    decision = result_decision(res, toml_file is not None)
    out.update({"variant": res.variant, "kind": res.kind.value, "reconstructed": res.reconstructed,
                "origin": res.origin if toml_file is None else f"file {toml_file}",
                "decision": decision_json(decision)})
    if model_spec is not None:
        out["model"] = model_spec
    others = variants(res.id) if toml_file is None else []
    out["variants"] = [_variant_summary(v, values, model_spec) for v in others if v.key != res.key]
    if as_json:
        echo_json(out)
        return
    _print_check(res, out, decision)


MODEL_KEY = "model"


def _decisions(res, values: dict, model_spec: str | None) -> dict:
    """Verdicts on 'rates r achievable' from an availability model (bounds cannot import rate_region)."""
    if model_spec is None:
        return {}
    from bounds.core.errors import UserInputError

    items = [u for u in res.participation if u.kind == "static-rate" and "r" in u.params]
    if not items:
        raise UserInputError(f"model= applies to results that assume rates r achievable under an availability "
                             f"model (F3AST.L3.4 and its variants); {res.key} does not")
    if "r" not in values:
        raise UserInputError("model= decides whether r is achievable: give r=... as well (e.g. r=0.375,0.5)")
    from bounds.evaluate import bind
    from rate_region.availability import make_cap
    from rate_region.modelfile import get_model
    from rate_region.region import membership

    r = bind(res, {"r": values["r"]})["r"]
    if r.ndim != 1:
        raise UserInputError(f"model= checks one rate vector; got r with shape {r.shape}")
    from rate_region.modelfile import is_model_file

    named = not is_model_file(model_spec)
    model = get_model(model_spec, r.size if named and model_spec not in ("table1", "table1-markov") else None)
    cap = make_cap(None, model.cap)
    m = membership(model, cap, r)
    evidence = (f"model {model_spec} (with its own cap): r is {'achievable' if m.achievable else 'NOT achievable'} "
                f"({m.method}); {m.message}")
    out: dict[str, tuple[bool | None, str]] = {u.name: (bool(m.achievable), evidence) for u in items}
    from bounds.f3ast import UNCORRELATED

    if any(a.name == UNCORRELATED.name for a in res.assumptions):
        out[UNCORRELATED.name] = model.uncorrelated()
    return out


def _variant_summary(res, values, model_spec=None) -> dict:
    from bounds.core.errors import UserInputError

    try:
        report = res.check(values, _decisions(res, values, model_spec))
        return {"key": res.key, **{k: v for k, v in report.to_dict().items() if k != "id"}}
    except UserInputError as exc:
        return {"key": res.key, "error": str(exc)}


def _fmt_value(x) -> str:
    if x is None:
        return ""
    if isinstance(x, list):
        return "[" + ", ".join(_fmt_value(v) for v in x[:6]) + (", ..." if len(x) > 6 else "") + "]"
    return f"{x:.6g}" if isinstance(x, (int, float)) else str(x)


def _print_check(res, out: dict, decision=None) -> None:
    from reports.cli.decision_lines import decision_lines

    con = console()
    # the decision first; what follows is this one instance's evidence (the bound and hypotheses at these values)
    for line in decision_lines(decision) if decision is not None else []:
        con.print(esc(line))
    if decision is not None:
        con.print(esc("at these values (one instance: evidence, not the decision):"))
    verdict = _verdict_line(out)
    con.print(f"[bold]{esc(res.key)}[/bold] ({res.kind.value}) bound = {esc(_fmt_value(out['value']))}   {verdict}")
    if out.get("origin", "built-in") != "built-in":
        con.print(esc(f"  origin: {out['origin']}"), soft_wrap=True)  # a path is never folded (see show)
    for name, val in out["terms"].items():
        con.print(f"  {esc(name):<24} {esc(_fmt_value(val))}")
    for note in out.get("notes", []):
        con.print(f"[yellow]note:[/yellow] {esc(note)}")
    table = Table("hypothesis", "holds", "lhs", "rhs", "margin / reason")
    for c in out["conditions"]:
        h = c["holds"]
        mark = ("[green]yes[/green]" if h is True else "[red]NO[/red]" if h is False else
                "[blue]condition[/blue]" if h is None and c.get("open") == "condition" else
                "[yellow]unverified[/yellow]" if h is None else esc(_fmt_value(h)))
        detail = _fmt_value(c["margin"]) if c["margin"] is not None and not c["reason"] else c["reason"]
        table.add_row(esc(c["name"]), mark, esc(_fmt_value(c["lhs"])), esc(_fmt_value(c["rhs"])),
                      esc(detail))
    if out["conditions"]:
        con.print(table)
    for v in out["variants"]:
        if "error" in v:
            con.print(f"  variant {esc(v['key'])}: {esc(v['error'])}")
        else:
            con.print(f"  variant {esc(v['key'])}: bound = {esc(_fmt_value(v['value']))}, {_verdict_line(v)}")


def _verdict_line(out: dict) -> str:
    """The check's verdict, keeping apart what no number can decide (given) from what lacks constants (needs)."""
    given = f" given {', '.join(out['given'])}" if out.get("given") else ""
    needs = f": needs {', '.join(out['needs'])} (constants the sources do not give)" if out.get("needs") else ""
    verdict = out.get("verdict")
    if verdict == "holds":
        return "[green]all hypotheses hold[/green]" if out["conditions"] else "no hypotheses"
    if verdict == "fails":
        return "[red]a hypothesis fails[/red]"
    if verdict == "holds given conditions":
        numeric = [c for c in out.get("conditions", []) if c.get("holds") is not None]
        none = "" if numeric else "; no numeric hypothesis to check"
        return f"[blue]holds{esc(given)}[/blue] (conditions no number decides{none})"
    return f"[yellow]unverified{esc(needs or ' (see the reasons)')}[/yellow]" + (
        f"; conditions{esc(given)}" if given else "")


@click.command("solve")
@_ID
@_KV
@_FILE
@click.option("--for", "symbol", required=True, help="The symbol to solve for (e.g. eta_c, q, R).")
@click.option("--target", default=None, help="Accuracy the bound must reach (e.g. 0.01).")
@click.option("--mode", type=click.Choice(["max", "min", "argmin", "target"]), default=None,
              help="max/min allowed by the hypotheses, argmin of the bound, or target (default: "
                   "target with --target, else the symbol's natural choice).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def solve_cmd(result_id: str | None, assignments: tuple[str, ...], toml_file: str | None, symbol: str,
              target: str | None, mode: str | None, as_json: bool) -> None:
    """Solve RESULT_ID for one symbol with the others fixed at KEY=VALUE."""
    res, assignments = _resolve(result_id, toml_file, assignments)
    eps = None if target is None else parse_number("--target", target)
    sol = res.solve(symbol, parse_assignments(assignments), target=eps, mode=mode)
    if as_json:
        echo_json(sol.to_dict())
    elif sol.success:
        click.echo(f"{sol.symbol} = {sol.value:.10g}  ({sol.message})" + (f"; bound there = {sol.bound:.7g}" if sol.bound is not None else ""))
    else:
        click.echo(f"no solution: {sol.message}")
    if not sol.success:
        raise click.exceptions.Exit(1)
