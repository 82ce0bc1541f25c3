"""Symbols of a published result: meaning, domain, and how a user supplies them.

A result keeps its paper's own letters (``eta_c`` in FAST, ``eta`` in Amplified SCAFFOLD); the
domain says which values are meaningful, and :meth:`Domain.validate` turns a value outside it into
a one-line :class:`~bounds.core.errors.UserInputError`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

import sympy as sp

from bounds.core.errors import OutsideDomain, UserInputError

if TYPE_CHECKING:
    import numpy as np

# numpy is imported inside the methods that compute with it: `show` builds results and their
# symbols but evaluates nothing, and numpy is a fifth of its start-up (issue 30).

PSD_RTOL = 1e-10  # relative slack of the symmetry and eigenvalue tests of MATRIX_PSD inputs


class Domain(Enum):
    """Where a symbol's values live; ``vector`` domains take one array per evaluation point."""

    POSITIVE = ("positive real", "> 0")
    NONNEGATIVE = ("non-negative real", ">= 0")
    REAL = ("real", "any finite number")
    PROBABILITY = ("probability", "in [0, 1]")
    OPEN_PROBABILITY = ("probability", "in (0, 1]")
    POSITIVE_INTEGER = ("integer", ">= 1")
    NONNEGATIVE_INTEGER = ("integer", ">= 0")
    VECTOR_POSITIVE = ("vector of positive reals", "entries > 0")
    VECTOR_NONNEGATIVE = ("vector of non-negative reals", "entries >= 0")
    VECTOR_PROBABILITY = ("vector of probabilities", "entries in [0, 1]")
    VECTOR_RATE = ("vector of rates", "entries in (0, 1]")
    VECTOR_REAL = ("vector of reals", "finite entries")
    MATRIX_REAL = ("matrix of reals", "finite entries, rows separated by ';'")
    MATRIX_PSD = ("symmetric positive semidefinite matrix", "finite entries, rows separated by ';'")

    @property
    def describe(self) -> str:
        return f"{self.value[0]} {self.value[1]}".strip()

    @property
    def is_vector(self) -> bool:
        return self.name.startswith(("VECTOR", "MATRIX"))

    @property
    def is_matrix(self) -> bool:
        return self.name.startswith("MATRIX")

    @property
    def is_integer(self) -> bool:
        return self in (Domain.POSITIVE_INTEGER, Domain.NONNEGATIVE_INTEGER)

    def contains(self, x: np.ndarray) -> np.ndarray:
        """Elementwise membership (vectors: all entries)."""
        import numpy as np

        x = np.asarray(x, dtype=float)
        finite = np.isfinite(x)
        if not self.is_vector:
            return self._within(x, finite, np.round(x) == x)
        ok = {
            Domain.VECTOR_POSITIVE: x > 0,
            Domain.VECTOR_NONNEGATIVE: x >= 0,
            Domain.VECTOR_PROBABILITY: (x >= 0) & (x <= 1),
            Domain.VECTOR_RATE: (x > 0) & (x <= 1),
            Domain.VECTOR_REAL: finite,
            Domain.MATRIX_REAL: finite,
            Domain.MATRIX_PSD: finite,
        }[self]
        return ok & finite

    def admits(self, x: float) -> bool:
        """Membership of one Python float in a scalar domain (no numpy: the scalar path of `check`)."""
        return bool(self._within(x, math.isfinite(x), x.is_integer()))

    def _within(self, x: Any, finite: Any, integral: Any) -> Any:
        """Scalar domains (floats or arrays alike): finite, inside :meth:`interval` with its open ends,
        and integral for the integer domains. One definition for :meth:`contains` and :meth:`admits`."""
        (low, high), (low_open, high_open) = self.interval(), self.open_ends()
        inside = ((x > low) if low_open else (x >= low)) & ((x < high) if high_open else (x <= high))
        return finite & inside & (integral if self.is_integer else True)

    def structure_error(self, x: np.ndarray) -> str | None:
        """What is wrong with the shape or structure of a matrix value (None when fine).

        A matrix is square in its last two axes; ``MATRIX_PSD`` also symmetric with eigenvalues
        >= -PSD_RTOL * (largest |eigenvalue|), so rounding in typed decimals is accepted.
        """
        if not self.is_matrix:
            return None
        import numpy as np

        if x.ndim < 2:
            return "must be a matrix (rows separated by ';', for example 1,0;0,1)"
        if self is not Domain.MATRIX_PSD:
            return None
        if x.shape[-1] != x.shape[-2]:
            return f"must be square; got {x.shape[-2]} x {x.shape[-1]}"
        scale = np.max(np.abs(x), axis=(-2, -1))
        if np.any(np.abs(x - np.swapaxes(x, -1, -2)).max(axis=(-2, -1)) > PSD_RTOL * np.maximum(scale, 1e-300)):
            return "must be symmetric"
        eig = np.linalg.eigvalsh(x)
        worst = eig[..., 0]
        if np.any(worst < -PSD_RTOL * np.maximum(np.abs(eig).max(axis=-1), 1e-300)):
            return f"must be positive semidefinite; smallest eigenvalue {float(np.min(worst)):g} < 0"
        return None

    def interval(self) -> tuple[float, float]:
        """The scalar range searched by :mod:`bounds.solve` (floats; see :meth:`open_ends`); with
        :meth:`open_ends` it also defines membership of the scalar domains (:meth:`contains`)."""
        inf = math.inf
        return {
            Domain.POSITIVE: (0.0, inf),
            Domain.NONNEGATIVE: (0.0, inf),
            Domain.REAL: (-inf, inf),
            Domain.PROBABILITY: (0.0, 1.0),
            Domain.OPEN_PROBABILITY: (0.0, 1.0),
            Domain.POSITIVE_INTEGER: (1.0, inf),
            Domain.NONNEGATIVE_INTEGER: (0.0, inf),
        }.get(self, (-inf, inf))

    def open_ends(self) -> tuple[bool, bool]:
        """Whether the low and high ends of :meth:`interval` are excluded from the domain."""
        low_open = self in (Domain.POSITIVE, Domain.OPEN_PROBABILITY, Domain.REAL)
        high_open = self not in (Domain.PROBABILITY, Domain.OPEN_PROBABILITY)
        return low_open, high_open


