"""P(X_i < K) along a sequence of independent Bernoulli trials, for every prefix i, in blocks.

**Setting**: trials with success probabilities p_0, ..., p_{n-1}; X_i = number of successes among the
first i; an independent cap K with survival s_m = P(K > m), m < kmax.
**Quantity**: a_i = P(X_i < K) = sum_m P(X_i = m) s_m for i = 0..n-1 (the marginal of the rank
E[min(X, K)] when trial i is added is p_i a_i).
**Algorithm**: the clients are cut into blocks of B. Within every block the distributions of the
partial counts Y_t (t = 0..B) are one small DP run for all blocks at once (B vectorised steps).
Across blocks only the law D_b of X at the block start is carried (kmax states; states >= kmax never
count): a_{bB+t} = sum_y P(Y_t = y) T_b(y) with T_b(y) = sum_x D_b[x] s_{x+y}, and D_{b+1} = D_b * Y_B
truncated. O(n kmax) arithmetic in numpy, O(n / B) Python steps. Once the carried mass times the
remaining sum of p cannot move the running total by a relative 2^-60, the remaining a_i are set to 0
and that bound is returned (``dropped``), so the answer is exact to double precision.
"""

from __future__ import annotations

import numpy as np

BLOCK = 64
CHUNK_BLOCKS = 1024  # blocks whose within-block tables are held at once (memory ~ CHUNK*B^2*8 bytes)
CUTOFF = 2.0**-60


def below_cap(p: np.ndarray, s: np.ndarray, block: int = BLOCK) -> tuple[np.ndarray, float]:
    """a_i = P(X_i < K) for each prefix (X_i counts successes of trials 0..i-1), and the dropped bound.

    Args:
        p: success probabilities in order, shape [n].
        s: P(K > m) for m = 0..kmax-1 (non-increasing, s_0 <= 1).
        block: block length B.

    Returns:
        ``(a, dropped)``: ``a`` of shape [n]; ``dropped`` bounds sum_i p_i a_i over the prefixes not
        computed (0.0 when all were).
    """
    p = np.asarray(p, dtype=float)
    s = np.asarray(s, dtype=float)
    n = p.size
    kmax = int(min(s.size, n + 1))
    s = s[:kmax]
    a = np.zeros(n)
    if n == 0 or kmax == 0:
        return a, 0.0
    B = int(block)
    nb = -(-n // B)
    flat = np.zeros(nb * B)
    flat[:n] = p
    P = flat.reshape(nb, B)
    tail_p = np.concatenate([np.cumsum(P.sum(1)[::-1])[::-1], [0.0]])  # sum of p from block b on
    # Toeplitz of s: S[x, y] = s[x + y] (0 beyond kmax), so T_b = D_b @ S
    spad = np.concatenate([s, np.zeros(B)])
    S = np.lib.stride_tricks.sliding_window_view(spad, B)[:kmax].copy()
    D = np.zeros(kmax)
    D[0] = 1.0
    total = 0.0
    c0, chunk = 0, 8
    while c0 < nb:  # chunks grow geometrically: an early stop wastes little, a long run few tables
        Pc = P[c0 : c0 + chunk]
        Y = _block_tables(Pc)  # [m, B+1, B+1]: Y[b, t, y] = P(Y_t = y) in block b
        for j in range(Pc.shape[0]):
            b = c0 + j
            T = D @ S  # [B]
            ab = Y[j, :B, :B] @ T
            a[b * B : min(n, (b + 1) * B)] = ab[: min(B, n - b * B)]
            total += float(Pc[j] @ ab)
            D = np.convolve(D, Y[j, B])[:kmax]
            dropped = float(D.sum()) * tail_p[b + 1]
            if dropped <= CUTOFF * total:  # the rest cannot change the total in double precision
                return a, dropped
        c0, chunk = c0 + Pc.shape[0], min(2 * chunk, CHUNK_BLOCKS)
    return a, 0.0


def _block_tables(P: np.ndarray) -> np.ndarray:
    """Y[b, t, y] = P(sum of the first t trials of block b = y), t, y = 0..B (one DP for all blocks)."""
    m, B = P.shape
    Y = np.zeros((m, B + 1, B + 1))
    Y[:, 0, 0] = 1.0
    # trials past the last with p > 0 in any block (the zero padding of fewer than B clients) leave the counts as
    # they are: the step would compute Y * 1.0 + 0.0 for every entry, the same bits, so they are copied. Why: a
    # model of 24 clients fills a third of one block, and the certificates call this thousands of times
    nonzero = np.flatnonzero(P.any(axis=0))
    live = int(nonzero[-1]) + 1 if nonzero.size else 0
    for t in range(live):  # sequential over a block's trials, vectorised over blocks and counts
        pt = P[:, t : t + 1]
        Y[:, t + 1, :] = Y[:, t, :] * (1.0 - pt)
        Y[:, t + 1, 1:] += Y[:, t, :-1] * pt
    Y[:, live + 1 :, :] = Y[:, live : live + 1, :]
    return Y
