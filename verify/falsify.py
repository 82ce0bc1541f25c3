"""Falsification: search a scenario's admissible space for the point of largest LHS/RHS, then confirm it.

**Setting**: a :class:`verify.scenario.Scenario` of an UPPER result; every point meets the decidable
hypotheses or is not scored (``PointEstimate.score``). The first point is the scenario's default (the
shipped instance).
**Algorithm**: ask/tell black-box search (``verify.optimisers``; default ``stratified``: random draws aimed
in turn at the strata "RHS term t dominates" and one plain stratum; ``--optimiser nevergrad-cma`` suits
smooth landscapes such as F3AST.T3.5@explicit; why, with the runs that decided it: ``docs/falsify-notes.md``).
The objective is log(LHS/RHS) of the point's LHS: exact where ``verify.exact_score`` applies (per trial
for FAST's mixture), else a short Monte Carlo estimate (``trials`` per point); inadmissible points get
the worst admissible log-ratio seen minus 1. A generation (``population`` points) is evaluated per
ask/tell step; the engine batches trials (one run per point, no loop over trials) but binds one
problem per run, so points of a generation are separate runs (``evaluate_points``, a task function the
executor can distribute).
**Statement** (winner's curse): the best point is re-run with ``confirm_trials`` trials on a seed spawned
by ``bounds.core.seeds.spawn(seed, "search", .)`` apart from every search seed (:func:`search_seeds`); a violation is claimed only when the
confirmation interval's low end exceeds the RHS (``verify.verdict.decide``) at an admissible point; where
that point's hypotheses are only assumed (or undecided), the claim is a conditional violation, ``violated
unless`` the named hypotheses fail there (``verify.verdict.verdict_of``), and is reported as a finding too.
The record says how many points were tried. ``replay(instance_file)`` reruns the confirmation exactly.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from bounds.core.errors import UserInputError
from bounds.core.face import notebook_face, short
from bounds.core.record import Record, register
from bounds.core.stats import MEAN_LEVEL
from verify.instance import INSTANCE_FORMAT, load_instance  # re-exported: instance files are read there
from verify.scenario import PointEstimate, Scenario, evaluate_point
from verify.verdict import HOLDS, NO_ADMISSIBLE, NOT_CONFIRMED, VIOLATED, VIOLATED_UNLESS, confirmed, finding_kind

__all__ = ["INSTANCE_FORMAT", "SearchRecord", "confirm", "evaluate_points", "load_instance", "replay", "search",
           "search_seeds"]

# Score given to a diverged (infinite-LHS) admissible point: finite, so optimisers keep working.
LOG_RATIO_CAP = math.log(1e6)


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
    from verify.cost import point_fidelity
    from verify.scenarios import get

    sc = scenario_id if isinstance(scenario_id, Scenario) else get(scenario_id)
    out = []
    for pt, s in zip(points, seeds):
        try:
            with plugin_guard(sc, pt):
                kind, why = point_fidelity(sc, pt, trials)
                if kind == "cut":  # over the per-point budget: not simulated, counted (verify.cost)
                    out.append({"point": dict(pt), "score": None, "ratio": math.nan, "lhs": math.nan,
                                "rhs": math.nan, "seed": int(s), "trials": int(trials), "fidelity": "cut",
                                "cut": why})
                    continue
                est = evaluate_point(sc, pt, trials=trials, seed=s, device=device)
        except OutsideDomain as exc:
            # the result itself refuses the point (a value outside a symbol's domain): not a counterexample,
            # not a crash: skipped, counted in the record (``SearchRecord.outside_domain``)
            out.append({"point": dict(pt), "score": None, "ratio": math.nan, "lhs": math.nan, "rhs": math.nan,
                        "seed": int(s), "trials": int(trials), "skipped": str(exc)})
            continue
        method = dict(est.exact).get("method", "")
        out.append({**est.to_dict(), "score": est.score,
                    "fidelity": "exact" if method == "exact" else "per-trial" if method else "simulated",
                    **({} if method else {"why_simulated": why})})
    return out


class OutsideDomain(UserInputError):
    """A point the result's own domains refuse (``bounds`` raised while checking its inputs)."""


