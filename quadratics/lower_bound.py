"""The 4-dimensional lower-bound objective of the Amplified SCAFFOLD experiments.

**Setting** (LB.PARAM, LB.CLIENT): phi(x) = mu/2 (x1-c)^2 + H/2 (x2-x2*)^2 + H/8 (x3^2 + [x3]_+^2),
x2* = c sqrt(mu/H); even clients f = phi + a_even/4 x4^2 + zeta x4, odd clients f = phi + lamb/4 x4^2
- zeta x4; M even; constraint lamb <= mu <= H/16 (enforced).
**Quantity**: f = phi + (a_even+lamb)/8 x4^2 (federated mean, LB.OBJ) and the logged
f_log = phi + (a_even+lamb)/4 x4^2 (FLAG: what the paper plotted); x* = (c, x2*, 0, 0), f* = 0.
Noise (LB.NOISE): N(0, sigma^2) on coordinate 3 only.
**Constants** (LB.PROP): smoothness H (not the code's L), strong convexity
min{mu, H/4, (a_even+lamb)/4}, zeta = ||grad f_i - grad f|| at x* (unbounded elsewhere when a_even != lamb),
Delta = f(0) = mu c^2.
**Notation**: the paper's code calls a_even ``L``; here ``L`` is reserved for smoothness (= H, the
constant ``L``) everywhere, so the even clients' x4 coefficient is ``a_even``; code `lamb` = lamb; coordinates x1..x4 are indices 0..3.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from bounds.core.errors import UserInputError

from .problem import Problem, check_count, check_positive


@dataclass(frozen=True, kw_only=True)
class LowerBoundObjective(Problem):
    mu: float
    H: float
    a_even: float
    lamb: float
    c: float
    zeta: float
    sigma: float

    @property
    def noise_std(self) -> np.ndarray:
        return np.array([0.0, 0.0, self.sigma, 0.0])

    def _phi(self, x: np.ndarray) -> float:
        x2s = self.x_star[1]
        return (self.mu / 2 * (x[0] - self.c) ** 2 + self.H / 2 * (x[1] - x2s) ** 2
                + self.H / 8 * (x[2] ** 2 + max(x[2], 0.0) ** 2))

    def value(self, x: np.ndarray) -> float:
        return float(self._phi(x) + (self.a_even + self.lamb) / 8 * x[3] ** 2)

    def value_log(self, x: np.ndarray) -> float:
        return float(self._phi(x) + (self.a_even + self.lamb) / 4 * x[3] ** 2)

    def client_grads(self, x: np.ndarray) -> np.ndarray:
        x2s = self.x_star[1]
        common = np.array([self.mu * (x[0] - self.c), self.H * (x[1] - x2s),
                           self.H / 4 * (x[2] + max(x[2], 0.0)), 0.0])
        out = np.tile(common, (self.M, 1))
        even = np.arange(self.M) % 2 == 0
        out[even, 3] = self.a_even / 2 * x[3] + self.zeta
        out[~even, 3] = self.lamb / 2 * x[3] - self.zeta
        return out

    def grad(self, x: np.ndarray) -> np.ndarray:
        return self.client_grads(x).mean(axis=0)

    def bind(self, device: torch.device, dtype: torch.dtype) -> _LowerBoundBound:
        return _LowerBoundBound(self, device, dtype)


class _LowerBoundBound:
    def __init__(self, pb: LowerBoundObjective, device: torch.device, dtype: torch.dtype):
        self.device, self.dtype, self.sigma = device, dtype, pb.sigma
        even = np.arange(pb.M) % 2 == 0
        a = np.tile([pb.mu, pb.H, pb.H / 4, 0.0], (pb.M, 1))
        a[:, 3] = np.where(even, pb.a_even / 2, pb.lamb / 2)
        b = np.tile([-pb.mu * pb.c, -pb.H * pb.x_star[1], 0.0, 0.0], (pb.M, 1))
        b[:, 3] = np.where(even, pb.zeta, -pb.zeta)
        self.a = torch.as_tensor(a, device=device, dtype=dtype)
        self.b = torch.as_tensor(b, device=device, dtype=dtype)
        self.kink = torch.as_tensor([0.0, 0.0, pb.H / 4, 0.0], device=device, dtype=dtype)
        self.xs = torch.as_tensor(pb.x_star, device=device, dtype=dtype)
        self.nonlinear = (self.kink, torch.relu)
        self.noise_vec = torch.as_tensor([0.0, 0.0, pb.sigma, 0.0], device=device, dtype=dtype)
        self.noise_law = (1, self.noise_vec if pb.sigma > 0 else None)  # one normal per step, on x3
        self.M, self.d = pb.M, 4
        self.mu, self.H, self.c = pb.mu, pb.H, pb.c
        self.q4 = q4 = (pb.a_even + pb.lamb) / 8
        mu, H = pb.mu, pb.H
        # rows of _metric_wt: gap = f - f*, f_log - f*, ||grad f||^2, ||x - x*||^2; columns: e_1^2 .. e_4^2
        self._metric_wt = torch.as_tensor([[mu / 2, mu / 2, mu * mu, 1.0], [H / 2, H / 2, H * H, 1.0],
                                          [H / 8, H / 8, H * H / 16, 1.0], [q4, 2 * q4, 4 * q4 * q4, 1.0]],
                                         device=device, dtype=dtype).T.contiguous()
        self._metric_kink = torch.as_tensor([H / 8, H / 8, 3 * H * H / 16, 0.0], device=device, dtype=dtype)

    def prepare(self, idx: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        T, n = idx.shape
        flat = idx.reshape(-1)
        return self.a.index_select(0, flat).reshape(T, n, 4), self.b.index_select(0, flat).reshape(T, n, 4)

    def affine(self, ctx: tuple[torch.Tensor, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        return ctx  # grad f_i(y) = a_i * y + b_i + kink * relu(y)

    def grad(self, y: torch.Tensor, ctx: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        a, b = ctx
        # the [x3]_+ kink only touches coordinate 3 (kink vector is zero elsewhere)
        return torch.addcmul(b, a, y).addcmul_(self.kink, torch.relu(y))

    def metric_rows(self, x: torch.Tensor) -> torch.Tensor:
        """[4, N]: gap, f_log - f*, ||grad f||^2, ||x - x*||^2 (``metric_names`` order) of x [N, 4]."""
        # every metric is a nonnegative combination of the squared errors e_j^2 and of [x3]_+^2
        # (with x3* = x4* = 0: (x3 + [x3]_+)^2 = x3^2 + 3 [x3]_+^2): five multiply-adds of rows give
        # all four, each metric one contiguous row (elementwise, not BLAS: a threaded BLAS call on
        # a small block stalls on a busy CPU)
        sq = (x - self.xs).T.contiguous()
        sq.mul_(sq)
        x3p = torch.relu(x[:, 2])
        out = torch.mul(self._metric_wt[:, :1], sq[:1])
        for j in range(1, 4):
            out.addcmul_(self._metric_wt[:, j:j + 1], sq[j:j + 1])
        return out.addcmul_(self._metric_kink[:, None], x3p.mul_(x3p)[None, :])

    def metrics(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        return dict(zip(("gap", "f_log", "grad_sq", "dist_sq"), self.metric_rows(x).unbind(0)))


def lower_bound_objective(mu: float = 1.0, H: float = 16.0, a_even: float = 2.0, lamb: float = 1.0,
                          c: float = 1.0, zeta: float = 16.0, sigma: float = 1.0, M: int = 2) -> LowerBoundObjective:
    """The LB objective; defaults are the final configuration of LB.CFG.

    Raises UserInputError unless lamb <= mu <= H/16 (LB.PARAM), all constants are positive
    (zeta, sigma >= 0) and M is even (LB.OBJ needs half the clients of each type).
    """
    check_positive(mu=mu, H=H, a_even=a_even, lamb=lamb, c=c)
    M = check_count("M", M, 2)
    if M % 2:
        raise UserInputError(f"M={M} must be even for the lower-bound objective (half even, half odd clients)")
    if not (lamb <= mu <= H / 16):
        raise UserInputError(f"lower-bound objective needs lamb <= mu <= H/16; got lamb={lamb}, mu={mu}, H/16={H / 16}")
    if zeta < 0 or sigma < 0:
        raise UserInputError(f"zeta={zeta} and sigma={sigma} must be >= 0")
    x_star = np.array([c, c * np.sqrt(mu / H), 0.0, 0.0])
    constants = {
        "L": float(H), "mu": float(min(mu, H / 4, (a_even + lamb) / 4)), "mu_log": float(min(mu, H / 4, (a_even + lamb) / 2)),
        "sigma": float(sigma), "sigma2": float(sigma) ** 2, "zeta": float(zeta), "zeta_at_x_star": float(zeta),
        "sigma_G": float("inf") if a_even != lamb else float(zeta), "Delta": float(mu * c**2),
        "D0": float(np.sum(x_star**2)), "F_star": 0.0,
    }
    params = dict(mu=mu, H=H, a_even=a_even, lamb=lamb, c=c, zeta=zeta, sigma=sigma, M=M)
    return LowerBoundObjective(name="lower-bound", d=4, M=M, x0=np.zeros(4), x_star=x_star, F_star=0.0,
                               constants=constants, metric_names=("gap", "f_log", "grad_sq", "dist_sq"),
                               target_metric="f_log", params=params,
                               mu=mu, H=H, a_even=a_even, lamb=lamb, c=c, zeta=zeta, sigma=float(sigma))
