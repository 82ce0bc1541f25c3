"""The farthest fixed point of one round of local GD: a proved lower bound on the worst case at every horizon.

**Why**: if one round maps x_bar to itself for some instance of the class, then started at x_0 = x_bar the
method never moves, so ||x_R - x*||^2 = ||x_bar - x*||^2 for every R: the largest such distance (capped by
D0) bounds the worst case from below at every R, and at long horizons (when the method has forgotten x_0)
it is close to it (measured: verify.pep.banded's bound lies 6e-5 above it at K x R = 1,000).
**The one-round PEP**: verify.pep.banded_build.build_banded with ``fixed_point=True`` (x_1 = x_0 built into the basis)
and every pair of points kept, so by the interpolation theorem (Taylor, Hendrickx & Glineur) every feasible
Gram matrix and value vector is an instance: the problem is exact, and its value is the farthest fixed point.
**Proof of a lower bound**: the solver's Gram matrix G* is feasible only up to its accuracy. It is made
exactly feasible: G* is factored and its factor rounded to rationals (so G*_q is exactly PSD), mixed with
a strictly feasible point G_0 (a 1-D quadratic instance with curvatures strictly between mu and L, whose
interpolation inequalities all hold with margin (h - mu)(L - h) / (2 (L - mu)) ||x_j - x_k||^2) as
G = (1 - theta) G*_q + theta G_0, theta as small as passes (bisection on log theta); a second, closer G_0 is
the solution of the problem with every inequality tightened by a margin (1e-7, 1e-6 or 1e-5) when it passes
the exact check on its own, and the best proved value is kept; the function values are then found
exactly (difference constraints f_k - f_j <= -Q_jk(G), solved by Bellman-Ford in rationals: feasible iff no
negative cycle), and G is scaled down until ||x_0 - x*||^2 <= D0 and ||s_i||^2 <= zeta^2 (the inequalities
are homogeneous in (G, f)). The value G[x_0, x_0] is then attained by an instance: a proved lower bound.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from verify.pep.banded_build import build_banded, chordal_cliques
from verify.pep.banded_sdp import solve_banded_sdp
from verify.pep.setting import Setting

_FACTOR_GRID = 2**30  # the Gram factor is rounded to this grid


def _q(v: float) -> Fraction:
    return Fraction(repr(v))


def _quadratic_point(s: Setting, d: int) -> list[Fraction] | None:
    """The basis values of a 1-D two-client quadratic fixed point (curvatures at 1/3 and 2/3 of [mu, L]), in the
    order of build_banded(fixed_point=True): x_0, the gradients (k-major, client M's last left out), s_1."""
    L, mu, eta, c = _q(s.L), _q(s.mu), _q(s.eta), _q(s.zeta)
    K = s.K
    h = [mu + (L - mu) / 3, mu + 2 * (L - mu) / 3]
    a = [-c / h[0], c / h[1]]  # grad f_1(0) = -h_1 a_1 = c, grad f_2(0) = -c
    q = [Fraction((1 - eta * hi) ** K) - 1 for hi in h]
    if sum(q) == 0:
        return None
    xbar = Fraction(sum(qi * ai for qi, ai in zip(q, a))) / sum(q)  # sum_i (q_i - 1)(x - a_i) = 0
    grads: list[list[Fraction]] = [[], []]
    for i in range(2):
        y = xbar
        for _ in range(K):
            g = Fraction(h[i] * (y - a[i]))
            grads[i].append(g)
            y = y - eta * g
    vals = [xbar] + [grads[i][k] for k in range(K) for i in range(2) if (i, k) != (1, K - 1)] + [c]
    return vals if len(vals) == d else None


def _bellman_ford(n: int, edges: list[tuple[int, int, Fraction]]) -> bool:
    """Whether f_0 = 0 and f_k <= f_j + w for every edge (j, k, w) have a solution (no negative cycle)."""
    dist: list[Fraction | None] = [Fraction(0)] + [None] * (n - 1)
    for _ in range(n):
        changed = False
        for j, k, w in edges:
            dj = dist[j]
            if dj is not None:
                dk = dist[k]
                if dk is None or dj + w < dk:
                    dist[k] = dj + w
                    changed = True
        if not changed:
            return dist[0] == 0
    return False


def fixed_point_lower_bound(s: Setting) -> tuple[Fraction | None, dict[str, Any]]:
    """(proved lower bound or None, details) for ``s`` (local GD, full participation, two clients, mu < L; see the
    module doc). The details hold the solver's primal value, its status and relative primal residual."""
    if s.M != 2 or s.zeta == 0:
        return None, {"reason": "needs two clients with heterogeneity (else the only fixed point is x*)"}
    pb = build_banded(s, s.K, fixed_point=True)
    keys = {k for *_, q, _ in pb.rows for k in q} | {k for _, q, _ in pb.bounds for k in q} | set(pb.objective)
    cliques, filled = chordal_cliques(pb.d, sorted(keys))
    sol = solve_banded_sdp(pb, sorted(filled), cliques, delta=0.0)
    info: dict[str, Any] = {"primal_value": sol.primal, "solver": sol.status, "primal_residual": sol.r_prim}
    d = pb.d
    base = _quadratic_point(s, d)
    if base is None or len(filled) != d * (d + 1) // 2:
        return None, {**info, "reason": "no strictly feasible quadratic point, or a Gram pattern that is not complete"}
    D0, z2 = _q(s.D0), _q(s.zeta) ** 2
    quad = [[x * y for y in base] for x in base]
    best: Fraction | None = None
    if sol.gram is not None:
        best, theta = _prove(s, pb, _rational_gram(sol.gram, d), quad, D0, z2)
        info.update(theta=theta, mixed_with="a 1-D quadratic fixed point")
    # strictly feasible points much closer to the optimum: the solutions with every inequality tightened by a
    # margin (measured at K = 5: 1e-6 passes the exact check alone, 1.6e-3 below the optimum); mixing the
    # optimum with one costs far less than with the quadratic point
    if sol.gram is not None:
        Gstar = _rational_gram(sol.gram, d)
        for margin in (1e-7, 1e-6, 1e-5):
            tight = solve_banded_sdp(pb, sorted(filled), cliques, delta=0.0, margin=margin)
            if tight.gram is None:
                continue
            inner = _rational_gram(tight.gram, d)
            if _prove_mixture(s, pb, inner, inner, D0, z2, Fraction(0)) is None:
                continue
            v, theta = _prove(s, pb, Gstar, inner, D0, z2)
            if v is not None and (best is None or v > best):
                best = v
                info.update(theta=theta, mixed_with=f"the solution with every inequality tightened by {margin:g}")
    if best is None:
        return None, {**info, "reason": "no mixture with a strictly feasible point passed"}
    return best, {**info, "value_exact": f"{best.numerator}/{best.denominator}" if best.denominator < 10**80 else None}


def _rational_gram(gram: dict[tuple[int, int], float], d: int) -> list[list[Fraction]]:
    """The solver's Gram entries as an exactly PSD rational matrix: its factor (eigenvalues below 0 dropped)
    rounded to the grid, multiplied out exactly."""
    G = np.zeros((d, d))
    for (a, b), entry in gram.items():
        G[a, b] = G[b, a] = entry
    lam, U = np.linalg.eigh(G)
    keep = lam > 0
    V = np.rint(U[:, keep] * np.sqrt(lam[keep]) * _FACTOR_GRID).astype(object)
    Gs = V.dot(V.T)
    return [[Fraction(int(Gs[a, b]), _FACTOR_GRID**2) for b in range(d)] for a in range(d)]


def _prove_mixture(s: Setting, pb: Any, Gstar: list[list[Fraction]], G0: list[list[Fraction]], D0: Fraction,
                   z2: Fraction, theta: Fraction) -> Fraction | None:
    """The value of (1 - theta) Gstar + theta G0, scaled into the bounds, if it satisfies every interpolation
    inequality with some function values (Bellman-Ford, exact), else None."""
    d = pb.d
    Gt = [[(1 - theta) * Gstar[a][b] + theta * G0[a][b] for b in range(d)] for a in range(d)]
    scale = min(Fraction(1), D0 / Gt[0][0] if Gt[0][0] else Fraction(1),
                z2 / Gt[d - 1][d - 1] if Gt[d - 1][d - 1] else Fraction(1))
    for client in range(2):
        edges = []
        for i, j, k, q, _ in pb.rows:
            if i == client:
                Q = sum((c * Gt[a][b] for (a, b), c in q.items()), Fraction(0)) * scale
                edges.append((j, k, -Q))  # phi = f_k - f_j + Q <= 0
        if not _bellman_ford(s.K + 1, edges):
            return None
    return scale * Gt[0][0]


def _prove(s: Setting, pb: Any, Gstar: list[list[Fraction]], G0: list[list[Fraction]], D0: Fraction,
           z2: Fraction) -> tuple[Fraction | None, float | None]:
    """The proved value of the mixture of ``Gstar`` with the strictly feasible ``G0`` of smallest weight on
    ``G0`` that passes (0 first, then bisection on its logarithm between 1e-9 and 1/2), and that weight."""
    best = _prove_mixture(s, pb, Gstar, G0, D0, z2, Fraction(0))
    if best is not None:
        return best, 0.0
    best = _prove_mixture(s, pb, Gstar, G0, D0, z2, Fraction(1, 2))
    if best is None:
        return None, None
    lo, hi, best_theta = -9.0, math.log10(0.5), 0.5
    for _ in range(20):
        mid = (lo + hi) / 2
        theta = Fraction(repr(10.0**mid))
        v = _prove_mixture(s, pb, Gstar, G0, D0, z2, theta)
        if v is None:
            lo = mid
        else:
            hi, best, best_theta = mid, v, float(theta)
    return best, best_theta


def down(v: Fraction) -> float:
    """The largest float not above ``v``."""
    f = float(v)
    return math.nextafter(f, -math.inf) if Fraction(f) > v else f
