"""The data of a performance-estimation SDP in its Gram basis (built by :mod:`verify.pep.sdp`).

**Setting**: x* = 0; the basis holds e0, the heterogeneity vectors s_i, one vector per gradient evaluation
and one per noise draw (:mod:`verify.pep.sdp` says which and why).
**Quantity**: an iterate as a linear combination of basis vectors (:class:`Vec`), each client's
interpolation points (:class:`Client`), the SDP's data (:class:`Problem`) and the solver's output
(:class:`Solved`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from verify.pep.setting import Setting

__all__ = ["Client", "Num", "Problem", "Solved", "Vec", "dense", "objective_matrix", "vec_sum"]

Num = Any  # float or Fraction


class Vec(dict):
    """A linear combination of Gram basis vectors: {basis index: coefficient}."""

    def __add__(self, other: Vec) -> Vec:  # type: ignore[override]
        out = Vec(self)
        for k, v in other.items():
            out[k] = out.get(k, 0) + v
        return out

    def __sub__(self, other: Vec) -> Vec:
        return self + other.scale(-1)

    def scale(self, a: Num) -> Vec:
        return Vec({k: a * v for k, v in self.items()}) if a else Vec()


@dataclass
class Client:
    """One client's interpolation points: x, g (Vec each) and the index of f(x) - f(x*) (-1: x* itself)."""

    xs: list[Vec] = field(default_factory=list)
    gs: list[Vec] = field(default_factory=list)
    fs: list[int] = field(default_factory=list)


@dataclass
class Problem:
    """The SDP's data: sizes, the clients' points, the objective and the scalar constraints.

    ``objective``: (list of (weight, Vec) whose weighted squared norms add up, dict value index -> weight);
    ``bounds``: (name, Vec u, Vec v, rhs) meaning <u, G v> <= rhs (u == v for squared norms);
    ``zero_after``: (noise basis index, number of basis vectors before it): G[xi, :n] = 0.
    """

    setting: Setting
    exact: bool
    d: int = 0
    nf: int = 0
    clients: list[Client] = field(default_factory=list)
    norms: list[tuple[Num, Vec]] = field(default_factory=list)
    values: dict[int, Num] = field(default_factory=dict)
    bounds: list[tuple[str, Vec, Vec, Num]] = field(default_factory=list)
    zero_after: list[tuple[int, int]] = field(default_factory=list)
    # relaxed random participation: (state index n, E x', terms of E||x'||^2 as (coef, a, b) meaning coef <a, G b>)
    moments: list[tuple[int, Vec, list[tuple[Num, Vec, Vec]]]] = field(default_factory=list)
    kappa: Num = 0
    gradients: int = 0
    notes: list[str] = field(default_factory=list)
    # basis index -> (client, node path, step): the swap of two clients maps client 0's vector at a node to
    # client 1's at the mirrored node (patterns with the clients exchanged; see swap_basis); ``odd``: basis
    # indices the swap negates; ``keys``: per client, the same key for each of its points (x* first)
    owner: dict[int, tuple[int, tuple[int, ...], int]] = field(default_factory=dict)
    odd: list[int] = field(default_factory=list)
    keys: list[list[tuple[tuple[int, ...], int]]] = field(default_factory=list)

    def num(self, v: float | int | Fraction) -> Num:
        """A constant: exact (a float is read as its shortest decimal, 0.3 as 3/10) or float."""
        if not self.exact:
            return float(v)
        return Fraction(repr(v)) if isinstance(v, float) else Fraction(v)

    def new_vec(self) -> Vec:
        self.d += 1
        return Vec({self.d - 1: self.num(1)})


def vec_sum(items: Iterable[Vec]) -> Vec:
    out = Vec()
    for v in items:
        out = out + v
    return out


def dense(vecs: list[Vec], d: int) -> np.ndarray:
    """Rows of coefficients (float) of ``vecs`` in a basis of size ``d``."""
    out = np.zeros((len(vecs), d))
    for r, v in enumerate(vecs):
        for k, c in v.items():
            out[r, k] = float(c)
    return out


def objective_matrix(pb: Problem) -> np.ndarray:
    """C with <C, G> = the probability-weighted sum of squared norms in the objective."""
    X = dense([v for _, v in pb.norms], pb.d)
    w = np.array([float(a) for a, _ in pb.norms])
    return (X.T * w) @ X if len(w) else np.zeros((pb.d, pb.d))


@dataclass
class Solved:
    """The solver's output: objective values, G, F, the multipliers, and the status."""

    status: str
    value: float | None
    primal: float | None
    G: np.ndarray | None
    F: np.ndarray | None
    interp_duals: list[np.ndarray]
    bound_duals: list[float]
    S: np.ndarray | None
    delta: float
    solver: str
    warnings: tuple[str, ...] = ()
    moment_duals: list[tuple[np.ndarray, float]] = field(default_factory=list)
