"""Algorithms and engine: LB.REF numbers, metamorphic reductions, determinism, a plain reference loop."""

import numpy as np
import pytest
import torch

from quadratics import (
    amplified_fedavg,
    amplified_scaffold,
    cyclic,
    f3ast,
    fast,
    fast_mixture,
    fedavg,
    fedprox,
    heterogeneous_quadratic,
    lower_bound_objective,
    regularized,
    scaffold,
    simulate,
    uniform,
)

REL = 1e-5  # LB.REF recommended relative tolerance

# LB.REF deterministic variant: f_log and distance at round labels 99, 799, 1899, 4799, 4999 (after rounds r+1)
LB_REF = {
    "fedavg": [(0.872174, 1.025148), (0.509206, 0.957232), (0.343102, 0.827068), (0.193982, 0.621509), (0.234569, 0.659837)],
    "scaffold": [(1.017748, 1.239687), (1.137161, 1.263320), (0.190355, 0.511181), (0.001884, 0.050270), (0.001383, 0.043058)],
    "amplified_fedavg": [(0.948215, 1.025849), (0.485981, 0.948312), (0.362194, 0.850727), (0.188735, 0.614231), (0.191614, 0.615999)],
    "amplified_scaffold": [(1.295385, 1.395502), (0.190295, 0.574357), (0.028877, 0.214094), (0.000116, 0.012715), (0.000098, 0.011697)],
}
LB_FINAL_X = {"fedavg": (0.393471, 0.249916, 0, -0.259821), "amplified_scaffold": (0.995770, 0.250000, 0, 0.010906)}
ALGS = {
    "fedavg": lambda: fedavg(1e-5, 10), "fedprox": lambda: fedprox(1e-5, 10, 0.01), "scaffold": lambda: scaffold(1e-4, 10),
    "amplified_fedavg": lambda: amplified_fedavg(1e-5 / 3, 10, 3.0, 480),
    "amplified_scaffold": lambda: amplified_scaffold(1e-4 / 1.5, 10, 1.5, 480),
}


@pytest.fixture(scope="module")
def lb_runs():
    pb = lower_bound_objective(sigma=0.0)
    return {k: simulate(pb, make(), cyclic(2, 1, 480, 2), 1, 5000, device="cpu") for k, make in ALGS.items()}


@pytest.mark.parametrize("name", list(LB_REF))
def test_lb_reference_numbers(lb_runs, name):
    sim = lb_runs[name]
    for r, (f, dist) in zip((100, 800, 1900, 4800, 5000), LB_REF[name]):
        assert sim.metrics["f_log"][r, 0] == pytest.approx(f, rel=REL, abs=1e-6)
        assert np.sqrt(sim.metrics["dist_sq"][r, 0]) == pytest.approx(dist, rel=REL, abs=1e-6)
    if name in LB_FINAL_X:
        assert np.allclose(sim.final_x[0], LB_FINAL_X[name], atol=2e-6)


def test_lb_fedprox_equals_fedavg_to_six_decimals(lb_runs):
    a, b = lb_runs["fedavg"].metrics["f_log"], lb_runs["fedprox"].metrics["f_log"]
    assert np.allclose(a[::100], b[::100], atol=5e-7) and not np.array_equal(a, b)


def _quad():
    return heterogeneous_quadratic(L=1.0, mu=0.2, d=5, M=6, zeta=0.8, sigma=0.5, seed=2)


def test_amplified_scaffold_with_P1_gamma1_is_scaffold():
    pb, pat = _quad(), uniform(6, 2)
    a = simulate(pb, amplified_scaffold(0.05, 4, 1.0, 1), pat, 5, 60, seed=3, device="cpu")
    b = simulate(pb, scaffold(0.05, 4), pat, 5, 60, seed=3, device="cpu")
    assert np.allclose(a.final_x, b.final_x, rtol=0, atol=1e-12)
    assert np.allclose(a.metrics["gap"], b.metrics["gap"], rtol=1e-10, atol=1e-14)


def test_amplified_fedavg_with_gamma1_is_fedavg():
    pb, pat = _quad(), uniform(6, 3)
    a = simulate(pb, amplified_fedavg(0.05, 4, 1.0, 7), pat, 4, 50, seed=1, device="cpu")
    b = simulate(pb, fedavg(0.05, 4), pat, 4, 50, seed=1, device="cpu")
    assert np.allclose(a.final_x, b.final_x, atol=1e-12)


