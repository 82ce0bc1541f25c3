"""Falsification: search a scenario's admissible space for the point of largest LHS/RHS, then confirm it.

**Setting**: a :class:`verify.scenario.Scenario` of an UPPER (or order) result; every point meets the
decidable hypotheses or is not scored (``PointEstimate.score``). The first point is the scenario's default
(the shipped instance). What a search is asked to do is a :class:`verify.search.search_options.SearchOptions`.
**Algorithm**: ask/tell black-box search (``verify.search.optimisers``; default ``corners``: covering arrays of the
space's corners per stratum "RHS term t dominates", a lattice climb from each stratum's best corner, and
``stratified`` draws aimed in turn at those strata (``verify.search.corners``); how it was chosen: the regime
benchmark's records and ``tests/benchmarks/falsify_runs/optimiser-notes.md``). The objective is log(LHS/RHS): exact where ``verify.exact_score`` applies, else
a short Monte Carlo estimate (``trials`` per point); inadmissible points get the worst admissible log-ratio
seen minus 1. A generation (``population`` points) is evaluated per ask/tell step, one batched run per point
(:func:`evaluate_points`, a task function the executor can distribute).
**Statement** (winner's curse): the best point is re-run with ``confirm_trials`` trials on a seed apart from
every search seed (:func:`search_seeds`); a violation is claimed only as ``verify.search.confirmation.confirm``
decides it (``verify.verdict.verdict_of``: plain at an admissible point, ``violated unless`` the named
hypotheses fail where they are only assumed). The record (``verify.search.search_record.SearchRecord``) says how
many points were tried; ``replay(instance_file)`` reruns the confirmation exactly.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bounds.core.errors import OutsideDomain, SizeRefused, UserInputError
from bounds.core.stats import MEAN_LEVEL
from verify.instance import INSTANCE_FORMAT, load_instance  # re-exported: instance files are read there
from verify.scenario import Scenario, evaluate_point
from verify.search.confirmation import confirm, plugin_guard, plugin_record
from verify.search.proposal import Proposal, Stratum
from verify.search.search_options import Prepared, SearchOptions, prepare
from verify.search.search_record import SearchRecord, finding
from verify.verdict import HOLDS, NO_ADMISSIBLE, NOT_CONFIRMED, VIOLATED, confirmed, finding_kind

__all__ = ["INSTANCE_FORMAT", "SearchOptions", "SearchRecord", "confirm", "evaluate_points", "load_instance", "replay",
           "search", "search_seeds"]

# Score given to a diverged (infinite-LHS) admissible point: finite, so optimisers keep working.
LOG_RATIO_CAP = math.log(1e6)
# Confirmations a stop_at_violation search may spend on first estimates that claim a violation.
MAX_CLAIMS = 5
SEED_RULE = ("bounds.core.seeds.spawn(seed, 'search', budget + 1): index 0 confirms, "
             "indices 1..budget are the search evaluations' seeds in order")


def search_seeds(root: int, n: int) -> tuple[list[int], int]:
    """``n`` search seeds and one confirmation seed: words of the ``search`` stream of ``root``
    (``bounds.core.seeds.spawn(root, "search", .)``): index 0 confirms, indices 1..n search, so the
    confirmation seed does not depend on the budget. Distinct spawn keys give distinct 63-bit words
    except by a collision; should one occur, the next unused index confirms.
    """
    from bounds.core.seeds import spawn, word

    if int(root) != root or root < 0:
        raise UserInputError(f"seed {root} must be a non-negative integer")
    drawn = spawn(int(root), "search", n + 1)
    conf, seeds = drawn[0], drawn[1:]
    taken = set(seeds)
    k = n + 1
    while conf in taken:  # keeps the guarantee: the confirmation never reuses a search seed
        conf = word(int(root), "search", k)
        k += 1
    return seeds, conf


def evaluate_points(scenario_id: str | Scenario, points: Sequence[Mapping[str, Any]], seeds: Sequence[int],
                    trials: int, device: str = "cpu") -> list[dict[str, Any]]:
    """Task function: one batched run per point; returns plain summaries (picklable, no samples).

    ``scenario_id``: a registered scenario's id, or (in-process) the scenario itself, e.g. one built in
    a notebook cell that no registry holds."""
    from verify.exact_score import without_series
    from verify.scenarios import get

    sc = scenario_id if isinstance(scenario_id, Scenario) else get(scenario_id)
    with without_series():  # a summary has no per-round curve: not computed
        return [_summary(sc, pt, s, trials, device) for pt, s in zip(points, seeds)]


def _summary(sc: Scenario, pt: Mapping[str, Any], s: int, trials: int, device: str) -> dict[str, Any]:
    """One point's plain summary (:func:`evaluate_points`): scored, cut by cost, or skipped outside the domain."""
    from verify.search.cost import instance_fidelity

    try:
        with plugin_guard(sc, pt):
            # built once: sized here, scored below (a drift family's build costs about one exact evaluation)
            inst = sc.build(sc.point(pt))
            kind, why = instance_fidelity(inst, trials)
            if kind == "cut":  # over the per-point budget: not simulated, counted (verify.search.cost)
                return {"point": dict(pt), "score": None, "ratio": math.nan, "lhs": math.nan, "rhs": math.nan,
                        "seed": int(s), "trials": int(trials), "fidelity": "cut", "cut": why}
            est = evaluate_point(sc, pt, trials=trials, seed=s, device=device, instance=inst)
    except SizeRefused as exc:  # the family's own build refuses the size (memory): cut by cost, counted (verify.search.cost)
        return {"point": dict(pt), "score": None, "ratio": math.nan, "lhs": math.nan, "rhs": math.nan,
                "seed": int(s), "trials": int(trials), "fidelity": "cut", "cut": f"not built: {exc}"}
    except OutsideDomain as exc:
        # the result itself refuses the point (a value outside a symbol's domain): not a counterexample,
        # not a crash: skipped, counted in the record (``SearchRecord.outside_domain``)
        return {"point": dict(pt), "score": None, "ratio": math.nan, "lhs": math.nan, "rhs": math.nan,
                "seed": int(s), "trials": int(trials), "skipped": str(exc)}
    method = dict(est.exact).get("method", "")
    return {**est.to_dict(), "score": est.score,
            "fidelity": "exact" if method == "exact" else "per-trial" if method else "simulated",
            **({} if method else {"why_simulated": why})}


