"""Conformance of the server side: server steps other than 1, FedAvgM (exact moments), FedAdam, FedYogi and
FedAdagrad (two-sample test against the reference implementation), FedProx's proximal term, and the likely bug
class a departure names (verify.conformance.server, verify.conformance.diagnose; issue 41)."""

from __future__ import annotations

import numpy as np
import pytest

from verify.conformance import conform
from verify.conformance import examples as ex
from verify.conformance.claims import Scenario, Setting, reference_pattern, scenarios
from verify.conformance.reference import reference_algorithm


def fedavg_server_step_twice(x, cohort, K, rng, state):
    s = cohort.setting
    return x + s.eta_g * s.eta_g * ex.mean_update(x, cohort, K)  # the server step size applied twice


def fedadam_update_for_momentum(x, cohort, K, rng, state):
    s, t = cohort.setting, cohort.round + 1
    delta = ex.mean_update(x, cohort, K)
    v = state["v"] = s.beta_2 * state.get("v", 0.0) + (1 - s.beta_2) * delta**2
    eta_t = s.eta_g * np.sqrt(1 - s.beta_2 ** (t + 1)) / (1 - s.beta_1 ** (t + 1))
    return x + eta_t * delta / (np.sqrt(v) + s.tau)  # the update where the momentum m belongs


def fedprox_not_squared(x, cohort, K, rng, state):
    s = cohort.setting
    ys = []
    for cl in cohort:
        y = x.copy()
        for _ in range(K):
            dist = np.linalg.norm(y - x)
            y = y - s.eta * (cl.grad(y) + (0.5 * s.mu_prox * (y - x) / dist if dist > 0 else 0.0))
        ys.append(y)
    return x + s.eta_g * np.mean([y - x for y in ys], axis=0)


def test_a_fedavg_that_applies_the_server_step_twice_departs_where_eta_g_is_not_1():
    r = conform(fedavg_server_step_twice, algorithm="fedavg", law="uniform", trials=40, rounds=2)
    assert not r.conforms and "server step" in r.first.scenario
    assert {s.name for s in r.scenarios if s.departures} == {r.first.scenario}  # invisible at eta_g = 1
    assert r.likely.bug_class == "server-step" and "eta_g" in r.likely.line and "likely bug" in r.message
    ok = conform(ex.fedavg_round, algorithm="fedavg", law="uniform", trials=40, rounds=2)
    assert ok.conforms, ok.message


def test_a_fedadam_whose_momentum_uses_the_update_departs_against_a_stated_two_sample_reference():
    r = conform(fedadam_update_for_momentum, algorithm="fedadam", law="uniform", trials=40, rounds=2,
                stop_early=True)
    assert not r.conforms and r.likely.bug_class == "server-optimiser"
    assert r.scenarios[0].reference == "simulation" and "two-sample test" in r.message and "FedAdam" in r.message
    ok = conform(ex.fedadam_round, algorithm="fedadam", law="uniform", trials=40, rounds=2)
    assert ok.conforms and "two-sample test" in ok.message, ok.message


def fedprox_always_zero(x, cohort, K, rng, state):
    s = cohort.setting
    ys = []
    for cl in cohort:
        y = x.copy()
        anchor = y  # the anchor is the local model itself (no copy): the proximal term is always 0
        for _ in range(K):
            y -= s.eta * (cl.grad(y) + s.mu_prox * (y - anchor))
        ys.append(y)
    return x + s.eta_g * np.mean([y - x for y in ys], axis=0)


@pytest.mark.parametrize("impl", [fedprox_not_squared, fedprox_always_zero])
def test_a_proximal_term_not_squared_or_always_zero_departs_and_names_the_proximal_line(impl):
    r = conform(impl, algorithm="fedprox", law="uniform", trials=40, rounds=2, stop_early=True)
    assert not r.conforms and r.likely.bug_class == "proximal-term" and "mu (y - x)" in r.likely.line


def test_fedavgm_exact_moments_match_the_momentum_recursion_by_hand():
    # full participation, no noise, K = 1: Delta_r = -eta mean_i grad F_i(x_r) = -eta Hbar (x_r - x*) (x* minimises
    # the mean of the F_i), v_{r+1} = beta v_r + Delta_r, x_{r+1} = x_r + eta_g v_{r+1}: deterministic
    from quadratics import heterogeneous_quadratic
    from verify.conformance.reference import exact_reference

    pb = heterogeneous_quadratic(L=1.0, mu=0.3, d=2, M=3, zeta=1.0, sigma=0.0, D0=1.0, seed=4)
    s = Setting(law="uniform", M=3, S=3, K=1, eta=0.4, eta_g=0.7, beta=0.9, p=(1 / 3,) * 3)
    ref = exact_reference(pb, reference_algorithm("fedavgm", s), reference_pattern(s), 4)
    assert not isinstance(ref, str) and ref.method == "exact", ref
    xs = np.asarray(pb.x_star, dtype=float)
    g0 = np.asarray(pb.client_grads(np.zeros(2)), dtype=float).mean(0)
    Hbar = np.stack([np.asarray(pb.client_grads(u), dtype=float).mean(0) - g0 for u in np.eye(2)], axis=1)
    e, v = np.asarray(pb.x0, dtype=float) - xs, np.zeros(2)
    for r in range(1, 5):
        v = 0.9 * v - 0.4 * Hbar @ e
        e = e + 0.7 * v
        assert np.allclose(ref.values[r, :2], e, rtol=1e-9, atol=1e-12)
        assert np.allclose(ref.values[r, 2:], [e[0] ** 2, e[0] * e[1], e[1] ** 2], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("algorithm", ["fedavgm", "fedadam", "fedyogi", "fedadagrad"])
def test_the_reference_implementation_follows_flowers_own_strategy_exactly(algorithm):
    # no noise and full participation: both are deterministic, so the trajectories agree to rounding
    from verify.conformance.flower import run_flower
    from verify.conformance.reference import simulated_reference

    sc0 = scenarios(algorithm, "uniform", 4)[3]  # full participation
    setting = Setting(**{**sc0.setting.__dict__, "M": 3, "S": 3})
    sc = Scenario("deterministic", "quadratic", 0.0, setting, rounds=4, seed=2)
    pb = sc.problem()
    setting = Setting(**{**setting.__dict__, "x0": tuple(float(v) for v in pb.x0)})
    sc = Scenario("deterministic", "quadratic", 0.0, setting, rounds=4, seed=2)
    ours = simulated_reference(pb, reference_algorithm(algorithm, setting), reference_pattern(setting), 4, 20, 0, "")
    theirs = run_flower(ex.STRATEGIES[algorithm], sc, pb, trials=1, seed=0)[:, 0, :]
    assert np.abs(ours.values).max() > 1e-3  # (the model moves)
    assert np.allclose(ours.values, theirs, rtol=1e-10, atol=1e-12)
