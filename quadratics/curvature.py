"""Quadratics whose clients have different Hessians: local steps drift even under full participation.

**Setting**: F_i(x) = 1/2 (x - b_i)^T A_i (x - b_i), F = (1/M) sum_i F_i in R^d, Abar = (1/M) sum_i A_i;
Gaussian gradient noise with E||xi||^2 = sigma^2 (isotropic); x0 = 0. Spectrum s = linspace(mu, L, d).
Two families (``mix`` in [0, 1] blends each client's own curvature with the shared diag(s)):
* ``diagonal``: A_i = diag((1 - mix) s + mix s[pi_i]) with pi_i a random permutation per client;
* ``rotated``: A_i = (1 - mix) diag(s) + mix Q_i diag(s) Q_i^T with Q_i a random orthogonal matrix
  (Haar, from the QR of a Gaussian matrix) per client.
Construction: x* (||x*||^2 = D0, random direction) and the client gradients at the optimum
g_i = grad F_i(x*) (centred, sum_i g_i = 0, max_i ||g_i|| = zeta exactly) are drawn first, then
b_i = x* - A_i^{-1} g_i. x* is then re-solved from the mean system Abar x = (1/M) sum_i A_i b_i
(``np.linalg.solve``; equal to the drawn x* to rounding; tests check both).

**Quantity** (exact to rounding, eigenvalues by ``np.linalg.eigvalsh``):
* ``L`` = max_i lambda_max(A_i) (every F_i is L-smooth: FAST A1 needs F_i and F; it also bounds
  F's), ``L_F`` = lambda_max(Abar); ``mu`` = min_i lambda_min(A_i) (each F_i mu-strongly convex:
  FAST A4), ``mu_F`` = lambda_min(Abar) (F's own strong convexity);
* heterogeneity at the optimum: ``zeta`` = max_i ||grad F_i(x*)|| (the requested value),
  ``zeta2_avg`` = (1/M) sum_i ||grad F_i(x*)||^2;
* FAST A3 as printed, ||grad F_i(x) - grad F(x)||^2 <= sigma_G^2 for every i and x, has no finite
  constant here (the difference (A_i - Abar)(x - x*) + g_i grows with ||x - x*||). ``sigma_G2`` is
  the exact sup over the stated domain ||x - x*|| <= ``radius`` (default 2 sqrt(D0) + 1) and max
  over i: for each client the maximum of ||B e + g||^2 over the ball (B = A_i - Abar symmetric) is a
  trust-region problem solved on the sphere from the secular equation in B's eigenbasis
  (:func:`ball_sup`); ``sigma_G2_avg`` is the sup over the same domain of the client average
  (1/M) sum_i ||grad F_i(x) - grad F(x)||^2 (the averaged form some analyses use; one trust-region
  problem). FAST A3 as the spec reads it is the max over i (``sigma_G2``). A result that assumes A3
  is covered only while the iterates stay in the domain; a certificate must check that, or use a
  result stated with heterogeneity at x*;
* F* = (1/M) sum_i F_i(x*), F_i* = 0 so Gamma = F* (F3AST); F(x) - F* = 1/2 (x - x*)^T Abar (x - x*);
  ``Delta`` = F(x0) - F* (FAST's zeta, initial gap), ``D0`` = ||x0 - x*||^2.

**Engine**: the diagonal family has per-client elementwise gradients (the affine fast path);
the rotated one uses the general path, grad = A_i y - A_i b_i as a batched matrix product over
the gathered clients (:func:`quadratics.problem.client_apply`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from bounds.core import seeds
from bounds.core.errors import SizeRefused, UserInputError

from .problem import Problem, check_count, check_positive, client_apply, isotropic_law


def ball_max(Q: np.ndarray, c: np.ndarray, s: np.ndarray, radius: float) -> np.ndarray:
    """max over ||e|| <= radius of e^T Q_m e + 2 c_m^T e + s_m for PSD Q [M,d,d], c [M,d], s [M]; returns [M].

    The objective is convex, so the maximum lies on the sphere; with Q = V diag(q) V^T and
    b = V^T c the maximiser is e_k = b_k / (lam - q_k) with lam >= max q solving
    sum_k e_k^2 = radius^2 (bisection, all M at once: 200 halvings, or fewer where a halving
    leaves (lo, hi) unchanged bit for bit, a fixed point of the rest). Hard case (no weight of b on
    the top eigenvectors and the sum below radius^2 at lam = max q): lam = max q and the rest of
    the norm goes to a top eigenvector (where b_k = 0, so its sign is immaterial).
    """
    return ball_maxes([(Q, c, s)], radius)[0]


def ball_maxes(problems: list[tuple[np.ndarray, np.ndarray, np.ndarray]], radius: float) -> list[np.ndarray]:
    """:func:`ball_max` of several stacks (Q, c, s) of one dimension and one radius, their rows bisected together.

    Why: each halving is about ten numpy calls on tiny arrays, so two stacks bisected as one cost about half as
    much; every step is row by row, so each row gets the bits it gets alone (tests compare them).
    """
    parts = []
    for Q, c, _ in problems:
        q, V = np.linalg.eigh(Q)
        parts.append((q, np.einsum("mdk,md->mk", V, c)))
    hi = _secular_root(np.concatenate([q for q, _ in parts]), np.concatenate([b for _, b in parts]), radius)
    out, k = [], 0
    for (q, b), (_, _, s) in zip(parts, problems):
        out.append(_on_sphere(q, b, s, hi[k:k + len(q)], radius))
        k += len(q)
    return out


def _secular_root(q: np.ndarray, b: np.ndarray, radius: float) -> np.ndarray:
    """The upper end of the bisection for lam >= max q of sum_k (b_k / (lam - q_k))^2 = radius^2, row by row.

    A row with b = 0 is not bisected (its entry is max q): :func:`_on_sphere` takes the hard case there, whose
    value does not read ``hi`` (e = b / (hi - q) = 0), and its halvings would run about 80 times down to
    denormals where max q = 0 (d = 1, or a shared Hessian: B = 0)."""
    out = q.max(1)
    live = np.any(b != 0, axis=1)
    if live.any():
        out[live] = _bisect(q[live], b[live], radius)
    return out


def _bisect(q: np.ndarray, b: np.ndarray, radius: float) -> np.ndarray:
    """:func:`_secular_root` of rows with some b_k != 0: at most 200 halvings, stopped at their fixed point."""
    r2 = radius**2
    lo = q.max(1)
    hi = lo + np.sqrt(np.sum(b**2, 1)) / max(radius, 1e-300) + 1e-300
    add, where = np.add.reduce, np.where  # np.sum's own reduction, without its Python wrapper
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            big = ~(add((b / (mid[:, None] - q)) ** 2, 1) < r2)
            lo_next, hi_next = where(big, mid, lo), where(big, hi, mid)
            # a halving that changes no bit of (lo, hi) is a fixed point: every later one computes the same mid
            # and changes nothing either, so stopping here gives the 200-halving result bit for bit (about 50
            # halvings reach it; the 150 others cost 3/4 of a drift family's build)
            if lo_next.tobytes() == lo.tobytes() and hi_next.tobytes() == hi.tobytes():
                break
            lo, hi = lo_next, hi_next
    return hi


def _on_sphere(q: np.ndarray, b: np.ndarray, s: np.ndarray, hi: np.ndarray, radius: float) -> np.ndarray:
    """The objective at the maximiser e_k = b_k / (hi - q_k), or at the hard case's (module docstring of ball_max)."""
    qmax = q.max(1, keepdims=True)
    top = np.isclose(q, qmax, rtol=1e-12, atol=1e-300)
    r2 = radius**2
    with np.errstate(divide="ignore", invalid="ignore"):
        e = b / (hi[:, None] - q)
        e_hard = np.where(top, 0.0, b / (qmax - q))
    e = np.where(np.isfinite(e), e, 0.0)
    e_hard = np.where(np.isfinite(e_hard), e_hard, 0.0)
    rest = r2 - np.sum(e_hard**2, 1)
    hard = (np.abs(b * top).max(1) <= 1e-14 * (1 + np.abs(b).max(1))) & (rest >= 0)
    k = np.argmax(top, 1)
    e_hard[np.arange(len(k)), k] += np.sqrt(np.maximum(rest, 0.0))
    e = np.where(hard[:, None], e_hard, e)
    return np.sum(q * e * e + 2 * b * e, 1) + s