def executor_map(scheduler: str | None) -> Callable[..., list[dict[str, Any]]]:
    """A ``map_points`` that sends each point of a generation to the executor as one task.

    Each task carries its point, its seed and this process's plugin files, so its summary is the one
    :func:`evaluate_points` gives in-process: the search is the same whatever the scheduler. Use with
    ``verify.runtime.executor.session`` so a local cluster is started once per search. A point whose task
    fails stops the search with its inputs (no point is silently dropped from a generation).
    """

    def mapper(scenario_id: str, points: Sequence[Mapping[str, Any]], seeds: Sequence[int], trials: int,
               device: str = "cpu") -> list[dict[str, Any]]:
        from bounds.plugins import files
        from verify.runtime.executor import Task, run_tasks

        tasks = [Task("verify.search.falsify:evaluate_points", {"scenario_id": scenario_id, "points": [dict(p)],
                                                          "seeds": [int(s)], "trials": int(trials), "device": device},
                      key=f"{scenario_id} point {i}", plugins=files())
                 for i, (p, s) in enumerate(zip(points, seeds))]
        outcomes = run_tasks(tasks, scheduler=scheduler, progress=False)
        bad = [o for o in outcomes if o.status != "ok"]
        if bad:
            raise RuntimeError(f"{len(bad)} of {len(tasks)} evaluations failed; first: {bad[0].key}: {bad[0].error} "
                               f"(inputs {bad[0].inputs})")
        return [o.value[0] for o in outcomes]

    return mapper


def _standing(ev: Mapping[str, Any]) -> float:
    """The point's LHS/RHS as far as its floating-point bound lets it stand: where it was scored exactly,
    (LHS - bound) / RHS, at least 0. Why: at tiny scales and long horizons the bound can exceed the LHS (FAST.T2
    at R = 1.2e7, K = 1000: LHS 4.5e-9, bound 3.6e-6, RHS 1.3e-13, "ratio" 34,104), and a search that climbs such
    a ratio climbs rounding noise that no confirmation can turn into a finding. Monte Carlo points keep their
    estimate: their noise is what the confirmation's fresh trials settle."""
    score = float(ev["score"])
    fp = (ev.get("exact") or {}).get("fp_error")
    rhs = float(ev.get("rhs", math.nan))
    if fp is not None and rhs > 0 and math.isfinite(float(fp)):
        score = min(score, max(float(ev["lhs"]) - float(fp), 0.0) / rhs)
    return score


def _objective(ev: Mapping[str, Any], floor: float) -> float:
    if ev["score"] is None:
        return floor - 1.0
    return min(LOG_RATIO_CAP, math.log(max(_standing(ev), 1e-12)))


