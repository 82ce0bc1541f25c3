"""Stochastic gradients in the PEP: one noisy step is exact, and the known one-step SGD result is matched.

Expected values by plain arithmetic: one step x1 = x0 - eta (g + xi), E xi = 0, E||xi||^2 <= sigma^2:
E||x1 - x*||^2 = ||x0 - eta g - x*||^2 + eta^2 E||xi||^2, worst rho^2 D0 + eta^2 sigma^2 with
rho = max(|1 - eta mu|, |1 - eta L|). SGD on a finite sum (one component sampled uniformly) with gamma = 1/L is
FedAvg with K = 1 on one client drawn uniformly: PESTO's closed form (Taylor, Hendrickx & Glineur 2017, read
from docs/examples/sgd_pesto_one_step.py).
"""

import math

import pytest

pytest.importorskip("cvxpy")

from verify.pep import Law, Setting, solve  # noqa: E402


def _certified(s):
    wc = solve(s, with_coverage=False)
    assert wc.certificate["status"] == "certified", wc.certificate
    return wc


@pytest.mark.parametrize("L,mu,eta,sigma,D0", [(1.0, 0.1, 1.5, 0.3, 1.0), (2.0, 0.5, 0.2, 1.0, 2.0),
                                               (1.0, 0.0, 1.0, 0.5, 1.0)])
def test_one_noisy_gradient_step_is_exact(L, mu, eta, sigma, D0):
    wc = _certified(Setting("local_gd", L=L, mu=mu, zeta=0.0, eta=eta, K=1, R=1, M=1, D0=D0, sigma=sigma))
    rho = max(abs(1 - eta * mu), abs(1 - eta * L))
    assert abs(wc.value - (rho**2 * D0 + eta**2 * sigma**2)) <= 1e-6
    assert wc.exactness == "upper bound" and any("noise" in n for n in wc.notes)


@pytest.mark.parametrize("n", [2, 3])
def test_one_sgd_step_on_a_finite_sum_matches_pesto(n):
    L, mu, D0, v = 1.0, 0.1, 4.0, 1.0
    a = 1 - mu / L
    pesto = 0.5 * a**2 * D0 + 0.5 * a * math.sqrt(D0) * math.sqrt(a**2 * D0 + 4 * v**2 / L**2) + v**2 / L**2
    wc = _certified(Setting("local_gd", L=L, mu=mu, zeta=v, eta=1 / L, K=1, R=1, M=n, D0=D0, law=Law("uniform", m=1)))
    assert abs(wc.value - pesto) <= 1e-6


def test_many_noisy_steps_bound_the_quadratic_instance_from_above():
    """K = 3, R = 2, one client: the 1-D quadratic of curvature mu with independent noise is an instance,
    E||x_6||^2 = rho^12 D0 + eta^2 sigma^2 sum_{t<6} rho^(2t), rho = 1 - eta mu; the upper bound is never below it
    (and is within 1e-6 of it here: measured, not assumed elsewhere)."""
    L, mu, eta, sigma = 1.0, 0.1, 0.5, 0.3
    wc = _certified(Setting("local_gd", L=L, mu=mu, zeta=0.0, eta=eta, K=3, R=2, M=1, sigma=sigma))
    rho = 1 - eta * mu
    instance = rho**12 + eta**2 * sigma**2 * sum(rho ** (2 * t) for t in range(6))
    assert instance - 1e-9 <= wc.value <= instance + 1e-6
