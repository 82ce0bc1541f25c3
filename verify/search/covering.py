"""Covering arrays (combinatorial t-way testing): rows in which every combination of t factors' levels occurs.

**Setting**: k factors, factor j with ``levels[j]`` levels (0 .. levels[j] - 1); a *pool* of admissible rows
(n x k level indices), e.g. every combination of the levels, or only the rows of a stratum.
**Quantity**: a t-tuple is a choice of t factors and one level of each; a row *covers* the t-tuples it
projects onto. The tuples to cover are those that occur in at least one row of the pool (where the pool is
every combination, every t-tuple).
**Algorithm** (:func:`covering_rows`, greedy "density" construction in the manner of AETG): repeatedly choose
the pool row that covers the most tuples not yet covered (ties broken by a seeded draw), until every tuple
of the pool is covered. Each row's projection onto each set of t factors is one integer code, so a step
scores the whole pool at once (numpy), not tuple by tuple.
**Statement**: every t-tuple that occurs in the pool occurs in some chosen row (the loop ends only when
none is left uncovered; a row is only chosen while it covers a new tuple, so there are at most as many rows
as tuples). Greedy choice gives O(prod of the t largest levels x log(number of tuples)) rows, not the
fewest: for 16 binary factors at t = 3 about 2 to 3 times the 8 rows a tuple set needs.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

__all__ = ["all_rows", "covering_rows", "uncovered_count"]


def all_rows(levels: Sequence[int]) -> np.ndarray:
    """Every combination of the levels (prod(levels) x k), in lexicographic order."""
    grids = np.meshgrid(*[np.arange(int(n)) for n in levels], indexing="ij")
    return np.stack([g.ravel() for g in grids], axis=1).astype(np.int64) if levels else np.zeros((1, 0), np.int64)


def _codes(rows: np.ndarray, levels: Sequence[int], subsets: Sequence[tuple[int, ...]]) -> np.ndarray:
    """codes[i, s]: row i's levels on factor set s as one mixed-radix integer."""
    out = np.zeros((rows.shape[0], len(subsets)), dtype=np.int64)
    for s, cols in enumerate(subsets):
        for c in cols:
            out[:, s] = out[:, s] * int(levels[c]) + rows[:, c]
    return out


def _subsets(k: int, strength: int) -> list[tuple[int, ...]]:
    return list(itertools.combinations(range(k), min(strength, k)))


def covering_rows(pool: np.ndarray, levels: Sequence[int], strength: int, rng: np.random.Generator) -> list[int]:
    """Indices into ``pool`` of rows that cover every ``strength``-tuple occurring in ``pool`` (module docstring).

    Args:
        pool: n x k level indices, each entry in 0 .. levels[j] - 1.
        levels: the number of levels of each factor (k entries).
        strength: t >= 1 (capped at k: with t >= k every distinct pool row is a tuple).
        rng: the seeded generator that breaks ties (same seed, same rows).
    Returns: the chosen rows' indices, in the order chosen (most new tuples first).
    """
    pool = np.asarray(pool, dtype=np.int64).reshape(-1, len(levels))
    if pool.shape[0] == 0:
        return []
    subsets = _subsets(len(levels), strength)
    codes = _codes(pool, levels, subsets)
    width = int(max((np.prod([levels[c] for c in cols]) for cols in subsets), default=1))
    # covered[s, code]: tuple (s, code) already covered; tuples absent from the pool count as covered
    covered = np.ones((len(subsets), width), dtype=bool)
    cols = np.arange(len(subsets))
    covered[np.broadcast_to(cols, codes.shape).ravel(), codes.ravel()] = False
    chosen: list[int] = []
    while not covered.all():
        gain = (~covered[cols[None, :], codes]).sum(axis=1)
        top = np.flatnonzero(gain == gain.max())
        i = int(top[rng.integers(len(top))])
        chosen.append(i)
        covered[cols, codes[i]] = True
    return chosen


def uncovered_count(rows: np.ndarray, pool: np.ndarray, levels: Sequence[int], strength: int) -> int:
    """How many ``strength``-tuples occurring in ``pool`` no row of ``rows`` covers (0 for a covering array)."""
    subsets = _subsets(len(levels), strength)
    want = {(s, int(c)) for s, col in enumerate(_codes(np.asarray(pool), levels, subsets).T) for c in col}
    have = {(s, int(c)) for s, col in enumerate(_codes(np.asarray(rows).reshape(-1, len(levels)), levels, subsets).T)
            for c in col}
    return len(want - have)