def search(scenario: Scenario, options: SearchOptions | None = None, *,
           progress: Callable[[int, int, float | None], None] | None = None,
           map_points: Callable[..., list[dict[str, Any]]] | None = None, prepared: Prepared | None = None,
           **keywords: Any) -> SearchRecord:
    """Search ``scenario`` for the largest LHS/RHS within the options' budget (and time limit), then confirm.

    Args:
        options: a :class:`verify.search.search_options.SearchOptions` (budget, seed, trials, optimiser, ...).
        keywords: its fields by name instead (``search(sc, budget=200, seed=1)``); with ``options`` given,
            they replace its fields.
        progress: ``progress(done, budget, best_ratio)`` after each generation; may raise
            KeyboardInterrupt (the search then keeps its best point and stops).
        map_points: ``(scenario_id, points, seeds, trials, device) -> summaries`` (default in-process
            ``evaluate_points``; an executor can distribute generations, see :func:`executor_map`).
        prepared: what :func:`verify.search.search_options.prepare` returned for this scenario (its options
            are the search's; ``options`` and ``keywords`` must then be absent): the optimiser is not built again.
    Returns: a :class:`SearchRecord` (``interrupted`` when Ctrl-C stopped it: no confirmation then). With
    ``stop_at_violation`` the first confirmed violation stops it (``first_violation`` records its evaluation
    and time); at most :data:`MAX_CLAIMS` such confirmations, a refuted claim is counted and the search goes on.
    """
    if prepared is not None and (options is not None or keywords):
        raise TypeError("search(prepared=...) takes its options from the prepared search; give one or the other")
    run = _Search(scenario, prepared or prepare(scenario, SearchOptions.of(options, keywords)), map_points)
    try:
        run.loop(progress)
    except KeyboardInterrupt:
        run.rec.interrupted, run.rec.stopped_by = True, "interrupt"
    return run.finish()


