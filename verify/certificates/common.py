"""Shared machinery of certificates: run context, measured LHS vs exact RHS, hypothesis-breaking controls.

**Setting**: a result key of ``bounds``, an instance's exact constants (``values``), and per-trial
samples of the operational LHS from ``quadratics`` simulations.
**Quantity**: the LHS mean with a Student-t interval over independent trials (``verify.verdict``),
the RHS at the exact constants, the verdict and the tightness ratio.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import bounds
from verify.fit import SlopeFit
from verify.record import Verification
from verify.scenario import hypotheses_of
from verify.verdict import DEFAULT_LEVEL, HOLDS, VIOLATED, decide, mean_ci, ratio


@dataclass(frozen=True)
class Context:
    """How to run: Monte Carlo size, seed, device, quick mode, level, progress callback."""

    quick: bool = False
    trials: int | None = None
    seed: int = 0
    device: str = "cpu"
    level: float = DEFAULT_LEVEL
    threads: int | None = 1
    progress: Callable[[str], None] | None = None

    def n(self, quick: int, full: int) -> int:
        """Trials: the user's count, else the quick or full default."""
        if self.trials is not None:
            return self.trials
        return quick if self.quick else full

    def simulate(self, problem, algorithm, pattern, trials: int, rounds: int, seed_offset: int = 0):
        from quadratics import simulate

        return simulate(problem, algorithm, pattern, trials=trials, rounds=rounds, seed=self.seed + seed_offset,
                        device=self.device, threads=self.threads)


def conditions(report) -> tuple[dict, ...]:
    return tuple(c.to_dict() for c in report.conditions)


def certificate(ctx: Context, *, check_id: str, title: str, key: str, values: Mapping[str, Any],
                samples: np.ndarray, instance: Mapping[str, Any], trials: int, notes: Sequence[str] = (),
                series: Mapping[str, Any] | None = None, assumed: Mapping[str, str] | None = None,
                decided: Mapping[str, tuple[bool | None, str]] | None = None, started: float | None = None) -> Verification:
    """Verdict of result ``key`` at ``values`` for per-trial LHS ``samples``.

    ``assumed``: hypothesis name -> why it is met although ``bounds`` cannot check it (e.g. q = 1
    meets any threshold in [0, 1]); the verdict is then ``holds`` when the interval clears the
    RHS, and stays ``unverified`` otherwise (a violation could mean the assumption failed).
    ``decided``: hypotheses the instance meets by construction (``verify.scenario.realised_participation``),
    passed to ``Result.check``: decided, not assumed, so a violation stays a violation.
    """
    result = bounds.get(key)
    report = result.check(values, decided)
    rhs = float(report.evaluation.value)
    est = mean_ci(samples, ctx.level)
    notes = list(notes)
    hyp, conds = hypotheses_of(report, assumed or {})
    if assumed and hyp is True and report.holds is None:
        notes.append("assumed met: " + "; ".join(f"{k}: {v}" for k, v in assumed.items()))
    verdict = decide(result.kind.value, est.low, est.high, rhs, hypotheses=hyp)
    if assumed and verdict == VIOLATED:
        verdict = "unverified"
        notes.append("interval exceeds the RHS: consistent with the theorem only if an assumed condition fails")
    return Verification(
        id=check_id, title=title, verdict=verdict, expected=HOLDS,
        lhs=est.mean, ci=(est.low, est.high), rhs=rhs, ratio=ratio(est.mean, rhs),
        instance={**dict(instance), "result": result.key, "result_inputs": {k: _num(v) for k, v in values.items()},
                  "rhs_terms": {k: float(np.asarray(v)) for k, v in report.evaluation.terms.items()},
                  "level": ctx.level},
        control=False, kind="certificate", trials=trials, seed=ctx.seed,
        variant=result.variant, conditions=tuple(conds), series=dict(series or {}), notes=tuple(notes),
        device=ctx.device, elapsed_s=(time.perf_counter() - started) if started else 0.0,
    )


def at_point(ctx: Context, scenario_id: str, overrides: Mapping[str, Any] | None = None, *, trials: int,
             seed_offset: int = 0, outside: bool = False):
    """A scenario's ``PointEstimate`` at its default point with ``overrides`` (seed = ctx.seed + offset)."""
    from verify.scenario import evaluate_point
    from verify.scenarios import get

    return evaluate_point(get(scenario_id), overrides, trials=trials, seed=ctx.seed + seed_offset,
                          device=ctx.device, level=ctx.level, threads=ctx.threads, outside=outside)


