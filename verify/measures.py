"""Measures of an instance's left-hand side that the exact path recognises.

**Quantity**: an ``Instance.measure`` (``verify.scenario``) maps a simulation to per-trial LHS samples;
the two here, given as ``functools.partial`` with keyword arguments, are also linear functionals of the
per-round metric means, so :mod:`verify.exact_score` computes them from moments instead of simulating.
:class:`Measured` is the LHS part of a scored point, whichever path measured it.
A module of their own so that ``verify.scenario`` and ``verify.exact_score`` both import them without
importing each other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Measured", "at_round", "mean_over_rounds"]


# The two measures an Instance's ``measure`` may be (as functools.partial with keyword arguments) for the exact
# path (verify.exact_score) to compute its LHS from moments instead of simulating: a plugin that uses them gets
# exact scores wherever quadratics.exact covers its problem, algorithm and pattern.
def at_round(sim: Any, metric: str, r: int) -> np.ndarray:
    """Per-trial ``metric`` at round r (a diverged trial -> inf); e.g. ``partial(at_round, metric="dist_sq", r=R)``."""
    out = sim.metrics[metric][r]
    return np.where(np.isfinite(out), out, math.inf)


def mean_over_rounds(sim: Any, metric: str, first: int, last: int) -> np.ndarray:
    """Per-trial average of ``metric`` over rounds first..last (a diverged trial -> inf)."""
    out = sim.metrics[metric][first:last + 1].mean(axis=0)
    return np.where(np.isfinite(out), out, math.inf)


@dataclass(frozen=True)
class Measured:
    """The left-hand side of one scored point, however measured (simulated, exact, per-trial exact).

    Args:
        samples: per-trial LHS samples (or the ends of an exact value's rounding interval).
        lhs, ci: the LHS and its interval (a confidence interval, or value +- floating-point bound).
        trials: trials run (0: none, exact). notes: how it was measured. series: the record's curve.
        exact: the exact path's facts (empty: Monte Carlo).
    """

    samples: Any
    lhs: float
    ci: tuple[float, float]
    trials: int
    notes: tuple[str, ...] = ()
    series: dict[str, Any] = field(default_factory=dict)
    exact: dict[str, Any] = field(default_factory=dict)
