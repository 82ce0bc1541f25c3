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


def active(q: torch.Tensor, aux: Mapping[str, Any] | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Indices [T,n] of the n largest weights per trial (n = max #participants, at least 1) and their
    weights; taken from ``aux["idx"], aux["qa"]`` when the engine already computed them."""
    if aux is not None and "idx" in aux:
        return aux["idx"], aux["qa"]
    n = int((q > 0).sum(1).max())
    qa, idx = torch.topk(q, max(n, 1), dim=1, sorted=False)
    return idx, qa


def local_sgd(bound: Any, x: torch.Tensor, idx: torch.Tensor, K: int, eta: float, gen: torch.Generator,
              correction: torch.Tensor | None = None, mu_prox: float = 0.0,
              keep_grad_sum: bool = False) -> tuple[torch.Tensor, torch.Tensor | None]:
    """K local SGD steps of the clients idx [T,n] from x [T,d] (FAST.ALG1 step 4; ASCAF.ALG1 lines 5-8).

    d_k = g_k + correction (+ mu_prox (y_k - x) for FedProx), y_{k+1} = y_k - eta d_k, g_k the raw
    stochastic gradient. Returns y_K [T,n,d] and, if asked, sum_k g_k (raw, for control variates).

    The client gradient is a * y + b + coef * fn(y) (``bound.affine``, ``bound.nonlinear``); the
    correction, the proximal term and the noise of step k are constant or affine in y, so they are
    folded into one per-step offset and the step is y <- (1 - eta a) y - eta (b_k) - eta coef fn(y)
    (two or three tensor operations). The raw gradient sum follows by telescoping:
    sum_k d_k = (y_0 - y_K) / eta.
    """
    T, n = idx.shape
    d = x.shape[1]
    ctx = bound.prepare(idx)
    a, b = bound.affine(ctx)
    x_b = x[:, None, :]
    if mu_prox:
        a = a + mu_prox
        b = b - mu_prox * x_b
    if correction is not None:
        b = b + correction
    shrink = 1.0 - eta * a
    offsets = bound.noise(K, T, n, gen).add_(b).mul_(-eta)  # [K,T,n,d]: -eta (b + xi_k)
    y0 = x_b.expand(T, n, d)
    y = y0
    nl = bound.nonlinear
    ysum = torch.zeros_like(offsets[0]) if keep_grad_sum and mu_prox else None
    if nl is not None:
        ncoef, fn = -eta * nl[0], nl[1]
    for k in range(K):
        if ysum is not None:
            ysum.add_(y)
        if nl is None:
            y = torch.addcmul(offsets[k], shrink, y)
        else:
            y = torch.addcmul(offsets[k], shrink, y).addcmul_(ncoef, fn(y))
    if not keep_grad_sum:
        return y, None
    gsum = (y0 - y).div_(eta)
    if correction is not None:
        gsum.sub_(correction, alpha=K)
    if ysum is not None:
        gsum.sub_(ysum - K * x_b, alpha=mu_prox)
    return y, gsum
