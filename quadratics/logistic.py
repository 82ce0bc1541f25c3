"""L2-regularised logistic regression on synthetic client data: a smooth, strongly convex, non-quadratic loss.

**Setting**: client i holds n samples (a_ij, y_ij), a_ij = spread u_i + N(0, I_d) (u_i a random unit
vector per client: distinct feature distributions), y_ij = +1 with probability
sigmoid(a_ij^T w_true) else -1 (||w_true|| = 2, shared). With z_ij = y_ij a_ij,
F_i(x) = (1/n) sum_j log(1 + exp(-z_ij^T x)) + lam/2 ||x||^2, F = (1/M) sum_i F_i; x0 = 0.
Stochastic gradient: the exact client gradient plus isotropic Gaussian noise, E||xi||^2 = sigma^2
(the same noise model as the other families, not minibatch sampling).

**Quantity**:
* ``L`` = max_i lambda_max(Z_i^T Z_i) / (4 n) + lam: a sound smoothness constant of every F_i
  (the logistic loss has second derivative <= 1/4); ``L_F`` the same for F (all data);
* ``mu`` = lam: sound (the loss part is convex) and the best possible over all x (its curvature
  vanishes as ||x|| grows);
* x* by damped Newton on F until ||grad F|| <= 1e-10 (``grad_norm_at_x_star`` records the value
  reached); F* = F(x*); each client's own minimiser the same way, so Gamma = F* - (1/M) sum_i F_i*;
* heterogeneity at the optimum (exact at x*): ``zeta`` = max_i ||grad F_i(x*)||, ``zeta2_avg`` =
  (1/M) sum_i ||grad F_i(x*)||^2;
* FAST A3 globally: the regulariser cancels in grad F_i - grad F, and the loss gradient
  h_i = -(1/n) Z_i^T s (s in (0,1)^n) has ||h_i|| <= a_i = ||Z_i||_2 / sqrt(n), so
  ||grad F_i - grad F|| <= (1 - 1/M) a_i + (1/M) sum_{k != i} a_k for every x: ``sigma_G`` is the max of
  that over i (a sound, not tight, bound; ``sigma_G2`` its square);
* ``Delta`` = F(x0) - F* = log 2 - F* (FAST's zeta), ``D0`` = ||x*||^2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from bounds.core import seeds
from bounds.core.errors import UserInputError

from .problem import Problem, check_count, check_positive, client_apply, isotropic_law

NEWTON_TOL = 1e-10


def _softplus(t: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, t)


def _sigmoid(t: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * t))


def newton(Z: np.ndarray, lam: float, tol: float = NEWTON_TOL, iters: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Minimisers w [B,d] of (1/N) sum_j softplus(-Z_b w) + lam/2 ||w||^2 for each Z_b [B,N,d], and
    their gradient norms [B]; damped Newton (halving until the value does not rise), all B at once."""
    B, N, d = Z.shape

    def value(w: np.ndarray) -> np.ndarray:
        return _softplus(-np.einsum("bnd,bd->bn", Z, w)).mean(1) + 0.5 * lam * np.sum(w * w, 1)

    def grad(w: np.ndarray) -> np.ndarray:
        s = _sigmoid(-np.einsum("bnd,bd->bn", Z, w))
        return -np.einsum("bnd,bn->bd", Z, s) / N + lam * w

    w = np.zeros((B, d))
    g = grad(w)
    for _ in range(iters):
        gn = np.linalg.norm(g, axis=1)
        if gn.max() <= tol:
            break
        s = _sigmoid(-np.einsum("bnd,bd->bn", Z, w))
        H = np.einsum("bnd,bn,bne->bde", Z, s * (1 - s), Z) / N + lam * np.eye(d)
        step = np.linalg.solve(H, g[..., None])[..., 0]
        t = np.ones(B)
        f0 = value(w)
        for _ in range(60):
            bad = value(w - t[:, None] * step) > f0 + 1e-15 * np.abs(f0)
            if not bad.any():
                break
            t = np.where(bad, 0.5 * t, t)
        w = w - t[:, None] * step
        g = grad(w)
    return w, np.linalg.norm(g, axis=1)


@dataclass(frozen=True, kw_only=True)
class LogisticRegression(Problem):
    Z: np.ndarray      # [M,n,d] signed features y_ij a_ij
    lam: float
    sigma: float

    @property
    def noise_std(self) -> np.ndarray:
        return np.full(self.d, self.sigma / np.sqrt(self.d))

    def client_values(self, x: np.ndarray) -> np.ndarray:
        return _softplus(-self.Z @ x).mean(1) + 0.5 * self.lam * float(x @ x)

    def value(self, x: np.ndarray) -> float:
        return float(self.client_values(x).mean())

    def client_grads(self, x: np.ndarray) -> np.ndarray:
        s = _sigmoid(-self.Z @ x)  # [M,n]
        return -np.einsum("mnd,mn->md", self.Z, s) / self.Z.shape[1] + self.lam * x[None, :]

    def grad(self, x: np.ndarray) -> np.ndarray:
        return self.client_grads(x).mean(0)

    def hessian(self, x: np.ndarray) -> np.ndarray:
        """Hessian of F at x [d]."""
        Zf = self.Z.reshape(-1, self.d)
        s = _sigmoid(-Zf @ x)
        return (Zf * (s * (1 - s))[:, None]).T @ Zf / Zf.shape[0] + self.lam * np.eye(self.d)

    def bind(self, device: torch.device, dtype: torch.dtype) -> _LogisticBound:
        return _LogisticBound(self, device, dtype)


