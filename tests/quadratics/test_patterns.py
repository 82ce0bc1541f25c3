"""Each pattern's empirical participation against its stated law and constants."""

import numpy as np
import pytest
from scipy import stats

from bounds.core.errors import UserInputError
from quadratics import arbitrary, cyclic, fast_mixture, regularized, uniform
from quadratics.propensity import propensities

Z = stats.norm.ppf(1 - 1e-4 / 2)  # two-sided 1e-4 per check: many checks, no flaky failures


def _draw(pattern, trials, rounds, seed=0):
    state = pattern.init(trials, seed)
    out = []
    for r in range(rounds):
        q, _, state = pattern.draw(state, r)
        out.append(q)
    return np.stack(out), state  # [R, T, M]


def _binomial_ok(count, n, p):
    return abs(count - n * p) <= Z * np.sqrt(n * p * (1 - p)) + 1e-9


def test_uniform_law_and_constants():
    pat = uniform(10, 3)
    q, _ = _draw(pat, 50, 200)
    assert np.allclose(q.sum(-1), 1) and set(np.unique(q)) <= {0.0, 1 / 3}
    assert np.all((q > 0).sum(-1) == 3)
    n = q.shape[0] * q.shape[1]
    for i in range(10):
        assert _binomial_ok((q[..., i] > 0).sum(), n, 0.3)
    assert pat.constants["rho2"] == pytest.approx(1 / 3) and pat.constants["p_min"] == pytest.approx(0.3)
    assert np.max((q**2).sum(-1)) <= pat.constants["rho2"] + 1e-12


def test_weights_are_a_pure_function_of_seed_and_round():
    pat = uniform(8, 2)
    a, b = pat.weights(5, 17, 4), pat.weights(5, 17, 4)
    assert np.array_equal(a, b) and not np.array_equal(a, pat.weights(5, 18, 4))
    assert not np.array_equal(a, pat.weights(6, 17, 4))


def test_cyclic_lb_configuration_is_deterministic():
    pat = cyclic(2, 1, 480, 2)
    q, _ = _draw(pat, 3, 960)
    on0 = q[:, 0, 0] > 0
    expect = (np.arange(960) % 480) < 240
    assert np.array_equal(on0, expect) and np.array_equal(q[:, 0, 1] > 0, ~expect)
    assert pat.constants["p_min"] == 1.0 and pat.constants["rho2"] == 1.0 and pat.constants["regularized"]
    # window average 1/M for every client (ASCAF.PAT.EXP: regularized with P = 480)
    assert np.allclose(q.reshape(2, 480, 3, 2).mean(1), 0.5)


def test_cyclic_groups_and_window_inclusion():
    M, S, P, groups = 12, 2, 6, 3  # g = 2 rounds per group, groups of 4
    pat = cyclic(M, S, P, groups)
    q, _ = _draw(pat, 400, 60)
    for r in range(60):
        j = (r % P) // 2
        on = q[r] > 0
        assert np.all(on[:, np.arange(M) % groups != j] == 0) and np.all(on.sum(1) == S)
    windows = (q.reshape(10, P, 400, M) > 0).any(1)  # [window, trial, client]
    p_exact = 1 - (1 - S * groups / M) ** 2
    assert pat.constants["p_min"] == pytest.approx(p_exact) and pat.constants["p_min_printed"] == pytest.approx(S / M)
    for i in range(M):
        assert _binomial_ok(windows[..., i].sum(), 4000, p_exact)
    # A2(b): window average weight has mean 1/M
    avg = q.reshape(10, P, 400, M).mean(1)
    assert abs(avg.mean() - 1 / M) < 1e-12


@pytest.mark.parametrize("M,S,P", [(6, 2, 3), (4, 3, 4), (2, 1, 480)])
def test_regularized_window_average_exact(M, S, P):
    pat = regularized(M, S, P)
    q, _ = _draw(pat, 7, 3 * P)
    assert np.allclose(q.sum(-1), 1) and np.all((q > 0).sum(-1) == S)
    assert np.allclose(q.reshape(3, P, 7, M).mean(1), 1 / M)  # every window, trial and client
    assert pat.constants["p_min"] == 1.0 and pat.constants["rho2"] == pytest.approx(1 / S)