def test_paper_and_code_variants_agree_under_constant_weights():
    pb, pat = _quad(), regularized(6, 2, 3)
    a = simulate(pb, amplified_scaffold(0.05, 3, 2.0, 3, variant="paper"), pat, 3, 30, seed=0, device="cpu")
    b = simulate(pb, amplified_scaffold(0.05, 3, 2.0, 3, variant="code"), pat, 3, 30, seed=0, device="cpu")
    assert np.allclose(a.final_x, b.final_x, atol=1e-12)


def test_same_seed_same_trajectory_and_seed_matters():
    pb, pat = _quad(), fast_mixture(6, 2, 1, q=0.5)
    runs = [simulate(pb, fast(0.05, 3, base="scaffold"), pat, 4, 40, seed=s, device="cpu") for s in (7, 7, 8)]
    for k in runs[0].metrics:
        assert np.array_equal(runs[0].metrics[k], runs[1].metrics[k])
    assert not np.array_equal(runs[0].metrics["gap"], runs[2].metrics["gap"])


def _reference_loop(pb, pattern, trials, rounds, eta, K, method, gamma=1.0, P=1, mu_prox=0.0):
    """Plain per-client loop (sigma = 0): FedAvg / FedProx / SCAFFOLD / Amplified SCAFFOLD (Algorithm 1)."""
    M, d = pb.M, pb.d
    finals = []
    for t in range(trials):
        x = pb.x0.copy()
        G = np.zeros((M, d))
        anchor, acc_q, acc_qg = x.copy(), np.zeros(M), np.zeros((M, d))
        for r in range(rounds):
            q = pattern.weights(0, r, trials)[t]
            Gbar = G.mean(0)
            step = np.zeros(d)
            newG = G.copy()
            for i in range(M):
                if q[i] == 0:
                    continue
                y = x.copy()
                gsum = np.zeros(d)
                for _ in range(K):
                    g = pb.client_grads(y)[i]
                    gsum += g
                    direction = g.copy()
                    if method in ("scaffold", "amplified_scaffold"):
                        direction += Gbar - G[i]
                    if method == "fedprox":
                        direction += mu_prox * (y - x)
                    y = y - eta * direction
                step += q[i] * (y - x)
                if method == "scaffold":
                    newG[i] = gsum / K
                acc_q[i] += q[i]
                acc_qg[i] += q[i] * gsum
            x = x + step
            G = newG
            if method == "amplified_scaffold" and (r + 1) % P == 0:
                x = anchor + gamma * (x - anchor)
                anchor = x.copy()
                for i in range(M):
                    if acc_q[i] > 0:
                        G[i] = acc_qg[i] / (K * acc_q[i])
                acc_q[:], acc_qg[:] = 0, 0
        finals.append(x)
    return np.array(finals)


@pytest.mark.parametrize("method,make", [
    ("fedavg", lambda: fedavg(0.1, 3)), ("fedprox", lambda: fedprox(0.1, 3, 0.5)), ("scaffold", lambda: scaffold(0.1, 3)),
    ("amplified_scaffold", lambda: amplified_scaffold(0.1, 3, 1.7, 4))])
def test_batched_engine_matches_plain_loop(method, make):
    pb = heterogeneous_quadratic(L=1.0, mu=0.2, d=4, M=5, zeta=1.0, sigma=0.0, seed=4)
    pat = uniform(5, 2)
    sim = simulate(pb, make(), pat, 3, 24, seed=0, device="cpu")
    ref = _reference_loop(pb, pat, 3, 24, 0.1, 3, method, gamma=1.7, P=4, mu_prox=0.5)
    assert np.allclose(sim.final_x, ref, rtol=1e-10, atol=1e-12)


def test_f3ast_aggregation_uses_inverse_rates():
    from quadratics.availability import availability

    pb = heterogeneous_quadratic(L=1.0, mu=0.5, d=3, M=4, zeta=0.5, sigma=0.0, seed=1)
    pat = availability("always", 4, S=4, beta=0.5)
    sim = simulate(pb, f3ast(0.1, 1), pat, 1, 1, device="cpu")
    # one round, everyone selected: r(1) = 0.5 r0 + 0.5 = 1 (r0 = 1), weights p/r = 1/4 -> plain mean
    y = pb.x0 - 0.1 * pb.client_grads(pb.x0)
    assert np.allclose(sim.final_x[0], y.mean(0))
    pat2 = availability("always", 4, S=2, beta=0.5)  # r0 = 0.5, selected clients' r(1) = 0.75
    sim2 = simulate(pb, f3ast(0.1, 1), pat2, 1, 1, device="cpu")
    sel = np.flatnonzero(sim2.counts[0])
    expect = pb.x0 + sum((0.25 / 0.75) * (y[i] - pb.x0) for i in sel)
    assert np.allclose(sim2.final_x[0], expect)


