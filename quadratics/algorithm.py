"""Algorithms as pairs of pure functions over explicit state, batched over trials (optax style).

``Algorithm.init(bound, x0 [T,d], M) -> state`` and
``Algorithm.round(state, bound, q [T,M], r, gen, aux) -> state``; ``state["x"]`` is the global
model [T,d]. Only clients with q > 0 matter; the round gathers the ``n`` largest weights per trial
(n = max participants over trials) and runs their K local steps as one [T, n, d] tensor program.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, NamedTuple

import torch

State = dict[str, torch.Tensor]


class Algorithm(NamedTuple):
    name: str
    params: Mapping[str, Any]
    K: int
    init: Callable[[Any, torch.Tensor, int], State]
    round: Callable[[State, Any, torch.Tensor, int, torch.Generator, Mapping[str, Any]], State]


def active(q: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Indices [T,n] of the n largest weights per trial (n = max #participants) and their weights."""
    n = int((q > 0).sum(1).max())
    qa, idx = torch.topk(q, max(n, 1), dim=1, sorted=False)
    return idx, qa


def local_sgd(bound: Any, x: torch.Tensor, idx: torch.Tensor, K: int, eta: float, gen: torch.Generator,
              correction: torch.Tensor | None = None, mu_prox: float = 0.0,
              keep_grad_sum: bool = False) -> tuple[torch.Tensor, torch.Tensor | None]:
    """K local SGD steps of the clients idx [T,n] from x [T,d] (FAST.ALG1 step 4; ASCAF.ALG1 lines 5-8).

    d_k = g_k + correction (+ mu_prox (y_k - x) for FedProx), y_{k+1} = y_k - eta d_k, g_k the raw
    stochastic gradient. Returns y_K [T,n,d] and, if asked, sum_k g_k (raw, for control variates).
    """
    T, n = idx.shape
    ctx = bound.prepare(idx)
    xi = bound.noise(K, T, n, gen)
    x_b = x[:, None, :]
    y = x_b.expand(T, n, x.shape[1]).clone()
    gsum = torch.zeros_like(y) if keep_grad_sum else None
    for k in range(K):
        g = bound.grad(y, ctx).add_(xi[k])
        if gsum is not None:
            gsum.add_(g)
        if correction is not None:
            g.add_(correction)
        if mu_prox:
            g.add_(y - x_b, alpha=mu_prox)
        y.add_(g, alpha=-eta)
    return y, gsum
