"""Log-log slope fits with confidence intervals, and comparison with predicted exponents.

**Setting**: a rate statement ``LHS = O(x^a)`` in a swept variable x (rounds R, clients S, ...).
**Quantity**: the slope of log LHS against log x: least squares over the sweep points (t interval
on the slope, ``fit_loglog``), or one least-squares slope per seed with a t interval across seeds
(``fit_over_seeds``), which accounts for correlations along one seed's sweep.
**Statement**: the rate agrees when the predicted exponent lies in the slope's interval widened by
a named tolerance (``agrees``). Torch-free.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from bounds.core.stats import SLOPE_LEVEL, t_quantile


@dataclass(frozen=True)
class SlopeFit:
    """slope (with interval [low, high] at ``level``) and intercept of log y = intercept + slope log x."""

    slope: float
    intercept: float
    low: float
    high: float
    stderr: float
    n: int
    level: float
    method: str

    @property
    def ci(self) -> tuple[float, float]:
        return (self.low, self.high)

    def agrees(self, predicted: float, tol: float = 0.0) -> bool:
        """Predicted exponent inside the interval widened by ``tol`` on each side."""
        return self.low - tol <= predicted <= self.high + tol

    def to_dict(self) -> dict:
        return {"slope": self.slope, "intercept": self.intercept, "ci": [self.low, self.high],
                "stderr": self.stderr, "n": self.n, "level": self.level, "method": self.method}


def _logs(x, y) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("log-log fits need positive x and y")
    return np.log(x), np.log(y)


def fit_loglog(x, y, level: float = SLOPE_LEVEL) -> SlopeFit:
    """Least-squares slope of log y on log x with a t interval (n - 2 degrees of freedom)."""
    lx, ly = _logs(x, y)
    if lx.size < 3:
        raise ValueError("a slope interval needs at least 3 points")
    res = stats.linregress(lx, ly)
    half = float(t_quantile(level, lx.size - 2)) * float(res.stderr)
    return SlopeFit(float(res.slope), float(res.intercept), float(res.slope) - half, float(res.slope) + half,
                    float(res.stderr), int(lx.size), level, "linregress")


def fit_over_seeds(x, Y, level: float = SLOPE_LEVEL) -> SlopeFit:
    """Slope per seed (rows of Y [seeds, len(x)]), mean slope with a t interval across seeds."""
    lx = _logs(x, np.ones_like(np.asarray(x, dtype=float)))[0]
    Y = np.asarray(Y, dtype=float)
    if Y.ndim != 2 or Y.shape[1] != lx.size or Y.shape[0] < 2:
        raise ValueError("Y must be [seeds >= 2, len(x)]")
    ly = _logs(np.ones_like(Y), Y)[1]
    xc = lx - lx.mean()
    slopes = (ly - ly.mean(axis=1, keepdims=True)) @ xc / (xc @ xc)
    intercepts = ly.mean(axis=1) - slopes * lx.mean()
    s = float(slopes.mean())
    se = float(slopes.std(ddof=1) / math.sqrt(slopes.size))
    half = float(t_quantile(level, slopes.size - 1)) * se
    return SlopeFit(s, float(intercepts.mean()), s - half, s + half, se, int(slopes.size), level, "per-seed")


def fit_constant(x_args, y) -> tuple[float, float, float]:
    """Shape check for an O(.) bound: constants c_j = y_j / arg_j; returns (max c, min c, spread max/min).

    A bound y = O(arg) is consistent with a sweep when the fitted constant stays bounded, i.e. the
    spread stays below a named factor chosen by the caller. A constant that reaches 0 or below (an LHS that
    collapsed, down to a rounding error of either sign) has no finite spread: inf, never a negative ratio that
    would pass as bounded.
    """
    a, y = np.asarray(x_args, dtype=float), np.asarray(y, dtype=float)
    c = y / a
    cmax, cmin = float(c.max()), float(c.min())
    return cmax, cmin, cmax / cmin if cmin > 0 else float("inf")
