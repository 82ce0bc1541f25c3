"""What every simulated objective declares, and the shared pieces of the constructions.

**Setting**: F(x) = (1/M) sum_i F_i(x) over M clients in R^d; client i answers a stochastic
gradient grad F_i(y) + xi with xi ~ N(0, diag(s)^2), E||xi||^2 = sigma^2 exactly.
A problem keeps its data in numpy (exact constants, checks in tests) and binds to a torch
device for the engine (:meth:`Problem.bind`), whose methods are batched over trials and clients.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol

import numpy as np
import torch

from bounds.errors import UserInputError


class Bound(Protocol):
    """A problem on one device/dtype: the engine's hot-path operations.

    ``prepare(idx [T,n])`` gathers per-client data once per round; ``grad(y [T,n,d], ctx)``
    returns the clients' exact gradients, which have the form a * y + b + coef * fn(y) with
    ``affine(ctx) -> (a, b)`` and ``nonlinear = (coef, fn)`` or None (elementwise fn); ``noise(K, T, n, gen)`` draws [K,T,n,d] gradient noise;
    ``metrics(x [T,d])`` returns {name: [T]} (at least ``gap``, ``grad_sq``, ``dist_sq``).
    """

    def prepare(self, idx: torch.Tensor) -> Any: ...
    def grad(self, y: torch.Tensor, ctx: Any) -> torch.Tensor: ...
    def affine(self, ctx: Any) -> tuple[torch.Tensor, torch.Tensor]: ...
    nonlinear: tuple[torch.Tensor, Any] | None
    def noise(self, K: int, T: int, n: int, gen: torch.Generator) -> torch.Tensor: ...
    def metrics(self, x: torch.Tensor) -> dict[str, torch.Tensor]: ...


@dataclass(frozen=True)
class Problem:
    """Base of the objectives: name, sizes, exact optimum, constants, start point.

    Subclasses implement the numpy oracles ``value(x)``, ``grad(x)``, ``client_grads(x)``
    ([M,d] exact client gradients), ``noise_std`` ([d] per-coordinate std) and ``bind``.
    """

    name: str
    d: int
    M: int
    x0: np.ndarray
    x_star: np.ndarray
    F_star: float
    constants: Mapping[str, float]
    metric_names: tuple[str, ...] = ("gap", "grad_sq", "dist_sq")
    target_metric: str = "gap"
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def p(self) -> np.ndarray:
        """Objective weights pi_i (uniform 1/M in every construction here)."""
        return np.full(self.M, 1.0 / self.M)

    def sample_grad(self, x: np.ndarray, i: int, rng: np.random.Generator) -> np.ndarray:
        """One stochastic gradient of client i at x (numpy, for reference loops and tests)."""
        return self.client_grads(x)[i] + rng.standard_normal(self.d) * self.noise_std

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "d": self.d, "M": self.M, "F_star": self.F_star,
                "constants": dict(self.constants), "params": dict(self.params)}


def check_positive(**values: float) -> None:
    for key, value in values.items():
        if not (np.isfinite(value) and value > 0):
            raise UserInputError(f"{key}={value} must be a positive finite number")


def check_count(key: str, value: Any, low: int = 1) -> int:
    if int(value) != value or value < low:
        raise UserInputError(f"{key}={value} must be an integer >= {low}")
    return int(value)


def centred_shifts(rng: np.random.Generator, lam: np.ndarray, M: int, zeta: float) -> np.ndarray:
    """Client shifts delta_i [M,d] with sum_i delta_i = 0 and max_i ||lam * delta_i|| = zeta exactly."""
    d = lam.shape[0]
    if zeta < 0 or not np.isfinite(zeta):
        raise UserInputError(f"zeta={zeta} must be a finite number >= 0")
    if zeta == 0:
        return np.zeros((M, d))
    if M < 2:
        raise UserInputError("zeta > 0 needs at least M=2 clients (one client has no heterogeneity)")
    delta = rng.standard_normal((M, d))
    delta -= delta.mean(axis=0)
    scale = zeta / np.max(np.linalg.norm(delta * lam, axis=1))
    return delta * scale


def isotropic_noise(K: int, T: int, n: int, d: int, sigma: float, gen: torch.Generator,
                    device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    """Gaussian noise with E||xi||^2 = sigma^2 split evenly over d coordinates."""
    z = torch.randn((K, T, n, d), generator=gen, device=device, dtype=dtype)
    return z.mul_(sigma / np.sqrt(d)) if sigma > 0 else z.zero_()
