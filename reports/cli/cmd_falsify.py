"""`convbound falsify ID`: search a result's admissible instances for the largest LHS/RHS and confirm it.

Exit status 0 when the search ends (violation claimed or not), 130 after Ctrl-C (the record of the
best-so-far is still written), 2 on bad input. The search itself lives in ``verify.search.falsify``.
"""

from __future__ import annotations

import click

from reports.cli.common import (
    COUNT,
    atomic_write_bytes,
    atomic_write_text,
    check_device,
    check_output_paths,
    check_workers,
    dumps,
    echo_json,
    progress_bar,
    save_evidence,
    scheduler_options,
    seed_option,
    write_store_options,
)


def _scenario(sid: str):
    import bounds
    from bounds.core.errors import UserInputError
    from verify.scenarios import get, registry

    if sid not in registry():
        from bounds.registry import NotAResult

        try:
            bounds.get(sid)
        except NotAResult:  # a survey row with no stated rate: said as such, nothing to search
            raise
        except UserInputError:
            return get(sid)  # unknown id: the registry's one-line message with close matches
        own = [k for k, sc in registry().items() if bounds.get(sc.result).key == bounds.get(sid).key]
        if own:
            raise UserInputError(f"{sid!r} is a result, not a scenario id; its scenarios: {', '.join(own)}")
        raise UserInputError(f"result {sid!r} has no scenario to search; scenarios: {', '.join(registry())}")
    return get(sid)


def _print_optimisers(as_json: bool) -> None:
    """The optimiser registry: name, whether --terms aims it, where it came from, one line of what it does."""
    import json

    from bounds.plugins import origin_text
    from verify.search.optimisers import registry

    rows = [{"name": k, "aimed": e.aimed, "origin": origin_text("optimisers", k), "summary": e.summary}
            for k, e in registry().items()]
    if as_json:
        click.echo(json.dumps(rows, indent=1))
        return
    for r in rows:
        click.echo(f"{r['name']:<16} {'--terms' if r['aimed'] else '       '}  {r['summary']}"
                   + ("" if r["origin"] == "built-in" else f"  ({r['origin']})"))


def _trace_png(doc, path: str, force: bool) -> None:
    from reports.falsify_section import falsify_sections, trace_png

    atomic_write_bytes(path, trace_png(falsify_sections([doc])[0]), force=force)


def axis_source(p, origin: str = "built-in") -> str:
    """Where an axis's bounds come from: its own ``source``. Every built-in axis states one
    (tests/verify/test_search_space.py); a plugin's axis without one is said to be the plugin's unstated choice."""
    if p.source:
        return p.source
    if origin == "built-in":  # not reached while the test above passes: say it is a defect rather than guess
        return "not stated (a built-in axis without a source is a defect: report it)"
    if p.choices is not None:
        what = "the alternatives it offers (categorical)"
    elif p.low == p.high:
        what = f"fixed at {p.low:g}"
    elif p.name == "draw":
        what = "named draw: presumably the instance's random draw"
    else:
        what = "a box it chose; nothing here derives it from the hypotheses"
    return f"not stated by the plugin ({what})"


def _print_space(sc, preset, as_json) -> None:
    """The space a search draws from: each axis's range, scale, default and where its bounds come from."""
    if as_json:
        echo_json({"id": sc.id, "result": sc.result, "preset": preset,
                   "space": [{**p.to_dict(), "source": axis_source(p, sc.origin)} for p in sc.space], "notes": list(sc.notes),
                   "scoring": {fam: {"fidelity": kind or "simulated", "why": why}
                               for fam, (kind, why) in _scoring_by_family(sc).items()}})
        return
    click.echo(f"{sc.id} ({sc.result}; {sc.origin}){' preset ' + preset if preset else ''}: the space a search draws "
               "from")
    for p in sc.space:
        if p.choices is not None:
            rng = "{" + ", ".join(map(str, p.searched or p.choices)) + "}"
            if p.searched:
                # not "admissible": a check's control (SCAF.T1.sampling's biased pattern) is offered, not admitted
                rng += f" (not searched: {', '.join(str(c) for c in p.choices if c not in p.searched)})"
            scale = "categorical"
        else:
            rng, scale = f"[{p.low:g}, {p.high:g}]", ("fixed" if p.low == p.high else
                                                       "log" if p.log else "integer" if p.integer else "linear")
            if p.integer and p.log:
                scale = "integer, log"
        click.echo(f"  {p.name:<10} {rng:<24} {scale:<12} default {p.default}")
        click.echo(f"      bounds from: {axis_source(p, sc.origin)}")
        if p.doc:
            click.echo(f"      {p.doc}")
    for n in sc.notes:
        click.echo(f"  note: {n}")
    for fam, (kind, why) in _scoring_by_family(sc).items():
        click.echo(f"  scored at the default point{' (' + fam + ')' if fam else ''}: "
                   f"{ {'exact': 'exactly', 'per-trial': 'per-trial exactly'}.get(kind, 'by simulation')} - {why}")


