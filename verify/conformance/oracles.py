"""What an implementation sees of the quadratic clients: gradient oracles, numpy and torch.

**Setting**: client i of a quadratic problem has the affine gradient grad F_i(y) = H_i y + c_i (read from the
problem's exact client gradients: c_i = grad F_i(0), H_i e_j = grad F_i(e_j) - c_i) and stochastic gradients
grad F_i(y) + xi, xi ~ N(0, diag(noise_std^2)) drawn afresh at every call (the law the reference uses).
**Quantity**: :class:`Client` (one client, numpy), :class:`Cohort` (the round's participants, a sequence of
clients with the round's facts) and :class:`TorchCohort` (the same for a batch of trials, as tensors).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from .claims import Setting

DATA_SIZES = (8, 2, 5, 1, 12, 3, 6, 4, 10, 7)  # per client (cyclic): unequal, for weighting mistakes


def affine_clients(problem: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(H [M, d, d], c [M, d], noise std [d]) with grad F_i(y) = H_i y + c_i, read from the exact gradients."""
    d = problem.d
    c = np.asarray(problem.client_grads(np.zeros(d)), dtype=float)
    H = np.stack([np.asarray(problem.client_grads(e), dtype=float) - c for e in np.eye(d)], axis=2)
    return H, c, np.asarray(problem.noise_std, dtype=float)


class Client:
    """One participating client: ``id`` (0..M-1), ``grad(y)`` (a stochastic gradient at y [d], fresh noise
    at every call), ``data_size`` (samples it holds; FedAvg as claimed here weights clients equally, not by
    it), ``rate`` (its selection probability r_k under the law, where the law states one, else None) and
    ``p`` (its objective weight)."""

    __slots__ = ("H", "c", "data_size", "id", "p", "rate", "_rng", "_std")

    def __init__(self, i: int, H: np.ndarray, c: np.ndarray, std: np.ndarray, rng: np.random.Generator,
                 rate: float | None, p: float):
        self.id, self.H, self.c, self._std, self._rng = i, H, c, std, rng
        self.data_size, self.rate, self.p = DATA_SIZES[i % len(DATA_SIZES)], rate, p

    def grad(self, y: np.ndarray) -> np.ndarray:
        g = self.H @ np.asarray(y, dtype=float) + self.c
        if self._std.any():
            g = g + self._std * self._rng.standard_normal(g.shape[-1])
        return g

    def __repr__(self) -> str:
        return f"Client(id={self.id}, data_size={self.data_size})"


class Cohort(Sequence):
    """The round's participating clients (a sequence of :class:`Client`, possibly empty) and its facts:
    ``round`` (0-based), ``M`` (all clients) and ``setting`` (:class:`verify.conformance.claims.Setting`:
    step sizes and the law's parameters)."""

    def __init__(self, clients: list[Client], r: int, setting: Setting):
        self._clients, self.round, self.setting, self.M = clients, r, setting, setting.M

    def __getitem__(self, k: Any) -> Any:
        return self._clients[k]

    def __len__(self) -> int:
        return len(self._clients)

    def __repr__(self) -> str:
        return f"Cohort(round={self.round}, ids={[c.id for c in self._clients]}, M={self.M})"


@dataclass
class TorchCohort:
    """The round's participants for T trials at once (float64 tensors on CPU).

    ``idx`` [T, n] client ids, ``mask`` [T, n] True where the slot is a participant (trials with fewer than
    n participants are padded with non-participants, whose slots must be ignored); ``data_size``,
    ``rate`` (None unless the law states rates), ``p`` [T, n]; ``round``, ``M``, ``setting``;
    ``loss(y [T, n, d]) -> [T, n]``: each slot's client loss at its local model, whose gradient (autograd)
    is a stochastic gradient; every call draws fresh noise, so call it once per local step.
    """

    idx: torch.Tensor
    mask: torch.Tensor
    data_size: torch.Tensor
    rate: torch.Tensor | None
    p: torch.Tensor
    round: int
    M: int
    setting: Setting
    _H: torch.Tensor
    _c: torch.Tensor
    _std: torch.Tensor
    _gen: torch.Generator

    def loss(self, y: torch.Tensor) -> torch.Tensor:
        """0.5 y^T H_i y + (c_i + xi)^T y per slot (its gradient is H_i y + c_i + xi)."""
        lin = self._c
        if bool(self._std.any()):
            lin = lin + self._std * torch.randn(lin.shape, generator=self._gen, dtype=lin.dtype)
        return 0.5 * torch.einsum("tni,tnij,tnj->tn", y, self._H, y) + (lin * y).sum(-1)


def torch_cohort(H: np.ndarray, c: np.ndarray, std: np.ndarray, q: np.ndarray, r: int, setting: Setting,
                 gen: torch.Generator) -> TorchCohort:
    """The cohort of weights q [T, M]: the n = max #participants largest weights per trial (at least one slot)."""
    qt = torch.as_tensor(q, dtype=torch.float64)
    n = max(int((qt > 0).sum(1).max()), 1)
    qa, idx = torch.topk(qt, n, dim=1)
    Ht, ct = torch.as_tensor(H), torch.as_tensor(c)
    sizes = torch.as_tensor(DATA_SIZES, dtype=torch.float64)[idx % len(DATA_SIZES)]
    rate = None if setting.rates is None else torch.as_tensor(setting.rates, dtype=torch.float64)[idx]
    return TorchCohort(idx, qa > 0, sizes, rate, torch.as_tensor(setting.p, dtype=torch.float64)[idx], r, setting.M,
                       setting, Ht[idx], ct[idx], torch.as_tensor(std), gen)
