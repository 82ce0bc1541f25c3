"""Covering arrays (verify/search/covering.py): the t-way property checked by brute-force enumeration in the test."""

import itertools

import numpy as np
import pytest

from verify.search.covering import all_rows, covering_rows, uncovered_count


def _missing(rows, pool, t):
    """Every (factors, levels) t-tuple that occurs in a row of ``pool`` and in no row of ``rows``, by enumeration."""
    k = len(pool[0])
    out = []
    for cols in itertools.combinations(range(k), t):
        want = {tuple(r[c] for c in cols) for r in pool}
        have = {tuple(r[c] for c in cols) for r in rows}
        out += [(cols, v) for v in want - have]
    return out


def test_all_rows_is_every_combination_once():
    rows = all_rows([2, 3, 2])
    assert sorted(map(tuple, rows.tolist())) == sorted(itertools.product(range(2), range(3), range(2)))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_strength_three_covers_every_triple_of_mixed_levels(seed):
    levels = [2, 3, 2, 2, 3, 2]
    pool = all_rows(levels)
    chosen = covering_rows(pool, levels, 3, np.random.default_rng(seed))
    rows = pool[chosen].tolist()
    assert _missing(rows, pool.tolist(), 3) == []
    # a triple of the two 3-level factors and one binary one has 18 combinations, each needing its own row
    assert 18 <= len(rows) < len(pool) == 144
    assert len(set(map(tuple, rows))) == len(rows)  # no row twice


def test_a_constrained_pool_is_covered_on_the_tuples_it_holds_only():
    levels = [2] * 5
    full = all_rows(levels).tolist()
    pool = [r for r in full if sum(r) <= 2]  # at most two factors high: (1, 1, 1) on any 3 factors never occurs
    chosen = covering_rows(np.array(pool), levels, 3, np.random.default_rng(0))
    rows = [pool[i] for i in chosen]
    assert _missing(rows, pool, 3) == []
    assert all(sum(r) <= 2 for r in rows)
    assert _missing(rows, full, 3) == [(c, (1, 1, 1)) for c in itertools.combinations(range(5), 3)]


def test_uncovered_count_agrees_with_enumeration():
    levels = [2, 2, 3, 2]
    pool = all_rows(levels)
    some = pool[[0, 5, 11, 17, 23]]
    assert uncovered_count(some, pool, levels, 3) == len(_missing(some.tolist(), pool.tolist(), 3)) > 0


def test_same_seed_same_rows_and_seeds_differ():
    levels = [2] * 8
    pool = all_rows(levels)
    runs = [covering_rows(pool, levels, 3, np.random.default_rng(s)) for s in (4, 4, 5)]
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]