class _Search:
    """One search between generations: its optimiser, seeds, record and best point so far."""

    def __init__(self, scenario: Scenario, prepared: Prepared,
                 map_points: Callable[..., list[dict[str, Any]]] | None) -> None:
        from verify.suite import versions

        opts = prepared.options
        self.sc, self.opts = scenario, opts
        # from before the optimiser was built: its set-up (corners' pool, stratified probes) is search time
        self.t0 = prepared.started
        self.seeds, self.conf_seed = search_seeds(opts.seed, opts.budget)
        searched, self.opt = prepared.searched, prepared.optimiser
        self.map = map_points or evaluate_points
        # in-process, the object itself: a scenario built in a cell is in no registry
        self.target: Scenario | str = scenario if map_points is None else scenario.id
        self.rec = SearchRecord(id=scenario.id, result=scenario.result, optimiser=opts.optimiser, seed=int(opts.seed),
                                budget=opts.budget, time_limit=opts.time_limit, trials=opts.trials,
                                population=opts.population, device=opts.device,
                                space=[p.to_dict() for p in searched.space], notes=list(scenario.notes),
                                versions=versions(), plugin=plugin_record(scenario))
        self.rec.notes += _unsearched_notes(scenario, searched)
        self.best: dict[str, Any] | None = None
        self.floor = 0.0
        self.done = 0

    def loop(self, progress: Callable[[int, int, float | None], None] | None) -> None:
        """Generations until the budget, the time limit, an optimiser's failure or a confirmed claim."""
        while self.done < self.opts.budget:
            if self.opts.time_limit is not None and time.perf_counter() - self.t0 >= self.opts.time_limit:
                self.rec.stopped_by = "time"
                return
            evs = self.generation()
            if evs is None:
                return
            if progress:
                progress(self.done, self.opts.budget, self.best["score"] if self.best else None)
            if self.opts.stop_at_violation and self.claim(evs):
                return

    def generation(self) -> list[dict[str, Any]] | None:
        """Ask, evaluate, tell, count one generation; None when the optimiser failed (the search stops)."""
        n = min(self.opts.population, self.opts.budget - self.done)
        try:
            proposed = self.opt.ask(n)
        except Exception as exc:  # the edge of others' code (optuna, nevergrad, a plugin's optimiser): said, stops
            self.rec.stopped_by = "optimiser error"
            self.rec.notes.append(f"{self.opts.optimiser} failed after {self.done} evaluations "
                                  f"({type(exc).__name__}: {exc}); the best point so far is confirmed")
            return None
        if len(proposed) != n or not all(isinstance(p, Proposal) for p in proposed):
            raise UserInputError(f"optimiser {self.opts.optimiser} answered ask({n}) with {len(proposed)} items that "
                                 "are not all verify.search.proposal.Proposal objects; ask(n) must return n proposals")
        fitted, strata = self.budgeted([p.point for p in proposed]), [p.stratum for p in proposed]
        points = [q for q, _ in fitted]
        evs = self.map(self.target, points, self.seeds[self.done:self.done + n], self.opts.trials, self.opts.device)
        for e, (_, note) in zip(evs, fitted):
            if note:
                e["projected"] = note
        if any(e["score"] is not None for e in evs):
            self.floor = min([self.floor] + [_objective(e, 0.0) for e in evs if e["score"] is not None])
        self.opt.tell(points, [_objective(e, self.floor) for e in evs])
        for j, e in enumerate(evs):
            self.count(e, strata[j])
        self.rec.evaluations = self.done
        return evs

    def budgeted(self, points: Sequence[Mapping[str, Any]]) -> list[tuple[dict[str, Any], str]]:
        """Each proposed point moved into the per-point budget where it would be cut (``verify.search.cost``), with
        a note saying how: the search proposes what it can score (cut points: at most a tenth of a budget)."""
        from verify.search.cost import within_budget

        out = []
        for p in points:
            with plugin_guard(self.sc, p):
                out.append(within_budget(self.sc, p, self.opts.trials))
        return out

    def count(self, e: dict[str, Any], stratum: Stratum | None) -> None:
        """One evaluation into the record: its notes, the admissible count, the best point, the trace."""
        rec = self.rec
        self.done += 1
        if e.get("cut") and not any(n.startswith("points over the per-point") for n in rec.notes):
            rec.notes.append(f"points over the per-point cost budget are cut (not simulated) and counted "
                             f"(fidelity.cut); first: {e['cut']}")
        if e.get("projected") and not any(n.startswith("points over the per-point budget were projected") for n in
                                          rec.notes):
            rec.notes.append(f"points over the per-point budget were projected into it before scoring and counted "
                             f"(fidelity.projected); first: {e['projected']}")
        if e.get("skipped"):
            rec.outside_domain += 1
            if rec.outside_domain == 1:
                rec.notes.append(f"points outside the result's domains are skipped and counted "
                                 f"(outside_domain); first: {e['skipped']}")
        if e["score"] is not None:
            rec.admissible += 1
            if self.best is None or _standing(e) > _standing(self.best):
                self.best = {**e, "evaluation": self.done}
        if self.done == 1:
            rec.default = {"point": e["point"], "estimate": e}
        rec.trace.append({"evaluation": self.done, "ratio": e["ratio"], "admissible": e["score"] is not None,
                          **({"fidelity": e["fidelity"]} if "fidelity" in e else {}),
                          "best": self.best["score"] if self.best else None,
                          **({"problem": e["point"]["problem"]} if "problem" in e["point"] else {}),
                          **({"stratum": str(stratum), "proposer": stratum.kind} if stratum is not None else {}),
                          **({"projected": e["projected"]} if e.get("projected") else {})})

    def claim(self, evs: Sequence[Mapping[str, Any]]) -> bool:
        """Confirm this generation's best apparent violation; True (and the record filled) when confirmed as a
        finding (``verify.verdict.confirmed``: a violation, plain or conditional)."""
        rec = self.rec
        # summaries are plain JSON values: a diverged LHS arrives as the string "inf", hence float()
        claims = [(i, e) for i, e in enumerate(evs) if e["score"] is not None and float(e["ci"][0]) > float(e["rhs"])]
        if not claims or rec.claims_tried >= MAX_CLAIMS:
            return False
        i, e = max(claims, key=lambda ie: float(ie[1]["score"]))
        rec.claims_tried += 1
        conf = self.confirm(e["point"])
        evaluation = self.done - len(evs) + i + 1
        if not confirmed(conf["verdict"]):
            rec.notes.append(f"evaluation {evaluation}: first estimate above the RHS (ratio {float(e['score']):.4g}) "
                             f"not confirmed ({conf['verdict']}, ratio {conf['ratio']:.4g}); search went on")
            return False
        rec.best = {"point": e["point"], "evaluation": evaluation, "estimate": dict(e)}
        rec.confirmation = {**conf, "search_seeds_disjoint": True,
                            "seed_rule": "bounds.core.seeds.spawn(seed, 'search', budget + 1): index 0 confirms"}
        rec.stopped_by = f"confirmed {finding_kind(conf['verdict'])}"
        rec.elapsed_s = time.perf_counter() - self.t0
        rec.first_violation = {"evaluation": evaluation, "elapsed_s": rec.elapsed_s, "claims_tried": rec.claims_tried}
        return True

    def confirm(self, point: Mapping[str, Any]) -> dict[str, Any]:
        conf, _ = confirm(self.sc, point, trials=self.opts.confirm_trials, seed=self.conf_seed,
                          device=self.opts.device, level=self.opts.level)
        return conf

    def finish(self) -> SearchRecord:
        """The record closed: fidelity shares, time, and the best point's confirmation (or why there is none)."""
        from verify.search.cost import fidelity_shares

        rec, best = self.rec, self.best
        rec.evaluations = self.done
        rec.fidelity = fidelity_shares(rec.trace)
        rec.elapsed_s = time.perf_counter() - self.t0
        if rec.first_violation:
            rec.confirmation["points_tried"] = self.done
        elif best is None:
            rec.notes.append("no admissible point was found: nothing to confirm")
            rec.confirmation = {"status": NO_ADMISSIBLE, "reason": "no admissible point was found"}
            return rec
        else:
            rec.best = {"point": best["point"], "evaluation": best["evaluation"], "estimate": best}
            if rec.interrupted:
                rec.confirmation = {"status": NOT_CONFIRMED,
                                    "reason": "interrupted (Ctrl-C): best-so-far kept unconfirmed"}
                return rec
            rec.confirmation = {**self.confirm(best["point"]), "points_tried": self.done,
                                "search_seeds_disjoint": self.conf_seed not in set(self.seeds), "seed_rule": SEED_RULE}
            rec.elapsed_s = time.perf_counter() - self.t0
        rec.finding = finding(rec)
        return rec


