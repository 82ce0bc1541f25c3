"""Communication caps K_t and the probability checks of availability laws (F3AST Assumption 1).

**Setting**: in round t the server may select at most K_t of the available clients, a fixed k or a random
cap with a given law, independent of the available set A_t. **Quantity**: :class:`Cap` (its law, its
survival function P(K > m), samples); :func:`make_cap` reads one from the user's forms and
:func:`check_probabilities` checks a law's probabilities. The availability models themselves are
:mod:`rate_region.availability`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bounds.core.errors import UserInputError

PROB_TOL = 1e-9


@dataclass(frozen=True)
class Cap:
    """Communication cap: K_t = values[i] with probability probs[i] (a fixed k has one value)."""

    values: tuple[int, ...]
    probs: tuple[float, ...]

    @staticmethod
    def fixed(k: int) -> Cap:
        return make_cap(k)

    @property
    def is_fixed(self) -> bool:
        return len(self.values) == 1

    @property
    def kmax(self) -> int:
        return max(self.values)

    def survival(self) -> np.ndarray:
        """P(K > m) for m = 0..kmax-1."""
        v = np.asarray(self.values)
        pr = np.asarray(self.probs)
        m = np.arange(self.kmax)
        return (pr[None, :] * (v[None, :] > m[:, None])).sum(1)

    def sample(self, rng: np.random.Generator, rounds: int, runs: int) -> np.ndarray:
        if self.is_fixed:
            return np.full((runs, rounds), self.values[0], dtype=np.int64)
        return rng.choice(np.asarray(self.values), size=(runs, rounds), p=np.asarray(self.probs))

    def describe(self) -> str:
        if self.is_fixed:
            return f"k={self.values[0]}"
        return "K_t in {" + ", ".join(f"{v}: {p:g}" for v, p in zip(self.values, self.probs)) + "}"

    def to_dict(self) -> dict:
        return {"values": list(self.values), "probs": list(self.probs), "description": self.describe()}


def make_cap(k: int | Cap | dict | None, default: Cap | None = None) -> Cap:
    """A Cap from an int k, a {value: prob} mapping, or a Cap; validates k >= 1."""
    if k is None:
        if default is None:
            raise UserInputError("no cap given; pass k (a positive integer, e.g. --k 10)")
        return default
    if isinstance(k, Cap):
        return k
    if isinstance(k, dict):
        values = [int(v) for v in k]
        probs = check_probabilities(np.array([float(x) for x in k.values()]), "cap distribution")
        for v in values:
            if v < 1:
                raise UserInputError(f"cap value {v} < 1; every K_t must be a positive integer")
        return Cap(tuple(values), tuple(float(x) for x in probs))
    if isinstance(k, (bool, np.bool_)) or not float(k).is_integer():
        raise UserInputError(f"cap k={k!r} is not an integer; give a positive integer such as k=10")
    if int(k) < 1:
        raise UserInputError(f"cap k={int(k)} < 1; the server must be allowed at least one client per round")
    return Cap((int(k),), (1.0,))


def check_probabilities(probs: np.ndarray, what: str, row: int | None = None) -> np.ndarray:
    probs = np.asarray(probs, dtype=float)
    where = f"{what}" + (f" row {row}" if row is not None else "")
    if not np.all(np.isfinite(probs)):
        raise UserInputError(f"{where} has a non-finite probability")
    if np.any(probs < 0):
        i = int(np.argmin(probs))
        raise UserInputError(f"{where} has a negative probability {probs[i]:g} (entry {i}); probabilities must be >= 0")
    s = probs.sum()
    if abs(s - 1.0) > 1e-6:
        raise UserInputError(f"{where} probabilities sum to {s:.9g}, not 1")
    return probs / s


def _check_q(q, name: str = "q") -> np.ndarray:
    q = np.asarray(q, dtype=float)
    if q.ndim != 1 or q.size == 0:
        raise UserInputError(f"{name} must be a non-empty list of per-client probabilities")
    if not np.all(np.isfinite(q)):
        raise UserInputError(f"{name} has a non-finite entry")
    if np.any(q < 0):
        i = int(np.argmin(q))
        raise UserInputError(f"{name}[{i}]={q[i]:g} is a negative probability; probabilities lie in [0, 1]")
    if np.any(q > 1 + PROB_TOL):
        i = int(np.argmax(q))
        raise UserInputError(f"{name}[{i}]={q[i]:g} exceeds 1; probabilities lie in [0, 1]")
    return np.clip(q, 0.0, 1.0)
