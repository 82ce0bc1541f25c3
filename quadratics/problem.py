"""What every simulated objective declares, and the shared pieces of the constructions.

**Setting**: F(x) = (1/M) sum_i F_i(x) over M clients in R^d; client i answers a stochastic
gradient grad F_i(y) + xi with xi ~ N(0, diag(s)^2), E||xi||^2 = sigma^2 exactly.
A problem keeps its data in numpy (exact constants, checks in tests) and binds to a torch
device for the engine (:meth:`Problem.bind`), whose methods are batched over trials and clients.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import torch

from bounds.core import seeds
from bounds.core.errors import UserInputError


class Bound(Protocol):
    """A problem bound to one torch device/dtype: exactly what the engine and the algorithms use.

    Required (every problem):

    * ``M`` (clients), ``d`` (dimension), ``device``, ``dtype``: the binding;
    * ``prepare(idx [T,n]) -> ctx``: per-client data of the round's active clients (idx holds
      distinct clients per trial), gathered once per round and handed to ``grad``;
    * ``grad(y [T,n,d], ctx) -> [T,n,d]``: the exact gradients grad F_{idx[t,j]}(y[t,j]) (a fresh
      tensor), batched over trials and clients; the general local-step path calls it once per step;
    * ``noise_law = (width, scale)``: the gradient noise of one step is ``z * scale`` with
      z [K,T,n,width] standard normal drawn by the engine (width 1 or d) and scale [d]
      (None: no noise);
    * ``metrics(x [N,d]) -> {name: [N]}`` with at least ``gap``, ``grad_sq``, ``dist_sq`` (called
      once at the start, and per block of rounds unless ``metric_rows`` is given).

    Optional (faster paths; the engine checks with ``getattr``):

    * ``affine(ctx) -> (a, b)`` with ``nonlinear = (coef, fn)`` or None: the gradient is
      a * y + b + coef * fn(y) elementwise (a [d] or [T,n,d], b [T,n,d], coef [d], fn elementwise).
      A problem that has it takes the tabulated affine step kernels of :mod:`quadratics.algorithm`
      (the same steps as the general path, to rounding; tests compare them);
    * ``metric_rows(x [N,d]) -> [len(metric_names), N]``: all metrics at once (preferred).

    The affine kernels cache their step tables in the bound's ``__dict__`` (a bound is a plain
    object bound once per run). ``Problem.bind(device, dtype)`` makes the bound; the engine also reads
    the problem's ``x0``, ``d``, ``M``, ``metric_names``, ``target_metric`` and ``describe()``.
    """

    M: int
    d: int
    device: torch.device
    dtype: torch.dtype
    noise_law: tuple[int, torch.Tensor | None]

    def prepare(self, idx: torch.Tensor) -> Any: ...
    def grad(self, y: torch.Tensor, ctx: Any) -> torch.Tensor: ...
    def metrics(self, x: torch.Tensor) -> dict[str, torch.Tensor]: ...


def client_apply(mats: torch.Tensor, idx: torch.Tensor, v: torch.Tensor, transpose: bool = False) -> torch.Tensor:
    """out[t,j] = mats[idx[t,j]] @ v[t,j] (or its transpose) for mats [M,p,q], idx [T,n], v [T,n,q].

    Two batched layouts, no loop over clients. Client-major: the vectors are scattered (distinct
    clients per trial) into [M,T,q], multiplied by each client's own matrix in one ``bmm`` (a
    matrix-matrix product; zeros for absent clients, so M/n times the needed work) and gathered
    back. Gathered: the matrices of the active clients [T n,p,q] times one vector each, which is
    memory-bound (measured on CPU, d = 100: ~20x slower per multiply-add than the client-major
    product), so it is used only when M > 16 n.
    """
    M, T, n = mats.shape[0], idx.shape[0], idx.shape[1]
    m = mats.transpose(1, 2) if transpose else mats
    if M <= 16 * n:
        rows = torch.arange(T, device=idx.device)[:, None].expand(T, n)
        cm = v.new_zeros((M, T, m.shape[2]))
        cm[idx, rows] = v
        out = torch.bmm(cm, m.transpose(1, 2))  # [M,T,q] x [M,q,p]
        return out[idx, rows]
    g = m.index_select(0, idx.reshape(-1))  # [T n, p, q]
    return torch.bmm(g, v.reshape(T * n, -1, 1)).view(T, n, -1)


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

    def client_grads(self, x: np.ndarray) -> np.ndarray:
        """[M,d] exact client gradients at x (each family implements it)."""
        raise NotImplementedError

    @property
    def noise_std(self) -> np.ndarray:
        """[d] per-coordinate standard deviation of the gradient noise (each family implements it)."""
        raise NotImplementedError

    def sample_grad(self, x: np.ndarray, i: int, rng: np.random.Generator) -> np.ndarray:
        """One stochastic gradient of client i at x (numpy, for reference loops and tests)."""
        return self.client_grads(x)[i] + rng.standard_normal(self.d) * self.noise_std

    def affine_gradients(self) -> Any:
        """The declaration that client gradients are affine (:class:`quadratics.exact.declare.AffineGradients`),
        or None (the default: not declared, so the exact path does not apply)."""
        return None

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


class GaussianStream:
    """Standard normal draws for the engine, made in blocks and handed out in order.

    **Quantity**: i.i.d. exact N(0, 1) values in float64 (cast to ``dtype``): on CPU from numpy's
    ``Generator(PCG64).standard_normal`` (ziggurat), seeded with the ``noise`` stream of ``seed`` (``bounds.core.seeds``); on other devices
    from ``torch.randn`` with a ``torch.Generator`` seeded with that stream's word on that device. Values come
    from a block of at least ``block`` draws; a request larger than what is left starts a new block
    (the rest is dropped), so they depend only on the seed, the device kind and the sequence of
    requested sizes. Why: ``torch.randn`` in float64 costs about twice as much per value on CPU,
    and one call per block instead of one per round saves the per-call overhead.
    """

    VIEWS = 64

    def __init__(self, seed: int, device: torch.device, dtype: torch.dtype, block: int = 1 << 16):
        self.device, self.dtype, self.block = device, dtype, int(block)
        if device.type == "cpu":
            self.rng = seeds.rng(int(seed), "noise")
        else:
            self.gen = torch.Generator(device=device)
            self.gen.manual_seed(seeds.word(int(seed), "noise"))
        self.pool = torch.empty(0, device=device, dtype=dtype)
        self.pool_np: np.ndarray | None = None
        self.used = 0
        self._views: tuple[tuple[int, ...], tuple[torch.Tensor, ...], int] | None = None

    def _refill(self, need: int) -> None:
        size = max(need, self.block)
        if self.device.type == "cpu":
            z = torch.empty(size, dtype=torch.float64)
            self.rng.standard_normal(out=z.numpy())  # fills the tensor's memory in place
        else:
            z = torch.randn(size, generator=self.gen, device=self.device, dtype=torch.float64)
        self.pool = z.to(self.dtype)
        # float64 on CPU: the same memory as a numpy array, for the engine's numpy step loop
        self.pool_np = z.numpy() if self.pool is z and self.device.type == "cpu" else None
        self.used = 0
        self._views = None

    def normal(self, shape: tuple[int, ...]) -> torch.Tensor:
        """A [shape] tensor of i.i.d. N(0, 1) values (a view into the block: do not write to it)."""
        shape = tuple(shape)
        need = math.prod(shape)
        if need == 0:
            return self.pool.new_empty(shape)
        if self.used + need > self.pool.numel():
            self._refill(need)
        views = self._views
        if views is None or views[0] != shape or views[2] >= len(views[1]):
            # the next VIEWS requests of this shape cut at once (one view per request costs more than the request
            # itself); the same values as cutting them one by one. At most VIEWS: a caller alternating between
            # shapes re-cuts at every change, and cutting the whole rest of a 65,536-value block into 8-value
            # views took 1.7 ms
            q = min((self.pool.numel() - self.used) // need, self.VIEWS)
            views = self._views = (shape, self.pool.narrow(0, self.used, q * need).view((q,) + shape).unbind(0), 0)
        out = views[1][views[2]]
        self._views = (shape, views[1], views[2] + 1)
        self.used += need
        return out


    def normal_np(self, shape: tuple[int, ...]) -> np.ndarray | None:
        """As :meth:`normal` (the same values, the same stream position) as a numpy view (do not write to it);
        None (nothing drawn) unless the stream is float64 on CPU."""
        need = math.prod(shape)
        if self.used + need > self.pool.numel():
            if self.device.type != "cpu" or self.dtype != torch.float64:
                return None
            self._refill(need)
        if self.pool_np is None or need == 0:
            return None
        out = self.pool_np[self.used:self.used + need].reshape(shape)
        self.used += need
        self._views = None  # normal()'s pre-cut views start at the old position
        return out


def isotropic_law(d: int, sigma: float, device: torch.device, dtype: torch.dtype) -> tuple[int, torch.Tensor | None]:
    """``noise_law`` of isotropic Gaussian noise with E||xi||^2 = sigma^2 split evenly over d coordinates:
    width d, scale sigma / sqrt(d) per coordinate (None when sigma = 0)."""
    return d, (torch.full((d,), sigma / np.sqrt(d), device=device, dtype=dtype) if sigma > 0 else None)