def ball_sup(B: np.ndarray, g: np.ndarray, radius: float) -> np.ndarray:
    """max over ||e|| <= radius of ||B_m e + g_m||^2 for symmetric B [M,d,d], g [M,d] (:func:`ball_max`
    with Q = B^2, c = B g, s = ||g||^2); returns [M]."""
    return ball_max(B @ B, np.einsum("mde,me->md", B, g), np.sum(g * g, 1), radius)


@dataclass(frozen=True, kw_only=True)
class CurvatureQuadratic(Problem):
    A: np.ndarray       # [M,d,d] client Hessians
    b: np.ndarray       # [M,d] client minimisers
    sigma: float
    diagonal: bool

    @property
    def noise_std(self) -> np.ndarray:
        return np.full(self.d, self.sigma / np.sqrt(self.d))

    def client_values(self, x: np.ndarray) -> np.ndarray:
        e = x[None, :] - self.b
        return 0.5 * np.einsum("md,mde,me->m", e, self.A, e)

    def value(self, x: np.ndarray) -> float:
        return float(self.client_values(x).mean())

    def client_grads(self, x: np.ndarray) -> np.ndarray:
        return np.einsum("mde,me->md", self.A, x[None, :] - self.b)

    def grad(self, x: np.ndarray) -> np.ndarray:
        return self.client_grads(x).mean(0)

    def hessian(self) -> np.ndarray:
        return self.A.mean(0)

    def affine_gradients(self) -> Any:
        """grad F_i(y) = A_i (y - b_i) + xi, xi ~ N(0, sigma^2 / d I)."""
        from .exact.declare import AffineGradients

        A, b = torch.as_tensor(self.A, dtype=torch.float64), torch.as_tensor(self.b, dtype=torch.float64)
        cov = torch.eye(self.d, dtype=torch.float64) * (self.sigma**2 / self.d) if self.sigma > 0 else None
        return AffineGradients(A, -(A @ b[..., None])[..., 0], cov)

    def bind(self, device: torch.device, dtype: torch.dtype) -> _CurvatureBound:
        return _CurvatureBound(self, device, dtype)


