"""quadratics.exact against closed forms computed here, its rounding bound against extended precision,
and what it declines (with the reason)."""

import numpy as np
import pytest

from bounds.core.errors import UserInputError
from quadratics import (
    amplified_scaffold,
    arbitrary,
    cyclic,
    f3ast,
    fast,
    fast_mixture,
    fedavg,
    heterogeneous_quadratic,
    logistic_regression,
    regularized,
    rotated_quadratic,
    uniform,
)
from quadratics.exact import applies, exact_curve, exact_moments
from quadratics.exact.evaluate import _Plan


def _uniform_1d(lam, M, S, eta, zeta, sigma):
    """One FedAvg step (K = 1) on F_i = lam/2 (x - x* - delta_i)^2 with S of M clients:
    e' = (1 - eta lam) e + eta lam mean_S(delta) - eta mean_S(xi), so E e'^2 = a^2 E e^2 + c with
    a = 1 - eta lam and c = eta^2 lam^2 Var(mean_S delta) + eta^2 sigma^2 / S, where sampling without
    replacement gives Var(mean_S delta) = (M - S) / (S (M - 1)) * (1/M) sum delta_i^2."""
    pb = heterogeneous_quadratic(L=lam, mu=lam, d=1, M=M, zeta=zeta, sigma=sigma, D0=1.0, seed=3)
    delta = (pb.b - pb.x_star)[:, 0]
    a = 1 - eta * lam
    c = eta**2 * lam**2 * (M - S) / (S * (M - 1)) * np.mean(delta**2) + eta**2 * sigma**2 / S
    return pb, a, c


@pytest.mark.parametrize("M,S", [(5, 2), (4, 1), (6, 6)])
def test_one_dimensional_uniform_recursion_and_its_stationary_value(M, S):
    lam, eta = 0.8, 0.3
    pb, a, c = _uniform_1d(lam, M, S, eta, zeta=0.7, sigma=0.5)
    v0 = float(pb.x_star[0] ** 2)
    vinf = c / (1 - a**2)
    alg, pat = fedavg(eta=eta, K=1), uniform(M=M, S=S)
    curve = exact_curve(pb, alg, pat, 12)["dist_sq"]
    want = [a ** (2 * r) * (v0 - vinf) + vinf for r in range(13)]
    np.testing.assert_allclose(curve, want, rtol=1e-12)
    R = 40
    ex = exact_moments(pb, alg, pat, R)
    mean_want = vinf + (v0 - vinf) * a**2 * (1 - a ** (2 * R)) / ((1 - a**2) * R)
    assert ex.final["dist_sq"] == pytest.approx(a ** (2 * R) * (v0 - vinf) + vinf, rel=1e-12)
    assert ex.mean["dist_sq"] == pytest.approx(mean_want, rel=1e-12)
    assert ex.final["gap"] == pytest.approx(0.5 * lam * ex.final["dist_sq"], rel=1e-12)
    far = exact_moments(pb, alg, pat, 10**6)
    assert far.final["dist_sq"] == pytest.approx(vinf, rel=1e-12)
    assert abs(far.final["dist_sq"] - vinf) <= far.final_err["dist_sq"] + 1e-15 * vinf


@pytest.mark.parametrize("eta_g", [1.0, 0.5])
def test_gradient_descent_contracts_each_coordinate(eta_g):
    """Full participation, no noise, no heterogeneity: each round multiplies coordinate j of x - x* by
    1 - eta_g (1 - (1 - eta lam_j)^K)."""
    pb = heterogeneous_quadratic(L=1.0, mu=0.2, d=4, M=3, zeta=0.0, sigma=0.0, D0=2.0, seed=1)
    eta, K, R = 0.3, 2, 25
    ex = exact_moments(pb, fedavg(eta=eta, K=K, eta_g=eta_g), uniform(M=3, S=3), R)
    lam, e0 = pb.lam, -pb.x_star
    rho = 1 - eta_g * (1 - (1 - eta * lam) ** K)
    e = rho**R * e0
    assert ex.final["dist_sq"] == pytest.approx(np.sum(e**2), rel=1e-12)
    assert ex.final["gap"] == pytest.approx(0.5 * np.sum(lam * e**2), rel=1e-12)
    assert ex.final["grad_sq"] == pytest.approx(np.sum((lam * e) ** 2), rel=1e-12)
    mean = np.mean([np.sum((rho**r * e0) ** 2) for r in range(1, R + 1)])
    assert ex.mean["dist_sq"] == pytest.approx(mean, rel=1e-12)


