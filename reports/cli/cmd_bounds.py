"""`convbound list | show | check | solve`: the encoded results of `bounds`."""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table

from reports.cli.common import echo_json, esc, parse_assignments, parse_number

_KV = click.argument("assignments", nargs=-1, metavar="KEY=VALUE...")


def register(cli: click.Group) -> None:
    cli.add_command(list_cmd)
    cli.add_command(show_cmd)
    cli.add_command(check_cmd)
    cli.add_command(solve_cmd)


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def list_cmd(as_json: bool) -> None:
    """Every encoded result: ID, paper, kind, title (variants as ID@variant)."""
    from bounds import all_results

    rows = [{"id": r.id, "key": r.key, "paper": r.paper, "kind": r.kind.value, "title": r.title,
             "variant": r.variant, "reconstructed": r.reconstructed} for r in all_results()]
    if as_json:
        echo_json(rows)
        return
    table = Table("ID (ID@variant)", "paper", "kind", "title", title=f"{len(rows)} encoded results")
    for row in rows:
        table.add_row(esc(row["key"]), esc(row["paper"]), esc(row["kind"]),
                      esc(str(row["title"]) + (" [reconstructed]" if row["reconstructed"] else "")))
    Console().print(table)


@click.command("show")
@click.argument("result_id")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--latex", "as_latex", is_flag=True, help="Print the conclusion as LaTeX only.")
def show_cmd(result_id: str, as_json: bool, as_latex: bool) -> None:
    """Symbols, hypotheses, conclusion, provenance and variant flags of RESULT_ID (or ID@variant)."""
    from bounds import get, variants

    res = get(result_id)
    if as_json:
        echo_json(res.to_dict())
        return
    if as_latex:
        click.echo(res.latex())
        return
    d = res.to_dict()
    con = Console()
    con.print(f"[bold]{esc(res.key)}[/bold]  " + esc(f"{res.title}  ({res.kind.value}; variant {res.variant}"
              + (", reconstructed" if res.reconstructed else "") + ")"))
    con.print(esc(f"source: {d['provenance']['seed']}, {d['provenance']['locator']} {d['provenance']['equation']}".rstrip()))
    con.print(esc(f"status: {', '.join(d['status'])}"))
    con.print(esc(f"LHS measures: {res.lhs}"))
    con.print("[bold]conclusion:[/bold]")
    click.echo(res.text().split("\n", 2)[2])
    table = Table("symbol", "meaning", "domain", title="symbols")
    for s in res.symbols:
        table.add_row(esc(s.name + (f" (or {s.name}2 = square)" if s.squared_input else "")), esc(s.meaning),
                      esc(s.domain.describe + (" (user-supplied, not in the sources)" if s.unrecovered else "")))
    con.print(table)
    for agg in d["aggregates"]:
        con.print(esc(f"{agg['name']} = {agg['definition']}  (from {', '.join(agg['inputs'])})"))
    if res.rate:
        con.print(esc("rate: " + ", ".join(f"{k}^{v}" for k, v in res.rate)))
    for flag in res.flags:
        con.print(f"[yellow]flag:[/yellow] {esc(flag)}")
    others = [v.key for v in variants(res.id) if v.key != res.key]
    if others:
        con.print(esc("other variants: " + ", ".join(others)))


@click.command("check")
@click.argument("result_id")
@_KV
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def check_cmd(result_id: str, assignments: tuple[str, ...], as_json: bool) -> None:
    """Evaluate RESULT_ID's bound at KEY=VALUE and check each hypothesis (margin >= 0 = slack).

    Vectors are comma-separated (r=0.375,0.5), matrices use ';' between rows; sigma2=... gives sigma^2.
    """
    from bounds import get, variants

    res = get(result_id)
    values = parse_assignments(assignments)
    report = res.check(values)
    out = report.to_dict()
    out.update({"variant": res.variant, "kind": res.kind.value, "reconstructed": res.reconstructed})
    out["variants"] = [_variant_summary(v, values) for v in variants(res.id) if v.key != res.key]
    if as_json:
        echo_json(out)
        return
    _print_check(res, out)


def _variant_summary(res, values) -> dict:
    from bounds.errors import UserInputError

    try:
        return {"key": res.key, **{k: v for k, v in res.check(values).to_dict().items() if k != "id"}}
    except UserInputError as exc:
        return {"key": res.key, "error": str(exc)}


def _print_check(res, out: dict) -> None:
    con = Console()
    verdict = {True: "[green]all hypotheses hold[/green]", False: "[red]a hypothesis fails[/red]",
               None: "[yellow]hypotheses unverified[/yellow]"}[out["holds"]]
    con.print(f"[bold]{esc(res.key)}[/bold] " + esc(f"({res.kind.value}) bound = {out['value']:.7g}") + f"   {verdict}")
    for name, val in out["terms"].items():
        con.print(esc(f"  {name:<24} {val:.7g}"))
    table = Table("hypothesis", "holds", "lhs", "rhs", "margin")
    for c in out["conditions"]:
        mark = {True: "[green]yes[/green]", False: "[red]NO[/red]", None: "[yellow]unverified[/yellow]"}[c["holds"]]
        fmt = lambda x: "" if x is None else f"{x:.6g}"  # noqa: E731
        table.add_row(esc(c["name"]), mark, esc(fmt(c["lhs"])), esc(fmt(c["rhs"])), esc(fmt(c["margin"]) or c["reason"]))
    if out["conditions"]:
        con.print(table)
    for v in out["variants"]:
        if "error" in v:
            con.print(esc(f"  variant {v['key']}: {v['error']}"))
        else:
            con.print(esc(f"  variant {v['key']}: bound = {v['value']:.7g}, hypotheses hold: {v['holds']}"))


@click.command("solve")
@click.argument("result_id")
@_KV
@click.option("--for", "symbol", required=True, help="The symbol to solve for (e.g. eta_c, q, R).")
@click.option("--target", default=None, help="Accuracy the bound must reach (e.g. 0.01).")
@click.option("--mode", type=click.Choice(["max", "min", "argmin", "target"]), default=None,
              help="max/min allowed by the hypotheses, argmin of the bound, or target (default: "
                   "target with --target, else the symbol's natural choice).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def solve_cmd(result_id: str, assignments: tuple[str, ...], symbol: str, target: str | None,
              mode: str | None, as_json: bool) -> None:
    """Solve RESULT_ID for one symbol with the others fixed at KEY=VALUE."""
    from bounds import get

    res = get(result_id)
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