def _unsearched_notes(scenario: Scenario, searched: Scenario) -> list[str]:
    """One note per categorical axis the search draws only part of (what it leaves out)."""
    notes = []
    for wide, cut in zip(scenario.space, searched.space):
        if wide.choices is not None and tuple(cut.choices or ()) != tuple(wide.choices):
            # "not searched", not "admissible": a check's control (ASCAF.UH's FedAvg) is offered but outside the result
            notes.append(f"axis {wide.name} searched over {', '.join(map(str, cut.choices or ()))}; not "
                         f"searched: {', '.join(str(c) for c in wide.choices if c not in (cut.choices or ()))}")
    return notes


def replay(path: str, *, device: str | None = None) -> Any:
    """Rerun an instance file's confirmation; returns a ``Verification`` with the same numbers.

    The record is built as ``verify``'s certificate records are (``verify.checks.certify_record``: one
    verdict rule, one instance said to be one instance); ``expected`` is the recorded verdict, and a
    replayed violation says that the violation is the outcome being reproduced.
    """
    from verify.checks import Context, certify_record
    from verify.scenarios import get
    from verify.suite import versions

    data = load_instance(path)  # reloads the plugin file the instance records (or names the one it needs)
    sc = get(data["scenario"])
    level = float(data.get("level", MEAN_LEVEL))
    dev = device or data.get("device", "cpu")
    seed = data["seeds"][0]
    conf, est = confirm(sc, data["point"], trials=data["trials"], seed=seed, device=dev, level=level)
    expected = data.get("expect", {}).get("verdict", HOLDS)
    notes = ["replay of a falsify confirmation: expected = the recorded verdict"]
    if expected == VIOLATED:
        notes.append("the recorded outcome is a violation of the bound: 'ok' here means the replay reproduced the "
                     "violation, not that the bound holds")
    rec = certify_record(est, ctx=Context(seed=seed, device=dev, level=level), seed=seed, id=f"{sc.id}:instance",
                         title=f"{sc.title}, replayed instance ({path})", expected=expected, notes=notes)
    return rec.replace(instance={**dict(rec.instance), "source": path}, versions=versions())


#: Names that lived here before 0.2.0 and where they live now (the search's pieces, split by what they hold).
MOVED_HERE = {"search_space": "verify.search.search_options", "space_summary": "verify.search.search_record",
              "fidelity_said": "verify.search.search_record", "cross_check": "verify.search.confirmation",
              "CROSS_CHECK_STEPS": "verify.search.confirmation"}


def __getattr__(name: str) -> Any:
    if name in MOVED_HERE:
        raise AttributeError(f"verify.search.falsify.{name} moved to {MOVED_HERE[name]}.{name} in 0.2.0")
    raise AttributeError(f"module 'verify.search.falsify' has no attribute {name!r}")
