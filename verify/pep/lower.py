"""Lower bounds on a worst case from explicit instances: two-client quadratics in one and two dimensions.

**Instances**: f_i(x) = 1/2 (x - a_i)^T H_i (x - a_i) with mu I <= H_i <= L I (so each f_i is L-smooth and
mu-strongly convex), grad f_1(x*) = c = -grad f_2(x*) with ||c|| = zeta (so x* = 0 minimises F and the
heterogeneity bound is met), ||x_0 - x*||^2 = D0. With M = 2k clients, k copies of each give the same run
under full participation. Local GD with full participation is then affine: x_{r+1} = A x_r + B c with
A = I + eta_g mean_i (Q_i - I), Q_i = (I - eta H_i)^K and B = eta_g/2 ((Q_1 - I) H_1^-1 - (Q_2 - I) H_2^-1),
so x_R = A^R x_0 + (I + A + ... + A^(R-1)) B c, computed by binary powering (log R matrix products).
**Search**: one dimension, a grid of (h_1, h_2) in [mu, L]^2 with the worst signs; two dimensions, H_i =
rot(theta_i) diag(l_i) rot(theta_i)^T drawn at random (seeded) and x_0, c on a grid of directions, then the
best few refined by Nelder-Mead. Every value is ||x_R||^2 of an instance of the class, computed in float64
(relative error far below the digits reported): a lower bound on the worst case, not a proof of tightness.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from verify.pep.setting import Setting


def power_sum(A: np.ndarray, R: int) -> tuple[np.ndarray, np.ndarray]:
    """(A^R, I + A + ... + A^(R-1)) for a stack of square matrices, by binary powering."""
    eye = np.broadcast_to(np.eye(A.shape[-1]), A.shape)
    P, S = eye.copy(), np.zeros_like(A)  # the result so far: A^m and its partial sum, m = bits consumed
    Pb, Sb = A.copy(), eye.copy()  # A^(2^j) and I + ... + A^(2^j - 1)
    r = int(R)
    while r:
        if r & 1:
            S = S + P @ Sb
            P = P @ Pb
        r >>= 1
        if r:
            Sb = Sb + Pb @ Sb
            Pb = Pb @ Pb
    return P, S


def _rot(theta: np.ndarray) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)


def _maps(s: Setting, theta: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(A^R, S_R B) for curvatures lam[:, i, :] along rotations theta[:, i] of the two clients."""
    eye = np.eye(2)
    A = np.broadcast_to(eye, (theta.shape[0], 2, 2)).copy()
    B = np.zeros_like(A)
    for i, sign in ((0, 1.0), (1, -1.0)):
        Rm = _rot(theta[:, i])
        Rt = np.swapaxes(Rm, 1, 2)
        QmI = Rm @ (((1 - s.eta * lam[:, i, :]) ** s.K - 1)[:, :, None] * eye) @ Rt  # Q_i - I
        Hinv = Rm @ ((1 / lam[:, i, :])[:, :, None] * eye) @ Rt
        A += s.eta_g / 2 * QmI
        B += sign * s.eta_g / 2 * QmI @ Hinv
    P, S = power_sum(A, s.R)
    return P, S @ B


def _worst_directions(P: np.ndarray, Q: np.ndarray, r0: float, z: float, n: int = 32) -> np.ndarray:
    """max over unit u, v (a grid of n angles each) of ||r0 P u + z Q v||^2, per stacked (P, Q)."""
    ang = np.linspace(0.0, 2 * np.pi, n, endpoint=False)
    U = np.stack([np.cos(ang), np.sin(ang)])
    X = r0 * np.einsum("nij,ja->nia", P, U)
    C = z * np.einsum("nij,jb->nib", Q, U)
    return ((X[:, :, :, None] + C[:, :, None, :]) ** 2).sum(1).reshape(P.shape[0], -1).max(1)