@dataclass(frozen=True)
class SymbolInfo:
    """One symbol of a result.

    Args:
        name: key users type (``eta_c``); also the sympy symbol's name.
        meaning: one line, in the paper's words.
        domain: admissible values.
        unrecovered: a constant the sources do not give (spec tag UNRECOVERED); optional input, and
            hypotheses that need it are reported as unverified when it is absent.
        squared_input: users may give ``<name>2`` (e.g. ``sigma2=0.25`` for sigma^2).
        prefer: what ``solve`` returns without a target: ``max`` (step sizes), ``min`` (q, R) or
            ``argmin`` (value minimising the bound).
    """

    name: str
    meaning: str
    domain: Domain = Domain.POSITIVE
    unrecovered: bool = False
    squared_input: bool = False
    prefer: str = "min"

    @property
    def symbol(self) -> sp.Symbol:
        return sym(self.name, self.domain)

    def validate(self, value: np.ndarray) -> np.ndarray:
        import numpy as np

        arr = np.asarray(value, dtype=float)
        if arr.size == 0:
            raise UserInputError(f"{self.name} is empty; {self.name} ({self.meaning}) must be a {self.domain.describe}")
        inside = self.domain.contains(arr)
        if not inside.all():
            bad = arr[~inside].ravel()[0] if arr.ndim else float(arr)
            raise OutsideDomain(
                f"{self.name}={_fmt(bad)} is outside its domain: {self.name} ({self.meaning}) "
                f"must be a {self.domain.describe}"
            )
        problem = self.domain.structure_error(arr)
        if problem:
            raise UserInputError(f"{self.name} ({self.meaning}) {problem}")
        return arr


def sym(name: str, domain: Domain = Domain.POSITIVE) -> sp.Symbol:
    """The sympy symbol for ``name`` with assumptions matching ``domain`` (cached by sympy)."""
    if domain in (Domain.POSITIVE, Domain.POSITIVE_INTEGER, Domain.OPEN_PROBABILITY):
        return sp.Symbol(name, positive=True)
    if domain in (Domain.NONNEGATIVE, Domain.NONNEGATIVE_INTEGER, Domain.PROBABILITY):
        return sp.Symbol(name, nonnegative=True)
    return sp.Symbol(name, real=True)


def _fmt(x: float) -> str:
    return f"{x:g}"
