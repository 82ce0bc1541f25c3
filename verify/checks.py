"""Check groups as declarative specs over scenarios, and the one runner that turns them into records.

**Setting**: a check group is an id and a tuple of specs; every spec names a scenario
(:mod:`verify.scenarios`) and the points at which to score it. The runner (:func:`run_group`) scores
every point through :func:`verify.scenario.evaluate_point` -- the one place where an instance becomes
evidence -- and turns the estimates into :class:`verify.record.Verification` records:

* :class:`Certify` -- the scenario's verdict at one point (:func:`verify.verdict.verdict_of`, the same verdict
  ``falsify``'s confirmation, ``verify --instance`` and ``assert_bound_holds`` give there);
* :class:`Control` -- a point just outside one named hypothesis, where the bound must really fail;
* :class:`Sweep` -- one axis swept, per-seed-group log-log slope against a predicted exponent
  (``fit="slope"``) or the hidden constant LHS/argument of an ORDER result kept bounded
  (``fit="constant"``);
* :class:`Contrast` -- two points compared by a rule (an effect such as client drift);
* :class:`Exact` -- a scenario whose LHS is computed exactly (no Monte Carlo): equality within a
  stated floating-point error bound.

Seeds: each spec draws its simulation seed from the ``check`` stream of the base seed, keyed by the
group id and the spec's position (:func:`bounds.core.seeds.word`), so a group's numbers depend on the
base seed and its own id only (any subset, order or process gives the same numbers), and base seeds
0 and 1 share no stream. The scenario's ``draw`` axis (the problem's random draw), when the spec does
not pin it, is the base seed: ``verify --seed 1`` draws another instance too.

Example (a plugin or paper module)::

    from verify.checks import Certify, Control, Group, Sweep

    CHECKS = [
        Group("MY.T1", (
            Certify("MY.T1", title="my bound at its default instance"),
            Control("MY.T1", {"eta_frac": 30.0}, broken="step size cap", id="MY.T1.control:step",
                    title="step 30x its cap", note="steps past 2/L diverge"),
            Sweep("MY.T1", axis="R", values=((100, 200, 400), (100, 200, 400, 800)), exponent=-0.5,
                  tol=0.1, id="MY.T1.rate", title="R^-1/2"),
        )),
    ]
    records = run_group(CHECKS[0], Context(quick=True, seed=0))
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np

from bounds.core.stats import MEAN_LEVEL
from verify.check_specs import SPREAD_MAX, Certify, Contrast, Control, Exact, Spec, Sweep  # noqa: F401
from verify.record import Verification
from verify.verdict import (
    HOLDS,
    VIOLATED,
    VIOLATED_UNLESS,
    Verdict,
    constant_verdict,
    contrast_verdict,
    control_verdict,
    exact_verdict,
    mean_ci,
    ratio,
    slope_verdict,
    verdict_of,
)

__all__ = ["Certify", "Context", "Contrast", "Control", "Exact", "Group", "Spec", "Sweep", "run_group",
           "run_spec"]



@dataclass(frozen=True)
class Context:
    """How to run: Monte Carlo size, base seed, device, quick mode, confidence level.

    Args:
        quick: smaller Monte Carlo sizes and sweeps (each spec's first count / value list).
        trials: the user's trial count for every spec (overrides the specs' own).
        seed: base seed; every simulation seed derives from it (see the module docstring).
        device, threads: where the engine runs.
        level: two-sided confidence level of the LHS intervals.
    """

    quick: bool = False
    trials: int | None = None
    seed: int = 0
    device: str = "cpu"
    level: float = MEAN_LEVEL
    threads: int | None = 1
    progress: Callable[[str], None] | None = None

    def n(self, quick: int, full: int) -> int:
        """Trials: the user's count, else the quick or full default."""
        if self.trials is not None:
            return self.trials
        return quick if self.quick else full

    def pick(self, pair: Sequence[Any]) -> Any:
        """The quick or full member of a ``(quick, full)`` pair."""
        return pair[0] if self.quick else pair[1]

    def simulate(self, problem: Any, algorithm: Any, pattern: Any, trials: int, rounds: int, seed_offset: int = 0):
        """One engine run for users' hand-built ``Check`` functions: at the base seed, or for ``seed_offset``
        k > 0 at the k-th word of the ``check`` stream (never base seed + k: seeds 0 and 1 share no run)."""
        from bounds.core.seeds import key, word
        from quadratics import simulate

        seed = self.seed if not seed_offset else word(int(self.seed), "check", key("Context.simulate"), int(seed_offset))
        return simulate(problem, algorithm, pattern, trials=trials, rounds=rounds, seed=seed, device=self.device,
                        threads=self.threads)


