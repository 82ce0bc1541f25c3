"""Client propensities drawn once per trial (FAST's mixture and arbitrary participation): their laws and the draw.

**Setting**: M clients whose participation in every round is weighted by a propensity drawn once per trial.
**Quantity**: :func:`propensities` -> [trials, M] on the ``pattern`` stream of the seed (``bounds.core.seeds``);
the engine's patterns (``quadratics.participation``) and the exact laws given a trial's draw
(``quadratics.exact.laws``) both read this one draw.
"""

from __future__ import annotations

import numpy as np

from bounds.core import seeds
from bounds.core.errors import UserInputError, unknown

__all__ = ["PROPENSITY_LAWS", "check_law", "propensities"]


PROPENSITY_LAWS = ("beta", "gamma", "weibull")


def propensities(dist: str, a: float, b: float, M: int, trials: int, seed: int) -> np.ndarray:
    """Client propensities [trials, M], drawn once per trial: Beta(a, b), Gamma(shape a, scale b)
    or b * Weibull(shape a)."""
    rng = seeds.rng(int(seed), "pattern", 4)
    if dist == "beta":
        w = rng.beta(a, b, (trials, M))
    elif dist == "gamma":
        w = rng.gamma(a, b, (trials, M))
    elif dist == "weibull":
        w = b * rng.weibull(a, (trials, M))
    else:
        raise unknown("propensity law", dist, PROPENSITY_LAWS)
    return np.maximum(w, 1e-300)


def check_law(dist: str, a: float, b: float) -> None:
    if dist not in PROPENSITY_LAWS:
        raise unknown("propensity law", dist, PROPENSITY_LAWS)
    if not (a > 0 and b > 0):
        raise UserInputError(f"propensity parameters a={a}, b={b} must be positive")