class _CurvatureBound:
    """Engine view: ``prepare`` gathers -A_i b_i (and the diagonal a_i) of the active clients."""

    def __init__(self, pb: CurvatureQuadratic, device: torch.device, dtype: torch.dtype):
        self.device, self.dtype, self.d, self.M = device, dtype, pb.d, pb.M
        self.A = torch.as_tensor(pb.A, device=device, dtype=dtype)
        self.nab = torch.as_tensor(-np.einsum("mde,me->md", pb.A, pb.b), device=device, dtype=dtype)
        self.Abar = torch.as_tensor(pb.A.mean(0), device=device, dtype=dtype)
        self.xs = torch.as_tensor(pb.x_star, device=device, dtype=dtype)
        self.noise_law = isotropic_law(pb.d, pb.sigma, device, dtype)
        if pb.diagonal:  # per-client elementwise curvature: the tabulated affine kernels apply
            self.diag = torch.as_tensor(np.einsum("mdd->md", pb.A), device=device, dtype=dtype)
            self.affine = self._affine
            self.nonlinear = None

    def prepare(self, idx: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        T, n = idx.shape
        return idx, self.nab.index_select(0, idx.reshape(-1)).view(T, n, self.d)

    def _affine(self, ctx: tuple[torch.Tensor, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        idx, nab = ctx
        T, n = idx.shape
        return self.diag.index_select(0, idx.reshape(-1)).view(T, n, self.d), nab

    def grad(self, y: torch.Tensor, ctx: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        idx, nab = ctx
        return client_apply(self.A, idx, y).add_(nab)

    def metrics(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        e = x - self.xs
        g = e @ self.Abar
        return {"gap": 0.5 * (e * g).sum(-1), "grad_sq": (g * g).sum(-1), "dist_sq": (e * e).sum(-1)}


def _centred(rng: np.random.Generator, M: int, d: int, zeta: float) -> np.ndarray:
    """[M,d] with sum_i g_i = 0 and max_i ||g_i|| = zeta exactly."""
    if zeta == 0:
        return np.zeros((M, d))
    if M < 2:
        raise UserInputError("zeta > 0 needs at least M=2 clients (one client has no heterogeneity)")
    g = rng.standard_normal((M, d))
    g -= g.mean(0)
    return g * (zeta / np.max(np.linalg.norm(g, axis=1)))


def _sigma_G2(B: np.ndarray, gs: np.ndarray, radius: float) -> tuple[np.ndarray, float]:
    """Per client, max over the ball of ||B_i e + g_i||^2 (:func:`ball_sup`), and the same of the client average
    (1/M) sum_i ||B_i e + g_i||^2, one quadratic in e: Q = mean B_i^2, c = mean B_i g_i; bisected together."""
    BB = B @ B
    sup, avg = ball_maxes([(BB, np.einsum("mde,me->md", B, gs), np.sum(gs * gs, 1)),
                           (BB.mean(0)[None], np.einsum("mde,me->d", B, gs)[None] / len(B),
                            np.array([np.mean(np.sum(gs * gs, 1))]))], radius)
    return sup, float(avg[0])


def curvature_quadratic(family: str = "rotated", L: float = 1.0, mu: float = 0.1, d: int = 10, M: int = 10,
                        zeta: float = 1.0, sigma: float = 1.0, D0: float = 1.0, mix: float = 1.0,
                        radius: float | None = None, seed: int = 0) -> CurvatureQuadratic:
    """Build the ``diagonal`` or ``rotated`` distinct-Hessian family (see the module docstring).

    Args: L, mu: ends of the spectrum (0 < mu <= L); d, M: sizes; zeta: max_i ||grad F_i(x*)||
    (exact); sigma: noise level (E||xi||^2 = sigma^2); D0: ||x0 - x*||^2 (x0 = 0); mix in [0, 1]:
    how far each client's curvature departs from the shared diag(s) (0: shared Hessian, no drift);
    radius: the sigma_G domain ||x - x*|| <= radius (default 2 sqrt(D0) + 1); seed: the instance draw.
    Eleven parameters, why: they are the family's own constants (the registry's keys), one per symbol.
    """
    if family not in ("diagonal", "rotated"):
        raise UserInputError(f"family={family!r}; valid: diagonal, rotated")
    check_positive(L=L, mu=mu, D0=D0)
    d, M = check_count("d", d), check_count("M", M)
    if mu > L:
        raise UserInputError(f"mu={mu} must be <= L={L}")
    if not (0.0 <= mix <= 1.0):
        raise UserInputError(f"mix={mix} must lie in [0, 1]")
    if not (np.isfinite(zeta) and zeta >= 0) or not (np.isfinite(sigma) and sigma >= 0):
        raise UserInputError(f"zeta={zeta} and sigma={sigma} must be finite numbers >= 0")
    radius = 2.0 * np.sqrt(D0) + 1.0 if radius is None else float(radius)
    check_positive(radius=radius)
    if M * d * d > 5e7:
        raise SizeRefused(f"M*d^2 = {M * d * d:.3g} matrix entries (> 5e7, {M * d * d * 8 / 2**30:.1f} GiB); "
                             "use smaller d or M")
    rng = seeds.rng(int(seed), "instance", 211)
    s = np.linspace(mu, L, d) if d > 1 else np.array([L])
    if family == "diagonal":
        perm = np.argsort(rng.random((M, d)), axis=1)
        A = np.zeros((M, d, d))
        A[:, np.arange(d), np.arange(d)] = (1 - mix) * s + mix * s[perm]
    else:
        Q, R = np.linalg.qr(rng.standard_normal((M, d, d)))
        Q = Q * np.sign(np.einsum("mdd->md", R))[:, None, :]  # Haar: fix the QR sign convention
        A = (1 - mix) * np.diag(s) + mix * np.einsum("mij,j,mkj->mik", Q, s, Q)
        A = 0.5 * (A + A.transpose(0, 2, 1))
    u = rng.standard_normal(d)
    x_drawn = u / np.linalg.norm(u) * np.sqrt(D0)
    g_star = _centred(rng, M, d, zeta)
    b = x_drawn[None, :] - np.linalg.solve(A, g_star[..., None])[..., 0]
    Abar = A.mean(0)
    x_star = np.linalg.solve(Abar, np.einsum("mde,me->d", A, b) / M)
    ev = np.linalg.eigvalsh(A)
    ev_bar = np.linalg.eigvalsh(Abar)
    gs = np.einsum("mde,me->md", A, x_star[None, :] - b)
    B = A - Abar[None]
    sup, sup_avg = _sigma_G2(B, gs, radius) if M > 1 else (np.zeros(1), 0.0)
    F_star = float(np.mean(0.5 * np.einsum("md,mde,me->m", x_star - b, A, x_star - b)))
    sigma_G2 = float(sup.max())
    constants: dict[str, float] = {
        "L": float(ev.max()), "L_F": float(ev_bar.max()), "mu": float(ev.min()), "mu_F": float(ev_bar.min()),
        "sigma": float(sigma), "sigma2": float(sigma) ** 2,
        "zeta": float(np.max(np.linalg.norm(gs, axis=1))), "zeta2_avg": float(np.mean(np.sum(gs**2, 1))),
        "sigma_G2": sigma_G2, "sigma_G": float(np.sqrt(sigma_G2)), "sigma_G2_avg": float(sup_avg),
        "radius": float(radius),
        "Gamma": F_star, "F_star": F_star,
        "Delta": float(0.5 * x_star @ Abar @ x_star), "D0": float(x_star @ x_star),
    }
    params: dict[str, Any] = dict(family=family, L=L, mu=mu, d=d, M=M, zeta=zeta, sigma=sigma, D0=D0, mix=mix,
                                  radius=radius, seed=seed)
    return CurvatureQuadratic(name=f"quadratic-{family}", d=d, M=M, x0=np.zeros(d), x_star=x_star, F_star=F_star,
                              constants=constants, params=params, A=A, b=b, sigma=float(sigma),
                              diagonal=family == "diagonal")


def diagonal_quadratic(**kw: Any) -> CurvatureQuadratic:
    """Per-client diagonal Hessians (a permutation of one spectrum per client); see :func:`curvature_quadratic`."""
    return curvature_quadratic("diagonal", **kw)


def rotated_quadratic(**kw: Any) -> CurvatureQuadratic:
    """Per-client rotations Q_i diag(s) Q_i^T of one spectrum; see :func:`curvature_quadratic`."""
    return curvature_quadratic("rotated", **kw)