@dataclass(frozen=True)
class Group:
    """A check group: ``verify ID`` runs its specs in order.

    Args:
        id: the group id (``convbound verify ID``). specs: the specs.
        title: one line. origin: ``built-in`` or where a plugin came from (set by the registry).
        finish: optional ``(records) -> records`` run after the specs (e.g. a finding that compares two
            records' verdicts); a module-level function.
    """

    id: str
    specs: tuple[Spec, ...]
    title: str = ""
    origin: str = "built-in"
    finish: Callable[[list[Verification]], list[Verification]] | None = None

    @property
    def controls(self) -> list[str]:
        """Ids of the records that must be ``violated`` (negative controls)."""
        out = []
        for s in self.specs:
            if isinstance(s, Control) or getattr(s, "control", False) or (isinstance(s, Exact) and s.expected == VIOLATED):
                out.append(s.id)
        return out

    def __call__(self, ctx: Context) -> list[Verification]:
        return run_group(self, ctx)


# Runner -------------------------------------------------------------------------------------------------


def _seed(ctx: Context, group: str, index: int, j: int = 0, stream: str = "") -> int:
    """Spec ``index`` of ``group`` (point j of a sweep): its own seed, or its named ``stream``'s (shared)."""
    from bounds.core.seeds import key, word

    if stream:
        return word(int(ctx.seed), "check", key(group), 1, key(stream), int(j))
    return word(int(ctx.seed), "check", key(group), 0, int(index), int(j))