@contextmanager
def plugin_guard(scenario: Scenario, point: Mapping[str, Any] | None = None) -> Iterator[None]:
    """Run one evaluation of ``scenario``: a domain refusal becomes :class:`OutsideDomain`, and a crash
    inside a plugin scenario's code (build, measure, complete) one ``UserInputError`` line naming its file.

    Built-in scenarios' own errors propagate unchanged (they are bugs of ours, and tests should see them).
    """
    try:
        yield
    except OutsideDomain:
        raise
    except UserInputError as exc:
        if "outside its domain" in str(exc):
            raise OutsideDomain(str(exc)) from None
        if scenario.origin != "built-in" and not str(exc).startswith(("plugin", "scenario")):
            raise UserInputError(f"plugin scenario {scenario.id} ({scenario.origin}): {exc}") from None
        raise
    except Exception as exc:
        if scenario.origin == "built-in":
            raise
        at = "" if point is None else " at " + ", ".join(f"{k}={v}" for k, v in dict(point).items())
        raise UserInputError(f"plugin scenario {scenario.id} ({scenario.origin}) failed{at}: "
                             f"{type(exc).__name__}: {exc}") from None


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

        tasks = [Task("verify.falsify:evaluate_points", {"scenario_id": scenario_id, "points": [dict(p)],
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


def _objective(ev: Mapping[str, Any], floor: float) -> float:
    if ev["score"] is None:
        return floor - 1.0
    return min(LOG_RATIO_CAP, math.log(max(float(ev["score"]), 1e-12)))


def _search_summary(s: SearchRecord) -> str:
    c = s.confirmation or {}
    kind = finding_kind(str(c.get("verdict")))
    found = (f"{kind} confirmed, LHS/RHS {short(c.get('ratio'))}" + (f" (unless {'; '.join(c['unless'])} fails)"
                                                                      if c.get("unless") else "") if kind else
             f"no violation among {s.admissible} admissible points searched (not a proof)")
    return f"{s.id}: {s.optimiser}, {s.evaluations} evaluations, seed {s.seed}; {found}"


def _search_rows(s: SearchRecord) -> list[tuple[str, Any]]:
    c = s.confirmation or {}
    return [("result", s.result), ("optimiser", s.optimiser), ("evaluations", s.evaluations),
            ("admissible", s.admissible), ("stopped by", s.stopped_by),
            ("points", fidelity_said(s.fidelity).lstrip("; ") or "none scored"),
            ("best point", s.best.get("point")), ("best score", short(s.best.get("score"))),
            ("confirmation", f"{c.get('verdict')} at {c.get('trials')} fresh trials" if c.get("verdict")
             else c.get("status", "no confirmation"))]


@register
@notebook_face(_search_summary, rows=_search_rows)
@dataclass
class SearchRecord(Record):
    """A search and its confirmation; ``to_dict()`` is the JSON record, ``from_dict`` reads it back."""

    KIND = "search"

    id: str
    result: str
    optimiser: str
    seed: int
    budget: int
    time_limit: float | None
    trials: int
    population: int
    evaluations: int = 0
    admissible: int = 0
    outside_domain: int = 0
    best: dict[str, Any] = field(default_factory=dict)
    default: dict[str, Any] = field(default_factory=dict)
    confirmation: dict[str, Any] = field(default_factory=dict)
    trace: list[dict[str, Any]] = field(default_factory=list)
    interrupted: bool = False
    stopped_by: str = "budget"
    elapsed_s: float = 0.0
    device: str = "cpu"
    notes: list[str] = field(default_factory=list)
    space: list[dict[str, Any]] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)
    plugin: dict[str, str] = field(default_factory=dict)  # {"path", "sha256"} of a plugin scenario's file
    claims_tried: int = 0   # confirmations spent on apparent violations (stop_at_violation)
    first_violation: dict[str, Any] = field(default_factory=dict)
    finding: str = ""
    fidelity: dict[str, Any] = field(default_factory=dict)  # shares exact / simulated / cut (verify.cost)

    @classmethod
    def read(cls, data: Mapping[str, Any], where: str) -> SearchRecord:
        from verify.saved import check_search

        check_search(data, where)
        # the sizes the report does not show: a record without them (hand-made) reads as 0, "not recorded"
        return super().read({"budget": 0, "time_limit": None, "trials": 0, "population": 0, **data}, where)

    def instance_file(self) -> dict[str, Any]:
        """The replayable instance: scenario, point, trials, seeds (and the numbers to expect)."""
        c = self.confirmation
        if not c.get("seeds"):
            raise UserInputError("this search has no confirmation to replay (it was interrupted before one)")
        from bounds.core.jsonable import jsonable as _plain

        return _plain({"format": INSTANCE_FORMAT, "scenario": self.id, "point": self.best["point"],
                       "trials": c["trials"], "seeds": c["seeds"], "level": c["level"], "device": self.device,
                       "expect": {k: c[k] for k in ("verdict", "lhs", "ci", "rhs")},
                       **({"plugin": self.plugin} if self.plugin else {})})


def confirm(scenario: Scenario, point: Mapping[str, Any], *, trials: int, seed: int, device: str = "cpu",
            level: float = MEAN_LEVEL) -> tuple[dict[str, Any], PointEstimate]:
    """Re-run ``point`` with ``trials`` fresh trials; the verdict by ``verify.verdict.verdict_of`` (a violation only at
    admissible points; ``violated unless`` where they rest on assumed hypotheses, named in ``unless``)."""
    from verify.verdict import unless_clause, verdict_of

    with plugin_guard(scenario, point):
        est = evaluate_point(scenario, point, trials=trials, seed=seed, device=device, level=level)
    low, high = est.ci
    verdict = verdict_of(est)  # the one verdict rule (verify and verify --instance use it too)
    # a conditional violation: the hypotheses it rests on, and what the theorem needs for the point not to count
    needs = [unless_clause(c) for c in est.conditions if c.get("name") in verdict.unless]
    extra: dict[str, Any] = {"why": list(verdict.notes), "unless": list(verdict.unless), "unless_needs": needs}
    if est.kind == "order":
        # hidden constant C (LHS <= C x argument): the confirmed interval's low end / argument bounds it below
        extra["constant_lower_bound"] = low / est.rhs if est.rhs > 0 and est.hypotheses is True else None
        extra["constant_ci"] = [low / est.rhs, high / est.rhs] if est.rhs > 0 else [None, None]
    method = (est.exact or {}).get("method", "monte carlo")
    out = {"verdict": verdict.word, "lhs": est.lhs, "ci": [low, high], "rhs": est.rhs, "ratio": est.ratio,
           "ratio_ci": [low / est.rhs, high / est.rhs] if est.rhs > 0 else [None, None], "trials": trials,
           "method": method, "cross_check": cross_check(scenario, point, est, trials=trials, seed=seed,
                                                        device=device, level=level) if method == "exact" else None,
           "seeds": [seed], "level": level, "hypotheses": est.hypotheses, "conditions": list(est.conditions),
           "values": dict(est.values), "rhs_terms": dict(est.rhs_terms), "describe": dict(est.describe),
           "assumed": dict(est.assumed), **extra}
    return out, est


# Largest Monte Carlo cross-check of an exact confirmation, in rounds x local steps (the engine's cost is about
# linear in them; 20,000 take a few seconds at 4,096 trials of a small quadratic on 2 cores).
CROSS_CHECK_STEPS = 20_000


def cross_check(scenario: Scenario, point: Mapping[str, Any], est: PointEstimate, *, trials: int, seed: int,
                device: str = "cpu", level: float = MEAN_LEVEL) -> dict[str, Any]:
    """A Monte Carlo replay of an exactly scored point: the claim is the exact value (its interval is the
    floating-point bound); the replay checks the exact path against the engine. ``agrees``: the exact
    interval meets the replay's ``level`` confidence interval. Skipped, with the reason, past CROSS_CHECK_STEPS."""
    from verify.exact_score import monte_carlo
    from verify.instance import instance_sizes

    sizes = instance_sizes(scenario, point)
    steps = sizes["rounds"] * sizes["local_steps"]
    if steps > CROSS_CHECK_STEPS:
        return {"skipped": f"{sizes['rounds']} rounds x {sizes['local_steps']} local steps = {steps} is past the "
                           f"{CROSS_CHECK_STEPS} a Monte Carlo cross-check may take"}
    with monte_carlo(), plugin_guard(scenario, point):
        mc = evaluate_point(scenario, point, trials=trials, seed=seed, device=device, level=level)
    lo, hi = mc.ci
    return {"method": "monte carlo", "lhs": mc.lhs, "ci": [lo, hi], "trials": trials, "seed": seed, "level": level,
            "agrees": bool(lo <= est.ci[1] and est.ci[0] <= hi)}


def search_space(scenario: Scenario, problems: Sequence[str] | str | None = None) -> Scenario:
    """``scenario`` with each categorical axis cut to what a search draws from.

    By default an axis's ``searched`` values (all its choices when unset); ``problems`` replaces the
    problem axis's: names among its choices, or ``"all"``. Raises ``UserInputError`` for other names.
    """
    import dataclasses

    space = []
    for p in scenario.space:
        if p.choices is None:
            space.append(p)
            continue
        use = tuple(p.searched or p.choices)
        if p.name == "problem" and problems is not None:
            words = [w.strip() for w in (problems.split(",") if isinstance(problems, str) else problems) if w.strip()]
            use = tuple(p.choices) if words == ["all"] else tuple(dict.fromkeys(words))
            bad = [w for w in use if w not in p.choices]
            if bad or not use:
                raise UserInputError(f"--problems {','.join(words) or repr(problems)}: {scenario.id} admits "
                                     f"{', '.join(p.choices)} (or all)")
        space.append(dataclasses.replace(p, choices=use, searched=None))
    return dataclasses.replace(scenario, space=tuple(space))


def search(scenario: Scenario, *, budget: int, time_limit: float | None = None, seed: int = 0, trials: int = 64,
           confirm_trials: int = 4096, optimiser: str = "stratified", population: int = 8,
           device: str = "cpu", level: float = MEAN_LEVEL,
           progress: Callable[[int, int, float | None], None] | None = None,
           map_points: Callable[..., list[dict[str, Any]]] | None = None,
           problems: Sequence[str] | str | None = None, stop_at_violation: bool = False,
           terms: Sequence[str] | str | None = None) -> SearchRecord:
    """Search ``scenario`` for the largest LHS/RHS with ``budget`` evaluations (and ``time_limit`` seconds).

    Args:
        trials: trials per search evaluation (one batched run each).
        confirm_trials: trials of the confirmation run of the best point.
        population: points per ask/tell generation.
        progress: ``progress(done, budget, best_ratio)`` after each generation; may raise
            KeyboardInterrupt (the search then keeps its best point and stops).
        map_points: ``(scenario_id, points, seeds, trials, device) -> summaries`` (default in-process
            ``evaluate_points``; an executor can distribute generations).
        problems: the problem families to search (see :func:`search_space`; default: the scenario's).
        stop_at_violation: after each generation, confirm (``confirm_trials`` fresh trials on the
            confirmation seed) the best point whose first estimate already lies above the RHS; stop at
            the first confirmed violation (``first_violation`` records its evaluation and time). At most
            :data:`MAX_CLAIMS` such confirmations per search; a refuted claim is counted and the search goes on.
        terms: RHS term names the ``stratified`` optimiser aims at (default: every term).
    Returns: a :class:`SearchRecord` (``interrupted`` when Ctrl-C stopped it: no confirmation then).
    """
    from verify.cost import fidelity_shares
    from verify.optimisers import make_optimiser
    from verify.suite import versions

    if int(budget) != budget or budget < 1:
        raise UserInputError(f"budget={budget} must be a positive integer (evaluations)", param="budget")
    if time_limit is not None and not time_limit > 0:
        raise UserInputError(f"time_limit={time_limit} must be a positive number of seconds", param="time_limit")
    for name, value in (("trials", trials), ("confirm_trials", confirm_trials)):
        if int(value) != value or value < 2:
            raise UserInputError(f"{name}={value} must be an integer >= 2 (an interval needs two runs)", param=name)
    mapper = map_points or evaluate_points
    budget, population = int(budget), max(1, min(int(population), int(budget)))
    seeds, conf_seed = search_seeds(seed, budget)
    searched = search_space(scenario, problems)
    opt = make_optimiser(optimiser, searched, seed=int(seed), population=population, budget=budget, terms=terms)
    rec = SearchRecord(id=scenario.id, result=scenario.result, optimiser=optimiser, seed=int(seed), budget=budget,
                       time_limit=time_limit, trials=int(trials), population=population, device=device,
                       space=[p.to_dict() for p in searched.space], notes=list(scenario.notes),
                       versions=versions(), plugin=plugin_record(scenario))
    for wide, cut in zip(scenario.space, searched.space):
        if wide.choices is not None and tuple(cut.choices or ()) != tuple(wide.choices):
            # "not searched", not "admissible": a check's control (ASCAF.UH's FedAvg) is offered but outside the result
            rec.notes.append(f"axis {wide.name} searched over {', '.join(map(str, cut.choices or ()))}; not "
                             f"searched: {', '.join(str(c) for c in wide.choices if c not in (cut.choices or ()))}")
    t0 = time.perf_counter()
    best: dict[str, Any] | None = None
    floor = 0.0
    done = 0
    try:
        while done < budget:
            if time_limit is not None and time.perf_counter() - t0 >= time_limit:
                rec.stopped_by = "time"
                break
            n = min(population, budget - done)
            try:
                points = opt.ask(n)
            except Exception as exc:  # a third-party optimiser's internal failure ends the search, not the run
                rec.stopped_by = "optimiser error"
                rec.notes.append(f"{optimiser} failed after {done} evaluations ({type(exc).__name__}: {exc}); "
                                 "the best point so far is confirmed")
                break
            strata = list(getattr(opt, "last_strata", []))
            # in-process, the object itself: a scenario built in a cell is in no registry
            evs = mapper(scenario if map_points is None else scenario.id, points, seeds[done:done + n], int(trials),
                         device)
            scored = [e["score"] for e in evs if e["score"] is not None]
            if scored:
                floor = min([floor] + [_objective(e, 0.0) for e in evs if e["score"] is not None])
            opt.tell(points, [_objective(e, floor) for e in evs])
            for j, e in enumerate(evs):
                done += 1
                if e.get("cut") and not any(n.startswith("points over the per-point") for n in rec.notes):
                    rec.notes.append(f"points over the per-point cost budget are cut (not simulated) and counted "
                                     f"(fidelity.cut); first: {e['cut']}")
                if e.get("skipped"):
                    rec.outside_domain += 1
                    if rec.outside_domain == 1:
                        rec.notes.append(f"points outside the result's domains are skipped and counted "
                                         f"(outside_domain); first: {e['skipped']}")
                if e["score"] is not None:
                    rec.admissible += 1
                    if best is None or e["score"] > best["score"]:
                        best = {**e, "evaluation": done}
                if done == 1:
                    rec.default = {"point": e["point"], "estimate": e}
                rec.trace.append({"evaluation": done, "ratio": e["ratio"], "admissible": e["score"] is not None,
                                  **({"fidelity": e["fidelity"]} if "fidelity" in e else {}),
                                  "best": best["score"] if best else None,
                                  **({"problem": e["point"]["problem"]} if "problem" in e["point"] else {}),
                                  **({"stratum": strata[j]} if j < len(strata) else {})})
            rec.evaluations = done
            if progress:
                progress(done, budget, best["score"] if best else None)
            if stop_at_violation and _try_claim(rec, scenario, evs, done, int(confirm_trials), conf_seed, device,
                                                level, t0):
                break
    except KeyboardInterrupt:
        rec.interrupted, rec.stopped_by = True, "interrupt"
    rec.evaluations = done
    rec.fidelity = fidelity_shares(rec.trace)
    rec.elapsed_s = time.perf_counter() - t0
    if rec.first_violation:
        rec.confirmation["points_tried"] = done
        rec.finding = finding(rec)
        return rec
    if best is None:
        rec.notes.append("no admissible point was found: nothing to confirm")
        rec.confirmation = {"status": NO_ADMISSIBLE, "reason": "no admissible point was found"}
        return rec
    rec.best = {"point": best["point"], "evaluation": best["evaluation"], "estimate": best}
    if rec.interrupted:
        rec.confirmation = {"status": NOT_CONFIRMED, "reason": "interrupted (Ctrl-C): best-so-far kept unconfirmed"}
        return rec
    rec.confirmation, _ = confirm(scenario, best["point"], trials=int(confirm_trials), seed=conf_seed,
                                  device=device, level=level)
    rec.confirmation["points_tried"] = done
    rec.confirmation["search_seeds_disjoint"] = conf_seed not in set(seeds)
    rec.confirmation["seed_rule"] = ("bounds.core.seeds.spawn(seed, 'search', budget + 1): index 0 confirms, "
                                     "indices 1..budget are the search evaluations' seeds in order")
    rec.elapsed_s = time.perf_counter() - t0
    rec.finding = finding(rec)
    return rec


# Confirmations a stop_at_violation search may spend on first estimates that claim a violation.
MAX_CLAIMS = 5


def _try_claim(rec: SearchRecord, scenario: Scenario, evs: Sequence[Mapping[str, Any]], done: int, trials: int,
               seed: int, device: str, level: float, t0: float) -> bool:
    """Confirm this generation's best apparent violation; True (and the record filled) when confirmed as a
    finding (``verify.verdict.confirmed``: a violation, plain or conditional)."""
    # summaries are plain JSON values: a diverged LHS arrives as the string "inf", hence float()
    claims = [(i, e) for i, e in enumerate(evs) if e["score"] is not None and float(e["ci"][0]) > float(e["rhs"])]
    if not claims or rec.claims_tried >= MAX_CLAIMS:
        return False
    i, e = max(claims, key=lambda ie: float(ie[1]["score"]))
    rec.claims_tried += 1
    conf, _ = confirm(scenario, e["point"], trials=trials, seed=seed, device=device, level=level)
    if not confirmed(conf["verdict"]):
        rec.notes.append(f"evaluation {done - len(evs) + i + 1}: first estimate above the RHS (ratio "
                         f"{float(e['score']):.4g}) not confirmed ({conf['verdict']}, ratio {conf['ratio']:.4g}); search went on")
        return False
    evaluation = done - len(evs) + i + 1
    rec.best = {"point": e["point"], "evaluation": evaluation, "estimate": dict(e)}
    rec.confirmation = {**conf, "search_seeds_disjoint": True,
                        "seed_rule": "bounds.core.seeds.spawn(seed, 'search', budget + 1): index 0 confirms"}
    rec.stopped_by = f"confirmed {finding_kind(conf['verdict'])}"
    rec.elapsed_s = time.perf_counter() - t0
    rec.first_violation = {"evaluation": evaluation, "elapsed_s": rec.elapsed_s, "claims_tried": rec.claims_tried}
    return True


def space_summary(rec: SearchRecord) -> str:
    """The searched space in one line: its axes and the problem families searched."""
    axes = [a["name"] for a in rec.space if a.get("choices") is None and a["low"] < a["high"]
            or a.get("choices") and len(a["choices"]) > 1]
    fam = next((a["choices"] for a in rec.space if a["name"] == "problem" and a.get("choices")), None)
    return (f"{rec.id}'s space ({len(axes)} axes: {', '.join(axes)}"
            + (f"; families {', '.join(map(str, fam))}" if fam else "") + ")" + fidelity_said(rec.fidelity))


def fidelity_said(f: Mapping[str, Any]) -> str:
    """``; points scored exactly x%, simulated y%, cut by cost z%`` (empty before a search has run)."""
    if not f or not f.get("points"):
        return ""
    return (f"; of {f['points']} points: scored exactly {100 * f['exact']:.0f}%, simulated "
            f"{100 * f['simulated']:.0f}%, cut by cost {100 * f['cut']:.0f}% (not scored)")


def _cross_said(x: Mapping[str, Any] | None) -> str:
    if not x:
        return ""
    if "skipped" in x:
        return f"; Monte Carlo cross-check skipped: {x['skipped']}"
    return (f"; Monte Carlo cross-check on {x['trials']} trials: CI [{x['ci'][0]:.4g}, {x['ci'][1]:.4g}], "
            + ("agrees" if x["agrees"] else "DISAGREES with the exact value"))


def finding(rec: SearchRecord) -> str:
    """What the search showed, in words that never claim more than it covered: a confirmed violation, plain or
    conditional (``violated unless``: it opens the line, with the hypotheses it rests on), or what was covered."""
    c = rec.confirmation
    if c.get("verdict") in (VIOLATED, VIOLATED_UNLESS):
        at = rec.first_violation.get("evaluation", rec.best.get("evaluation"))
        head = (f"violation confirmed at evaluation {at}" if c["verdict"] == VIOLATED else
                f"violated unless {'; '.join(c.get('unless') or ())} fails: conditional violation confirmed at "
                f"evaluation {at}")
        if c.get("method") == "exact":
            said = (f"{head} (exact LHS: {c['lhs']:.4g} - rounding bound = {c['ci'][0]:.4g} > RHS {c['rhs']:.4g}, "
                    f"ratio {c['ratio']:.4g}{_cross_said(c.get('cross_check'))})")
        else:
            said = (f"{head} ({c['trials']} fresh trials: LHS CI low {c['ci'][0]:.4g} > RHS {c['rhs']:.4g}, "
                    f"ratio {c['ratio']:.4g})")
        if c["verdict"] == VIOLATED_UNLESS:
            said += ("; a refutation of the theorem unless " + " or ".join(c.get("unless_needs") or ())
                     + "; supplying the missing constants decides it")
        return said
    said = {HOLDS: "not violated there"}.get(str(c.get("verdict")), str(c.get("verdict") or c.get("status") or ""))
    ratio = f", ratio {c['ratio']:.4g}" if isinstance(c.get("ratio"), float) else ""
    return (f"no violation among {rec.admissible} admissible points of {space_summary(rec)}; not a proof"
            + (f" (its best point, confirmed: {said}{ratio})" if c.get("verdict") else
               f" ({said})" if said else ""))


def plugin_record(scenario: Scenario) -> dict[str, str]:
    """``{"path", "sha256"}`` of the plugin file ``scenario`` came from (empty for built-ins and code)."""
    import hashlib

    from verify.scenarios import plugin_file

    path = plugin_file(scenario)
    if path is None:
        return {}
    with open(path, "rb") as fh:
        return {"path": path, "sha256": hashlib.sha256(fh.read()).hexdigest()}


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
