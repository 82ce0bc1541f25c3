"""The one seed rule (named SeedSequence streams) and the one stats rule (two levels, one t-interval)."""

import math

import numpy as np
import pytest

from bounds.core import seeds, stats


def _state(seed, stream, *keys):
    return tuple(seeds.sequence(seed, stream, *keys).generate_state(4))


def test_seeds_0_and_1_share_no_stream():
    # every named stream, with and without sub-keys, of base seed 0 against every one of base seed 1
    keyed = [(name, ()) for name in seeds.STREAMS] + [("pattern", (1, 0)), ("pattern", (1, 1)), ("check", (7, 0, 0, 0))]
    zero = {_state(0, name, *k) for name, k in keyed}
    one = {_state(1, name, *k) for name, k in keyed}
    assert len(zero) == len(keyed) and len(one) == len(keyed)  # distinct within a seed too
    assert not zero & one
    # the old rule seed + offset made seed 0's second stream seed 1's first: not so here
    assert seeds.word(0, "check", 0, 0, 1) != seeds.word(1, "check", 0, 0, 0)


def test_noise_and_pattern_of_one_run_are_distinct_spawn_keys():
    noise, pattern = seeds.sequence(5, "noise"), seeds.sequence(5, "pattern", 4)
    assert noise.entropy == pattern.entropy == 5
    assert noise.spawn_key == (0,) and pattern.spawn_key == (1, 4)
    # what the engine draws: the noise stream is numpy's SeedSequence(5, spawn_key=(0,)), built here by hand
    by_hand = np.random.default_rng(np.random.SeedSequence(5, spawn_key=(0,))).standard_normal(3)
    assert np.array_equal(seeds.rng(5, "noise").standard_normal(3), by_hand)
    assert not np.array_equal(seeds.rng(5, "pattern", 4).standard_normal(3), by_hand)


def test_engine_noise_and_pattern_streams_are_the_named_ones():
    import torch

    from quadratics.participation import rng_for
    from quadratics.problem import GaussianStream

    g = GaussianStream(11, torch.device("cpu"), torch.float64, block=8)
    first = g.normal((8,)).numpy()
    assert np.array_equal(first, np.random.default_rng(np.random.SeedSequence(11, spawn_key=(0,))).standard_normal(8))
    assert np.array_equal(rng_for(11, 3, 2).random(4),
                          np.random.default_rng(np.random.SeedSequence(11, spawn_key=(1, 3, 2))).random(4))


def test_words_and_spawn_are_stable_and_bad_input_is_named():
    assert seeds.spawn(3, "search", 4)[:2] == seeds.spawn(3, "search", 2)  # index i does not depend on n
    assert all(0 <= w < 2**63 for w in seeds.spawn(3, "search", 4))
    assert seeds.key("FAST.T1") == seeds.key("FAST.T1") != seeds.key("FAST.T2")
    with pytest.raises(ValueError, match="stream 'nosie'"):
        seeds.sequence(0, "nosie")
    with pytest.raises(ValueError, match="seed=-1"):
        seeds.sequence(-1, "noise")


def test_two_levels_and_one_t_interval_by_hand():
    assert (stats.MEAN_LEVEL, stats.SLOPE_LEVEL) == (0.99, 0.95)
    x = np.array([1.0, 2.0, 4.0, 7.0])
    mean, low, high, n = stats.t_interval(x, 0.95)
    # t_{0.975, 3} = 3.182446305284263 (tables); the sample standard deviation by hand
    s = math.sqrt(sum((v - 3.5) ** 2 for v in x) / 3)
    assert mean == 3.5 and n == 4
    assert high - mean == pytest.approx(3.182446305284263 * s / 2, rel=1e-12)
    assert mean - low == pytest.approx(high - mean, rel=1e-12)
    # NaN ignored, fewer than two values: no interval
    m2, lo2, hi2, n2 = stats.t_interval(np.array([[1.0, np.nan], [2.0, 3.0]]), 0.99, axis=1)
    assert n2.tolist() == [1, 2] and math.isnan(lo2[0]) and m2[1] == 2.5
    with pytest.raises(ValueError, match="level=1.5"):
        stats.t_interval(x, 1.5)


def test_the_verdict_and_fit_helpers_use_the_stats_module():
    from verify.fit import fit_over_seeds
    from verify.verdict import mean_ci

    x = [1.0, 2.0, 4.0, 7.0]
    est = mean_ci(x)  # default: MEAN_LEVEL
    assert est.level == 0.99 and est.high == pytest.approx(stats.t_interval(x, 0.99)[2], rel=1e-12)
    Y = np.array([[1.0, 0.5, 0.26], [1.0, 0.52, 0.25], [1.0, 0.49, 0.24]])
    assert fit_over_seeds([1, 2, 4], Y).level == 0.95


def test_t_quantile_against_its_closed_forms_at_one_and_two_degrees_of_freedom():
    """t_{p,1} = tan(pi (p - 1/2)) and t_{p,2} = (2p - 1) sqrt(2 / (4 p (1 - p))), p = (1 + level)/2; an array of
    degrees of freedom is answered elementwise, and infinitely many give the normal quantile."""
    from bounds.core.stats import t_quantile

    for level in (0.5, 0.95, 0.999):
        p = 0.5 + level / 2
        got = np.asarray(t_quantile(level, np.array([1.0, 2.0, np.inf])))
        assert got[0] == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-13)
        assert got[1] == pytest.approx((2 * p - 1) * math.sqrt(2 / (4 * p * (1 - p))), rel=1e-13)
        assert got[2] == pytest.approx(math.sqrt(2) * _erfinv(2 * p - 1), rel=1e-12)


def _erfinv(y: float) -> float:
    """erf^-1 by bisection on math.erf (independent of scipy)."""
    lo, hi = 0.0, 6.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.erf(mid) < y else (lo, mid)
    return (lo + hi) / 2