def _scoring_by_family(sc) -> dict[str, tuple[str, str]]:
    """How the default point is scored in each searched family (exact, per-trial, simulated) and why, as the
    objects' declarations say (verify.exact_score.scoring); a family whose default point is refused says so."""
    from bounds.core.errors import PointRefused
    from verify.exact_score import scoring
    from verify.search.confirmation import PluginFailed, plugin_guard

    problem = next((p for p in sc.space if p.name == "problem" and p.choices), None)
    out: dict[str, tuple[str, str]] = {}
    for fam in ([""] if problem is None else list(problem.searched or problem.choices)):
        try:
            with plugin_guard(sc):
                out[str(fam)] = scoring(sc.build(sc.point({"problem": fam} if fam else {})))
        except (PointRefused, PluginFailed) as exc:  # a builder that refuses this family's default point: said
            out[str(fam)] = ("", f"the default point is not built ({type(exc).__name__}: {exc})")
    return out


def _refuse_absurd_sizes(sc, budget: int, time_limit: float | None, trials: int, confirm_trials: int) -> None:
    """Refuse, before anything is drawn or simulated, sizes that cannot fit: the search's bookkeeping
    over --budget, and --trials / --confirm-trials at the largest instance the search may draw.

    The trial counts are first weighed at one client of dimension one (a floor that needs no instance
    built: 10^9 trials is refused at once), then at the scenario's default point sized by its fidelity (exact:
    no trial simulated; per-trial exact: by its trials; simulated: a Monte Carlo run). Larger points are sized
    one by one as the search draws them: a simulated point past the per-point budget is cut and counted
    (verify.search.cost), never the reason to refuse a space that exact scoring covers.
    """
    from bounds.core.limits import per_trial_cost, refuse_if_too_big, refuse_trials_floor, search_cost, simulation_cost
    from verify.instance import instance_sizes

    refuse_if_too_big(search_cost(budget, time_limit), "lower --budget" + ("" if time_limit is not None else
                                                                           " or give --time SECONDS"),
                      ("--budget", budget))
    counts = (("--trials", trials), ("--confirm-trials", confirm_trials))
    for name, n in counts:
        refuse_trials_floor(n, name)
    _refuse_costly_confirmation(sc, trials, confirm_trials)
    sizes = instance_sizes(sc, sc.default_point())
    if sizes["exact"] == "exact":  # scored from moments: no trial is simulated, the simulation's cost does not apply
        return
    for name, n in counts:
        cost = (per_trial_cost(n, sizes["clients"], sizes["dim"]) if sizes["exact"] == "per-trial" else
                simulation_cost(n, sizes["rounds"], sizes["clients"], sizes["dim"], sizes["local_steps"]))
        refuse_if_too_big(cost, f"lower {name} (sized at the default point of {sc.id}'s space)", (name, n))


def _refuse_costly_confirmation(sc, trials: int, confirm_trials: int) -> None:
    """A confirmation re-runs a point the search scored: a simulated one cost at most the per-point budget at
    --trials (verify.search.cost), so at --confirm-trials at most that budget x confirm-trials / trials. Weighed where
    the space's largest point is not scored exactly (else no confirmation simulates anything)."""
    from bounds.core.limits import Cost, point_budget, refuse_if_too_big
    from verify.exact_score import scored_exactly
    from verify.instance import largest_instance

    if scored_exactly(largest_instance(sc)[1]) == "exact":
        return
    seconds = point_budget()[0] * confirm_trials / max(1, trials)
    refuse_if_too_big(Cost(0.0, seconds, f"confirming a simulated point of {sc.id} (up to the per-point budget "
                                         f"{point_budget()[0]:g} s at {trials} trials) with {confirm_trials} trials"),
                      "lower --confirm-trials", ("--confirm-trials", confirm_trials))


def register(cli: click.Group) -> None:
    cli.add_command(falsify_cmd)


@click.command("falsify")
@click.argument("scenario_id")
@click.option("--budget", type=int, default=500, show_default=True, help="evaluations (points tried)")
@click.option("--time", "time_limit", type=float, default=None, help="stop after this many seconds")
@seed_option(help="Seed of the search; the confirmation's seeds are spawned from it (0 <= seed < 2^63).")
@click.option("--trials", type=int, default=64, show_default=True, help="trials per search evaluation")
@click.option("--confirm-trials", type=int, default=4096, show_default=True, help="trials of the confirmation")
@click.option("--optimiser", default="corners", show_default=True,
              # the names live in one registry (verify.search.optimisers, plugins add to it); reading it here
              # would import verify (scipy.stats) for `falsify --help`, so `--optimiser list` prints it instead
              help="a registered optimiser; `--optimiser list` prints them all, plugins' included "
                   "(README: 'Worst instances')")
