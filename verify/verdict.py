"""Verdicts: a measured left-hand side with a confidence interval against a right-hand side.

**Setting**: a result ``LHS <kind> RHS`` (``bounds.Kind``); LHS is estimated by Monte Carlo as a
mean with a confidence interval [low, high]; RHS is evaluated exactly at the instance's constants.
**Statement**: UPPER holds when high <= RHS, is violated when low > RHS, else inconclusive;
LOWER is the mirror image; EQUALITY holds when RHS lies in [low - tol, high + tol]; a hypothesis
that needs a constant the sources do not give makes the verdict ``unverified`` (never
``violated``); a hypothesis that fails makes it ``inapplicable``.
Torch-free: imported by the report renderer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bounds.core.stats import MEAN_LEVEL, check_level, t_quantile

HOLDS = "holds"
VIOLATED = "violated"
INCONCLUSIVE = "inconclusive"
UNVERIFIED = "unverified"
INAPPLICABLE = "inapplicable"
PENDING = "pending"
VERDICTS = (HOLDS, VIOLATED, INCONCLUSIVE, UNVERIFIED, INAPPLICABLE, PENDING)

# The level of intervals of means (bounds.core.stats says why); the old name, kept for importers.
DEFAULT_LEVEL = MEAN_LEVEL


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo mean with a two-sided t confidence interval."""

    mean: float
    low: float
    high: float
    stderr: float
    n: int
    level: float

    def to_dict(self) -> dict:
        return {"mean": self.mean, "ci": [self.low, self.high], "stderr": self.stderr, "n": self.n,
                "level": self.level}


def mean_ci(samples: Sequence[float] | np.ndarray, level: float = MEAN_LEVEL) -> Estimate:
    """Mean of independent samples with a Student-t interval (exact point interval if n == 1 or no spread)."""
    x = np.asarray(samples, dtype=float).ravel()
    if x.size == 0:
        raise ValueError("mean_ci needs at least one sample")
    check_level(level)
    mean = float(x.mean())
    if x.size == 1:
        return Estimate(mean, -math.inf, math.inf, math.inf, 1, level)
    se = float(x.std(ddof=1) / math.sqrt(x.size))
    half = float(t_quantile(level, x.size - 1)) * se
    return Estimate(mean, mean - half, mean + half, se, int(x.size), level)


# Relative rounding allowed for the RHS, evaluated in float64 from its symbolic expression (tens of operations,
# each within half an ulp: far below 1e-12). A violation is claimed only past it, so that an exactly tight bound
# scored exactly (LHS = RHS up to rounding: the planted benchmark's correct bounds reach LHS/RHS = 1 + 2e-12)
# is never called violated by the RHS's rounding alone.
RHS_REL = 1e-12


def decide(kind: str, low: float, high: float, rhs: float, *, hypotheses: bool | None = True,
           tol: float = 0.0) -> str:
    """Verdict for a confidence interval [low, high] of the LHS against ``rhs``.

    Args:
        kind: ``upper`` | ``lower`` | ``equality`` (``bounds.Kind`` values).
        low, high: confidence interval of the measured LHS (low <= high).
        rhs: right-hand side at the instance's exact constants.
        hypotheses: ``bounds`` check outcome: True (all hold), None (some need unrecovered
            constants) or False (some fail: the instance is outside the result).
        tol: absolute tolerance for ``equality``.
    """
    if low > high:
        raise ValueError(f"confidence interval [{low}, {high}] has low > high")
    if hypotheses is False:
        return INAPPLICABLE
    if hypotheses is None:
        return UNVERIFIED
    if not math.isfinite(rhs):
        return INCONCLUSIVE if math.isnan(rhs) else (HOLDS if (rhs > 0) == (kind == "upper") else VIOLATED)
    margin = RHS_REL * abs(rhs)
    if kind == "upper":
        return HOLDS if high <= rhs else VIOLATED if low > rhs + margin else INCONCLUSIVE
    if kind == "lower":
        return HOLDS if low >= rhs else VIOLATED if high < rhs - margin else INCONCLUSIVE
    if kind == "equality":
        return HOLDS if low - tol <= rhs <= high + tol else VIOLATED
    raise ValueError(f"kind {kind!r} has no pointwise verdict; valid: upper, lower, equality")


def ratio(lhs: float, rhs: float) -> float:
    """Tightness LHS / RHS (nan when RHS is 0 or not finite)."""
    if rhs == 0 or not math.isfinite(rhs):
        return math.nan
    return lhs / rhs


def is_success(verdict: str, expected: str) -> bool:
    """A verdict counts as success only when it is the expected one (``violated`` for a control)."""
    return verdict == expected