def scenario_certificate(ctx: Context, est, *, check_id: str, title: str, notes: Sequence[str] = (),
                         instance: Mapping[str, Any] | None = None, started: float | None = None) -> Verification:
    """The certificate record of a scenario point (``certificate`` on its samples and inputs)."""
    inst = {**dict(est.describe), "point": dict(est.point), **dict(instance or {})}
    return certificate(ctx, check_id=check_id, title=title, key=est.result, values=est.values, samples=est.samples,
                       instance=inst, trials=est.trials, notes=tuple(est.notes) + tuple(notes), series=est.series,
                       assumed=est.assumed or None, decided=est.decided or None, started=started)


def hypothesis_control(ctx: Context, scenario_id: str, overrides: Mapping[str, Any], *, broken: str, check_id: str,
                       title: str, note: str, trials: int, seed_offset: int = 0) -> Verification:
    """Negative control: an instance just outside hypothesis ``broken``, where the bound must really fail.

    The inequality is decided on its own (the theorem says nothing here, so ``inapplicable`` would hide
    the point of the control); the record is ``violated`` only when the interval clears the RHS AND
    ``broken`` is decided False at the point. If ``broken`` still holds, the control is ``inapplicable``
    (a failed control: it no longer tests what its note says).
    """
    t0 = time.perf_counter()
    est = at_point(ctx, scenario_id, overrides, trials=trials, seed_offset=seed_offset, outside=True)
    res = bounds.get(est.result)
    inequality = decide(res.kind.value, est.ci[0], est.ci[1], est.rhs, hypotheses=True)
    named = broken in est.broken
    verdict = inequality if named else "inapplicable"
    notes = [f"negative control: hypothesis '{broken}' broken ({note}); the bound must fail here",
             f"hypotheses decided False at this point: {', '.join(est.broken) or 'none'}"]
    if not named:
        notes.append(f"CONTROL BROKEN: '{broken}' is not decided False at this point")
    return Verification(
        id=check_id, title=title, verdict=verdict, expected=VIOLATED, lhs=est.lhs, ci=est.ci, rhs=est.rhs,
        ratio=ratio(est.lhs, est.rhs) if math.isfinite(est.lhs) else None,
        instance={**dict(est.describe), "point": dict(est.point), "result": res.key, "result_inputs": dict(est.values),
                  "rhs_terms": dict(est.rhs_terms), "level": ctx.level, "broken_hypothesis": broken},
        control=True, kind="control", trials=trials, seed=ctx.seed + seed_offset, variant=res.variant,
        conditions=tuple(est.conditions), notes=tuple(notes), device=ctx.device,
        elapsed_s=time.perf_counter() - t0)


def rate(ctx: Context, *, check_id: str, title: str, fit: SlopeFit, predicted: float, tol: float,
         instance: Mapping[str, Any], trials: int, series: Mapping[str, Any], notes: Sequence[str] = (),
         conditions_: Sequence[Mapping[str, Any]] = (), variant: str = "", started: float | None = None,
         expected: str = HOLDS, control: bool = False) -> Verification:
    """Rate verdict: ``holds`` when the predicted exponent lies in the slope interval widened by ``tol``."""
    verdict = HOLDS if fit.agrees(predicted, tol) else VIOLATED
    return Verification(
        id=check_id, title=title, verdict=verdict, expected=expected, lhs=fit.slope, ci=fit.ci, rhs=predicted,
        ratio=ratio(fit.slope, predicted), instance={**dict(instance), "slope_tolerance": tol, "fit": fit.to_dict()},
        control=control, kind="control" if control else "rate", trials=trials, seed=ctx.seed, variant=variant,
        conditions=tuple(conditions_), series={**dict(series), "fit_slope": fit.slope, "fit_ci": list(fit.ci),
                                                "fit_intercept": fit.intercept, "predicted_slope": predicted},
        notes=tuple(notes), device=ctx.device, elapsed_s=(time.perf_counter() - started) if started else 0.0,
    )


def pending(check_id: str, title: str, reason: str, kind: str = "certificate", control: bool = False) -> Verification:
    """A check that cannot run yet (a needed API is missing); never counts as success."""
    return Verification(id=check_id, title=title, verdict="pending", expected=VIOLATED if control else HOLDS,
                        kind=kind, control=control, notes=(reason,))


def _num(v: Any) -> Any:
    arr = np.asarray(v, dtype=float)
    return float(arr) if arr.ndim == 0 else arr.tolist()


def per_trial_mean(metric: np.ndarray, rows: slice | np.ndarray) -> np.ndarray:
    """Average of a [R+1, T] history over the given rows, per trial (diverged trials -> inf)."""
    x = metric[rows]
    out = x.mean(axis=0)
    return np.where(np.isfinite(out), out, math.inf)
