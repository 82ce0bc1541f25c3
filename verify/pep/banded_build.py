"""The windowed PEP's data (:class:`Banded`) in its banded basis, and the chordal pattern of its Gram matrix.

**Setting**: local GD with full participation, no noise, measure ``dist_sq`` (:mod:`verify.pep.banded` says
why this basis: every kept inequality touches vectors of one or two consecutive rounds plus the s_i).
**Quantity**: the kept interpolation inequalities, the bounds and the objective with exact coefficients
(:func:`build_banded`), and the maximal cliques of the pattern's chordal extension (:func:`chordal_cliques`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from verify.pep.setting import Setting

__all__ = ["Banded", "Key", "build_banded", "chordal_cliques"]

Key = tuple[int, int]  # (a, b) with a <= b: the Gram entry G[a, b] = G[b, a]


def _quad(u: dict[int, Fraction], v: dict[int, Fraction], coef: Fraction, out: dict[Key, Fraction]) -> None:
    """out += coef <u, G v>, as coefficients of the upper-triangle entries."""
    for a, ca in u.items():
        for b, cb in v.items():
            k = (a, b) if a <= b else (b, a)
            out[k] = out.get(k, 0) + coef * ca * cb


def _lin(*terms: tuple[Fraction, dict[int, Fraction]]) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for c, v in terms:
        for k, x in v.items():
            out[k] = out.get(k, 0) + c * x
    return {k: x for k, x in out.items() if x}


@dataclass
class Banded:
    """The windowed PEP in the iterate basis: rows ``phi <= 0`` (Gram part, value part) and bounds.

    ``rows``: per inequality (client, j, k, Gram coefficients, {value index: coefficient}); ``bounds``:
    (name, Gram coefficients, rhs); ``objective``: Gram coefficients of ||x_R||^2; ``nf``: values."""

    setting: Setting
    window: int
    d: int
    nf: int
    rows: list[tuple[int, int, int, dict[Key, Fraction], dict[int, int]]] = field(default_factory=list)
    bounds: list[tuple[str, dict[Key, Fraction], Fraction]] = field(default_factory=list)
    objective: dict[Key, Fraction] = field(default_factory=dict)
    pairs_kept: int = 0
    pairs_full: int = 0

    def denominator(self) -> int:
        """The least common denominator of every coefficient (rows, bounds, objective)."""
        dens = {c.denominator for _, _, _, q, _ in self.rows for c in q.values()}
        dens |= {c.denominator for _, q, _ in self.bounds for c in q.values()}
        dens |= {c.denominator for c in self.objective.values()}
        return math.lcm(*dens)


def _exact(v: float | int | Fraction) -> Fraction:
    """A constant as an exact rational: a float is read as its shortest decimal (0.3 as 3/10)."""
    return Fraction(repr(v)) if isinstance(v, float) else Fraction(v)


def build_banded(s: Setting, window: int, fixed_point: bool = False) -> Banded:
    """The windowed PEP of ``s`` (validated, supported, in units L = D0 = 1 or not) with exact coefficients.

    ``fixed_point``: instead, one round whose model comes back to x_0 (x_1 = x_0 imposed by not giving x_1 a
    basis vector of its own), maximising ||x_0 - x*||^2: the largest distance of a fixed point of the method."""
    F = _exact
    one = Fraction(1)
    basis = _Basis.make(s, fixed_point)
    pb = Banded(s, window, basis.d, s.M * basis.n)
    _interpolation_rows(pb, basis, window)
    init: dict[Key, Fraction] = {}
    _quad({0: one}, {0: one}, one, init)
    pb.bounds.append(("initial distance", init, F(s.D0)))
    if basis.hetero:
        for i, v in enumerate(basis.svec):
            h: dict[Key, Fraction] = {}
            _quad(v, v, one, h)
            pb.bounds.append((f"heterogeneity of client {i}", h, F(s.zeta) ** 2))
    last = basis.x[0 if fixed_point else basis.R]
    _quad(last, last, one, pb.objective)
    return pb


@dataclass
class _Basis:
    """Every vector of the windowed PEP as a combination of basis vectors (``build_banded``'s basis).

    Basis: 0 = e0 = x_0; round r: the gradients g_{i,r,k} (k-major) except client M's last, then x_{r+1}
    (which fixes that gradient); the s_i at the end (eliminated last). Iterates are x_r minus at most K - 1
    gradients of their own round, so every vector is local in time; gradients (not iterates) as basis vectors
    keep the Gram matrix as well conditioned as verify.pep.sdp's (an iterate basis, measured, is not).
    """

    d: int
    n: int  # local steps per client, K R
    R: int
    hetero: bool
    x: list[dict[int, Fraction]]  # the models x_r
    ys: list[list[dict[int, Fraction]]]  # per client, its points y_t, t = 0..n-1
    gr: list[list[dict[int, Fraction]]]  # per client, g_t = grad f_i(y_t)
    svec: list[dict[int, Fraction]]  # s_i = grad f_i(x*)

    @classmethod
    def make(cls, s: Setting, fixed_point: bool) -> _Basis:
        eta, eta_g, M, K, R = _exact(s.eta), _exact(s.eta_g), s.M, s.K, (1 if fixed_point else s.R)
        hetero = s.zeta > 0 and M > 1
        d = 1 + M * K * R + (M - 1 if hetero else 0) - (1 if fixed_point else 0)
        one = Fraction(1)
        idx = 1
        x = [{0: one}]
        ys: list[list[dict[int, Fraction]]] = [[] for _ in range(M)]
        gr: list[list[dict[int, Fraction]]] = [[] for _ in range(M)]
        for r in range(R):
            g: list[list[dict[int, Fraction]]] = [[{} for _ in range(K)] for _ in range(M)]
            for k in range(K):
                for i in range(M):
                    if (i, k) != (M - 1, K - 1):
                        g[i][k] = {idx: one}
                        idx += 1
            xr1 = x[r] if fixed_point else {idx: one}
            idx += 0 if fixed_point else 1
            # x_{r+1} = x_r - eta eta_g / M sum_{i,k} g_{i,r,k} fixes client M's last gradient of the round
            g[M - 1][K - 1] = _lin((M / (eta * eta_g), x[r]), (-M / (eta * eta_g), xr1),
                                   *((-one, g[i][k]) for i in range(M) for k in range(K) if (i, k) != (M - 1, K - 1)))
            x.append(xr1)
            for i in range(M):
                y = x[r]
                for k in range(K):
                    ys[i].append(y)
                    gr[i].append(g[i][k])
                    y = _lin((one, y), (-eta, g[i][k]))
        svec: list[dict[int, Fraction]] = [{} for _ in range(M)]
        if hetero:
            svec = [{idx + i: one} for i in range(M - 1)]
            svec.append(_lin(*((-one, v) for v in svec)))
        if idx + (M - 1 if hetero else 0) != d:  # pragma: no cover - the count above and the basis agree
            raise AssertionError("banded basis size")
        return cls(d, K * R, R, hetero, x, ys, gr, svec)


def _interpolation_rows(pb: Banded, basis: _Basis, window: int) -> None:
    """Each client's kept interpolation inequalities (pairs with x*, and pairs at most ``window`` apart)."""
    s = pb.setting
    L, mu = _exact(s.L), _exact(s.mu)
    M, K, n, d = s.M, s.K, basis.n, basis.d
    one = Fraction(1)
    kappa = 1 / (2 * (1 - mu / L))
    stride, s0 = M * K, d - (M - 1 if basis.hetero else 0)  # basis shift per round; the s_i from s0 on
    memo: dict[Any, dict[Key, Fraction]] = {}
    for i in range(M):
        # points: 0 is x* (x = 0, g = s_i, f = 0), t + 1 is y_t with g_t = (y_t - y_{t+1}) / eta
        xs: list[dict[int, Fraction]] = [{}, *basis.ys[i]]
        gs = [basis.svec[i]] + basis.gr[i]
        fidx = [-1] + [i * n + t for t in range(n)]
        pairs = [(0, t) for t in range(1, n + 1)] + [(t, 0) for t in range(1, n + 1)]
        pairs += [(t, u) for t in range(1, n + 1) for u in range(max(1, t - window), min(n, t + window) + 1) if u != t]
        pb.pairs_kept += len(pairs)
        pb.pairs_full += (n + 1) * n
        for j, k in pairs:
            # phi = f_k - f_j + <g_k, x_j - x_k> + kappa (||g_j - g_k||^2 / L + mu ||x_j - x_k||^2
            #       - 2 mu / L <g_j - g_k, x_j - x_k>)  <= 0. Rounds repeat: the basis of round r + 1 is round r's
            # shifted by M K, so a row is computed once per shape (its vectors moved to the earliest round) and
            # shifted (exact either way; this only saves the rational arithmetic)
            shift = stride * ((min(t for t in (j, k) if t) - 1) // K)
            key = tuple(tuple(sorted((a - shift if a < s0 else a, c) for a, c in v.items()))
                        for v in (xs[j], gs[j], xs[k], gs[k]))
            base = memo.get(key)
            if base is None:
                dx = _lin((one, xs[j]), (-one, xs[k]))
                dg = _lin((one, gs[j]), (-one, gs[k]))
                q: dict[Key, Fraction] = {}
                _quad(gs[k], dx, one, q)
                _quad(dg, dg, kappa / L, q)
                if mu:
                    _quad(dx, dx, kappa * mu, q)
                    _quad(dg, dx, -2 * kappa * mu / L, q)
                base = memo[key] = {(a - shift if a < s0 else a, b - shift if b < s0 else b): c
                                    for (a, b), c in q.items() if c}
            q = {(a + shift if a < s0 else a, b + shift if b < s0 else b): c for (a, b), c in base.items()} \
                if shift else dict(base)
            fv = {}
            if fidx[k] >= 0:
                fv[fidx[k]] = 1
            if fidx[j] >= 0:
                fv[fidx[j]] = -1
            pb.rows.append((i, j, k, q, fv))


def chordal_cliques(d: int, entries: list[Key]) -> tuple[list[list[int]], set[Key]]:
    """Maximal cliques of the chordal extension of the pattern ``entries`` by elimination in the order 0..d-1,
    and the filled pattern (upper-triangle keys, diagonal included)."""
    higher: list[set[int]] = [set() for _ in range(d)]
    for a, b in entries:
        if a != b:
            higher[a].add(b)
    cands = []
    for v in range(d):
        nb = higher[v]
        if nb:
            p = min(nb)
            higher[p] |= nb - {p}  # fill: v's later neighbours become the parent's
        cands.append((v, sorted(nb)))
    # {v} + N+(v) is a maximal clique unless a child u (parent v) has |N+(u)| = |N+(v)| + 1 (then it contains it)
    absorbed = {nb[0] for v, nb in cands if nb and len(nb) == len(cands[nb[0]][1]) + 1}
    cliques = [[v, *nb] for v, nb in cands if v not in absorbed]
    filled = {(v, v) for v in range(d)} | {(v, u) for v in range(d) for u in higher[v]}
    return cliques, filled