def test_divergence_is_detected_with_its_round():
    pb = heterogeneous_quadratic(L=1.0, mu=0.5, d=3, M=4, zeta=0.5, sigma=0.1)
    sim = simulate(pb, fedavg(50.0, 5), uniform(4, 2), 3, 200, device="cpu")
    s = sim.summary(target=1e-3).to_dict()
    assert s["diverged"]["count"] == 3 and 1 <= s["diverged"]["first_round"] < 200
    assert s["final"]["gap"]["trials"] == 0 and np.isnan(s["final"]["gap"]["mean"])
    r = s["diverged"]["first_round"]
    assert np.all(np.isnan(sim.metrics["gap"][r:])) and np.all(np.isfinite(sim.metrics["gap"][:r]))


def test_summary_fields_and_interval():
    pb = _quad()
    sim = simulate(pb, fedavg(0.1, 2), uniform(6, 3), 5, 30, device="cpu")
    s = sim.summary(target=0.05).to_dict()
    v = sim.metrics["gap"][-1]
    half = 4.604094871349992 * v.std(ddof=1) / np.sqrt(5)  # t_{0.995, 4}: summaries are intervals of means (MEAN_LEVEL)
    assert s["final"]["gap"]["ci_low"] == pytest.approx(v.mean() - half)
    assert s["final"]["gap"]["ci_high"] == pytest.approx(v.mean() + half)
    means = sim.metrics["gap"].mean(1)
    hits = [r for r in range(1, 31) if means[r] <= 0.05]
    assert s["rounds_to"]["round"] == (hits[0] if hits else None)
    assert s["steps_per_second"] > 0 and sim.steps == 30 * 5 * 3 * 2
    assert {"torch", "numpy", "device"} <= set(s["versions"]) and s["seeds"]["seed"] == 0
    csv = sim.to_csv().splitlines()
    assert csv[0].startswith("round,gap_mean,gap_ci_low,gap_ci_high") and len(csv) == 32


def test_lb_rounds_to_reports_f_log_and_true_f():
    sim = simulate(lower_bound_objective(sigma=0.0), scaffold(1e-4, 10), cyclic(2, 1, 480, 2), 1, 2000, device="cpu")
    rt = sim.summary(target=0.2).to_dict()["rounds_to"]
    assert rt["metric"] == "f_log" and 1800 < rt["round"] <= 1900 and rt["round_true_f"] < rt["round"]
    assert sim.metrics["f_log"][rt["round"], 0] <= 0.2 < sim.metrics["f_log"][rt["round"] - 1, 0]


def test_cuda_absent_is_a_user_error():
    from bounds.core.errors import UserInputError

    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(UserInputError):
        simulate(_quad(), fedavg(0.1, 1), uniform(6, 1), 1, 1, device="cuda")


def test_paper_and_code_variants_differ_under_varying_weights():
    # FAST mixture with m != n: a client's weight is 1/m in snapshot rounds and 1/n otherwise
    pb, pat = _quad(), fast_mixture(6, 3, 1, q=0.5)
    a = simulate(pb, amplified_scaffold(0.05, 3, 1.5, 4, variant="paper"), pat, 3, 40, seed=2, device="cpu")
    b = simulate(pb, amplified_scaffold(0.05, 3, 1.5, 4, variant="code"), pat, 3, 40, seed=2, device="cpu")
    assert not np.allclose(a.final_x, b.final_x, atol=1e-9)


def test_adaptive_fast_runs_and_moves_q():
    pb = heterogeneous_quadratic(L=1.0, mu=0.2, d=5, M=10, zeta=2.0, sigma=1.0, seed=0)
    pat = fast_mixture(10, 3, 1, adaptive=True, lam=20.0)
    sim = simulate(pb, fast(0.2, 3), pat, 6, 80, seed=0, device="cpu")
    st = sim.pattern_state
    assert st.snapshots.sum() > 0 and np.all((st.q >= 0) & (st.q <= 1))
    assert np.all(np.isfinite(sim.metrics["gap"]))