def test_sgd_noise_floor_on_a_quadratic():
    """One client, one step per round: e' = (I - eta Lam) e - eta xi with E xi_j^2 = sigma^2/d, so the
    stationary E e_j^2 = eta sigma^2 / (d lam_j (2 - eta lam_j)); 10^6 rounds reach it."""
    d, eta, sigma = 3, 0.4, 0.7
    pb = heterogeneous_quadratic(L=1.5, mu=0.5, d=d, M=1, zeta=0.0, sigma=sigma, D0=1.0, seed=2)
    floor = eta * sigma**2 / (d * pb.lam * (2 - eta * pb.lam))
    ex = exact_moments(pb, fedavg(eta=eta, K=1), uniform(M=1, S=1), 10**6)
    assert ex.final["dist_sq"] == pytest.approx(floor.sum(), rel=1e-11)
    assert ex.final["gap"] == pytest.approx(0.5 * np.sum(pb.lam * floor), rel=1e-11)
    assert ex.final["grad_sq"] == pytest.approx(np.sum(pb.lam**2 * floor), rel=1e-11)
    # the average over 10^6 rounds differs from the floor by the transient, (v0 - floor) a^2/(1-a^2)/R per coordinate
    a2 = (1 - eta * pb.lam) ** 2
    mean = floor + (pb.x_star**2 - floor) * a2 / (1 - a2) / 1e6
    assert ex.mean["dist_sq"] == pytest.approx(mean.sum(), rel=1e-11)


@pytest.mark.parametrize("method,d,R", [("fedavg", 4, 5000), ("scaffold", 2, 1000), ("scaffold", 2, 100)])
def test_rounding_bound_covers_the_error_against_extended_precision(method, d, R):
    """The float64 powers and their bound vs the same moment matrix powered in long double (SCAFFOLD: the
    control variates make the moment matrix mix signs; its bound must stay small too)."""
    from quadratics import scaffold

    pb = rotated_quadratic(L=1.0, mu=0.1, d=d, M=6, zeta=1.0, sigma=0.5, D0=1.0, seed=4)
    alg = fedavg(eta=0.05, K=3) if method == "fedavg" else scaffold(eta=0.05, K=3)
    pat = uniform(M=6, S=2)
    ex = exact_moments(pb, alg, pat, R)
    plan = _Plan(pb, alg, pat)
    G = plan.G(0).val.astype(np.longdouble)
    v = plan.start().val.astype(np.longdouble)
    P, k = G, R
    while k:
        if k & 1:
            v = P @ v
        k >>= 1
        if k:
            P = P @ P
    n = plan.order
    fin = plan.L.astype(np.longdouble) @ v[:n]
    mean = v[n:] / R
    for j, m in enumerate(("dist_sq", "gap", "grad_sq")):
        assert abs(ex.final[m] - float(fin[j])) <= ex.final_err[m]
        assert abs(ex.mean[m] - float(mean[j])) <= ex.mean_err[m]
        assert ex.final_err[m] < 1e-8 * ex.final[m]  # and it is not vacuous here


def test_bound_is_small_at_a_million_rounds_for_the_benchmark_size():
    pb = heterogeneous_quadratic(L=1.0, mu=0.1, d=10, M=16, zeta=1.0, sigma=1.0, D0=1.0)
    ex = exact_moments(pb, fedavg(eta=0.01, K=5), uniform(M=16, S=4), 10**6)
    for m in ("dist_sq", "gap", "grad_sq"):
        assert 0 < ex.final_err[m] < 1e-6 * ex.final[m]
        assert 0 < ex.mean_err[m] < 1e-6 * ex.mean[m]


