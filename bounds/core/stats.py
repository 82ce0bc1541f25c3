"""The one statistics rule: two named confidence levels and one Student-t interval.

Levels (two-sided):

* :data:`MEAN_LEVEL` = 0.99 for intervals of means (a certificate's LHS, a simulation's summary): a
  verdict is a claim about one bound, and ``verify all`` makes about forty of them per run; at 0.99 a
  bound that holds is called violated by chance in about one run of three of the whole suite at
  worst (forty independent 1% tails), at 0.95 in nearly every run. Trials are cheap, so the width is
  paid with more trials rather than with false violations.
* :data:`SLOPE_LEVEL` = 0.95 for intervals of slopes and other fitted exponents: a slope interval comes
  from a handful of seed groups (8 groups: 7 degrees of freedom, where t_{0.995} = 3.50 against
  t_{0.975} = 2.36), and a rate check must also be able to *reject* a false exponent (its controls must
  fail); at 0.99 the interval is 1.5 times wider and a control with a wrong exponent would pass. A
  named tolerance on the exponent (stored in every rate record) absorbs the lower-order terms instead.
* :data:`RATE_LEVEL` = 0.95 for the intervals of clients' availability and participation rates read off a
  log (``rate_region``: Wilson intervals, the audit's rate tests): one interval per client, read together;
  which clients are flagged is decided by the audit's false discovery rate (Benjamini-Hochberg at 0.05),
  not by this level, so the intervals are shown at the matching 0.95.

Imports nothing of ours (ground floor).

>>> mean, low, high, n = t_interval([1.0, 2.0, 3.0], level=0.95)
>>> float(mean), round(float(high - mean), 4), int(n)
(2.0, 2.4841, 3)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

__all__ = ["MEAN_LEVEL", "RATE_LEVEL", "SLOPE_LEVEL", "check_level", "t_interval", "t_quantile"]

MEAN_LEVEL = 0.99
SLOPE_LEVEL = 0.95
RATE_LEVEL = 0.95


def check_level(level: float) -> float:
    """``level`` as a float in (0, 1); ValueError naming the parameter otherwise."""
    x = float(level)
    if not 0 < x < 1:
        raise ValueError(f"level={level} must lie in (0, 1)")
    return x


def t_quantile(level: float, dof: Any) -> Any:
    """Two-sided Student-t quantile t_{(1+level)/2, dof} (elementwise for an array of dof)."""
    # scipy.special's inverse of the t distribution function, the one scipy.stats.t.ppf calls (the same values):
    # importing scipy.stats costs 0.5 to 1.5 s more, and a simulation never needs the rest of it. Imported here,
    # not at the top: `show` and `check` read verdict words (verify.verdict imports this module) without a quantile
    from scipy.special import stdtrit

    return stdtrit(dof, 0.5 + check_level(level) / 2)


def t_interval(values: Any, level: float = MEAN_LEVEL, axis: int = -1) -> tuple[Any, Any, Any, Any]:
    """(mean, low, high, n) of the mean over ``axis``, NaN ignored: mean +- t_{(1+level)/2, n-1} s / sqrt(n).

    With n < 2 finite values the interval is NaN (an interval needs two samples).
    """
    x = np.asarray(values, dtype=float)
    n = np.sum(np.isfinite(x), axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices (every trial diverged) give NaN
        mean = np.nanmean(x, axis=axis) if x.size else np.nan
        sd = np.nanstd(x, axis=axis, ddof=1)
        half = t_quantile(level, np.maximum(n - 1, 1)) * sd / np.sqrt(n)
    half = np.where(n >= 2, half, np.nan)
    return mean, mean - half, mean + half, n
