"""The engine's Gaussian stream and fast paths, checked against independent computations.

The stream (quadratics.problem.GaussianStream) must give exact N(0, 1) draws, reproducibly; the
local-step fast paths (tabulated steps, noise folded into offsets, in-place steps) must equal a
plain per-client loop fed the same standard normals; the LB metrics (all four from squared errors) must equal the
numpy oracles.
"""

import numpy as np
import pytest
import torch
from scipy import stats

from quadratics import cyclic, fedavg, fedprox, lower_bound_objective, simulate
from quadratics.algorithm import local_sgd
from quadratics.problem import GaussianStream

CPU = torch.device("cpu")
LEVEL = 0.999  # confidence level of the moment checks
P_FLOOR = 1e-3  # KS p-value below which the N(0, 1) law is rejected (fixed seed: deterministic)


def _draws(seed, sizes, block=1 << 10):
    stream = GaussianStream(seed, CPU, torch.float64, block=block)
    return np.concatenate([stream.normal((s,)).numpy().copy() for s in sizes])


def _ci_half(samples):
    return stats.t.ppf(0.5 + LEVEL / 2, samples.size - 1) * samples.std(ddof=1) / np.sqrt(samples.size)


def test_stream_is_standard_normal_across_block_boundaries():
    # request sizes that straddle blocks, fill them exactly and exceed them
    sizes = [7, 1000, 1024, 3000, 1, 513] * 40
    z = _draws(5, sizes)
    assert z.size == sum(sizes) and np.all(np.isfinite(z))
    assert abs(z.mean()) <= _ci_half(z)
    assert abs((z**2).mean() - 1.0) <= _ci_half(z**2)
    assert abs((z**4).mean() - 3.0) <= _ci_half(z**4)
    assert stats.kstest(z, "norm").pvalue > P_FLOOR


def test_stream_same_seed_same_values_and_seed_matters():
    sizes = [300, 2000, 5]
    a, b, c = _draws(1, sizes), _draws(1, sizes), _draws(2, sizes)
    assert np.array_equal(a, b) and not np.allclose(a, c)
    # consecutive requests never hand out the same values twice
    assert np.unique(a).size == a.size


def test_stream_float32_casts_float64_draws():
    s64 = GaussianStream(3, CPU, torch.float64, block=64)
    s32 = GaussianStream(3, CPU, torch.float32, block=64)
    a, b = s64.normal((50,)), s32.normal((50,))
    assert b.dtype == torch.float32 and torch.equal(a.to(torch.float32), b)


def test_engine_noise_has_law_sigma_on_x3_only():
    # one local step from x: xi = (x - y) / eta - grad f_i(x), per trial
    pb = lower_bound_objective(sigma=0.7)
    bound = pb.bind(CPU, torch.float64)
    T, eta = 40000, 1e-3
    x = torch.as_tensor(np.random.default_rng(0).normal(size=(T, 4)))
    idx = torch.zeros((T, 1), dtype=torch.long)
    y, _ = local_sgd(bound, x, idx, 1, eta, GaussianStream(9, CPU, torch.float64))
    xn = x.numpy()
    grads = np.stack([pb.client_grads(v)[0] for v in xn[:200]])  # exact part checked on a subset
    xi = (xn - y[:, 0].numpy()) / eta
    assert np.allclose(xi[:200, [0, 1, 3]], grads[:, [0, 1, 3]], rtol=1e-9, atol=1e-9)
    noise = xi[:200, 2] - grads[:, 2]
    # the x3 gradient is H/4 (x3 + [x3]_+) for every client (LB.CLIENT)
    noise_all = xi[:, 2] - pb.H / 4 * (xn[:, 2] + np.maximum(xn[:, 2], 0.0))
    assert np.allclose(noise, noise_all[:200], rtol=1e-9, atol=1e-9)
    assert abs(noise_all.mean()) <= _ci_half(noise_all)
    assert abs((noise_all**2).mean() - 0.49) <= _ci_half(noise_all**2)


def _lb_plain_loop(pb, pattern, trials, rounds, eta, K, seed, mu_prox=0.0):  # noqa: PLR0913
    """FedAvg/FedProx on the LB objective, one client step at a time, fed the engine's normals in the
    order the engine requests them ([K, trials, 1 active client, 1] per round)."""
    stream = GaussianStream(seed, CPU, torch.float64)
    xs = np.tile(pb.x0, (trials, 1))
    for r in range(rounds):
        q = pattern.weights(seed, r, trials)
        z = stream.normal((K, trials, 1, 1)).numpy()[:, :, 0, 0]
        for t in range(trials):
            (i,) = np.flatnonzero(q[t])
            x = xs[t].copy()
            y = x.copy()
            for k in range(K):
                g = pb.client_grads(y)[i]
                g[2] += pb.sigma * z[k, t]
                y = y - eta * (g + mu_prox * (y - x))
            xs[t] = x + q[t, i] * (y - x)
    return xs


@pytest.mark.parametrize("make,mu_prox", [(lambda: fedavg(0.01, 4), 0.0), (lambda: fedprox(0.01, 4, 0.3), 0.3)])
def test_noisy_lb_engine_matches_plain_loop(make, mu_prox):
    pb = lower_bound_objective(sigma=2.0, M=4)
    pat = cyclic(4, 1, 6, 2)  # 2 groups of 2 clients, one drawn per round: both client types take part
    sim = simulate(pb, make(), pat, 5, 30, seed=4, device="cpu")
    ref = _lb_plain_loop(pb, pat, 5, 30, 0.01, 4, 4, mu_prox)
    assert np.allclose(sim.final_x, ref, rtol=1e-10, atol=1e-12)


def test_lb_metrics_match_numpy_oracles_on_both_sides_of_the_kink():
    pb = lower_bound_objective(mu=0.5, H=16.0, a_even=3.0, lamb=0.25, c=1.5, zeta=4.0)
    bound = pb.bind(CPU, torch.float64)
    x = np.random.default_rng(2).normal(size=(64, 4)) * 3
    x[::2, 2] = np.abs(x[::2, 2])
    x[1::2, 2] = -np.abs(x[1::2, 2])
    m = {k: v.numpy() for k, v in bound.metrics(torch.as_tensor(x)).items()}
    for t in range(64):
        assert m["gap"][t] == pytest.approx(pb.value(x[t]) - pb.F_star, rel=1e-12)
        assert m["f_log"][t] == pytest.approx(pb.value_log(x[t]) - pb.F_star, rel=1e-12)
        assert m["grad_sq"][t] == pytest.approx(np.sum(pb.grad(x[t]) ** 2), rel=1e-12)
        assert m["dist_sq"][t] == pytest.approx(np.sum((x[t] - pb.x_star) ** 2), rel=1e-12)
