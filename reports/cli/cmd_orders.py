"""`convbound orders ID|all`: asymptotic orders of a result's LHS and RHS along rays of its scenario.

One row per (base point, ray): the LHS's fitted exponent with its interval, the RHS's on the same points and
its terms' exponents in the limit, and the finding (fails far along, with the confirmed violating point;
loose by an order; same order; not fitted, with why). The logic lives in ``verify.search.orders``. Exit 2 on bad input.
"""

from __future__ import annotations

import click

from reports.cli.common import COUNT, echo_json, save_evidence, seed_option, short_text, write_store_options

#: Evaluations per ray at most (``--points``): each is an exact evaluation, and 1,000 on one ray already take
#: minutes; refused before any point is placed (``--points 10^9`` would ask for gigabytes of points).
MAX_POINTS = 1_000


def _scenarios(which: str) -> list:
    from bounds.core.errors import UserInputError
    from reports.cli.cmd_falsify import _scenario
    from verify.scenarios import registry

    if which == "all":
        return [_scenario(s) for s in registry()]
    words = [w.strip() for w in which.split(",")]
    if not any(words):
        raise UserInputError(f"orders {which!r}: give a scenario id (see 'convbound falsify --help'), "
                             "a comma-separated list of them, or all")
    if "" in words:
        raise UserInputError(f"orders {which!r}: an empty scenario id between commas; give ids separated by "
                             "single commas (FAST.T1,FAST.T2)")
    if len(set(words)) < len(words):
        twice = sorted({w for w in words if words.count(w) > 1})
        raise UserInputError(f"orders {which!r}: {', '.join(twice)} given twice; give each scenario once")
    return [_scenario(w) for w in words]


def _line(row) -> str:
    from verify.verdict import finding_kind, is_finding

    v = row.violation or {}
    conf = v.get("confirmation") or {}
    tail = ""
    if row.finding == "fails far along":
        tail = (f"; {finding_kind(conf['verdict'])} confirmed ({conf['verdict']}) at {row.ray.split()[0]} = "
                f"{v.get('point', {}).get(v.get('axis'))} (LHS/RHS {conf.get('ratio', v.get('ratio')):.4g})"
                if is_finding(str(conf.get("verdict"))) else f"; {conf.get('why', 'not claimed')}")
    lead = ", ".join(f"{k} {e:.3g}" if isinstance(e, float) else f"{k}: {e}" for k, e in row.rhs_leading.items())
    wide = (f" [{row.widened}]" if row.widened else "") + (f" [left out before the fitted range: {row.dropped}]"
                                                           if row.dropped else "")
    return (f"{row.scenario:26s} {row.base_label:24s} {row.ray:40s} {row.finding:16s} {row.why}{tail}{wide}"
            + (f" [RHS terms' exponents at the limit: {lead}]" if lead else ""))


def register(cli: click.Group) -> None:
    cli.add_command(orders_cmd)


@click.command("orders")
@click.argument("which", metavar="ID|ID,...|all")
@click.option("--ray", "only", default=None, metavar="AXIS,...",
              help="only the rays of these axes (e.g. eta_frac,R); default: every ray")
@click.option("--no-term-bases", is_flag=True, help="rays from the default point only (not from each term-dominant point)")
@click.option("--no-tight", is_flag=True,
              help="no rays from each ray's tight base (greedy moves of the other axes raising LHS/RHS at the ray's end)")
@click.option("--confirm-trials", type=click.IntRange(min=2, max=2**63 - 1), default=256, show_default=True,
              help="trials of the Monte Carlo cross-check of a confirmed violation")
@seed_option(help="Seed of the term-dominant points' draws and the confirmation (0 <= seed < 2^63).")
@click.option("--points", type=COUNT, default=None, help="evaluations per ray (default 10; at least 4, at most 1,000)")
@click.option("--json", "as_json", is_flag=True, help="print the table as JSON")
@write_store_options
def orders_cmd(which, only, no_term_bases, no_tight, confirm_trials, seed, points, as_json, store=None, no_store=False):
    """Exponents of the measured LHS and of the RHS along each ray of ID's space (exact scoring only)."""
    from bounds.core.errors import UserInputError
    from bounds.core.limits import refuse_trials_floor
    from verify.evidence.store import writing_path
    from verify.search import orders
    from verify.search.rays import order_rays

    store_path = writing_path(store, no_store)
    if points is not None:
        if points < 4:
            raise UserInputError(f"--points {points}: a slope with an interval needs at least 4 points")
        if points > MAX_POINTS:
            raise UserInputError(f"--points {points}: at most {MAX_POINTS:,} evaluations per ray (each is an exact "
                                 "evaluation; the default is 10)")
    refuse_trials_floor(confirm_trials, "--confirm-trials")  # before any ray is walked
    scs = _scenarios(which)
    words = [w.strip() for w in only.split(",")] if only is not None else None
    if words is not None and "" in words:
        raise UserInputError(f"--ray {short_text(only)!r}: an empty axis name; give scale axes separated by single "
                             "commas (eta_frac,R)")
    if words is not None:
        axes = {r.axis for sc in scs for r in order_rays(sc.space)}
        bad = [w for w in words if w not in axes]
        if bad or not words:
            raise UserInputError(f"--ray {only!r}: not a scale axis of {which}; scale axes: {', '.join(sorted(axes))}")
    from reports.cli.common import progress_bar

    by_scenario = {}
    # a table takes minutes: a bar on a terminal (nothing when piped) names the scenario being measured
    with progress_bar() as bar:
        task = bar.add_task("orders", total=len(scs))
        for sc in scs:
            bar.update(task, description=f"orders of {sc.id}: rays from each base point")
            by_scenario[sc.id] = orders.order_table(sc, terms=not no_term_bases, tight=not no_tight, only=words,
                                                    confirm_trials=confirm_trials, seed=seed,
                                                    points=points or orders.POINTS)
            bar.advance(task)
    rows = [r for got in by_scenario.values() for r in got]

    def records():
        from verify.evidence.records import orders_record

        return [orders_record(sc.result, sc.id, by_scenario[sc.id], seed=seed, points=points or orders.POINTS,
                              axes=words, terms=not no_term_bases, tight=not no_tight) for sc in scs]

    save_evidence(store_path, records)
    if as_json:
        echo_json({"kind": "orders", "seed": seed, "decades": orders.DECADES, "order_tol": orders.ORDER_TOL,
                   "confirm_tol": orders.CONFIRM_TOL, "loose_gap": orders.LOOSE_GAP, "rows": [r.to_dict() for r in rows]})
        return
    for r in rows:
        click.echo(_line(r))
    click.echo(summary_line(rows))


def summary_line(rows) -> str:
    """The table's closing line: counts per finding and what the exponents are evidence of."""
    fails = sum(r.finding == "fails far along" for r in rows)
    return (f"{len(rows)} rays; {fails} fail far along, {sum(r.finding == 'loose' for r in rows)} loose, "
            f"{sum(r.finding == 'not fitted' for r in rows)} not fitted. Exponents are measured over each "
            "ray's range (exact evaluations): evidence about the range, not a proof about the limit.")