def _point(scenario: Any, point: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """The spec's point; the problem's random draw follows the base seed unless the spec pins it (a seed
    past the ``draw`` axis's range wraps around it: the axis is what a search may draw)."""
    axes = {p.name: p for p in scenario.space}
    if "draw" not in axes or "draw" in point or axes["draw"].choices is not None:
        return dict(point)
    low, high = int(axes["draw"].low), int(axes["draw"].high)
    return {"draw": low + int(ctx.seed) % (high - low + 1), **dict(point)}


def scenario_of(ref: Any) -> Any:
    """A spec's scenario: an id of the registry (``verify.scenarios.get``) or a ``Scenario`` object (a plugin's)."""
    if isinstance(ref, str):
        from verify.scenarios import get

        return get(ref)
    return ref


#: Scored points of the group that is running, by everything their numbers depend on (see :func:`_scored`).
_SCORED: ContextVar[dict[tuple, Any] | None] = ContextVar("convbound_checks_scored", default=None)


@contextlib.contextmanager
def _scored() -> Iterator[None]:
    """Within this block a point scored twice with the same inputs is scored once.

    Why: specs of a group that share a stream read the same runs (a shape check and its false-rate control
    sweep the same points at the same seeds); scoring them again doubled the group's time for identical
    numbers. The key holds every input of ``evaluate_point`` and the exact-or-simulated switch, so a cached
    estimate is the one a fresh call would return; the cache lives for one group only.
    """
    token = _SCORED.set({})
    try:
        yield
    finally:
        _SCORED.reset(token)


def _estimate(ref: Any, point: Mapping[str, Any], ctx: Context, trials: int, seed: int,
              outside: bool = False) -> Any:
    from verify.exact_score import _FORCE_MC, _NO_SERIES
    from verify.scenario import evaluate_point

    sc = scenario_of(ref)
    full = _point(sc, point, ctx)
    memo = _SCORED.get()
    key = (sc.id, id(sc), repr(sorted(full.items())), int(trials), int(seed), ctx.device, ctx.level, ctx.threads,
           bool(outside), _FORCE_MC.get(), _NO_SERIES.get())
    if memo is not None and key in memo:
        return memo[key]
    est = evaluate_point(sc, full, trials=int(trials), seed=seed, device=ctx.device,
                         level=ctx.level, threads=ctx.threads, outside=outside)
    if memo is not None:
        memo[key] = est
    return est


def _instance(est: Any, ctx: Context, seed: int, **extra: Any) -> dict[str, Any]:
    """A record's ``instance``: enough to replay the point (scenario, point, trials, seed) and its inputs."""
    return {**dict(est.describe), "scenario": est.scenario, "result": est.result, "point": dict(est.point), "seeds": [seed],
            "result_inputs": dict(est.values), "rhs_terms": dict(est.rhs_terms), "level": ctx.level, **extra}


def build_record(ctx: Context, verdict: Verdict | str, *, elapsed: float, est: Any = None,
                 **fields: Any) -> Verification:
    """The one builder of a check's record: the verdict (its word and, for ``violated unless``, the
    hypotheses it rests on), the run's provenance (base seed, device, elapsed seconds) and, given a scored
    point ``est``, its LHS, interval, RHS, ratio, hypotheses and the result's variant; ``fields`` are the
    remaining ``Verification`` fields (id, title, expected, kind, instance, notes...), overriding those."""
    import bounds

    v = verdict if isinstance(verdict, Verdict) else Verdict(verdict)
    base: dict[str, Any] = {}
    if est is not None:
        base = {"lhs": est.lhs, "ci": est.ci, "rhs": est.rhs,
                "ratio": ratio(est.lhs, est.rhs) if math.isfinite(est.lhs) else None, "trials": est.trials,
                "variant": bounds.get(est.result).variant, "conditions": tuple(est.conditions)}
    return Verification(**{**base, **fields}, verdict=v.word, unless=v.unless, seed=int(ctx.seed),
                        device=ctx.device, elapsed_s=elapsed)


def certify_record(est: Any, *, ctx: Context, seed: int, id: str, title: str, expected: str = HOLDS,
                   notes: Sequence[str] = (), elapsed: float = 0.0) -> Verification:
    """The certificate record of a scored point (also what ``verify --instance`` prints)."""
    verdict = verdict_of(est)
    how = f"{est.trials} trials, seed {seed}" if est.trials else "exact moments, no trials"
    scope = f"one instance (the point above, {how}): evidence at this point, not a proof over the result's domain"
    return build_record(ctx, verdict, elapsed=elapsed, est=est, id=id, title=title, expected=expected,
                        instance=_instance(est, ctx, seed), kind="certificate", series=dict(est.series),
                        notes=tuple(est.notes) + tuple(notes) + verdict.notes + (scope,))


def _certify(spec: Certify, ctx: Context, group: str, index: int) -> list[Verification]:
    t0 = time.perf_counter()
    seed = _seed(ctx, group, index, stream=spec.stream)
    point = {**dict(spec.point), **(dict(spec.quick) if ctx.quick else {})}
    est = _estimate(spec.scenario, point, ctx, ctx.n(*spec.trials), seed, outside=spec.outside)
    return [certify_record(est, ctx=ctx, seed=seed, id=spec.id or est.scenario,
                           title=spec.title or scenario_of(spec.scenario).title, expected=spec.expected, notes=spec.notes,
                           elapsed=time.perf_counter() - t0)]


def _control(spec: Control, ctx: Context, group: str, index: int) -> list[Verification]:
    t0 = time.perf_counter()
    seed = _seed(ctx, group, index, stream=spec.stream)
    est = _estimate(spec.scenario, spec.point, ctx, ctx.n(*spec.trials), seed, outside=True)
    named = spec.broken in est.broken
    notes = [f"negative control: hypothesis '{spec.broken}' broken ({spec.note}); the bound must fail here",
             f"hypotheses decided False at this point: {', '.join(est.broken) or 'none'}"]
    if not named:
        notes.append(f"CONTROL BROKEN: '{spec.broken}' is not decided False at this point")
    verdict = control_verdict(est.kind, est.ci[0], est.ci[1], est.rhs, broken=named)
    return [build_record(ctx, verdict, elapsed=time.perf_counter() - t0, est=est, id=spec.id, title=spec.title,
                         expected=VIOLATED, instance=_instance(est, ctx, seed, broken_hypothesis=spec.broken),
                         control=True, kind="control", notes=tuple(notes))]


def _groups(est: Any, groups: int, statistic: Callable[[np.ndarray], float] | None) -> np.ndarray:
    """Per-group values of a point's per-trial samples split into ``groups`` equal blocks (the rest dropped);
    an exact LHS (no trials: ``quadratics.exact``) is every group's value, without sampling spread."""
    if est.trials == 0:
        return np.full(groups, float(est.lhs))
    x = np.asarray(est.samples)
    blocks = x[: x.shape[0] // groups * groups].reshape(groups, -1, *x.shape[1:])
    if statistic is None:
        return blocks.mean(axis=1)
    return np.array([statistic(b) for b in blocks])


def _monte_carlo() -> Any:
    from verify.exact_score import monte_carlo

    return monte_carlo()


def _sweep(spec: Sweep, ctx: Context, group: str, index: int) -> list[Verification]:
    import bounds
    from verify.fit import fit_constant, fit_over_seeds

    t0 = time.perf_counter()
    xs = list(ctx.pick(spec.values))
    if not xs:  # a sweep run in full mode only
        return []
    trials = ctx.n(*spec.trials)
    seeds = [_seed(ctx, group, index, j, spec.stream) for j in range(len(xs))]
    # a statistic reads per-trial samples (curves): simulate even where exact moments would apply
    with _monte_carlo() if spec.statistic is not None else contextlib.nullcontext():
        ests = [_estimate(spec.scenario, {**dict(spec.point), spec.axis: x}, ctx, trials, s)
                for s, x in zip(seeds, xs)]
    res = bounds.get(ests[0].result)
    means, lows, highs = [e.lhs for e in ests], [e.ci[0] for e in ests], [e.ci[1] for e in ests]
    conds = [{spec.axis: x, "checks": list(e.conditions)} for x, e in zip(xs, ests)]
    series: dict[str, Any] = {"x": xs, "lhs": means, "ci_low": lows, "ci_high": highs,
                              "x_label": spec.x_label or spec.axis, **({"y_label": spec.y_label} if spec.y_label else {})}
    instance = {**dict(ests[0].describe), "scenario": ests[0].scenario, "result": ests[0].result,
                "point": dict(ests[0].point), "axis": spec.axis,
                "values": xs, "seeds": seeds, "level": ctx.level}
    notes = list(spec.notes)
    if spec.fit == "slope":
        Y = np.stack([_groups(e, spec.groups, spec.statistic) for e in ests], axis=1)
        fit = fit_over_seeds(xs, Y)
        predicted = (float(bounds.get(spec.exponent).rate_map[spec.axis]) if isinstance(spec.exponent, str)
                     else float(spec.exponent))
        verdict = slope_verdict(fit.agrees(predicted, spec.tol))
        notes.append(f"slope fitted per seed group ({spec.groups} groups of {trials // spec.groups} trials), "
                     f"t interval across groups at level {fit.level}; tolerance {spec.tol} on the exponent")
        return [build_record(
            ctx, verdict, elapsed=time.perf_counter() - t0, id=spec.id, title=spec.title, expected=spec.expected,
            lhs=fit.slope, ci=fit.ci, rhs=predicted, ratio=ratio(fit.slope, predicted),
            instance={**instance, "slope_tolerance": spec.tol, "fit": fit.to_dict()}, control=spec.control,
            kind="control" if spec.control else "rate", trials=trials * len(xs), variant=res.variant,
            conditions=tuple(conds),
            series={**series, "fit_slope": fit.slope, "fit_ci": list(fit.ci), "fit_intercept": fit.intercept,
                    "predicted_slope": predicted},
            notes=tuple(notes))]
    if spec.fit != "constant":
        raise ValueError(f"Sweep {spec.id}: fit={spec.fit!r}; valid: slope, constant")
    args = [float(spec.argument(e, xs[0]) if spec.argument else e.rhs) for e in ests]
    cmax, cmin, spread = fit_constant(args, means)
    shape = HOLDS if spread <= spec.spread else VIOLATED
    notes.insert(0, f"fitted constant c = LHS/argument in [{cmin:.4g}, {cmax:.4g}], spread {spread:.3g} "
                    f"({'bounded' if shape == HOLDS else 'NOT bounded'}: limit {spec.spread:g})")
    # an ORDER bound's admissibility may rest on assumed or undecided hypotheses (named, by the scenario's
    # assumptions and the conditions no number decided)
    pending = {k for e in ests for k in e.assumed} | {c["name"] for e in ests for c in e.conditions
                                                       if c.get("holds") is None}
    fitted = constant_verdict(spread, spec.spread, [e.hypotheses for e in ests], sorted(pending),
                              control=spec.control)
    # a failed shape still counts as a failure, whatever it rests on
    expected = HOLDS if fitted.word == VIOLATED_UNLESS else spec.expected
    return [build_record(
        ctx, fitted, elapsed=time.perf_counter() - t0, id=spec.id, title=spec.title, expected=expected,
        # a shape check measures a fitted constant's spread, not an LHS against an RHS: no lhs/rhs/ratio
        measured={"quantity": "fitted constant c = LHS/argument over the sweep", "c_min": cmin, "c_max": cmax,
                  "spread": spread, "spread_limit": spec.spread},
        instance={**instance, "shape_verdict": shape},
        control=spec.control, kind="control" if spec.control else "certificate", trials=trials * len(xs),
        variant=res.variant, conditions=tuple(conds),
        series={**series, "rhs": args, "constant": [a / b for a, b in zip(means, args)]},
        notes=tuple(notes) + fitted.notes)]


def _contrast(spec: Contrast, ctx: Context, group: str, index: int) -> list[Verification]:
    t0 = time.perf_counter()
    if spec.rule != "greater":
        raise ValueError(f"Contrast {spec.id}: rule={spec.rule!r}; valid: greater")
    trials = ctx.n(*spec.trials)
    seed = _seed(ctx, group, index, stream=spec.stream)  # one seed for both points: paired (same noise draws)
    ea = _estimate(spec.a[0], spec.a[1], ctx, trials, seed)
    eb = _estimate(spec.b[0], spec.b[1], ctx, trials, seed)
    a, b = mean_ci(ea.samples, ctx.level), mean_ci(eb.samples, ctx.level)
    diff = mean_ci(eb.samples - ea.samples, ctx.level)
    notes = [f"LHS at a: {a.mean:.6g} [{a.low:.6g}, {a.high:.6g}]; at b: {b.mean:.6g} [{b.low:.6g}, {b.high:.6g}] "
             f"({trials} trials each, level {ctx.level}, one seed: paired)",
             f"paired difference b - a {diff.mean:.6g} [{diff.low:.6g}, {diff.high:.6g}]",
             "holds = the b interval lies wholly above the a interval and the paired difference interval above 0",
             *spec.notes]
    return [build_record(
        ctx, contrast_verdict(a, b, diff), elapsed=time.perf_counter() - t0, id=spec.id, title=spec.title,
        expected=spec.expected, lhs=diff.mean, ci=(diff.low, diff.high), rhs=0.0, ratio=float("nan"),
        instance={"a": {"scenario": ea.scenario, "point": dict(ea.point), "lhs": [a.mean, a.low, a.high],
                        "problem": ea.describe.get("problem")},
                  "b": {"scenario": eb.scenario, "point": dict(eb.point), "lhs": [b.mean, b.low, b.high],
                        "problem": eb.describe.get("problem")},
                  "seeds": [seed], "level": ctx.level,
                  **({"broken_hypothesis": spec.broken} if spec.broken else {})},
        control=spec.control, kind="control" if spec.control else "certificate", trials=trials, notes=tuple(notes))]


def _exact(spec: Exact, ctx: Context, group: str, index: int) -> list[Verification]:
    from verify.scenario import evaluate_point

    t0 = time.perf_counter()
    sc = scenario_of(spec.scenario)
    est = evaluate_point(sc, _point(sc, spec.point, ctx), trials=2, seed=0, exact_lhs=True)
    bound = (est.ci[1] - est.ci[0]) / 2 + spec.tol
    control = spec.expected == VIOLATED
    verdict = exact_verdict(est.lhs, est.rhs, bound, hypotheses=est.hypotheses, broken=bool(est.broken),
                            control=control)
    return [build_record(
        ctx, verdict, elapsed=time.perf_counter() - t0, est=est, id=spec.id, title=spec.title, expected=spec.expected,
        ratio=ratio(est.lhs, est.rhs), instance={**dict(est.describe), "scenario": est.scenario, "result": est.result,
                                                 "point": dict(est.point), "error_bound": bound, "seeds": []},
        control=control, kind="control" if control else "certificate", trials=0,
        notes=(f"exact LHS (no simulation, no sampling error), floating-point error bound {bound:.3g}",))]


_RUNNERS: dict[type, Callable[..., list[Verification]]] = {
    Certify: _certify, Control: _control, Sweep: _sweep, Contrast: _contrast, Exact: _exact}


def run_spec(spec: Spec, ctx: Context, *, group: str, index: int) -> list[Verification]:
    """The records of one spec of ``group`` (position ``index``): every point through ``evaluate_point``."""
    runner = _RUNNERS.get(type(spec))
    if runner is None:
        raise TypeError(f"check group {group}: {type(spec).__name__} is not a spec; valid: "
                        + ", ".join(t.__name__ for t in _RUNNERS))
    return runner(spec, ctx, group, index)


def run_group(group: Group, ctx: Context) -> list[Verification]:
    """Every spec of ``group`` in order, then ``group.finish``; a plugin's records carry its origin."""
    out: list[Verification] = []
    with _scored():
        for i, spec in enumerate(group.specs):
            if ctx.progress:
                ctx.progress(f"{group.id}: {getattr(spec, 'id', '') or getattr(spec, 'scenario', '')}")
            out += run_spec(spec, ctx, group=group.id, index=i)
    out = list(group.finish(out)) if group.finish else out
    if group.origin != "built-in":
        out = [v.replace(instance={**dict(v.instance), "origin": group.origin},
                         notes=v.notes + (f"origin: {group.origin}",)) for v in out]
    return out
