"""`convbound verify`: empirical certificates, rate fits and negative controls with verdicts."""

from __future__ import annotations

from typing import Any

import click

from reports.cli.common import (
    COUNT,
    PIPE_WIDTH,
    check_device,
    check_workers,
    echo_json,
    esc,
    id_column,
    out_console,
    progress_bar,
    save_evidence,
    scheduler_options,
    seed_option,
    write_store_options,
)


def _styles() -> dict[str, str]:
    """Colour of each verdict, keyed by the one list of verdict names (verify.verdict)."""
    from verify.verdict import (
        HOLDS,
        INAPPLICABLE,
        INCONCLUSIVE,
        PENDING,
        UNVERIFIED,
        VERDICTS,
        VIOLATED,
        VIOLATED_UNLESS,
    )

    colours = {HOLDS: "green", VIOLATED: "red", VIOLATED_UNLESS: "red", INCONCLUSIVE: "yellow", UNVERIFIED: "cyan",
               INAPPLICABLE: "magenta", PENDING: "dim"}
    return {v: colours.get(v, "") for v in VERDICTS}


def _fmt(x) -> str:
    return "-" if x is None or x != x else f"{x:.3g}"


def _check_instance_run(path: str, device: str) -> None:
    """Before any work: the instance file itself, options it would ignore, its size and its device.

    A replay reruns the file's confirmation exactly (its trials, seed and level, in this process), so
    ``--trials``, ``--seed``, ``--quick``, ``--scheduler`` and ``--workers`` given with ``--instance`` are
    refused rather than silently ignored.
    """
    from click.core import ParameterSource

    from bounds.core.errors import UserInputError
    from bounds.core.limits import per_trial_cost, refuse_if_too_big, refuse_trials_floor, simulation_cost
    from verify.instance import instance_sizes, load_instance
    from verify.scenarios import get

    ctx = click.get_current_context()
    given = [f"--{name}" for name in ("trials", "seed", "quick", "scheduler", "workers")
             if ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)]
    if given:
        raise UserInputError(f"--instance replays the file's own trials, seed and level in this process; "
                             f"{', '.join(given)} do(es) not apply: drop {' and '.join(given)} (edit the file's "
                             "trials to change them)")
    data = load_instance(path)
    trials = ("trials", data["trials"])
    refuse_trials_floor(data["trials"], "the file's trials")  # decided before the instance is built
    sizes = instance_sizes(get(data["scenario"]), data["point"])
    if sizes["exact"] != "exact":  # a point scored from moments simulates no trial: no simulation cost applies
        cost = (per_trial_cost(data["trials"], sizes["clients"], sizes["dim"]) if sizes["exact"] == "per-trial" else
                simulation_cost(data["trials"], sizes["rounds"], sizes["clients"], sizes["dim"], sizes["local_steps"]))
        refuse_if_too_big(cost, f"lower trials in {path} (the interval narrows as 1/sqrt(trials))", trials)
    check_device(device if device != "auto" else data.get("device", "cpu"))


def register(cli: click.Group) -> None:
    cli.add_command(verify_cmd)


# What a verify table covers (issue 18 item 5): never "holds" without it.
SCOPE = ("each certificate is one instance (its point and seed in --json), not a proof over the result's domain; "
         "a rate is a fit over the sweep shown")


@click.command("verify")
@click.argument("ids", nargs=-1, required=False)
@click.option("--quick", is_flag=True, help="smaller Monte Carlo sizes (whole suite < 2 min on 2 CPU cores)")
@click.option("--trials", type=COUNT, default=None, help="trials per check (default: per check)")
@click.option("--device", default="auto", show_default=True, help="auto | cpu | cuda")
@seed_option()
@click.option("--json", "as_json", is_flag=True, help="print the list of verification records as JSON")
@click.option("--instance", "instance_file", default=None, metavar="FILE",
              help="replay an instance file written by `convbound falsify --instance-out` (no IDS then): its own "
                   "trials, seed and level, in this process (--trials, --seed, --quick, --scheduler and --workers "
                   "are refused with it)")