@click.option("--terms", default=None, metavar="TERM,...",
              help="the RHS terms whose strata to aim at (stratified, corners, climb, seeded, rays; default: every term)")
@click.option("--preset", default=None, metavar="NAME",
              help="search a named hand-narrowed box instead of the hypotheses' space (see --space)")
@click.option("--space", "show_space", is_flag=True,
              help="print the space searched (each axis's range and where it comes from) and exit")
@click.option("--stop-at-violation", is_flag=True,
              help="confirm apparent violations as they come and stop at the first confirmed one")
@click.option("--problems", default=None, metavar="NAME,...|all",
              help="problem families to search (default: the scenario's; 'all' = every admissible family)")
@click.option("--no-shrink", is_flag=True,
              help="keep a confirmed violation as found (default: shrink it to a minimal counterexample, verify.search.shrink)")
@click.option("--population", type=COUNT, default=8, show_default=True, help="points per generation")
@click.option("--device", default="cpu", show_default=True, help="cpu | cuda")
@click.option("--json", "as_json", is_flag=True, help="print the search record as JSON")
@click.option("--out", "out_path", default=None, help="write the search record (JSON) to this file")
@click.option("--instance-out", default=None, help="write the replayable confirmation instance (JSON)")
@click.option("--trace", "trace_path", default=None, help="write the search trace figure (PNG)")
@click.option("--force", is_flag=True, help="overwrite --out, --instance-out and --trace files (regular files only)")
@write_store_options
@scheduler_options
def falsify_cmd(scenario_id, budget, time_limit, seed, trials, confirm_trials, optimiser, problems, population, device,
                as_json, out_path, instance_out, trace_path, force=False, scheduler=None, workers=None, terms=None,
                preset=None, show_space=False, stop_at_violation=False, no_shrink=False, store=None,
                no_store=False) -> int:
    """Search SCENARIO_ID's admissible instances for the largest LHS/RHS; confirm the best with fresh seeds.

    A violation is claimed only when the confirmation interval's low end exceeds the RHS at a point
    whose hypotheses all hold. `convbound verify --instance FILE` replays --instance-out exactly.
    \f
    The reason for the parameter count: click passes one parameter per option.
    """
    from verify.evidence.store import writing_path
    from verify.search.search_options import SearchOptions
    from verify.verdict import is_finding

    if optimiser == "list":
        _print_optimisers(as_json)
        return 0
    store_path = writing_path(store, no_store)
    sc = _scenario(scenario_id)
    if preset is not None:
        from verify.scenarios.presets import apply

        sc = apply(sc, preset)
    if show_space:
        _print_space(sc, preset, as_json)
        return 0
    check_device(device)
    announce_workers = check_workers(scheduler, workers)
    # the library's refusals, made here before the progress bar starts, so a refusal is the only line on stderr
    opts = SearchOptions(budget=budget, time_limit=time_limit, seed=seed, trials=trials, confirm_trials=confirm_trials,
                         optimiser=optimiser, population=population, device=device, problems=problems,
                         stop_at_violation=stop_at_violation, terms=terms)
    # before minutes of search, not after (an empty path is refused, never skipped)
    check_output_paths(force, {"--out": out_path, "--instance-out": instance_out, "--trace": trace_path})
    prepared = _check_searchable(sc, opts)
    announce_workers()
    rec = _run_search(sc, prepared, scheduler, workers)
    doc = rec.to_dict()
    shrunk: list[str] = []
    if is_finding(str(rec.confirmation.get("verdict"))) and not no_shrink:  # the record keeps both points
        from reports.cli.shrunk import shrink_into
        from verify.search.search_options import search_space

        # shrunk within the families searched (--problems): a move to an excluded family is no simpler instance
        shrunk = shrink_into(doc, search_space(sc, opts.problems), rec, trials=trials, confirm_trials=confirm_trials,
                             seed=seed, as_json=as_json)
    _write_outputs(rec, doc, out_path=out_path, instance_out=instance_out, trace_path=trace_path, force=force)
    if not rec.interrupted:  # an interrupted search is not evidence of its budget
        from verify.evidence.records import search_record

        save_evidence(store_path, lambda: [search_record(rec, doc=doc)])
    if as_json:
        echo_json(doc)
    else:
        _print_search(rec)
        for line in shrunk:  # the minimal counterexample after the finding it shrinks
            click.echo(line)
    if rec.interrupted:
        raise SystemExit(130)
    return 0