def test_arbitrary_first_pick_proportional_to_propensity():
    pat = arbitrary(5, 1, "gamma", 2.0, 1.0)
    trials, rounds = 3, 4000
    q, state = _draw(pat, trials, rounds, seed=9)
    w = propensities("gamma", 2.0, 1.0, 5, trials, 9)
    for t in range(trials):
        p = w[t] / w[t].sum()
        counts = (q[:, t, :] > 0).sum(0)
        for i in range(5):
            assert _binomial_ok(counts[i], rounds, p[i])


def test_fast_bernoulli_snapshots():
    pat = fast_mixture(20, m=5, n=2, q=0.3)
    state = pat.init(40, 1)
    snaps = 0
    for r in range(300):
        q, aux, state = pat.draw(state, r)
        assert np.array_equal((q > 0).sum(1), np.where(aux["snapshot"], 5, 2))
        snaps += aux["snapshot"].sum()
    assert _binomial_ok(snaps, 12000, 0.3)
    assert pat.constants["m"] == 5 and pat.constants["n"] == 2 and pat.constants["q"] == 0.3


def test_fast_snapshot_rounds_are_uniform():
    pat = fast_mixture(10, m=3, n=1, q=1.0)
    q, _ = _draw(pat, 30, 200)
    for i in range(10):
        assert _binomial_ok((q[..., i] > 0).sum(), 6000, 0.3)


def test_fast_interval():
    pat = fast_mixture(10, m=3, n=1, I=4)
    state = pat.init(2, 0)
    for r in range(12):
        _, aux, state = pat.draw(state, r)
        assert np.all(aux["snapshot"] == (r % 4 == 0))
    assert pat.constants["q"] == 0.25


@pytest.mark.parametrize("lam,expected", [(1.0, [0, 0, 0.05, 0, 0.05]), (7.0, [0, 0, 0.35, 0, 0.35])])
def test_fast_adaptive_worked_example(lam, expected):
    pat = fast_mixture(10, m=2, n=2, adaptive=True, lam=lam)
    state = pat.init(1, 0)
    assert state.q[0] == 0
    got = []
    for r, acc in enumerate([0.50, 0.60, 0.55, 0.70, 0.65]):
        gap = np.array([1.0 / acc - 1.0])  # acc = 1 / (1 + gap / gap0) with gap0 = 1
        state = pat.observe(state, r, {"gap": gap, "gap0": np.array([1.0])})
        got.append(state.q[0])
    assert np.allclose(got, expected)


@pytest.mark.parametrize("make", [
    lambda: cyclic(4, 3, 8, 2), lambda: cyclic(4, 1, 7, 2), lambda: cyclic(5, 1, 8, 2),
    lambda: regularized(4, 3, 3), lambda: uniform(3, 4), lambda: fast_mixture(10, 2, 2, q=-0.1),
    lambda: fast_mixture(10, 2, 2, q=1.5), lambda: fast_mixture(10, 2, 2),
    lambda: fast_mixture(10, 2, 2, q=0.5, I=2), lambda: arbitrary(5, 1, "cauchy")])
def test_bad_settings(make):
    with pytest.raises(UserInputError):
        make()


def test_availability_pattern_rates_and_caps():
    from quadratics.availability import availability

    pat = availability("scarce", 20, S=3, selection="f3ast", beta=0.05)
    state = pat.init(10, 0)
    for r in range(200):
        q, aux, new = pat.draw(state, r)
        sel = q > 0
        assert np.all(sel.sum(1) <= 3) and np.all(sel <= aux["available"])
        assert np.allclose(aux["rates"], 0.95 * state.rates + 0.05 * sel)
        nz = sel.sum(1) > 0
        assert np.allclose(q[nz].sum(1), 1)
        state = new


def test_availability_f3ast_picks_largest_utility():
    from quadratics.availability import availability

    pat = availability("always", 6, S=2, selection="f3ast", beta=0.1)
    state = pat.init(1, 0)
    state = state._replace(rates=np.array([[0.5, 0.1, 0.3, 0.05, 0.9, 0.2]]))
    q, _, _ = pat.draw(state, 0)
    assert set(np.flatnonzero(q[0])) == {1, 3}  # smallest rates = largest p^2 / r^2