@scheduler_options
@write_store_options
def verify_cmd(ids, quick, trials, device, seed, as_json, instance_file=None, scheduler=None, workers=None,
               store=None, no_store=False) -> int:
    """Run certificates (ID: FAST.T1, FAST.T2, ..., a paper prefix FAST/F3AST/ASCAF, or all).

    Exit status 0 when every verdict is as expected (certificates hold, negative controls
    violated), 1 otherwise, 2 on bad input.
    \f
    The reason for the parameter count: click passes one parameter per option.
    """
    from rich.console import Console
    from rich.progress import BarColumn, TextColumn, TimeElapsedColumn

    from bounds.core.errors import UserInputError
    from verify.evidence.store import writing_path
    from verify.suite import all_ok, run_suite, select

    store_path = writing_path(store, no_store)
    check_device(device)
    if instance_file is not None and ids:
        raise UserInputError("give either check IDS or --instance FILE, not both")
    if instance_file is None and not ids:
        raise UserInputError("give check IDS (FAST.T1, a paper prefix FAST, or all) or --instance FILE")
    if instance_file is None:
        select(list(ids))  # bad ids and options fail before any work
        if trials is not None:  # 10^9 trials failed every group after trying to allocate tens of GB
            from bounds.core.limits import refuse_trials_floor

            refuse_trials_floor(trials, "--trials")
    else:
        _check_instance_run(instance_file, device)
    announce_workers = check_workers(scheduler, workers)
    announce_workers()
    err = Console(stderr=True)
    with progress_bar(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                      TimeElapsedColumn()) as bar:
        task = bar.add_task("verify", total=None)

        def progress(done: int, total: int, cid: str) -> None:
            bar.update(task, completed=done, total=total, description=f"verify {cid}")

        try:
            if instance_file is not None:
                from verify.search.falsify import replay

                results = [replay(instance_file, device=None if device == "auto" else device)]
            else:
                results = run_suite(list(ids), quick=quick, trials=trials, device=device, seed=seed,
                                    progress=progress, scheduler=scheduler, workers=workers)
        except KeyboardInterrupt:  # the executor has cancelled its tasks and closed its cluster
            err.print("interrupted: no results")
            raise SystemExit(130) from None

    def records():
        from verify.evidence.records import verification_record

        return [r for r in (verification_record(v) for v in results) if r is not None]

    save_evidence(store_path, records)
    if as_json:
        echo_json([v.to_dict() for v in results])
    else:
        from verify.verdict import PENDING, UNVERIFIED

        out = out_console()
        _print_results(out, results)
        shown: set[str] = set()
        for v in results:
            for note in v.notes:
                if note in shown:
                    continue
                if note.startswith(("FINDING", "origin: ")) or v.verdict in (PENDING, UNVERIFIED) or v.unless or not v.ok:
                    shown.add(note)
                    out.print(f"[bold]{esc(v.id)}[/bold]: {esc(note)}")
    ok = all_ok(results)
    missing = [v.id for v in results if any(n.startswith("INCOMPLETE:") for n in v.notes)]
    if missing:  # never silently short: say which groups are absent (their records say why)
        err.print(f"[red]incomplete[/red]: {len(missing)} of {len(select(list(ids))) if ids else 1} check groups did not "
                  f"complete ({esc(', '.join(missing))})")
    if not as_json:
        Console().print(("all verdicts as expected" if ok else "[red]some verdicts are not as expected[/red]")
                        + "; " + SCOPE)
    return 0 if ok else 1


def _print_results(out: Any, results: list[Any]) -> None:
    """One row per record; where the table is wider than the terminal, one block per record instead, so that
    no number or ID is ever cut or folded mid-digit (a cut number reads as another number)."""
    from rich.table import Table

    from reports.document import is_rate_fit, trials_label
    from verify.record import shape_text
    from verify.verdict import HOLDS

    styles = _styles()
    rows = []
    for v in results:
        style = styles.get(v.verdict, "") or "none"
        # a control (or a replayed violation) is ok when violated: say so beside "yes"
        mark = (("[green]yes[/green]" if v.expected == HOLDS else "[green]yes[/green] (expected)")
                if v.ok else f"[red]no[/red] (want {esc(v.expected)})")
        if v.measured:  # a shape check: its own quantities in the CI column, no LHS/RHS ratio
            cells = ("", esc(shape_text(v.measured)), "", "")
        else:
            cells = (_fmt(v.lhs), esc(f"[{_fmt(v.ci[0])}, {_fmt(v.ci[1])}]"), _fmt(v.rhs), _fmt(v.ratio))
        # an exact record drew no trials: say how it was computed (reports.document.trials_label), not "0"
        n = str(v.trials) if v.trials else esc(trials_label(v.to_dict()))
        rows.append((esc(v.id), f"[{style}]{esc(v.verdict)}[/{style}]", mark, *cells, n))
    table = Table(id_column("id", (v.id for v in results)), title="convbound verify", show_lines=False)
    table.add_column("verdict", no_wrap=True)
    table.add_column("ok", no_wrap=True)
    for col in ("LHS", "CI (or a shape check's measurement)", "RHS", "ratio", "n"):
        table.add_column(col, justify="right", no_wrap=True)
    for row in rows:
        table.add_row(*row)
    natural = out.measure(table, options=out.options.update(max_width=PIPE_WIDTH)).maximum
    rates = [v.id for v in results if not v.measured and is_rate_fit(v.to_dict())]
    # a rate check's columns hold a fitted slope and a predicted exponent, not a left and a right side
    legend = (f"rate checks ({esc(', '.join(rates))}): LHS is the fitted slope, CI its interval, RHS the predicted "
              "exponent and ratio = slope / predicted" if rates else "")
    if natural <= out.width:
        out.print(table)
        if legend:
            out.print(legend)
        return
    if legend:
        out.print(legend)
    out.print(f"convbound verify ({len(rows)} records; the terminal is narrower than the table: one block each)")
    for id_, verdict, mark, lhs, ci, rhs, ratio, n in rows:
        out.print(f"[bold]{id_}[/bold]  {verdict}  ok: {mark}")  # wraps at spaces: numbers stay whole
        out.print(f"    {ci}  n {n}" if not lhs else f"    LHS {lhs}  CI {ci}  RHS {rhs}  ratio {ratio}  n {n}")
