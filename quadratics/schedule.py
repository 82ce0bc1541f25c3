"""Local step-size schedules eta_(t,i): one step size per (round t, local step i).

**Setting**: K local steps per round; round t = 1, 2, ... (the engine's round index r is t - 1).
**Quantity**: a :class:`StepSchedule` maps a round to the K step sizes of its local steps, as one
numpy array (vectorised over i; the same for every trial and client).
**Statement**: :func:`f3ast_steps` is the step of the proof of F3AST Theorem III.5 (eqs. (17)-(19)):
eta_(t,i) = beta_s / ((t-1)E + i + gamma'), beta_s = 2/mu, gamma' = max{8L/mu, E} - 1.
**Notation**: E (F3AST) = K (ours).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from bounds.core.errors import UserInputError

from .problem import check_count, check_positive


class StepSchedule(NamedTuple):
    """``steps(r) -> [K]`` step sizes of round r (0-based); ``describe`` is JSON-ready."""

    name: str
    K: int
    steps: Callable[[int], np.ndarray]
    describe: dict[str, Any]


def _checked(values: Any, K: int, where: str) -> np.ndarray:
    eta = np.asarray(values, dtype=float).reshape(-1)
    if eta.shape != (K,):
        raise UserInputError(f"step schedule gave {eta.size} step sizes for {where}; it must give K={K}")
    if not (np.all(np.isfinite(eta)) and np.all(eta > 0)):
        raise UserInputError(f"step schedule gave non-positive or non-finite step sizes for {where}: {eta.tolist()}")
    return eta


def step_schedule(eta: Any, K: int, name: str = "schedule") -> StepSchedule:
    """A schedule from ``eta``: a callable ``eta(t, i)`` (t an int >= 1, i the array 1..K; returns K
    values) or a table [R, K] (row t - 1 holds round t; rounds past R are a UserInputError)."""
    K = check_count("K", K)
    if isinstance(eta, StepSchedule):
        if eta.K != K:
            raise UserInputError(f"step schedule {eta.name!r} is for K={eta.K} local steps, not K={K}")
        return eta
    i = np.arange(1, K + 1, dtype=float)
    if callable(eta):
        return StepSchedule(name, K, lambda r: _checked(eta(r + 1, i), K, f"round t={r + 1}"),
                            {"name": name, "kind": "callable"})
    table = np.asarray(getattr(eta, "cpu", lambda: eta)(), dtype=float)
    if table.ndim != 2 or table.shape[1] != K:
        raise UserInputError(f"a step table must have shape [rounds, K={K}], got {list(table.shape)}")

    def steps(r: int) -> np.ndarray:
        if r >= table.shape[0]:
            raise UserInputError(f"the step table has {table.shape[0]} rounds; round t={r + 1} has no step sizes")
        return _checked(table[r], K, f"round t={r + 1}")

    return StepSchedule(name, K, steps, {"name": name, "kind": "table", "rounds": int(table.shape[0])})


def f3ast_steps(L: float, mu: float, E: int) -> StepSchedule:
    """eta_(t,i) = (2/mu) / ((t-1)E + i + gamma'), gamma' = max{8L/mu, E} - 1 (F3AST.T3.5 proof)."""
    check_positive(L=L, mu=mu)
    E = check_count("E", E)
    beta_s = 2.0 / mu
    gamma_p = max(8.0 * L / mu, E) - 1.0
    i = np.arange(1, E + 1, dtype=float)

    def steps(r: int) -> np.ndarray:
        return beta_s / (r * E + i + gamma_p)

    return StepSchedule("f3ast-t3.5", E, steps, {"name": "f3ast-t3.5", "beta_s": beta_s, "gamma_prime": gamma_p,
                                                   "formula": "beta_s/((t-1)E + i + gamma')"})