def _check_searchable(sc, opts):
    """The library's refusals for this scenario (families, sizes, then result kind, optimiser and terms); returns
    the prepared search (``verify.search.search_options.Prepared``: the optimiser built once)."""
    from verify.search.confirmation import plugin_guard
    from verify.search.search_options import prepare, search_space

    search_space(sc, opts.problems)  # unknown family names fail here, not after the cluster starts
    with plugin_guard(sc):  # sizing builds the instance: a plugin's crash there is one line naming its file
        _refuse_absurd_sizes(sc, opts.budget, opts.time_limit, opts.trials, opts.confirm_trials)
    return prepare(sc, opts)  # the result's kind, the optimiser and its terms (builds the optimiser, once)


def _run_search(sc, prepared, scheduler, workers):
    """``verify.search.falsify.search`` under a progress bar, its generations sent to the executor when one is asked for."""
    from rich.progress import BarColumn, TextColumn, TimeElapsedColumn

    from verify.runtime.executor import Task, session
    from verify.search.falsify import executor_map, search

    with progress_bar(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                      TimeElapsedColumn()) as bar:
        task = bar.add_task(f"falsify {sc.id}", total=prepared.options.budget)

        def progress(done: int, total: int, best: float | None) -> None:
            shown = "-" if best is None else f"{best:.3g}"
            bar.update(task, completed=done, description=f"falsify {sc.id} best ratio {shown}")

        sample = [Task("verify.search.falsify:evaluate_points", {}, key="sample")]
        with session(scheduler, workers, sample) as where:
            return search(sc, progress=progress, map_points=None if where is None else executor_map(where),
                          prepared=prepared)


def _write_outputs(rec, doc, *, out_path, instance_out, trace_path, force) -> None:
    """--out, --instance-out and --trace; an output with nothing to write says so on stderr."""
    if out_path is not None:
        atomic_write_text(out_path, dumps(doc) + "\n", force=force)
    if instance_out is not None:
        if rec.confirmation.get("seeds"):
            atomic_write_text(instance_out, dumps(rec.instance_file()) + "\n", force=force)
        else:  # output is complete or says what it left out
            click.echo(f"convbound: note: --instance-out not written: no confirmation to replay "
                       f"({rec.confirmation.get('reason', 'none')})", err=True)
    if trace_path is not None:
        if rec.trace:
            _trace_png(doc, trace_path, force)
        else:
            click.echo("convbound: note: --trace not written: no evaluation was made", err=True)


def _print_search(rec) -> None:
    """The search in lines: points tried, the best first estimate, its confirmation, the finding."""
    c = rec.confirmation
    click.echo(f"{rec.id}: {rec.evaluations} points tried ({rec.admissible} admissible), stopped by "
               f"{rec.stopped_by}, {rec.elapsed_s:.1f} s")
    if rec.best:
        e = rec.best["estimate"]
        click.echo(f"best first estimate: ratio {e['ratio']:.4g} (LHS {e['lhs']:.4g}, RHS {e['rhs']:.4g}, "
                   f"{str(e['trials']) + ' trials' if e['trials'] else 'exact'}) at evaluation {rec.best['evaluation']}")
        click.echo("point: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                        for k, v in rec.best["point"].items()))
    if c.get("ci"):
        _print_confirmation(c)
    else:
        click.echo(f"confirmation: {c.get('status', 'none')} ({c.get('reason', '')})")
    click.echo(f"finding: {rec.finding}")
    if c.get("constant_lower_bound") is not None:
        click.echo(f"hidden constant C >= {c['constant_lower_bound']:.4g} (confirmed CI low / argument; "
                   "conditional on the lost constants admitting this instance)")


def _print_confirmation(c) -> None:
    """The best point's confirmation and its Monte Carlo cross-check (exact confirmations only)."""
    # a search's confirmation speaks for its one best point: never "holds" for the space
    from verify.verdict import HOLDS

    said = ("not violated at this point" if c["verdict"] == HOLDS else
            f"{c['verdict']} {'; '.join(c['unless'])} fails" if c.get("unless") else c["verdict"])
    how = ("exact: the interval is the floating-point bound" if c.get("method") == "exact"
           else f"{c['trials']} trials, seed {c['seeds'][0]}")
    click.echo(f"confirmation of the best point: {said}: LHS {c['lhs']:.4g} CI [{c['ci'][0]:.4g}, "
               f"{c['ci'][1]:.4g}] vs RHS {c['rhs']:.4g} (ratio {c['ratio']:.4g}; {how})")
    x = c.get("cross_check") or {}
    if x.get("ci"):
        click.echo(f"Monte Carlo cross-check: LHS {x['lhs']:.4g} CI [{x['ci'][0]:.4g}, {x['ci'][1]:.4g}] "
                   f"({x['trials']} trials, seed {x['seed']}): "
                   + ("agrees with the exact value" if x["agrees"] else "DISAGREES with the exact value"))
    elif x.get("skipped"):
        click.echo(f"Monte Carlo cross-check skipped: {x['skipped']}")
