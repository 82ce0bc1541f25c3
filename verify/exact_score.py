"""Exact left-hand sides for scenario points: when an instance's LHS is an exact expectation, and its value.

**Setting**: a scenario instance (``verify.scenario.Instance``) whose problem, algorithm and pattern declare
what :mod:`quadratics.exact` needs (``Problem.affine_gradients``, ``Algorithm.linear``, ``Pattern.law``) and
whose ``measure`` declares itself a quadratic form of the model at a round or averaged over rounds
(:mod:`verify.measures`; ``at_round`` and ``mean_over_rounds`` of dist_sq, gap, grad_sq do).
**Quantity**: :func:`exact_lhs` -> :class:`ExactLHS` (value, floating-point error bound, the law used) or
the reason the point falls back to Monte Carlo: the problem, algorithm, pattern or measure declares nothing
(or declares why not); the instance reads inputs off the run (``complete``) or decides a
hypothesis on the run's trajectories (``run_broken``), which needs simulated trajectories anyway.
**Statement**: the exact value has no sampling error; its interval is [value - err, value + err] with
err the rounding bound of :mod:`quadratics.exact.moments`. A Monte Carlo mean differs from it also
where trials diverge: the engine drops a diverged trial (an infinite LHS), the exact expectation does not.

Where the pattern's rounds are independent only given a per-trial draw (FAST's mixture and arbitrary
participation draw client propensities once per trial), :func:`per_trial_lhs` integrates participation
and noise exactly given each trial's draw; the LHS is then a mean over the propensities with a
Student-t interval (measured at three FAST.T2@corrected points, 64 trials: 99% half-widths 0.01-0.2% of
the value where the simulation's are 5-26%; tests/benchmarks/bench_exact.py).

``evaluate_point`` uses these paths automatically; ``with monte_carlo():`` forces the engine's Monte
Carlo run (falsify's confirmation is such a replay: a cross-check, not the claim).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bounds.core.errors import UserInputError

if TYPE_CHECKING:
    from verify.measures import Measured

__all__ = ["ExactLHS", "PerTrialLHS", "exact_estimate", "exact_lhs", "exact_series", "monte_carlo", "per_trial_lhs",
           "scored_exactly", "scoring", "without_series"]

_FORCE_MC: contextvars.ContextVar[bool] = contextvars.ContextVar("convbound_force_monte_carlo", default=False)
_NO_SERIES: contextvars.ContextVar[bool] = contextvars.ContextVar("convbound_no_exact_series", default=False)
# per-round exact curves for records are computed round by round only up to this horizon
SERIES_MAX_ROUNDS = 5000


@dataclass(frozen=True)
class ExactLHS:
    """The exact LHS of one instance: ``value`` +- ``err`` (rounding bound), how it was measured."""

    value: float
    err: float
    measure: str
    law: str
    wall_seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {"method": "exact", "fp_error": self.err, "measure": self.measure, "law": self.law,
                "wall_seconds": self.wall_seconds}


@contextlib.contextmanager
def monte_carlo() -> Iterator[None]:
    """Within this block ``evaluate_point`` simulates even where the exact path applies."""
    token = _FORCE_MC.set(True)
    try:
        yield
    finally:
        _FORCE_MC.reset(token)


@contextlib.contextmanager
def without_series() -> Iterator[None]:
    """Within this block an exactly scored point carries no per-round curve (``PointEstimate.series`` empty).

    Why: a search keeps only each point's summary (``PointEstimate.to_dict``, which has no curve), and the curve
    is a second round-by-round recursion of up to SERIES_MAX_ROUNDS rounds, about a third of an exact point's
    cost; the value, its interval and every other field are computed as without this block."""
    token = _NO_SERIES.set(True)
    try:
        yield
    finally:
        _NO_SERIES.reset(token)


def _gate(inst: Any) -> Any:
    """The quadratic form ``inst``'s measure declares (a QuadraticMeasure), or why its LHS is not computed from
    moments."""
    from verify.measures import declared_measure

    if _FORCE_MC.get():
        return "Monte Carlo requested (monte_carlo())"
    if inst.complete is not None:
        return "the instance reads result inputs off the simulated run (complete)"
    if inst.run_broken is not None:
        return "the instance decides a hypothesis on the simulated trajectories (run_broken)"
    return declared_measure(inst.measure)


def _horizon(spec: Any) -> tuple[int, int, str]:
    """(rounds, first, what) for the moment evaluation of a declared measure."""
    if spec.kind == "final":
        return spec.first, 1, spec.describe
    return spec.last, spec.first, spec.describe


def _forms(spec: Any, problem: Any) -> dict[str, Any]:
    return {"measure": spec.form(problem)}


def scored_exactly(inst: Any) -> str:
    """How ``evaluate_point`` scores ``inst``: ``"exact"`` (from moments, no trial), ``"per-trial"`` (moments
    given each trial's draw: cost grows with the trials) or ``""`` (simulated). Cheap (nothing is evaluated);
    used to size a run, where a simulation's cost does not apply to exactly scored points."""
    return scoring(inst)[0]


def scoring(inst: Any) -> tuple[str, str]:
    """(:func:`scored_exactly`'s answer, why): the law used, or the reason the instance is simulated, as the
    declarations (or their absence) state it: which of measure, problem, algorithm or pattern declared nothing,
    or what its declaration says."""
    from quadratics.exact import applies, per_trial_applies

    spec = _gate(inst)
    if isinstance(spec, str):
        return "", spec
    rounds = _horizon(spec)[0]
    if rounds < 1:  # a mean over round 0 alone (SURV.*.instance at T = 1): exact_moments declines, simulated
        return "", "a mean over round 0 alone has no measured round"
    ok, why = applies(inst.problem, inst.algorithm, inst.pattern, rounds=rounds)
    if ok:
        return "exact", why
    ok_t, why_t = per_trial_applies(inst.problem, inst.algorithm, inst.pattern)
    return ("per-trial", why_t) if ok_t else ("", why)


def exact_lhs(inst: Any) -> ExactLHS | str:
    """The exact LHS of ``inst`` (a ``verify.scenario.Instance``), or the reason it has none."""
    from quadratics.exact import applies, exact_moments

    spec = _gate(inst)
    if isinstance(spec, str):
        return spec
    rounds, first, what = _horizon(spec)
    ok, why = applies(inst.problem, inst.algorithm, inst.pattern, rounds=rounds)  # the rule scored_exactly uses
    if not ok:
        return why
    try:
        ex = exact_moments(inst.problem, inst.algorithm, inst.pattern, rounds=rounds, first=first,
                           forms=_forms(spec, inst.problem))
    except UserInputError as e:  # declined at this horizon (a step schedule past MAX_SCHEDULED_ROUNDS): simulate
        return str(e)
    value, err = ex.value("measure", spec.kind)
    if math.isfinite(value) and not math.isfinite(err):
        return f"the rounding bound of {what} overflowed ({err:g}); simulated instead"
    if not math.isfinite(value):
        # The moments are a linear recursion: they leave float64's range (1.8e308) only when its map grows
        # geometrically, i.e. the iterates diverge in mean square. Said as divergence, as the simulation says a
        # diverged trial; simulating instead would take R rounds of a run that is known to blow up.
        return ExactLHS(math.inf, 0.0, f"{what}: the moment recursion overflows float64 (diverges in mean square)",
                        ex.law, ex.wall_seconds)
    return ExactLHS(value, err, what, ex.law, ex.wall_seconds)


@dataclass(frozen=True)
class PerTrialLHS:
    """Per-trial conditional expectations of the LHS given each trial's propensities (``values`` [trials]),
    their largest rounding bound ``err``; their mean is a Monte Carlo mean over the propensities only."""

    values: Any
    err: float
    measure: str
    law: str
    wall_seconds: float
    series: dict[str, Any]  # the record's curve: the mean over trials of each trial's exact curve

    def to_dict(self) -> dict[str, Any]:
        return {"method": "per-trial exact", "fp_error": self.err, "measure": self.measure, "law": self.law,
                "wall_seconds": self.wall_seconds,
                "conditioned_on": "each trial's client propensities (the engine's draw for this seed); the "
                                  "interval is a Student-t interval over trials, widened by fp_error"}


def per_trial_lhs(inst: Any, trials: int, seed: int) -> PerTrialLHS | str:
    """The LHS integrated exactly over participation and noise given each trial's propensities, or why not."""
    import numpy as np

    from quadratics.exact import METRICS, per_trial_applies, per_trial_moments

    spec = _gate(inst)
    if isinstance(spec, str):
        return spec
    ok, why = per_trial_applies(inst.problem, inst.algorithm, inst.pattern)
    if not ok:
        return why
    rounds, first, what = _horizon(spec)
    try:
        pm = per_trial_moments(inst.problem, inst.algorithm, inst.pattern, rounds, first, trials=trials, seed=seed,
                               curve=inst.curve if inst.curve in METRICS and int(inst.rounds) <= SERIES_MAX_ROUNDS
                               else None, forms=_forms(spec, inst.problem))
    except UserInputError as e:  # declined at this horizon: simulate
        return str(e)
    kind, metric = spec.kind, "measure"
    values = (pm.final if kind == "final" else pm.mean)[metric]
    errs = (pm.final_err if kind == "final" else pm.mean_err)[metric]
    if not (np.isfinite(values).all() and np.isfinite(errs).all()):
        return f"the per-trial recursion overflowed ({what}); the simulation reports divergence per trial"
    series = ({} if pm.curve is None or pm.curve.size != int(inst.rounds) + 1 else
              {"x": list(range(int(inst.rounds) + 1)), "lhs": pm.curve.tolist()})
    return PerTrialLHS(values, float(errs.max()), what, pm.law, pm.wall_seconds, series)


def exact_series(inst: Any) -> dict[str, Any]:
    """The record's per-round curve of ``inst.curve`` from the exact recursion (empty past SERIES_MAX_ROUNDS)."""
    from quadratics.exact import METRICS, exact_curve

    if not inst.curve or inst.curve not in METRICS or int(inst.rounds) > SERIES_MAX_ROUNDS or _NO_SERIES.get():
        return {}
    curve = exact_curve(inst.problem, inst.algorithm, inst.pattern, int(inst.rounds))[inst.curve]
    return {"x": list(range(int(inst.rounds) + 1)), "lhs": curve.tolist()}


def exact_estimate(inst: Any, *, trials: int, seed: int, level: float) -> Measured | None:
    """``evaluate_point``'s branch: the LHS of a point from moments, or None to simulate.

    Exact (:func:`exact_lhs`): the interval is [LHS - err, LHS + err] with err its floating-point bound, not a
    confidence interval, and no trial is run (``trials`` is recorded as 0). Per-trial
    (:func:`per_trial_lhs`, FAST's and arbitrary participation): ``samples`` are the trials' conditional
    expectations, the interval is their Student-t interval at ``level`` widened by the rounding bound.
    ``evaluate_point`` decides the hypotheses and builds the ``PointEstimate`` (the run's own checks never
    apply here: both paths decline instances that have them)."""
    import numpy as np

    from verify.measures import Measured
    from verify.verdict import mean_ci

    ex: ExactLHS | PerTrialLHS | str = exact_lhs(inst)
    if isinstance(ex, str):
        ex = per_trial_lhs(inst, trials, seed)
        if isinstance(ex, str):
            return None
    if isinstance(ex, ExactLHS):
        # two samples at the ends of the rounding interval: a consumer that recomputes a Student-t interval from
        # ``samples`` gets one that contains [LHS - err, LHS + err] (63.7x wider at 99%)
        return Measured(np.array([ex.value - ex.err, ex.value + ex.err]), ex.value, (ex.value - ex.err, ex.value + ex.err),
                        0, (f"exact LHS ({ex.measure}; law: {ex.law}): no sampling error, interval = +- its "
                            f"floating-point bound {ex.err:.3g}",), exact_series(inst), ex.to_dict())
    samples = np.asarray(ex.values, dtype=float)
    est = mean_ci(samples, level)
    return Measured(samples, est.mean, (est.low - ex.err, est.high + ex.err), trials,
                    (f"per-trial exact LHS ({ex.measure}; {ex.law}): participation and noise integrated exactly given "
                     f"each of {trials} trials' propensities; the interval is over the propensities only",), ex.series,
                    ex.to_dict())
