"""The one local step: the general path (``bound.grad`` per step) against a plain per-client loop, and
the tabulated affine kernels against the general path, with every variation (prox, correction,
kept gradient sum); divergence by the stated factor; name lookup."""

import numpy as np
import pytest
import torch

from bounds.core.errors import UserInputError
from quadratics import (
    cosine_nonconvex,
    fedavg,
    heterogeneous_quadratic,
    lower_bound_objective,
    simulate,
    uniform,
)
from quadratics.algorithm import _Job, _reference_steps, local_sgd
from quadratics.curvature import diagonal_quadratic, rotated_quadratic
from quadratics.engine import DIVERGENCE_FACTOR
from quadratics.logistic import logistic_regression
from quadratics.problem import GaussianStream
from quadratics.registry import build, help_text

CPU = torch.device("cpu")
VARIATIONS = [dict(), dict(mu_prox=0.3), dict(correction=True), dict(correction=True, keep_grad_sum=True),
              dict(mu_prox=0.2, keep_grad_sum=True)]


def _args(pb, var, T=6, n=3, seed=0):
    rng = np.random.default_rng(seed)
    x = torch.as_tensor(rng.normal(size=(T, pb.d)))
    idx = torch.as_tensor(np.argsort(rng.random((T, pb.M)), 1)[:, :n])
    corr = torch.as_tensor(rng.normal(size=(T, n, pb.d))) if var.get("correction") else None
    return x, idx, corr


@pytest.mark.parametrize("make", [lambda: rotated_quadratic(d=5, M=4, sigma=0.7, seed=2),
                                  lambda: logistic_regression(d=4, M=5, n=7, sigma=0.7, seed=2)])
@pytest.mark.parametrize("var", VARIATIONS)
def test_general_path_matches_a_plain_loop(make, var):
    pb = make()
    bound = pb.bind(CPU, torch.float64)
    assert getattr(bound, "affine", None) is None  # these problems take the general path
    eta, K = 0.1, 4
    x, idx, corr = _args(pb, var)
    y, gsum = local_sgd(bound, x, idx, K, eta, GaussianStream(3, CPU, torch.float64), corr,
                        var.get("mu_prox", 0.0), var.get("keep_grad_sum", False))
    T, n = idx.shape
    z = GaussianStream(3, CPU, torch.float64).normal((K, T, n, pb.d)).numpy()
    for t in range(T):
        for j in range(n):
            v, x0, s = x[t].numpy().copy(), x[t].numpy(), np.zeros(pb.d)
            for k in range(K):  # the step as the papers write it, one client at a time
                g = pb.client_grads(v)[int(idx[t, j])] + z[k, t, j] * pb.noise_std
                s += g
                dk = g + (corr[t, j].numpy() if corr is not None else 0.0) + var.get("mu_prox", 0.0) * (v - x0)
                v = v - eta * dk
            assert np.allclose(y[t, j].numpy(), v, rtol=1e-12, atol=1e-13)
            if var.get("keep_grad_sum"):
                assert np.allclose(gsum[t, j].numpy(), s, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("make", [lambda: heterogeneous_quadratic(d=5, M=4, sigma=0.7, seed=2),
                                  lambda: lower_bound_objective(M=4, sigma=2.0, zeta=2.0),
                                  lambda: cosine_nonconvex(d=5, M=4, sigma=0.7),
                                  lambda: diagonal_quadratic(d=5, M=4, sigma=0.7, seed=2)])
@pytest.mark.parametrize("var", VARIATIONS)
def test_affine_kernels_equal_the_general_path(make, var):
    pb = make()
    bound = pb.bind(CPU, torch.float64)
    assert getattr(bound, "affine", None) is not None
    eta, K = 0.05, 6
    x, idx, corr = _args(pb, var, n=2)
    args = (corr, var.get("mu_prox", 0.0), var.get("keep_grad_sum", False))
    fast = local_sgd(bound, x, idx, K, eta, GaussianStream(5, CPU, torch.float64), *args)
    ref = _reference_steps(bound, _Job(x, idx, K, eta, GaussianStream(5, CPU, torch.float64), *args))
    assert torch.allclose(fast[0], ref[0], rtol=1e-11, atol=1e-12)
    if var.get("keep_grad_sum"):
        assert torch.allclose(fast[1], ref[1], rtol=1e-9, atol=1e-9)


def test_divergence_is_marked_at_the_stated_factor():
    # shared Hessian, full participation, no noise: x_r - x* = (1 - eta lam)^(K r) (x0 - x*) exactly
    pb = heterogeneous_quadratic(L=1.0, mu=0.1, d=3, M=2, zeta=0.5, sigma=0.0, D0=1.0, seed=0)
    eta, K, R = 2.5, 2, 60
    sim = simulate(pb, fedavg(eta, K), uniform(2, 2), 8, R, device="cpu")
    e0 = pb.x0 - pb.x_star
    dist = np.array([np.sum(((1 - eta * pb.lam) ** (K * r) * e0) ** 2) for r in range(R + 1)])
    first = int(np.argmax(dist > DIVERGENCE_FACTOR**2 * max(1.0, e0 @ e0)))
    assert first > 0 and np.all(np.isfinite(dist[: first + 3]))  # caught long before any overflow
    assert np.all(sim.diverged_round == first)
    s = sim.summary().to_dict()["diverged"]
    assert s["count"] == 8 and s["first_round"] == first and "1e6" in s["rule"]
    assert np.all(np.isnan(sim.metrics["gap"][first:])) and np.all(np.isfinite(sim.metrics["gap"][:first]))


def test_names_accept_hyphens_and_underscores_and_symbols_are_listed():
    a = build("quadratic_rotated", "uniform", "amplified-scaffold", {"d": "3", "M": "4", "S": "2"})
    b = build("quadratic-rotated", "uniform", "amplified_scaffold", {"d": "3", "M": "4", "S": "2"})
    assert a[0].name == b[0].name == "quadratic-rotated" and a[2].name == b[2].name == "amplified_scaffold"
    assert build("lower_bound", "cyclic", "fedavg", {"a_even": "3"})[0].a_even == 3.0
    with pytest.raises(UserInputError, match="unknown key 'L'"):
        build("lower-bound", "cyclic", "fedavg", {"L": "3"})  # L means smoothness only
    with pytest.raises(UserInputError):
        build("quadratic~rotated", "uniform", "fedavg", {})
    text = help_text()
    assert "quadratic-rotated" in text and "logistic" in text and "Delta: initial gap" in text