class _LogisticBound:
    """Engine view (general path): margins and gradients as batched products with each active client's data."""

    def __init__(self, pb: LogisticRegression, device: torch.device, dtype: torch.dtype):
        self.device, self.dtype, self.d, self.M = device, dtype, pb.d, pb.M
        self.Z = torch.as_tensor(pb.Z, device=device, dtype=dtype)
        self.Zall = self.Z.reshape(-1, pb.d)
        self.n = pb.Z.shape[1]
        self.lam = pb.lam
        self.xs = torch.as_tensor(pb.x_star, device=device, dtype=dtype)
        self.F_star = pb.F_star
        self.noise_law = isotropic_law(pb.d, pb.sigma, device, dtype)

    def prepare(self, idx: torch.Tensor) -> torch.Tensor:
        return idx

    def grad(self, y: torch.Tensor, ctx: torch.Tensor) -> torch.Tensor:
        s = torch.sigmoid(-client_apply(self.Z, ctx, y))           # [T,n,n_samples]
        g = client_apply(self.Z, ctx, s, transpose=True)          # [T,n,d]
        return g.mul_(-1.0 / self.n).add_(y, alpha=self.lam)

    def metrics(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        m = x @ self.Zall.T                                       # [N, M n]
        value = torch.nn.functional.softplus(-m).mean(1) + 0.5 * self.lam * (x * x).sum(1)
        g = torch.sigmoid(-m) @ self.Zall
        g = g.mul_(-1.0 / m.shape[1]).add_(x, alpha=self.lam)
        e = x - self.xs
        return {"gap": value - self.F_star, "grad_sq": (g * g).sum(1), "dist_sq": (e * e).sum(1)}


def logistic_regression(d: int = 10, M: int = 10, n: int = 50, lam: float = 0.1, spread: float = 1.0,
                        sigma: float = 1.0, seed: int = 0) -> LogisticRegression:
    """Build the logistic family (see the module docstring).

    Args: d, M: sizes; n: samples per client; lam: L2 coefficient (= mu, > 0); spread: distance of
    the client feature means from 0 (0: identically distributed clients); sigma: gradient noise
    (E||xi||^2 = sigma^2); seed: the data draw.
    """
    d, M, n = check_count("d", d), check_count("M", M), check_count("n", n)
    check_positive(lam=lam)
    if not (np.isfinite(spread) and spread >= 0) or not (np.isfinite(sigma) and sigma >= 0):
        raise UserInputError(f"spread={spread} and sigma={sigma} must be finite numbers >= 0")
    if M * n * d > 5e7:
        raise UserInputError(f"M*n*d = {M * n * d:.3g} data values (> 5e7); use fewer clients, samples or dimensions")
    rng = seeds.rng(int(seed), "instance", 307)
    u = rng.standard_normal((M, d))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    a = spread * u[:, None, :] + rng.standard_normal((M, n, d))
    w_true = rng.standard_normal(d)
    w_true *= 2.0 / np.linalg.norm(w_true)
    y = np.where(rng.random((M, n)) < _sigmoid(a @ w_true), 1.0, -1.0)
    Z = y[..., None] * a
    xs_b, gn_b = newton(Z.reshape(1, M * n, d), lam)
    x_star, gn = xs_b[0], float(gn_b[0])
    if gn > NEWTON_TOL:
        raise UserInputError(f"Newton's method reached ||grad F|| = {gn:.3g} > {NEWTON_TOL:g}; try a larger lam")
    w_i, _ = newton(Z, lam)
    pb0 = LogisticRegression(name="logistic", d=d, M=M, x0=np.zeros(d), x_star=x_star, F_star=0.0, constants={},
                             Z=Z, lam=float(lam), sigma=float(sigma))
    F_star = pb0.value(x_star)
    Fi_star = _softplus(-np.einsum("mnd,md->mn", Z, w_i)).mean(1) + 0.5 * lam * np.sum(w_i * w_i, 1)
    gs = pb0.client_grads(x_star)
    top = np.linalg.svd(Z, compute_uv=False)[:, 0]  # ||Z_i||_2
    lip = top**2 / (4 * n) + lam
    a_i = top / np.sqrt(n)
    sG = (1 - 1 / M) * a_i + (a_i.sum() - a_i) / M
    L_F = float(np.linalg.svd(Z.reshape(M * n, d), compute_uv=False)[0] ** 2 / (4 * M * n) + lam)
    constants: dict[str, float] = {
        "L": float(lip.max()), "L_F": L_F, "mu": float(lam), "mu_F": float(lam),
        "sigma": float(sigma), "sigma2": float(sigma) ** 2,
        "zeta": float(np.max(np.linalg.norm(gs, axis=1))), "zeta2_avg": float(np.mean(np.sum(gs**2, 1))),
        "sigma_G": float(sG.max()) if M > 1 else 0.0, "sigma_G2": float(sG.max()) ** 2 if M > 1 else 0.0,
        "F_star": float(F_star), "Gamma": float(F_star - Fi_star.mean()),
        "Delta": float(np.log(2.0) - F_star), "D0": float(x_star @ x_star), "grad_norm_at_x_star": gn,
    }
    params: dict[str, Any] = dict(d=d, M=M, n=n, lam=lam, spread=spread, sigma=sigma, seed=seed)
    return LogisticRegression(name="logistic", d=d, M=M, x0=np.zeros(d), x_star=x_star, F_star=float(F_star),
                              constants=constants, params=params, Z=Z, lam=float(lam), sigma=float(sigma))
