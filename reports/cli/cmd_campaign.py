"""`convbound campaign [ID...|all]`: gather the evidence the store lacks about each result, keep it, decide.

The logic lives in ``verify.evidence.campaign`` (pieces: hypotheses, orders per ray axis, PEP settings that
cover the result, quick verification checks, a falsify search per scenario). Records go to the user's store
(``--store``, else ``$CONVBOUND_STORE``, else the per-user default: a campaign writes by default, it is what it
is for). Exit 0 when the campaign ran (whatever the decisions), 130 after Ctrl-C (every finished piece kept),
2 on bad input.
"""

from __future__ import annotations

import click

from reports.cli.common import COUNT, FINITE, check_workers, progress_bar, scheduler_options, seed_option, store_option

#: The most evaluations per orders ray a campaign takes (the orders table's default is 10).
MAX_POINTS = 1000


def _refuse_budget(budget: int, time_limit: float) -> None:
    """The search's own refusals of ``--budget`` (its bookkeeping must fit in memory), before any piece runs."""
    from bounds.core.limits import refuse_if_too_big, search_cost

    refuse_if_too_big(search_cost(budget, time_limit), "lower --budget", ("--budget", budget))


def register(cli: click.Group) -> None:
    cli.add_command(campaign_cmd)


@click.command("campaign")
@click.argument("targets", nargs=-1, metavar="[ID...|all]")
@store_option(help="The evidence store to complete (default: $CONVBOUND_STORE, else the per-user default path; "
                   "'convbound store path' prints it).")
@seed_option(help="Seed of every seeded piece (orders, checks, searches); a rerun at the same seed skips what the "
                  "store has (0 <= seed < 2^63).")
@click.option("--budget", type=COUNT, default=100, show_default=True, help="search points per scenario of a result")
@click.option("--time", "time_limit", type=FINITE, default=120.0, show_default=True,
              help="CPU seconds of gathering per result (the pieces' own; the search gets what the cheaper pieces "
                   "left)")
@click.option("--points", type=click.IntRange(min=4), default=6, show_default=True,
              help="evaluations per orders ray (at least 4)")
@click.option("--no-shipped", is_flag=True, help="The closing table decides from the campaign's store alone.")
@click.option("--json", "as_json", is_flag=True, help="print the closing decisions as JSON")
@scheduler_options
def campaign_cmd(targets, store, seed, budget, time_limit, points, no_shipped, as_json, scheduler=None,
                 workers=None) -> None:
    """For each result (ID, ID@variant, several, or all), gather what the store lacks, cheapest decisive first
    (hypotheses, orders along each ray, PEP where covered, quick verification checks, a search), stop at a
    refutation or after --time CPU seconds, keep every finished piece in the store, and print the decisions."""
    from bounds import all_results, get
    from bounds.core.errors import UserInputError
    from verify.evidence.campaign import CampaignOptions
    from verify.evidence.store import user_path

    if time_limit <= 0:
        raise UserInputError(f"--time {time_limit:g}: give a positive number of CPU seconds per result")
    if not targets:
        raise UserInputError("give result IDs (FAST.T1, FAST.T2@corrected, ...) or all")
    if points > MAX_POINTS:
        raise UserInputError(f"--points {points}: a ray's exponent is fitted on 4 to {MAX_POINTS} evaluations; give "
                             f"at most {MAX_POINTS}")
    _refuse_budget(budget, time_limit)
    keys = [r.key for r in all_results()] if list(targets) == ["all"] else [get(t).key for t in targets]
    path = user_path(store)
    announce = check_workers(scheduler, workers)
    announce()
    opts = CampaignOptions(seed=seed, budget=budget, time_limit=time_limit, points=points, scheduler=scheduler,
                           workers=workers)
    log = _run(keys, path, opts)
    _summary(log, path)
    _decide(keys, str(path), no_shipped, as_json)


def _run(keys, path, opts):
    from rich.progress import BarColumn, TextColumn, TimeElapsedColumn

    from verify.evidence.campaign import run_campaign

    with progress_bar(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                      TimeElapsedColumn()) as bar:
        task = bar.add_task("campaign", total=None)

        def progress(done: int, total: int, label: str) -> None:
            bar.update(task, completed=done, total=total, description=f"campaign {label}")

        try:
            return run_campaign(keys, path, opts, progress=progress)
        except KeyboardInterrupt:
            click.echo(f"interrupted: every finished piece is kept in {path}; rerun the same command to resume",
                       err=True)
            raise SystemExit(130) from None


def _summary(log, path) -> None:
    click.echo(f"campaign: {log.gathered} piece(s) gathered, {log.skipped} already in the store ({path}); "
               f"{len(log.refused)} refused, {len(log.failed)} failed", err=True)
    for line in log.refused + log.failed:
        click.echo(f"  {line}", err=True)
    for key, why in log.stopped.items():
        click.echo(f"  {key}: stopped: {why}", err=True)


def _decide(keys, store: str, no_shipped: bool, as_json: bool) -> None:
    from bounds import get
    from reports.cli.cmd_decide import _print
    from reports.cli.common import echo_json
    from verify.decision_sources import decide_with, needed_keys, stored_evidence

    results = [get(k) for k in keys]
    stored = stored_evidence(store, shipped=not no_shipped, keys=needed_keys(results))
    decisions = decide_with(results, [], [], stored=stored)
    if as_json:
        echo_json([d.to_dict() for d in decisions])
    else:
        _print(decisions)
