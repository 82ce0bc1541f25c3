"""Local step schedules and the static-policy pattern against plain loops written here."""

import numpy as np
import pytest
from scipy import stats

from bounds.core.errors import UserInputError
from quadratics import (
    f3ast,
    f3ast_steps,
    fedavg,
    fedprox,
    heterogeneous_quadratic,
    scaffold,
    simulate,
    static_policy,
    step_schedule,
    uniform,
)

TOL_EXACT = 1e-10       # engine vs plain loop, same arithmetic up to rounding
Z = stats.norm.ppf(1 - 1e-4 / 2)

# 3 clients; the policy picks {0}, {1, 2}, {0, 2} or nobody
SUBSETS = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 1], [0, 0, 0]])
PROBS = np.array([0.4, 0.3, 0.2, 0.1])
P = np.array([0.5, 0.3, 0.2])


def test_f3ast_steps_spec_worked_example():
    # spec F3AST.T3.5 worked example: mu = 1, L = 4, E = 5 -> gamma' = 31
    s = f3ast_steps(4.0, 1.0, 5)
    assert np.allclose(s.steps(0), [0.0625, 0.060606, 0.058824, 0.057143, 0.055556], atol=5e-7)
    assert np.isclose(s.steps(1)[0], 0.054054, atol=5e-7)
    assert s.describe["gamma_prime"] == 31.0


def test_step_schedule_forms_and_errors():
    table = np.array([[0.3, 0.2], [0.1, 0.05]])
    s = step_schedule(table, 2)
    assert s.steps(1).tolist() == [0.1, 0.05]
    with pytest.raises(UserInputError):
        s.steps(2)  # past the table
    c = step_schedule(lambda t, i: 1.0 / (t + i), 2)
    assert np.allclose(c.steps(0), [1 / 2, 1 / 3]) and np.allclose(c.steps(4), [1 / 6, 1 / 7])
    with pytest.raises(UserInputError):
        step_schedule(np.ones((3, 4)), 2)
    with pytest.raises(UserInputError):
        step_schedule(lambda t, i: -i, 2).steps(0)
    with pytest.raises(UserInputError):
        step_schedule(lambda t, i: np.ones(3), 2).steps(0)
    with pytest.raises(UserInputError):
        step_schedule(f3ast_steps(1.0, 1.0, 3), 2)


def _plain_f3ast(pb, pattern, etas, E, trials, rounds, seed):
    """F3AST with per-step etas, noiseless: one trial, one client, one step at a time."""
    rates = np.asarray(pattern.constants["rates"])
    x = np.tile(pb.x0, (trials, 1)).astype(float)
    for r in range(rounds):
        q = pattern.weights(seed, r, trials)
        for t in range(trials):
            new = x[t].copy()
            for k in range(pb.M):
                if q[t, k] > 0:
                    y = x[t].copy()
                    for i in range(E):
                        y = y - etas(r + 1, i + 1) * pb.lam * (y - pb.b[k])
                    new = new + P[k] / rates[k] * (y - x[t])
            x[t] = new
    return x


def test_engine_per_step_schedule_matches_plain_loop():
    pb = heterogeneous_quadratic(L=2.0, mu=0.5, d=3, M=3, zeta=1.0, sigma=0.0, D0=1.0, seed=3)
    pattern = static_policy(SUBSETS, PROBS, P)
    E, trials, rounds, seed = 3, 6, 12, 5

    def eta(t, i):
        return 0.4 / (t + 0.5 * i)

    sim = simulate(pb, f3ast(eta, E), pattern, trials, rounds, seed=seed, device="cpu")
    want = _plain_f3ast(pb, pattern, eta, E, trials, rounds, seed)
    assert np.max(np.abs(sim.final_x - want)) < TOL_EXACT
    # a per-step schedule is not a per-round one: a constant step per round lands elsewhere
    flat = simulate(pb, f3ast(lambda t, i: np.full_like(i, 0.4 / (t + 0.5)), E), pattern, trials, rounds, seed=seed,
                    device="cpu")
    assert np.max(np.abs(flat.final_x - want)) > 1e-3


@pytest.mark.parametrize("make", [lambda e: fedavg(e, 3), lambda e: scaffold(e, 3), lambda e: fedprox(e, 3, 0.3)])
def test_constant_schedule_reproduces_constant_step_with_noise(make):
    pb = heterogeneous_quadratic(L=1.0, mu=0.2, d=4, M=5, zeta=1.0, sigma=1.0, seed=1)
    a = simulate(pb, make(0.1), uniform(5, 2), 16, 25, seed=9, device="cpu")
    b = simulate(pb, make(np.full((25, 3), 0.1)), uniform(5, 2), 16, 25, seed=9, device="cpu")
    assert np.max(np.abs(a.final_x - b.final_x)) < TOL_EXACT
    assert b.algorithm["eta"]["kind"] == "table"


def test_static_policy_rates_and_frequencies():
    pattern = static_policy(SUBSETS, PROBS, P)
    rates = np.array([0.4 + 0.2, 0.3, 0.3 + 0.2])  # written out from SUBSETS/PROBS
    assert np.allclose(pattern.constants["rates"], rates)
    state = pattern.init(400, 2)
    sel = []
    for r in range(50):
        q, aux, state = pattern.draw(state, r)
        assert np.allclose(aux["rates"][0], rates) and np.allclose(aux["p"][0], P)
        sel.append(q > 0)
        assert np.allclose(q.sum(1)[q.sum(1) > 0], 1.0)
    sel = np.stack(sel).reshape(-1, 3)
    n = sel.shape[0]
    assert np.all(np.abs(sel.sum(0) - n * rates) <= Z * np.sqrt(n * rates * (1 - rates)))
    assert np.array_equal(pattern.weights(2, 7, 400), pattern.weights(2, 7, 400))


def test_static_policy_rejects_bad_input():
    with pytest.raises(UserInputError):
        static_policy(np.array([[1, 0], [0, 0]]), np.array([0.5, 0.5]))  # client 2 never selected
    with pytest.raises(UserInputError):
        static_policy(np.array([[1, 2]]), np.array([1.0]))
    with pytest.raises(UserInputError):
        static_policy(SUBSETS, PROBS, np.array([0.5, 0.5, 0.5]))
