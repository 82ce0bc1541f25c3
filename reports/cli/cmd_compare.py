"""`convbound compare`: every encoded result that covers a setting, with its bound at R and rounds for eps."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from reports.cli.common import (
    atomic_write_bytes,
    check_output_path,
    drawing_notes,
    echo_json,
    esc,
    id_column,
    out_console,
    parse_assignments,
    short_text,
    text_column,
)

PATTERNS = ("iid", "full", "snapshot", "regularized", "cyclic", "static-rate", "asynchronous", "random", "adaptive")
MEASURES = ("grad-sq", "grad", "gap", "dist-sq")
CONVEXITY = ("strongly-convex", "convex", "nonconvex")


def register(cli: click.Group) -> None:
    cli.add_command(compare_cmd)


@click.command("compare")
@click.argument("assignments", nargs=-1, metavar="KEY=VALUE...")
@click.option("--pattern", required=True, type=click.Choice(PATTERNS),
              help="Participation: iid (S of N uniformly), full, snapshot, regularized, cyclic, static-rate, ...")
@click.option("--measure", type=click.Choice(MEASURES), default="grad-sq", show_default=True,
              help="What eps bounds: grad-sq E||grad f||^2 <= eps, grad ||grad f|| (E||grad f||^2 <= eps^2), gap, "
                   "dist-sq.")
@click.option("--convexity", type=click.Choice(CONVEXITY), default="nonconvex", show_default=True,
              help="What the setting's f is; a result assuming more does not cover it.")
@click.option("--only", "only", default=None, metavar="ID,ID",
              help="Compare only these results (ID or ID@variant, comma-separated).")
@click.option("--plot", default=None, metavar="FILE.png", help="Draw eps reached against R for the chosen results.")
@click.option("--plot-results", "plot_keys", default=None, metavar="ID,ID",
              help="Results on the plot (default: up to 10 covered ones).")
@click.option("--force", is_flag=True, help="Overwrite the --plot file (a regular file only).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def compare_cmd(assignments: tuple[str, ...], pattern: str, measure: str, convexity: str, only: str | None,
                plot: str | None, plot_keys: str | None, force: bool, as_json: bool) -> None:
    """Results whose hypotheses the setting meets (KEY=VALUE in the common notation: L, mu, sigma, zeta_G,
    Delta0, D0, N, S, tau, eps, R, ...; an input only one result has under its own name, e.g. eta_c),
    sorted by rounds for eps (or eps reached at R), and why each other result does not cover it.
    ORDER results are evaluated with constant 1 and marked so.
    \f
    The reason for the parameter count: click passes one parameter per option.
    """
    from bounds.compare import compare, make_setting
    from bounds.core.errors import UserInputError

    if plot is not None:
        check_output_path(plot, force=force)
        if Path(plot).suffix.lower() not in (".png", ".pdf", ".svg"):
            raise UserInputError(f"--plot {short_text(plot)}: unsupported format; use .png, .pdf or .svg")
    if plot_keys is not None and plot is None:
        raise UserInputError("--plot-results goes with --plot FILE.png")
    setting = make_setting(parse_assignments(assignments), pattern=pattern, measure=measure, convexity=convexity)
    keys = _keys("--only", only)
    result = compare(setting, keys or None)
    chosen = _keys("--plot-results", plot_keys)
    covered = {r.key for r in (*result.covered, *result.undecided)}
    bad = [k for k in chosen if k not in covered]
    if bad:
        raise UserInputError(f"--plot-results {bad[0]} does not cover this setting; covered: "
                             + (", ".join(sorted(covered)) or "none"))
    if plot is not None:
        if not covered:
            raise UserInputError("--plot: no result covers this setting, nothing to draw")
        _write_plot(result, chosen, plot, force)
    if as_json:
        echo_json(result.to_dict() | ({"plot": plot} if plot else {}))
        return
    _print(result)
    if plot:
        Console().print(esc(f"plot written to {plot}"))


def _keys(option: str, text: str | None) -> list[str]:
    from bounds import get
    from bounds.core.errors import UserInputError

    if text is None:
        return []
    keys = [k.strip() for k in text.split(",") if k.strip()]
    if not keys:
        raise UserInputError(f"{option} is empty; give IDs separated by commas (e.g. SCAF.T1@sc,FAST.T1)")
    return [get(k).key for k in keys]  # unknown IDs: one line with close matches


def _write_plot(result, keys: list[str], path: str, force: bool) -> None:
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from reports.compare_section import compare_figure

    with drawing_notes():
        fig = compare_figure(result, keys)
        FigureCanvasAgg(fig)
        buf = io.BytesIO()
        fig.savefig(buf, format=Path(path).suffix.lower().lstrip("."))
    atomic_write_bytes(path, buf.getvalue(), force=force)


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.4g}"


def _print(result) -> None:
    import math

    from reports.compare_section import comparison_rows

    s = result.setting
    con = out_console()
    con.print(esc(f"setting: pattern {s.pattern}, {s.convexity}, measure {s.measure}; "
                  + ", ".join(f"{k}={v if isinstance(v, tuple) else format(v, 'g')}" for k, v in s.values.items())
                  + "".join(f", {k}={v:g}" for k, v in s.extras.items())))
    rows = comparison_rows(result)
    by = "rounds for eps" if s.eps is not None else "eps reached at R"
    n = len(result.covered)
    groups = ((f"{n} result{'s' if n != 1 else ''} cover{'' if n != 1 else 's'} this setting: hypotheses met "
               f"(sorted by {by})", lambda r: r["covered"]),
              (f"{len(result.undecided)} with hypotheses this setting cannot decide: values shown, not covered "
               f"(supply the constants they need to decide them)", lambda r: r["undecided"]))
    for i, (title, keep) in enumerate(groups):
        if i > 0 and not result.undecided:
            continue  # the covered table is always shown (empty says so); the undecided one only when it has rows
        kept = list(filter(keep, rows))
        table = Table(id_column("result", (r["key"] for r in kept)), text_column("algorithm"), "rounds for eps",
                      "eps reached at R", text_column("kind; reading; conditions"), title=title)
        for r in kept:
            rounds = "not reachable" if s.eps is not None and r["rounds"] is None else _fmt(r["rounds"])
            reached = _fmt(r["reached"]) if r["reached"] is None or math.isfinite(r["reached"]) else "inf"
            table.add_row(esc(r["key"]), esc(r["algorithm"]), rounds, reached, esc(r["short"]))
        con.print(table)
    rest = [r for r in rows if not r["covered"] and not r["undecided"]]
    other = Table(id_column("result", (r["key"] for r in rest)), text_column("why it does not cover this setting"),
                  title=f"{len(result.other)} other results")
    for r in rest:
        other.add_row(esc(r["key"]), esc(r["note"]))
    con.print(other)
    con.print("ORDER results use every hidden constant = 1: compare their shapes, not their values. "
              "--json lists every condition in full.")

