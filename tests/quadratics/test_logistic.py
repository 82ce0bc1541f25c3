"""Logistic regression: stated L, mu, x*, F*, Gamma and heterogeneity against independent computations
(scipy's minimiser, explicit Hessians at random points, the objective written out here)."""

import numpy as np
import pytest
import torch
from scipy import optimize

from bounds.core.errors import UserInputError
from quadratics.logistic import logistic_regression

CPU = torch.device("cpu")


def _client_objective(a, y, lam):
    """F_i from raw data: (1/n) sum_j log(1 + exp(-y_j a_j^T x)) + lam/2 ||x||^2, gradient, Hessian."""
    def f(x):
        return np.mean(np.log1p(np.exp(-y * (a @ x)))) + lam / 2 * x @ x

    def g(x):
        p = 1 / (1 + np.exp(y * (a @ x)))
        return -(a * (y * p)[:, None]).mean(0) + lam * x

    def h(x):
        p = 1 / (1 + np.exp(-(a @ x)))
        return (a * (p * (1 - p))[:, None]).T @ a / len(y) + lam * np.eye(a.shape[1])
    return f, g, h


@pytest.fixture(scope="module")
def problem():
    return logistic_regression(d=5, M=4, n=30, lam=0.05, spread=2.0, sigma=0.5, seed=3)


def _clients(pb):
    # Z holds y a; recover (a, y) up to the sign convention: y = +1, a = z gives the same F_i
    return [(z, np.ones(len(z))) for z in pb.Z]


def test_x_star_against_scipy(problem):
    pb = problem
    objs = [_client_objective(a, y, pb.lam) for a, y in _clients(pb)]

    def F(x):
        return np.mean([f(x) for f, _, _ in objs])

    def G(x):
        return np.mean([g(x) for _, g, _ in objs], 0)
    res = optimize.minimize(F, np.zeros(pb.d), jac=G, method="BFGS", options={"gtol": 1e-11, "maxiter": 1000})
    assert np.linalg.norm(G(res.x)) < 1e-9
    assert np.linalg.norm(G(pb.x_star)) <= 1e-10
    assert np.allclose(pb.x_star, res.x, atol=1e-8)  # strong convexity: ||x - x*|| <= ||grad||/mu
    assert pb.F_star == pytest.approx(F(res.x), abs=1e-12)
    assert pb.constants["Delta"] == pytest.approx(np.log(2) - F(res.x), abs=1e-12)
    gs = np.array([g(pb.x_star) for _, g, _ in objs])
    assert pb.constants["zeta"] == pytest.approx(np.max(np.linalg.norm(gs, axis=1)), rel=1e-8)
    assert pb.constants["zeta2_avg"] == pytest.approx(np.mean(np.sum(gs**2, 1)), rel=1e-8)
    assert pb.constants["zeta"] > 1e-2  # distinct client data: heterogeneous at the optimum
    # Gamma = F* - (1/M) sum_i min F_i, each client minimised by scipy
    mins = [optimize.minimize(f, np.zeros(pb.d), jac=g, method="BFGS", options={"gtol": 1e-11}).fun for f, g, _ in objs]
    assert pb.constants["Gamma"] == pytest.approx(F(res.x) - np.mean(mins), abs=1e-10)


def test_L_and_mu_bound_the_explicit_hessians(problem):
    pb = problem
    objs = [_client_objective(a, y, pb.lam) for a, y in _clients(pb)]
    rng = np.random.default_rng(0)
    lo, hi = np.inf, 0.0
    for x in np.concatenate([rng.normal(size=(200, pb.d)) * s for s in (0.1, 1.0, 10.0)]):
        for _, _, h in objs:
            ev = np.linalg.eigvalsh(h(x))
            lo, hi = min(lo, ev.min()), max(hi, ev.max())
    assert pb.constants["mu"] <= lo and hi <= pb.constants["L"]
    assert lo < pb.constants["mu"] * 1.5  # mu is nearly attained far out (curvature of the loss -> 0)
    # L is the per-client bound lambda_max(Z^T Z)/(4n) + lam: attained at x = 0 only if all margins are 0
    at0 = max(np.linalg.eigvalsh(h(np.zeros(pb.d))).max() for _, _, h in objs)
    assert at0 == pytest.approx(pb.constants["L"], rel=1e-12)


def test_sigma_G_bounds_the_dissimilarity_everywhere(problem):
    pb = problem
    rng = np.random.default_rng(1)
    worst = 0.0
    for x in np.concatenate([rng.normal(size=(300, pb.d)) * s for s in (0.1, 1.0, 30.0)]):
        cg = pb.client_grads(x)
        worst = max(worst, np.max(np.sum((cg - cg.mean(0)) ** 2, 1)))
    assert worst <= pb.constants["sigma_G2"]


def test_bound_gradient_and_metrics(problem):
    pb = problem
    bound = pb.bind(CPU, torch.float64)
    rng = np.random.default_rng(2)
    for n in (1, 4):
        idx = torch.as_tensor(np.argsort(rng.random((3, pb.M)), 1)[:, :n])
        y = torch.as_tensor(rng.normal(size=(3, n, pb.d)))
        g = bound.grad(y, bound.prepare(idx)).numpy()
        for t in range(3):
            for j in range(n):
                assert np.allclose(g[t, j], pb.client_grads(y[t, j].numpy())[idx[t, j]], rtol=1e-12, atol=1e-13)
    x = rng.normal(size=(4, pb.d))
    m = bound.metrics(torch.as_tensor(x))
    for t in range(4):
        assert m["gap"][t].item() == pytest.approx(pb.value(x[t]) - pb.F_star, rel=1e-10)
        assert m["grad_sq"][t].item() == pytest.approx(np.sum(pb.grad(x[t]) ** 2), rel=1e-10)


def test_bad_input():
    for kw in (dict(lam=0.0), dict(spread=-1.0), dict(n=0), dict(M=1000, n=1000, d=100)):
        with pytest.raises(UserInputError):
            logistic_regression(**kw)
