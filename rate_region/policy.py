"""Static configuration-dependent policies (F3AST Definition III.1) as explicit tables.

**Setting**: configurations c (available set A_c, cap K_c, probability pi_c).
**Quantity**: f_{c,S} >= 0, sum_S f_{c,S} = 1, S subset of A_c, |S| <= K_c; its rate
r = sum_c pi_c sum_S f_{c,S} 1_S (eq. 2).
**Algorithm**: a conditional mean y_c with 0 <= y <= 1_{A_c}, sum y <= K_c is written as a law over at most
N+1 sets by systematic (Madow) sampling: lay the y_i end to end on [0, sum y), draw U ~ U[0,1), select
every i whose interval holds U + m for an integer m; each i is selected w.p. y_i, |S| <= ceil(sum y) <= K_c.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class StaticPolicy:
    """Rows l: configuration ``config[l]`` selects ``subsets[l]`` with probability ``prob[l]``."""

    config_sets: np.ndarray  # [M, N] bool
    config_caps: np.ndarray  # [M]
    config_probs: np.ndarray  # [M]
    config: np.ndarray  # [L]
    subsets: np.ndarray  # [L, N] bool
    prob: np.ndarray  # [L]

    def rate(self) -> np.ndarray:
        return (self.config_probs[self.config] * self.prob) @ self.subsets

    def selection_law(self) -> tuple[np.ndarray, np.ndarray]:
        """Unconditional law of the selected set: (subsets [L, N], probabilities [L])."""
        return self.subsets, self.config_probs[self.config] * self.prob

    def check(self, tol: float = 1e-9) -> bool:
        """Feasibility: S subset of A_c, |S| <= K_c, f_c a distribution."""
        inside = ~(self.subsets & ~self.config_sets[self.config]).any(1)
        size_ok = self.subsets.sum(1) <= self.config_caps[self.config]
        sums = np.bincount(self.config, weights=self.prob, minlength=len(self.config_probs))
        return bool(inside.all() and size_ok.all() and (self.prob >= -tol).all() and np.allclose(sums, 1, atol=1e-7))

    def to_dict(self, max_rows: int = 200) -> dict:
        rows = []
        for l in range(min(len(self.prob), max_rows)):
            c = int(self.config[l])
            rows.append(
                {
                    "available": np.flatnonzero(self.config_sets[c]).tolist(),
                    "cap": int(self.config_caps[c]),
                    "config_prob": float(self.config_probs[c]),
                    "select": np.flatnonzero(self.subsets[l]).tolist(),
                    "prob": float(self.prob[l]),
                }
            )
        return {"rows": rows, "n_rows": int(len(self.prob)), "truncated": len(self.prob) > max_rows,
                "rate": self.rate().tolist()}


def systematic_decomposition(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sets [L, N] and probabilities [L] whose mixture has marginals y (0 <= y <= 1)."""
    y = np.clip(np.asarray(y, dtype=float), 0.0, 1.0)
    hi = np.cumsum(y)
    lo = hi - y
    cuts = np.unique(np.concatenate([[0.0, 1.0], np.mod(hi, 1.0), np.mod(lo, 1.0)]))
    cuts = cuts[(cuts >= 0) & (cuts <= 1)]
    widths = np.diff(cuts)
    mids = (cuts[:-1] + cuts[1:]) / 2
    keep = widths > 1e-15
    mids, widths = mids[keep], widths[keep]
    # i selected at u iff some integer m has lo_i <= u + m < hi_i
    m = np.ceil(lo[None, :] - mids[:, None])
    sel = (mids[:, None] + m < hi[None, :]) & (y[None, :] > 0)
    return sel, widths


def policy_from_means(config_sets, config_caps, config_probs, Y: np.ndarray) -> StaticPolicy:
    """A static policy with conditional selection means Y [M, N] (clipped to the feasible box)."""
    Y = np.clip(Y, 0.0, 1.0) * config_sets
    over = Y.sum(1) / np.maximum(config_caps, 1)
    Y = Y / np.maximum(over, 1.0)[:, None]  # guard solver round-off above the cap
    cfg, subs, probs = [], [], []
    for c in range(Y.shape[0]):  # per configuration; each decomposition is O(N log N)
        s, w = systematic_decomposition(Y[c])
        cfg.append(np.full(len(w), c))
        subs.append(s)
        probs.append(w)
    return StaticPolicy(
        np.asarray(config_sets, bool), np.asarray(config_caps), np.asarray(config_probs),
        np.concatenate(cfg), np.concatenate(subs), np.concatenate(probs),
    )


def priority_policy(config_sets, config_caps, config_probs, utility: np.ndarray) -> StaticPolicy:
    """Deterministic greedy policy: in each configuration select the K_c available clients of largest
    utility (ties: lowest index) -- the static form of F3AST's selection at a frozen rate."""
    u = np.where(config_sets, np.asarray(utility, float)[None, :], -np.inf)
    order = np.argsort(-u, axis=1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(u.shape[1])[None, :].repeat(u.shape[0], 0), axis=1)
    sel = config_sets & (rank < np.asarray(config_caps)[:, None])
    M = sel.shape[0]
    return StaticPolicy(np.asarray(config_sets, bool), np.asarray(config_caps), np.asarray(config_probs),
                        np.arange(M), sel, np.ones(M))
