"""Constants each problem declares, checked numerically against independent computations."""

import numpy as np
import pytest
import torch
from scipy import stats

from bounds.core.errors import UserInputError
from quadratics import cosine_nonconvex, heterogeneous_quadratic, lower_bound_objective

NOISE_SAMPLES = 20000
LEVEL = 0.999  # confidence level of the empirical-variance checks


def _noise(problem, n=NOISE_SAMPLES, seed=1):
    """n draws of one step's gradient noise as the engine makes it: z [n, width] standard normal times
    the bound's ``noise_law`` scale [d]."""
    bound = problem.bind(torch.device("cpu"), torch.float64)
    width, scale = bound.noise_law
    z = np.random.default_rng(seed).standard_normal((n, width))
    return z * (np.zeros(problem.d) if scale is None else scale.numpy())


def _noise_mean_sq(problem, n=NOISE_SAMPLES, seed=1):
    return (_noise(problem, n, seed) ** 2).sum(1)


def _assert_mean_in_ci(samples, value):
    m, s = samples.mean(), samples.std(ddof=1)
    half = stats.t.ppf(0.5 + LEVEL / 2, samples.size - 1) * s / np.sqrt(samples.size)
    assert abs(m - value) <= half, (m, value, half)


@pytest.mark.parametrize("d,M,zeta", [(5, 4, 0.7), (30, 10, 2.0), (2, 2, 0.0)])
def test_quadratic_constants(d, M, zeta):
    pb = heterogeneous_quadratic(L=3.0, mu=0.2, d=d, M=M, zeta=zeta, sigma=0.5, D0=2.0, seed=3)
    ev = np.linalg.eigvalsh(pb.hessian())
    assert ev.min() == pytest.approx(0.2) and ev.max() == pytest.approx(3.0)
    assert pb.constants["L"] == pytest.approx(3.0) and pb.constants["mu"] == pytest.approx(0.2)
    rng = np.random.default_rng(0)
    for x in rng.normal(size=(20, d)) * 5:  # dissimilarity is the same at every sampled point
        diff = pb.client_grads(x) - pb.client_grads(x).mean(0)
        assert np.max(np.sum(diff**2, 1)) == pytest.approx(zeta**2, abs=1e-9)
    assert pb.constants["sigma_G2"] == pytest.approx(zeta**2, abs=1e-12)
    assert np.allclose(pb.grad(pb.x_star), 0) and pb.value(pb.x_star) == pytest.approx(pb.F_star)
    # Gamma = F* - mean_i min F_i with min F_i = F_i(b_i) = 0
    client_minima = [0.5 * np.sum(pb.lam * (bi - bi) ** 2) for bi in pb.b]
    assert pb.constants["Gamma"] == pytest.approx(pb.F_star - np.mean(client_minima))
    assert pb.constants["Delta"] == pytest.approx(pb.value(pb.x0) - pb.F_star)
    assert pb.constants["D0"] == pytest.approx(2.0)
    _assert_mean_in_ci(_noise_mean_sq(pb), 0.25)


def test_quadratic_bad_input():
    with pytest.raises(UserInputError):
        heterogeneous_quadratic(L=1, mu=2)
    with pytest.raises(UserInputError):
        heterogeneous_quadratic(M=1, zeta=1.0)


def test_lower_bound_worked_numbers():
    pb = lower_bound_objective()
    assert pb.x_star[1] == pytest.approx(0.25)
    assert pb.value(np.zeros(4)) == pytest.approx(1.0) and pb.value_log(np.zeros(4)) == pytest.approx(1.0)
    g = pb.client_grads(np.zeros(4))
    assert np.allclose(g[0], [-1, -4, 0, 16]) and np.allclose(g[1], [-1, -4, 0, -16])
    assert np.allclose(pb.grad(np.zeros(4)), [-1, -4, 0, 0])
    # client x4-minimisers: L/2 x + zeta = 0 -> -16; lamb/2 x - zeta = 0 -> +32
    assert -16.0 * 2 / 2 + 16 == 0 and pb.client_grads(np.array([1, .25, 0, -16.0]))[0, 3] == pytest.approx(0)
    assert pb.client_grads(np.array([1, .25, 0, 32.0]))[1, 3] == pytest.approx(0)
    assert pb.constants["L"] == 16 and pb.constants["mu"] == 0.75 and pb.constants["Delta"] == 1.0
    # zeta at x*: ||grad f_even - grad f|| = 16
    gs = pb.client_grads(pb.x_star)
    assert np.linalg.norm(gs[0] - gs.mean(0)) == pytest.approx(16.0)
    assert pb.value(pb.x_star) == 0 and pb.value_log(pb.x_star) == 0


