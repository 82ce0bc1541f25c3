"""Synthetic participation logs with a known truth (for the audit's tests, benchmark and demonstration).

**Setting**: T rounds, N clients; every generator is vectorised over rounds x clients (numpy), seeded.
**Quantity**: availability (independent Bernoulli a_k; two-state Markov chains built from geometric
sojourn times; periodic f_t q_k) and participation (uniform k among the available with a planted
bias factor on chosen clients, via Gumbel top-k; FAST snapshot/arbitrary rounds; regularized
windows of P rounds), each returning bool arrays [T, N].
"""

from __future__ import annotations

import numpy as np


def independent_availability(a, T: int, seed: int) -> np.ndarray:
    a = np.asarray(a, dtype=float)
    return np.random.default_rng(seed).random((T, a.size)) < a


def markov_availability(p01, p10, T: int, seed: int) -> np.ndarray:
    """Per-client two-state chains started in stationarity, from alternating geometric sojourns."""
    p01, p10 = np.asarray(p01, float), np.asarray(p10, float)
    N = p01.size
    rng = np.random.default_rng(seed)
    start_on = rng.random(N) < p01 / (p01 + p10)
    # enough sojourns to cover T rounds: each lasts >= 1 round
    L = min(int(T * 2 * max(p01.max(), p10.max()) + 8 * np.sqrt(T) + 16), T + 1)
    idx = np.arange(T + 1)
    on_first = start_on[:, None]
    # sojourn j is "on" when j even and the chain starts on, or j odd and it starts off
    is_on = (idx[None, :] % 2 == 0) == on_first
    leave = np.where(is_on, p10[:, None], p01[:, None])
    dur = rng.geometric(np.clip(leave[:, :L], 1e-12, 1.0))
    ends = np.cumsum(dur, axis=1)  # [N, L]
    if (ends[:, -1] < T).any():  # rare: some chain needs more sojourns; T + 1 always suffice (each lasts >= 1)
        L = T + 1
        ends = np.cumsum(rng.geometric(np.clip(leave, 1e-12, 1.0)), axis=1)
    offs = (np.arange(N) * (T + ends.max() + 1))[:, None]
    flat_ends = (ends + offs).ravel()
    t = (np.arange(T)[None, :] + offs).ravel()
    j = np.searchsorted(flat_ends, t, side="right").reshape(N, T) - np.arange(N)[:, None] * L
    return ((j % 2 == 0) == on_first).T


def periodic_availability(q, f, T: int, seed: int) -> np.ndarray:
    q, f = np.asarray(q, float), np.asarray(f, float)
    prob = f[np.arange(T) % f.size][:, None] * q[None, :]
    return np.random.default_rng(seed).random((T, q.size)) < prob


def topk_among(available: np.ndarray, k: int, rng, log_weight=None) -> np.ndarray:
    """Per round, min(k, |A_t|) available clients drawn without replacement with probability ~ exp(log_weight)."""
    T, N = available.shape
    keys = rng.gumbel(size=(T, N)) + (0.0 if log_weight is None else np.asarray(log_weight, float))
    keys = np.where(available, keys, -np.inf)
    kth = -np.sort(-keys, axis=1)[:, k - 1:k] if k <= N else np.full((T, 1), -np.inf)
    return available & (keys >= kth) & np.isfinite(keys)


def biased_uniform(available: np.ndarray, k: int, biased: np.ndarray, factor: float, seed: int) -> np.ndarray:
    """Uniform k-of-available sampling, except clients ``biased`` whose draw weight is multiplied by ``factor``."""
    lw = np.zeros(available.shape[1])
    lw[np.asarray(biased, dtype=int)] = np.log(factor)
    return topk_among(available, k, np.random.default_rng(seed), lw)


def poisson_sampler(available: np.ndarray, rate: float, biased: np.ndarray, factor: float, seed: int) -> np.ndarray:
    """Each available client joins independently w.p. ``rate`` (``rate * factor`` for ``biased``): unlike a
    fixed-size sampler, a bias on some clients leaves every other client's rate exactly at ``rate``."""
    T, N = available.shape
    r = np.full(N, float(rate))
    r[np.asarray(biased, dtype=int)] *= factor
    return available & (np.random.default_rng(seed).random((T, N)) < r)


def fast_log(N: int, T: int, m: int, n: int, q: float, seed: int, snapshot_bias: float = 1.0,
             a: float = 0.6) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """FAST rounds: snapshot w.p. q (all clients available, uniform m of N; client 0's weight times
    ``snapshot_bias`` to build a log that misses), else n of the available clients by a fixed preference."""
    rng = np.random.default_rng(seed)
    snap = rng.random(T) < q
    A = (rng.random((T, N)) < a) | snap[:, None]
    lw = np.zeros(N)
    lw[0] = np.log(snapshot_bias)
    S_snap = topk_among(np.ones((T, N), bool), m, rng, lw)
    pref = -np.arange(N, dtype=float)  # arbitrary rounds favour low ids: allowed by FAST
    S_arb = topk_among(A, n, rng, 3.0 * pref)
    S = np.where(snap[:, None], S_snap, S_arb)
    return A, S, snap


def regularized_log(N: int, T: int, P: int, seed: int, drop: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Every client once in each window of P rounds at a random offset; ``drop`` removes client 0 from one window."""
    rng = np.random.default_rng(seed)
    W = T // P
    off = rng.integers(0, P, size=(W, N))
    S = np.zeros((T, N), bool)
    rows = (np.arange(W)[:, None] * P + off).ravel()
    cols = np.tile(np.arange(N), W)
    S[rows, cols] = True
    if drop:
        w = W // 2
        S[w * P:(w + 1) * P, 0] = False
    A = S | (rng.random((T, N)) < 0.3)
    return A, S