def one_dimensional(s: Setting, points: int = 201) -> tuple[float, dict[str, Any]]:
    """The worst 1-D two-client quadratic on a grid of (h_1, h_2) (zeta = 0 or M = 1: one curvature)."""
    lo = s.mu if s.mu > 0 else s.L / points
    hs = np.linspace(lo, s.L, points)
    h1, h2 = (a.reshape(-1) for a in np.meshgrid(hs, hs, indexing="ij"))
    z = s.zeta if s.M >= 2 else 0.0
    q1, q2 = (1 - s.eta * h1) ** s.K - 1, (1 - s.eta * h2) ** s.K - 1
    if s.M < 2:
        q2 = q1
    A = (1 + s.eta_g * (q1 + q2) / 2)[:, None, None]
    B = (s.eta_g / 2 * (q1 / h1 - q2 / h2))[:, None, None]
    P, S = power_sum(A, s.R)
    r0 = math.sqrt(s.D0)
    val = (np.abs(P[:, 0, 0]) * r0 + np.abs(S[:, 0, 0] * B[:, 0, 0]) * z) ** 2
    k = int(np.argmax(val))
    return float(val[k]), {"dimension": 1, "curvatures": [float(h1[k]), float(h2[k])]}


def two_dimensional(s: Setting, samples: int = 4000, seed: int = 0, refine: int = 4) -> tuple[float, dict[str, Any]]:
    """The worst of ``samples`` random 2-D two-client quadratics (half with curvatures at mu or L), the best
    ``refine`` of them improved by Nelder-Mead; the value is exact for the instance returned."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(seed)
    lo = s.mu if s.mu > 0 else s.L * 1e-3
    theta = rng.uniform(0.0, np.pi, (samples, 2))
    ends = np.where(rng.random((samples, 2, 2)) < 0.5, lo, s.L)
    lam = np.where(np.arange(samples)[:, None, None] % 2 == 0, ends, rng.uniform(lo, s.L, (samples, 2, 2)))
    r0, z = math.sqrt(s.D0), (s.zeta if s.M >= 2 else 0.0)
    vals = np.concatenate([_worst_directions(*_maps(s, theta[i:i + 1000], lam[i:i + 1000]), r0, z)
                           for i in range(0, samples, 1000)])

    def unpack(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        th = p[None, 0:2]
        lm = (lo + (s.L - lo) / (1 + np.exp(-p[2:6]))).reshape(1, 2, 2)
        return th, lm, np.array([math.cos(p[6]), math.sin(p[6])]), np.array([math.cos(p[7]), math.sin(p[7])])

    def value(p: np.ndarray) -> float:
        th, lm, u, v = unpack(p)
        P, Q = _maps(s, th, lm)
        return float(np.sum((r0 * P[0] @ u + z * Q[0] @ v) ** 2))

    best_v, best_p = -1.0, None
    for k in np.argsort(vals)[::-1][:refine]:
        P, Q = _maps(s, theta[k:k + 1], lam[k:k + 1])
        ang = np.linspace(0.0, 2 * np.pi, 32, endpoint=False)
        grid = [(a, b) for a in ang for b in ang]
        a, b = max(grid, key=lambda ab: float(np.sum((r0 * P[0] @ [math.cos(ab[0]), math.sin(ab[0])]
                                                      + z * Q[0] @ [math.cos(ab[1]), math.sin(ab[1])]) ** 2)))
        frac = np.clip((lam[k].reshape(-1) - lo) / (s.L - lo), 1e-6, 1 - 1e-6) if s.L > lo else np.full(4, 0.5)
        p0 = np.concatenate([theta[k], np.log(frac / (1 - frac)), [a, b]])
        res = minimize(lambda p: -value(p), p0, method="Nelder-Mead", options={"maxiter": 600, "xatol": 1e-9,
                                                                               "fatol": 1e-14})
        p = res.x if -res.fun >= value(p0) else p0
        v = value(p)
        if v > best_v:
            best_v, best_p = v, p
    th, lm, u, w = unpack(best_p)  # type: ignore[arg-type]
    return best_v, {"dimension": 2, "rotations": th[0].tolist(), "curvatures": lm[0].tolist(),
                    "x0_direction": u.tolist(), "c_direction": w.tolist(), "samples": samples, "seed": seed}


def quadratic_lower_bound(s: Setting, samples: int = 4000, seed: int = 0) -> tuple[float, dict[str, Any]]:
    """max(one_dimensional, two_dimensional): ||x_R - x*||^2 of the worst instance found (see the module doc)."""
    v1, i1 = one_dimensional(s)
    if s.M < 2 or s.zeta == 0:
        return v1, i1
    v2, i2 = two_dimensional(s, samples, seed)
    return (v2, i2) if v2 > v1 else (v1, i1)