def test_lower_bound_smoothness_by_finite_differences():
    pb = lower_bound_objective()
    rng = np.random.default_rng(2)
    worst = 0.0
    for _ in range(300):
        x, y = rng.normal(size=4) * 3, rng.normal(size=4) * 3
        for i in range(2):
            ratio = np.linalg.norm(pb.client_grads(x)[i] - pb.client_grads(y)[i]) / np.linalg.norm(x - y)
            worst = max(worst, ratio)
    assert worst <= 16.0 + 1e-9 and worst > 8.0


def test_lower_bound_noise_only_on_x3():
    pb = lower_bound_objective(sigma=1.5)
    z = _noise(pb, NOISE_SAMPLES, 4)
    assert np.all(z[:, [0, 1, 3]] == 0)
    _assert_mean_in_ci(z[:, 2] ** 2, 2.25)


@pytest.mark.parametrize("kw", [dict(mu=0.5), dict(lamb=2.0), dict(H=8.0), dict(M=3)])
def test_lower_bound_constraint(kw):
    with pytest.raises(UserInputError):
        lower_bound_objective(**kw)


def test_nonconvex_constants():
    pb = cosine_nonconvex(L=2.0, mu=0.1, beta=0.6, d=6, M=5, zeta=1.3, sigma=0.8, seed=5)
    assert pb.constants["L"] == pytest.approx(2.0)
    rng = np.random.default_rng(1)
    xs = rng.uniform(-10, 10, size=(4000, 6))
    hess = pb.lam[None, :] - 0.6 * np.cos(xs)  # exact diagonal Hessians, the same for each client
    assert np.abs(hess).max() <= 2.0 + 1e-12 and hess.min() < 0  # smooth, non-convex
    for x in xs[:20]:
        diff = pb.client_grads(x) - pb.grad(x)
        assert np.max(np.sum(diff**2, 1)) == pytest.approx(1.69, abs=1e-9)
    # inf F: multistart gradient descent never goes below F*, and x* is stationary
    assert np.allclose(pb.grad(pb.x_star), 0, atol=1e-9)
    for x in rng.uniform(-8, 8, size=(40, 6)):
        for _ in range(400):
            x = x - 0.4 * pb.grad(x)
        assert pb.value(x) >= pb.F_star - 1e-9
    assert pb.constants["Delta"] == pytest.approx(pb.value(pb.x0) - pb.F_star)
    _assert_mean_in_ci(_noise_mean_sq(pb), 0.64)


@pytest.mark.parametrize("build", [lambda: heterogeneous_quadratic(d=4, M=3, seed=1), lower_bound_objective,
                                   lambda: cosine_nonconvex(d=3, M=4)])
def test_bound_matches_numpy_oracles(build):
    pb = build()
    bound = pb.bind(torch.device("cpu"), torch.float64)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, pb.d)) * 2
    idx = torch.tensor([[0, pb.M - 1], [pb.M - 1, 0]])
    y = torch.as_tensor(np.stack([x, x[::-1]], 1))
    g = bound.grad(y, bound.prepare(idx)).numpy()
    for t in range(2):
        for j in range(2):
            assert np.allclose(g[t, j], pb.client_grads(y[t, j].numpy())[idx[t, j]])
    m = bound.metrics(torch.as_tensor(x))
    for t in range(2):
        assert m["gap"][t].item() == pytest.approx(pb.value(x[t]) - pb.F_star)
        assert m["grad_sq"][t].item() == pytest.approx(np.sum(pb.grad(x[t]) ** 2))
        assert m["dist_sq"][t].item() == pytest.approx(np.sum((x[t] - pb.x_star) ** 2))
