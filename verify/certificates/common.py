"""Shared machinery of certificates: run context, measured LHS vs exact RHS, weakened controls.

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
from verify.verdict import DEFAULT_LEVEL, HOLDS, VIOLATED, decide, mean_ci, ratio

# A weakened right-hand side: the published RHS divided by this factor must be violated.
WEAKEN_FACTOR = 100.0


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
                weaken: float = 1.0, started: float | None = None) -> Verification:
    """Verdict of result ``key`` at ``values`` for per-trial LHS ``samples``.

    ``assumed``: hypothesis name -> why it is met although ``bounds`` cannot check it (e.g. q = 1
    meets any threshold in [0, 1]); the verdict is then ``holds`` when the interval clears the
    RHS, and stays ``unverified`` otherwise (a violation could mean the assumption failed).
    ``weaken`` > 1 makes a negative control: RHS / weaken, expected ``violated``.
    """
    result = bounds.get(key)
    report = result.check(values)
    rhs = float(report.evaluation.value) / weaken
    est = mean_ci(samples, ctx.level)
    hyp = report.holds
    notes = list(notes)
    conds = list(conditions(report))
    if hyp is None and assumed:
        pending = [c for c in report.conditions if c.holds is None and c.name not in assumed]
        if not pending:
            for c in conds:
                if c["holds"] is None and c["name"] in assumed:
                    c["assumed"] = assumed[c["name"]]
            hyp = True
            notes.append("assumed met: " + "; ".join(f"{k}: {v}" for k, v in assumed.items()))
    verdict = decide(result.kind.value, est.low, est.high, rhs, hypotheses=hyp)
    if assumed and verdict == VIOLATED and weaken == 1.0:
        verdict = "unverified"
        notes.append("interval exceeds the RHS: consistent with the theorem only if an assumed condition fails")
    control = weaken != 1.0
    if control:
        notes.append(f"negative control: RHS divided by {weaken:g}; must be violated")
    return Verification(
        id=check_id, title=title, verdict=verdict, expected=VIOLATED if control else HOLDS,
        lhs=est.mean, ci=(est.low, est.high), rhs=rhs, ratio=ratio(est.mean, rhs),
        instance={**dict(instance), "result_inputs": {k: _num(v) for k, v in values.items()},
                  "rhs_terms": {k: float(np.asarray(v) / weaken) for k, v in report.evaluation.terms.items()},
                  "level": ctx.level},
        control=control, kind="control" if control else "certificate", trials=trials, seed=ctx.seed,
        variant=result.variant, conditions=tuple(conds), series=dict(series or {}), notes=tuple(notes),
        device=ctx.device, elapsed_s=(time.perf_counter() - started) if started else 0.0,
    )


def with_control(cert: Verification, key: str, values: Mapping[str, Any], samples: np.ndarray, ctx: Context,
                 **kw) -> list[Verification]:
    """The certificate and its weakened-RHS control from the same samples."""
    weak = certificate(ctx, check_id=cert.id.split("@")[0] + ".weak" + (f"@{cert.variant}" if "@" in cert.id else ""),
                       title=cert.title + f" vs RHS/{WEAKEN_FACTOR:g}", key=key, values=values, samples=samples,
                       weaken=WEAKEN_FACTOR, trials=cert.trials, **kw)
    return [cert, weak]


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
