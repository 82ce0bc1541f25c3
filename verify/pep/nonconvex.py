"""Worst cases of local GD / FedAvg / SCAFFOLD on L-smooth, possibly non-convex clients: the setting and its PEP.

**Setting**: M clients, each f_i L-smooth (no convexity); F = (1/M) sum f_i is bounded below by F_inf and
F(x_0) - F_inf <= Delta (``initial = "F_inf"``) or, as PEPit's non-convex examples state it, F(x_0) - F(x_R) <=
Delta (``initial = "F_R"``, a larger class: the value bounds the F_inf class too). Heterogeneity: bounded gradient
dissimilarity ||grad f_i(y) - grad F(y)|| <= zeta, imposed at every point where all clients are evaluated:
``hetero = "evaluated"`` evaluates every client at every point any client visits (the bound then holds at every
evaluated point), ``hetero = "rounds"`` only at the global models x_r. The published results compared with it
(bounds.pep_cover) assume it everywhere, so both are relaxations of their classes (upper bounds on them).
**Algorithm**: as verify.pep.sdp: K local steps y <- y - eta (g + xi) (SCAFFOLD: g - c_i + c, option II control
variates), the server x <- x + eta_g mean of the participants' moves, participation drawn from a
:class:`~verify.pep.setting.Law` every round (a tree of branches, exact for the finite law), noise xi with
E[xi | past] = 0, E||xi||^2 <= sigma^2 (an upper bound, as verify.pep.sdp).
**Quantity** (``measure``): ``min_grad_sq`` E min_{r=0..R} ||grad F(x_r)||^2; ``avg_grad_sq`` (1/R) sum_{r=1..R}
E||grad F(x_r)||^2 (the average over the rounds' models after each round); ``avg_grad_sq0`` (1/R)
sum_{r=0..R-1} (a uniformly chosen iterate among x_0..x_{R-1}); ``gap`` E F(x_R) - F_inf.
**Statement**: the PEP's value bounds the worst case over the class from above. Interpolation (Taylor, Hendrickx &
Glineur 2017, Thm 3.10): an L-smooth f with f(x_p) = f_p, grad f(x_p) = g_p exists iff for all ordered pairs
f_p - f_q >= -L/4 ||x_p - x_q||^2 + 1/2 <g_p + g_q, x_p - x_q> + 1/(4L) ||g_p - g_q||^2. F >= F_inf is imposed
by its consequence F(y) - F_inf >= ||grad F(y)||^2 / (2L) at every point where F's gradient is known, and the
dissimilarity as above: both necessary, not known to be sufficient jointly, hence an upper bound (``exactness``);
with one client, no noise and ``initial = "F_R"`` it is PEPit's exact PEP of gradient descent.
**Notation**: translation invariance puts x_0 at the origin, so the Gram basis is the gradients (and noise
draws) only; the per-client shift f_i -> f_i + c_i (F_inf shifting by the mean) fixes f_i(x_0) = 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from bounds.core.errors import UserInputError
from verify.pep.banded_build import Key
from verify.pep.setting import MAX_REAL, Law, _validate_law

NC_METHODS = ("local_gd", "scaffold")
NC_MEASURES = ("min_grad_sq", "avg_grad_sq", "avg_grad_sq0", "gap")
HETERO = ("evaluated", "rounds")
INITIAL = ("F_inf", "F_R")

Vec = dict[int, Fraction]


def frac(v: float | int | Fraction) -> Fraction:
    """A constant read as its shortest decimal (0.3 as 3/10), as verify.pep.exact does."""
    return Fraction(repr(float(v))) if isinstance(v, float) else Fraction(v)


@dataclass(frozen=True)
class NCSetting:
    """One non-convex worst-case instance (module doc).

    Args: method: local_gd | scaffold; L: smoothness; zeta: dissimilarity bound; eta, eta_g: client and server
    steps; K, R, M; Delta: the initial gap; measure, initial, hetero: see the module doc; law: None (full) or a
    Law; sigma: noise level.
    """

    method: str = "local_gd"
    L: float = 1.0
    zeta: float = 0.0
    eta: float = 0.5
    K: int = 1
    R: int = 1
    M: int = 2
    eta_g: float = 1.0
    Delta: float = 1.0
    measure: str = "min_grad_sq"
    initial: str = "F_inf"
    hetero: str = "evaluated"
    law: Law | None = None
    sigma: float = 0.0

    def patterns(self) -> list[tuple[Fraction, tuple[int, ...]]]:
        return (self.law or Law("full")).patterns(self.M)

    def full(self) -> bool:
        law = self.law
        return law is None or law.kind == "full" or (law.kind == "uniform" and law.m == self.M) or \
            (law.kind == "bernoulli" and law.p == 1)

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ("method", "L", "zeta", "eta", "K", "R", "M", "eta_g", "Delta",
                                             "measure", "initial", "hetero", "sigma")}
        out["participation"] = (self.law or Law("full")).text()
        out["class"] = "L-smooth (non-convex)"
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> NCSetting:
        from verify.pep.setting import parse_law

        kw = {k: d[k] for k in ("method", "L", "zeta", "eta", "K", "R", "M", "eta_g", "Delta", "measure", "initial",
                                "hetero", "sigma") if k in d}
        part = d.get("participation", "full")
        return cls(**kw, law=None if part == "full" else parse_law(part))


def validate_nc(s: NCSetting) -> NCSetting:
    """Raise UserInputError naming the first invalid field and what is valid."""
    for name, allowed in (("method", NC_METHODS), ("measure", NC_MEASURES), ("hetero", HETERO),
                          ("initial", INITIAL)):
        if getattr(s, name) not in allowed:
            raise UserInputError(f"{name}={getattr(s, name)!r} is not valid for smooth non-convex clients; valid: "
                                 f"{', '.join(allowed)}")
    for name, positive in (("L", True), ("eta", True), ("eta_g", True), ("Delta", True), ("zeta", False),
                           ("sigma", False)):
        v = getattr(s, name)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or abs(v) > MAX_REAL \
                or not (v > 0 if positive else v >= 0):
            rule = "a positive" if positive else "a non-negative"
            raise UserInputError(f"{name}={v} must be {rule} finite number at most {MAX_REAL:g}")
    for name in ("K", "R", "M"):
        v = getattr(s, name)
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise UserInputError(f"{name}={v} must be an integer >= 1")
    if s.law is not None:
        _validate_law(s.law, s.M)
    if s.measure == "gap" and s.initial != "F_inf":
        raise UserInputError("measure gap (F(x_R) - F_inf) needs initial = F_inf (with F_R there is no F_inf)")
    return s


@dataclass
class Point:
    """An evaluation point of one client: node (its anchor model), position relative to the node, gradient,
    value index (-1: f_i(x_0) = 0 by the gauge) and the previous point on its chain (value balance)."""

    node: int
    rel: Vec
    g: Vec
    f: int
    prev: list[int] = field(default_factory=list)


@dataclass
class NCProblem:
    """The PEP as rows <A, G> + <a, s> <= rhs (``eq``: ==), A on Gram entries (banded.py's convention: the
    coefficient of G[a, b] counts both (a, b) and (b, a)), s the scalar unknowns (values, F_inf, epigraph t's).

    ``chain``: per value scalar, (row raising it, row lowering it) on pairs with its chain predecessor;
    ``solve_for``: (scalar, rows) whose multipliers the recheck sets so the scalar balances (module doc of
    verify.pep.nonconvex_solve)."""

    setting: NCSetting
    window: int | None
    d: int = 0
    ns: int = 0
    rows: list[tuple[dict[Key, Fraction], dict[int, Fraction], Fraction, bool]] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    obj_gram: dict[Key, Fraction] = field(default_factory=dict)
    obj_scal: dict[int, Fraction] = field(default_factory=dict)
    chain: dict[int, tuple[int, int]] = field(default_factory=dict)
    solve_for: list[tuple[int, list[int]]] = field(default_factory=list)
    gradients: int = 0
    pairs_kept: int = 0
    pairs_full: int = 0
    finf: int = -1
    noise: list[int] = field(default_factory=list)
    points: list[list[Point]] = field(default_factory=list)  # per client (the bracket's full-pair check)
    nodes: list[tuple[int, Vec, int]] = field(default_factory=list)  # (parent, move, depth)

    def add(self, tag: str, gram: dict[Key, Fraction], scal: dict[int, Fraction], rhs: Fraction,
            eq: bool = False) -> int:
        self.rows.append((gram, scal, rhs, eq))
        self.tags.append(tag)
        return len(self.rows) - 1

    def scalar(self) -> int:
        self.ns += 1
        return self.ns - 1

    def vec(self) -> Vec:
        self.d += 1
        return {self.d - 1: Fraction(1)}