@pytest.mark.parametrize("build,fragment", [
    (lambda pb: (fedavg(eta=0.1, K=1), arbitrary(M=4, S=2)), "propensities are drawn once per trial"),
    (lambda pb: (fedavg(eta=0.1, K=1), regularized(M=4, S=2, P=2)), "drawn jointly"),
    (lambda pb: (fast(eta=0.1, K=1), fast_mixture(M=4, m=2, n=2, q=0.5)), "exact only with q = 1 or n = M"),
    (lambda pb: (fast(eta=0.1, K=1), fast_mixture(M=4, m=2, n=2, adaptive=True)), "adaptive"),
    (lambda pb: (amplified_scaffold(eta=0.1, K=1, gamma=1.5, P=2), cyclic(M=4, S=1, P=2, groups=2)),
     "random participation count"),
    (lambda pb: (f3ast(eta=0.1, K=1), uniform(M=4, S=2)), "known rates"),
])
def test_declined_instances_say_why(build, fragment):
    pb = heterogeneous_quadratic(L=1.0, mu=0.5, d=2, M=4, zeta=0.5, sigma=0.5)
    alg, pat = build(pb)
    ok, why = applies(pb, alg, pat)
    assert not ok and fragment in why
    with pytest.raises(UserInputError, match="exact evaluation does not apply"):
        exact_moments(pb, alg, pat, 3)


def test_non_affine_problem_is_declined():
    pb = logistic_regression(d=2, M=4, n=5)
    ok, why = applies(pb, fedavg(eta=0.1, K=1), uniform(M=4, S=2))
    assert not ok and "declares no affine client gradients" in why


def test_bad_horizon_is_one_line_user_error():
    pb = heterogeneous_quadratic(L=1.0, mu=0.5, d=2, M=2)
    with pytest.raises(UserInputError, match=r"rounds=0 must be >= 1"):
        exact_moments(pb, fedavg(eta=0.1, K=1), uniform(M=2, S=1), 0)
    with pytest.raises(UserInputError, match="metric 'loss'"):
        exact_moments(pb, fedavg(eta=0.1, K=1), uniform(M=2, S=1), 2).value("loss")


def test_successive_sampling_inclusion_against_every_draw_order():
    """Pairwise inclusion of n draws without replacement proportional to w, summed over all ordered draws
    (the definition), against the subset recursion; also with propensities far below the largest one's
    rounding (a difference W - w(T) would cancel to 0 there)."""
    from itertools import permutations

    from quadratics.exact.laws import successive

    for w in (np.array([0.1, 0.5, 1.0, 0.3, 2.0]), np.array([1.0, 1e-20, 1e-20, 3e-21])):
        M = w.size
        for n in range(1, M):
            pair = np.zeros((M, M))
            for order in permutations(range(M), n):
                p, left = 1.0, w.sum()
                rest = list(range(M))
                for j in order:
                    left = w[rest].sum()
                    p *= w[j] / left
                    rest.remove(j)
                pair[np.ix_(order, order)] += p
            Eu, Euu = successive(w, n)
            np.testing.assert_allclose(Euu[M:, M:], pair, rtol=1e-12, atol=1e-300)
            np.testing.assert_allclose(Eu[:M], np.diag(pair) / n, rtol=1e-12, atol=1e-300)
            np.testing.assert_allclose(Euu[:M, :M], pair / n**2, rtol=1e-12, atol=1e-300)


