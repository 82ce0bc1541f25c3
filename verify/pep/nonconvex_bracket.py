"""The lower end of a windowed non-convex PEP's bracket: is the windowed optimum feasible for the full PEP?

**Quantity**: the windowed PEP (verify.pep.nonconvex with a window) drops interpolation pairs, so its certified
value bounds the full PEP's from above. Its optimum gives Gram entries on the chordal pattern only; they are
completed to a full PSD Gram matrix (Grone et al. 1984: in reverse elimination order each vector is the
least-squares combination of its higher neighbours' plus a new orthogonal direction, which reproduces every
pattern entry), and every dropped pair's interpolation inequality is evaluated at the completion in float64.
**Statement**: when every pair holds to ``tol`` (relative), the windowed optimum is a feasible point of the full
PEP up to floating point, so its objective is the full PEP's value from below, **attained in floating point**
(not proved in exact arithmetic): [lower, certified upper] brackets the full PEP. Otherwise no lower end is
claimed and the largest violation is reported.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from verify.pep.nonconvex import NCProblem


def complete(d: int, filled: list[tuple[int, int]], gram: dict[tuple[int, int], float]) -> np.ndarray:
    """Vectors V (rows) with V V^T equal to ``gram`` on the chordal pattern ``filled`` (elimination order 0..d-1)."""
    higher: list[list[int]] = [[] for _ in range(d)]
    for a, b in filled:
        if a != b:
            higher[a].append(b)
    V = np.zeros((d, d))
    for v in range(d - 1, -1, -1):
        nb = sorted(higher[v])
        gvv = gram[(v, v)]
        if nb:
            Gnn = np.array([[gram[(a, b) if a <= b else (b, a)] for b in nb] for a in nb])
            gnv = np.array([gram[(v, a)] for a in nb])
            w = np.linalg.lstsq(Gnn, gnv, rcond=1e-12)[0]
            V[v] = w @ V[nb]
            gvv -= float(gnv @ w)
        V[v, v] += np.sqrt(max(gvv, 0.0))
    return V


def full_pair_check(pb: NCProblem, gram: dict[tuple[int, int], float], scalars: np.ndarray,
                    filled: list[tuple[int, int]], tol: float = 1e-7) -> dict[str, Any]:
    """The largest violation of any client's interpolation inequality (all pairs) at the completed optimum."""
    V = complete(pb.d, filled, gram)
    H = V @ V.T
    L = float(pb.setting.L)
    pos = np.zeros((len(pb.nodes), pb.d))
    for n, (parent, move, _) in enumerate(pb.nodes):
        if parent >= 0:
            pos[n] = pos[parent]
            for k, c in move.items():
                pos[n, k] += float(c)
    worst, scale = 0.0, 1.0
    for pts in pb.points:
        X = np.array([pos[p.node] for p in pts])
        Gr = np.zeros((len(pts), pb.d))
        for j, p in enumerate(pts):
            for k, c in p.rel.items():
                X[j, k] += float(c)
            for k, c in p.g.items():
                Gr[j, k] = float(c)
        f = np.array([scalars[p.f] if p.f >= 0 else 0.0 for p in pts])
        XX, XG, GG = X @ H @ X.T, X @ H @ Gr.T, Gr @ H @ Gr.T
        dxx = np.diag(XX)[:, None] + np.diag(XX)[None, :] - 2 * XX
        dgg = np.diag(GG)[:, None] + np.diag(GG)[None, :] - 2 * GG
        dxg = np.diag(XG)[:, None] - XG.T + XG - np.diag(XG)[None, :]  # <g_p + g_q, x_p - x_q> at [p, q]
        viol = -L / 4 * dxx + 0.5 * dxg + dgg / (4 * L) - (f[:, None] - f[None, :])
        np.fill_diagonal(viol, 0.0)
        worst = max(worst, float(viol.max()))
        scale = max(scale, float(np.abs(f).max()), float(np.abs(np.diag(GG)).max()))
    return {"largest_violation": worst, "relative": worst / scale, "holds": worst <= tol * scale, "tol": tol}


def instance_lower_bound(s: Any) -> dict[str, Any] | None:
    """A proved lower bound on the worst case of a gradient measure: one instance of the class, in closed form.

    **Instance**: identical clients (dissimilarity 0), f(x) = c x for x >= -b, then L/2-curved down to its
    minimum f_inf = -c b - c^2 / (2L) (L-smooth, bounded below), x_0 = 0, no noise. Every client's step is
    -eta c, so every model x_r lies in [-b, 0] with b = R K eta eta_g c and grad F(x_r) = c for r = 0..R, under any
    participation law (SCAFFOLD's corrections cancel: c_i = c); F(x_0) - F_inf = c^2 (R K eta eta_g + 1/(2L)) =
    Delta gives every gradient measure c^2 = Delta / (R K eta eta_g + 1/(2L)), exactly (a Fraction)."""
    from fractions import Fraction

    from verify.pep.nonconvex import frac

    if s.measure == "gap":
        return None
    c2 = frac(s.Delta) / (s.R * s.K * frac(s.eta) * frac(s.eta_g) + 1 / (2 * frac(s.L)))
    return {"value": float(c2), "exact": f"{c2.numerator}/{c2.denominator}", "proved": isinstance(c2, Fraction),
            "instance": "identical clients f(x) = c x on [-b, 0], L-curved to f_inf below (closed form)"}
