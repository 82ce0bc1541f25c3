"""Heterogeneous quadratics with a shared Hessian and shifted client minimisers.

**Setting**: F_i(x) = 1/2 (x - b_i)^T A (x - b_i), A = diag(lam), lam_j linearly spaced in
[mu, L]; b_i = x* + delta_i with sum_i delta_i = 0; F = (1/M) sum_i F_i; Gaussian gradient noise
with E||xi||^2 = sigma^2 (isotropic). This is the construction of the FAST modelling note: A3
(uniform in x) and A4 hold together because Hessians are shared.

**Quantity** (exact, from the construction):
* L = max lam, mu = min lam (FAST A1/A4, F3AST A2);
* grad F_i(x) - grad F(x) = -A delta_i for every x, so
  sigma_G^2 = max_i ||A delta_i||^2 (FAST A3) and zeta = sigma_G (Amplified SCAFFOLD's kappa,
  unsquared) are exact and equal to the requested ``zeta``;
* F* = (1/M) sum_i 1/2 delta_i^T A delta_i, F_i* = 0, so Gamma = F* - (1/M) sum F_i* = F* (F3AST);
* F(x) - F* = 1/2 ||x - x*||_A^2; Delta = F(x0) - F*; D0 = ||x0 - x*||^2.

**Notation**: FAST sigma_G, F3AST Gamma, Amplified SCAFFOLD kappa (= our zeta); the CLI key is ``zeta``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from bounds.core import seeds
from bounds.core.errors import UserInputError

from .problem import Problem, centred_shifts, check_count, check_positive, isotropic_law


@dataclass(frozen=True, kw_only=True)
class HeterogeneousQuadratic(Problem):
    lam: np.ndarray
    b: np.ndarray
    sigma: float

    @property
    def noise_std(self) -> np.ndarray:
        return np.full(self.d, self.sigma / np.sqrt(self.d))

    def value(self, x: np.ndarray) -> float:
        return float(np.mean([0.5 * np.sum(self.lam * (x - bi) ** 2) for bi in self.b]))

    def grad(self, x: np.ndarray) -> np.ndarray:
        return self.lam * (x - self.x_star)

    def client_grads(self, x: np.ndarray) -> np.ndarray:
        return self.lam * (x[None, :] - self.b)

    def hessian(self) -> np.ndarray:
        return np.diag(self.lam)

    def affine_gradients(self) -> Any:
        """grad F_i(y) = diag(lam) (y - b_i) + xi, xi ~ N(0, sigma^2 / d I)."""
        from .exact.declare import AffineGradients

        lam, b = torch.as_tensor(self.lam, dtype=torch.float64), torch.as_tensor(self.b, dtype=torch.float64)
        A = torch.diag(lam).expand(self.M, self.d, self.d)
        cov = torch.eye(self.d, dtype=torch.float64) * (self.sigma**2 / self.d) if self.sigma > 0 else None
        return AffineGradients(A, -(lam * b), cov)

    def bind(self, device: torch.device, dtype: torch.dtype) -> _QuadraticBound:
        return _QuadraticBound(self, device, dtype)


class _QuadraticBound:
    def __init__(self, pb: HeterogeneousQuadratic, device: torch.device, dtype: torch.dtype):
        self.device, self.dtype, self.sigma, self.d = device, dtype, pb.sigma, pb.d
        self.lam = torch.as_tensor(pb.lam, device=device, dtype=dtype)
        self.b = torch.as_tensor(pb.b, device=device, dtype=dtype)
        self.xs = torch.as_tensor(pb.x_star, device=device, dtype=dtype)
        self.nlb = -(self.lam * self.b)
        self.M = pb.M
        self.noise_law = isotropic_law(pb.d, pb.sigma, device, dtype)

    nonlinear = None

    def prepare(self, idx: torch.Tensor) -> torch.Tensor:
        T, n = idx.shape
        return self.nlb.index_select(0, idx.reshape(-1)).reshape(T, n, self.d)

    def affine(self, ctx: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.lam, ctx  # grad F_i(y) = lam * y - lam * b_i

    def grad(self, y: torch.Tensor, ctx: torch.Tensor) -> torch.Tensor:
        return torch.addcmul(ctx, self.lam, y)

    def metrics(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        e = x - self.xs
        g = self.lam * e
        return {"gap": 0.5 * (e * g).sum(-1), "grad_sq": (g * g).sum(-1), "dist_sq": (e * e).sum(-1)}


def heterogeneous_quadratic(L: float = 1.0, mu: float = 0.1, d: int = 10, M: int = 10,
                            zeta: float = 1.0, sigma: float = 1.0, D0: float = 1.0,
                            seed: int = 0) -> HeterogeneousQuadratic:
    """Build the shared-Hessian quadratic family (see module docstring).

    Args: L, mu: largest/smallest curvature (0 < mu <= L; d = 1 needs mu = L); d, M: sizes;
    zeta: exact heterogeneity sup_x max_i ||grad F_i - grad F||; sigma: noise level
    (E||xi||^2 = sigma^2); D0: ||x0 - x*||^2 with x0 = 0; seed: draws x* direction and shifts.
    """
    check_positive(L=L, mu=mu, D0=D0)
    d, M = check_count("d", d), check_count("M", M)
    if mu > L:
        raise UserInputError(f"mu={mu} must be <= L={L}")
    if d == 1 and mu != L:
        raise UserInputError("d=1 has a single curvature; set mu equal to L")
    if sigma < 0 or not np.isfinite(sigma):
        raise UserInputError(f"sigma={sigma} must be >= 0")
    rng = seeds.rng(int(seed), "instance", 101)
    lam = np.linspace(mu, L, d) if d > 1 else np.array([L])
    u = rng.standard_normal(d)
    x_star = u / np.linalg.norm(u) * np.sqrt(D0)
    delta = centred_shifts(rng, lam, M, zeta)
    b = x_star[None, :] + delta
    F_star = float(np.mean(0.5 * np.sum(lam * delta**2, axis=1)))
    x0 = np.zeros(d)
    sigma_G2 = float(np.max(np.sum((lam * delta) ** 2, axis=1))) if M > 1 else 0.0
    constants = {
        "L": float(lam.max()), "mu": float(lam.min()), "sigma": float(sigma), "sigma2": float(sigma) ** 2,
        "sigma_G2": sigma_G2, "sigma_G": float(np.sqrt(sigma_G2)), "zeta": float(np.sqrt(sigma_G2)),
        "Gamma": F_star, "F_star": F_star,
        "Delta": float(0.5 * np.sum(lam * x_star**2)), "D0": float(np.sum(x_star**2)),
    }
    params: dict[str, Any] = dict(L=L, mu=mu, d=d, M=M, zeta=zeta, sigma=sigma, D0=D0, seed=seed)
    return HeterogeneousQuadratic(name="quadratic", d=d, M=M, x0=x0, x_star=x_star, F_star=F_star,
                                  constants=constants, params=params, lam=lam, b=b, sigma=float(sigma))