def test_periodic_law_and_window_powers_against_round_by_round_long_double():
    """Cyclic groups (period 4) and an amplified window: the squared window product, the rounds before the
    first counted one and the remainder, against every round applied one by one in long double."""
    from quadratics import amplified_fedavg, diagonal_quadratic

    pb = diagonal_quadratic(L=1.0, mu=0.3, d=2, M=4, zeta=0.7, sigma=0.4, D0=1.0, seed=5)
    alg, pat = amplified_fedavg(eta=0.2, K=2, gamma=1.3, P=2), cyclic(M=4, S=1, P=4, groups=2)
    R, first = 2003, 6
    ex = exact_moments(pb, alg, pat, R, first=first)
    plan = _Plan(pb, alg, pat)
    n = plan.order
    L = plan.L.astype(np.longdouble)
    v = plan.start().val[:n].astype(np.longdouble)
    total = np.zeros(3, dtype=np.longdouble)
    for r in range(R):
        v = plan.G(r).val[:n, :n].astype(np.longdouble) @ v
        if r + 1 >= first:
            total += L @ v
    fin, mean = L @ v, total / (R - first + 1)
    for j, m in enumerate(("dist_sq", "gap", "grad_sq")):
        assert abs(ex.final[m] - float(fin[j])) <= ex.final_err[m]
        assert abs(ex.mean[m] - float(mean[j])) <= ex.mean_err[m]
        assert ex.mean_err[m] < 1e-9 * ex.mean[m]


def test_expectations_pick_exact_or_monte_carlo_and_say_which():
    from quadratics.exact import expectations

    pb = heterogeneous_quadratic(L=1.0, mu=0.5, d=2, M=4, zeta=0.5, sigma=0.5, seed=1)
    ex = expectations(pb, fedavg(eta=0.1, K=2), uniform(M=4, S=2), 6)
    assert ex["method"] == "exact" and ex["final"]["dist_sq"] > 0
    mc = expectations(pb, fedavg(eta=0.1, K=2), arbitrary(M=4, S=2), 6, trials=256, seed=3, level=0.99)
    assert mc["method"] == "monte-carlo" and "propensities" in mc["why_not_exact"]
    lo, hi = mc["final_ci"]["dist_sq"]
    assert lo < mc["final"]["dist_sq"] < hi and mc["trials"] == 256 and mc["seed"] == 3


def test_probed_round_maps_match_fedavg_closed_form_within_their_seeded_uncertainty():
    """Shared Hessian diag(lam), FedAvg with K steps: client i's weight q_i multiplies
    X = eta_g (diag((1 - eta lam)^K) - I) on x - x*, the offset eta_g (1 - (1 - eta lam)^K) delta_i and noise
    columns -eta_g eta s (1 - eta lam_j)^(K-1-k) for step k, coordinate j; nothing depends on the indicator."""
    from quadratics.exact.moments import gamma
    from quadratics.exact.probe import Prober

    pb = heterogeneous_quadratic(L=1.0, mu=0.2, d=3, M=4, zeta=0.9, sigma=0.6, D0=1.5, seed=8)
    eta, K, eta_g = 0.3, 3, 0.8
    prober = Prober(pb, fedavg(eta=eta, K=K, eta_g=eta_g), {})
    maps = prober.maps(0)
    M, d = 4, 3
    shrink = (1 - eta * pb.lam) ** K
    eps = gamma(K * (d + 4) + 16) * maps.scale  # (the single-probe uncertainty; the recursion seeds 4x this)
    np.testing.assert_allclose(maps.B[0], np.eye(d), rtol=0, atol=eps)
    s = pb.sigma / np.sqrt(d)
    for i in range(M):
        delta = pb.b[i] - pb.x_star
        np.testing.assert_allclose(maps.B[1 + i], eta_g * np.diag(shrink - 1), rtol=0, atol=eps)
        np.testing.assert_allclose(maps.c[1 + i], eta_g * (1 - shrink) * delta, rtol=0, atol=eps)
        np.testing.assert_allclose(maps.B[1 + M + i], 0.0, rtol=0, atol=eps)
        N = np.zeros((d, K * d))
        for k in range(K):
            N[np.arange(d), k * d + np.arange(d)] = -eta_g * eta * s * (1 - eta * pb.lam) ** (K - 1 - k)
        np.testing.assert_allclose(maps.N[1 + i], N, rtol=0, atol=eps)
