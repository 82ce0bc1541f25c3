"""Log-log slope fits with confidence intervals, and comparison with predicted exponents.

**Setting**: a rate statement ``LHS = O(x^a)`` in a swept variable x (rounds R, clients S, ...).
**Quantity**: the slope of log LHS against log x: least squares over the sweep points (t interval
on the slope, ``fit_loglog``), or one least-squares slope per seed with a t interval across seeds
(``fit_over_seeds``), which accounts for correlations along one seed's sweep.
**Statement**: the rate agrees when the predicted exponent lies in the slope's interval widened by
a named tolerance (``agrees``). An interval is never narrower than the slope's floating-point error
(``rounding_error``): on exact power-law data the t interval has width 0 up to rounding, and the exponent
must not miss it by rounding. Torch-free.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

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
    rounding: float = 0.0   # the slope's floating-point error bound; the half-width is at least this
    @property
    def ci(self) -> tuple[float, float]:
        return (self.low, self.high)

    def agrees(self, predicted: float, tol: float = 0.0) -> bool:
        """Predicted exponent inside the interval widened by ``tol`` on each side."""
        return self.low - tol <= predicted <= self.high + tol

    def to_dict(self) -> dict:
        return {"slope": self.slope, "intercept": self.intercept, "ci": [self.low, self.high],
                "stderr": self.stderr, "n": self.n, "level": self.level, "method": self.method,
                "rounding": self.rounding}


def _logs(x, y) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("log-log fits need positive x and y")
    return np.log(x), np.log(y)


def rounding_error(lx: np.ndarray, ly: np.ndarray, slope: float) -> float:
    """A bound on the floating-point error of a least-squares slope of ``ly`` on ``lx`` (logs of the data).

    **Quantity**: the slope is sum_i w_i ly_i - (same in lx) with weights w_i = xc_i / sum xc^2 (xc centred).
    Each log carries an error of at most a few ulps of its magnitude plus the input's own rounding (half an
    ulp of y is eps/2 in log y): at most c eps (1 + |l_i|). The centring and the two sums add at most n eps
    relative to the largest term. So |error| <= (sum |w_i|) c eps [(1 + max|ly|) + |slope| (1 + max|lx|)] n,
    with c = 4 (a generous count of roundings per term: the input, log, subtraction, product).
    """
    eps = float(np.finfo(float).eps)
    xc = lx - lx.mean()
    ss = float(xc @ xc)
    if ss == 0:
        return math.inf
    weight = float(np.abs(xc).sum()) / ss
    mags = (1.0 + float(np.abs(ly).max())) + abs(slope) * (1.0 + float(np.abs(lx).max()))
    return 4.0 * eps * lx.size * weight * mags


def fit_loglog(x, y, level: float = SLOPE_LEVEL) -> SlopeFit:
    """Least-squares slope of log y on log x with a t interval (n - 2 degrees of freedom)."""
    lx, ly = _logs(x, y)
    if lx.size < 3:
        raise ValueError("a slope interval needs at least 3 points")
    # least squares from the residuals (scipy's linregress takes the stderr from 1 - r^2, which on exact data is
    # a rounding error whose square root, about 1e-8, would pass for an interval; and it is nan on a flat line)
    xc = lx - lx.mean()
    ss = float(xc @ xc)
    if ss == 0:
        raise ValueError("a slope needs at least two distinct x")
    slope = float(xc @ (ly - ly.mean())) / ss
    intercept = float(ly.mean()) - slope * float(lx.mean())
    resid = ly - (intercept + slope * lx)
    stderr = math.sqrt(float(resid @ resid) / (lx.size - 2) / ss)
    floor = rounding_error(lx, ly, slope)
    half = max(float(t_quantile(level, lx.size - 2)) * stderr, floor)
    return SlopeFit(slope, intercept, slope - half, slope + half, stderr, int(lx.size), level, "least squares", floor)


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
    floor = max(rounding_error(lx, row, float(b)) for row, b in zip(ly, slopes, strict=True))
    half = max(float(t_quantile(level, slopes.size - 1)) * se, floor)
    return SlopeFit(s, float(intercepts.mean()), s - half, s + half, se, int(slopes.size), level, "per-seed", floor)


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
