"""Distinct-Hessian quadratics: constants against plain numpy arithmetic, client drift against its
closed-form fixed point, the general gradient path against per-client loops."""

import numpy as np
import pytest
import torch
from scipy import optimize

from bounds.core.errors import UserInputError
from quadratics import fedavg, simulate, uniform
from quadratics.curvature import ball_sup, diagonal_quadratic, rotated_quadratic
from quadratics.problem import client_apply

CPU = torch.device("cpu")
FAMILIES = [diagonal_quadratic, rotated_quadratic]


@pytest.mark.parametrize("make", FAMILIES)
def test_constants_against_numpy(make):
    pb = make(L=2.0, mu=0.3, d=6, M=5, zeta=0.8, sigma=0.5, D0=1.5, seed=4)
    c = pb.constants
    norms = [np.linalg.norm(A, 2) for A in pb.A]            # spectral norms (SVD), not eigvalsh
    inv_norms = [np.linalg.norm(np.linalg.inv(A), 2) for A in pb.A]
    assert c["L"] == pytest.approx(max(norms), rel=1e-12) and c["L"] == pytest.approx(2.0, rel=1e-12)
    assert c["mu"] == pytest.approx(min(1 / v for v in inv_norms), rel=1e-10) and c["mu"] == pytest.approx(0.3)
    Abar = sum(pb.A) / pb.M
    assert c["L_F"] == pytest.approx(np.linalg.norm(Abar, 2), rel=1e-12)
    assert c["mu_F"] == pytest.approx(1 / np.linalg.norm(np.linalg.inv(Abar), 2), rel=1e-10)
    # x*: stationary point of F, from client gradients written out per client
    grads = np.array([A @ (pb.x_star - b) for A, b in zip(pb.A, pb.b)])
    assert np.linalg.norm(grads.mean(0)) < 1e-13
    assert max(np.linalg.norm(g) for g in grads) == pytest.approx(0.8, rel=1e-12) == c["zeta"]
    assert c["zeta2_avg"] == pytest.approx(np.mean([g @ g for g in grads]), rel=1e-12)
    assert c["D0"] == pytest.approx(1.5) and c["Delta"] == pytest.approx(pb.value(pb.x0) - pb.F_star)
    F_star = np.mean([0.5 * (pb.x_star - b) @ A @ (pb.x_star - b) for A, b in zip(pb.A, pb.b)])
    assert pb.F_star == pytest.approx(F_star, rel=1e-12) and c["Gamma"] == pytest.approx(F_star, rel=1e-12)
    # distinct curvature: no two clients share a Hessian
    assert np.min([np.abs(pb.A[i] - pb.A[j]).max() for i in range(5) for j in range(i)]) > 1e-3


@pytest.mark.parametrize("make", FAMILIES)
def test_sigma_G_is_the_sup_on_the_domain(make):
    pb = make(L=2.0, mu=0.3, d=5, M=4, zeta=0.8, D0=1.0, radius=1.7, seed=2)
    rho, sG2 = pb.constants["radius"], pb.constants["sigma_G2"]
    rng = np.random.default_rng(0)
    e = rng.standard_normal((4000, 5))
    e *= rho / np.linalg.norm(e, axis=1, keepdims=True) * rng.uniform(0.5, 1, size=(4000, 1)) ** 0.1
    x = pb.x_star + e
    diff = np.stack([pb.client_grads(xi) - pb.grad(xi) for xi in x])  # [N, M, d]
    sampled = np.max(np.sum(diff**2, -1))
    assert sampled <= sG2 * (1 + 1e-12)
    sampled_avg = np.max(np.mean(np.sum(diff**2, -1), 1))
    avg2 = pb.constants["sigma_G2_avg"]
    assert sampled_avg <= avg2 * (1 + 1e-12) and avg2 <= sG2 and avg2 >= pb.constants["zeta2_avg"]
    start = e[np.argmax(np.mean(np.sum(diff**2, -1), 1))]

    def neg_avg(v):
        return -np.mean([np.sum((pb.A[i] @ (pb.x_star + v - pb.b[i]) - pb.grad(pb.x_star + v)) ** 2) for i in range(pb.M)])
    res = optimize.minimize(neg_avg, start, method="SLSQP", constraints=[{"type": "ineq", "fun": lambda v: rho**2 - v @ v}],
                            options={"ftol": 1e-14, "maxiter": 500})
    assert -res.fun == pytest.approx(avg2, rel=1e-7)
    # local maximisation on the sphere from the best sampled points reaches the stated value
    best = 0.0
    for i in range(pb.M):
        B, g = pb.A[i] - pb.hessian(), pb.A[i] @ (pb.x_star - pb.b[i])
        for start in e[np.argsort(-np.sum(diff[:, i] ** 2, -1))[:5]]:
            res = optimize.minimize(lambda v, B=B, g=g: -np.sum((B @ v + g) ** 2), start, method="SLSQP",
                                    constraints=[{"type": "ineq", "fun": lambda v: rho**2 - v @ v}],
                                    options={"ftol": 1e-14, "maxiter": 500})
            best = max(best, -res.fun)
    assert best == pytest.approx(sG2, rel=1e-7)


def test_ball_sup_hard_case_by_hand():
    # B = diag(3, 1), g = (0, 1), rho = 1: max of 9 e1^2 + (e2 + 1)^2 on the circle is at e2 = 1/8:
    # 9 (63/64) + (9/8)^2 = 10.125 (the top eigenvector carries no weight of B g: the "hard case")
    assert ball_sup(np.diag([3.0, 1.0])[None], np.array([[0.0, 1.0]]), 1.0)[0] == pytest.approx(10.125, rel=1e-12)
    # g along the top eigenvector: (3 + 2)^2 at e = (1, 0) with g = (2, 0)
    assert ball_sup(np.diag([3.0, 1.0])[None], np.array([[2.0, 0.0]]), 1.0)[0] == pytest.approx(25.0, rel=1e-12)


def test_mix_zero_is_a_shared_hessian_and_bad_input():
    pb = rotated_quadratic(d=4, M=3, mix=0.0, zeta=1.0)
    assert np.allclose(pb.A, pb.A[0]) and pb.constants["sigma_G"] == pytest.approx(1.0, rel=1e-9)
    for kw in (dict(mix=1.5), dict(mu=2.0), dict(zeta=-1.0), dict(M=1, zeta=1.0), dict(radius=0.0), dict(d=3000)):
        with pytest.raises(UserInputError):
            rotated_quadratic(**kw)


def _fedavg_fixed_point(pb, eta, K):
    """x with x = (1/M) sum_i [P_i x + (I - P_i) b_i], P_i = (I - eta A_i)^K: FedAvg's deterministic limit."""
    d = pb.d
    P = [np.linalg.matrix_power(np.eye(d) - eta * A, K) for A in pb.A]
    lhs = sum(np.eye(d) - Pi for Pi in P)
    rhs = sum((np.eye(d) - Pi) @ b for Pi, b in zip(P, pb.b))
    return np.linalg.solve(lhs, rhs)


@pytest.mark.parametrize("make", FAMILIES)
def test_full_participation_drifts_to_the_closed_form_fixed_point(make):
    eta, K = 0.2, 5
    pb = make(L=1.0, mu=0.2, d=4, M=4, zeta=1.0, sigma=0.0, seed=1)
    sim = simulate(pb, fedavg(eta, K), uniform(4, 4), 2, 400, device="cpu")
    fp = _fedavg_fixed_point(pb, eta, K)
    assert np.allclose(sim.final_x[0], fp, atol=1e-10)
    assert np.linalg.norm(fp - pb.x_star) > 1e-2  # drift: the fixed point is not x*
    same = make(L=1.0, mu=0.2, d=4, M=4, zeta=0.0, sigma=0.0, seed=1)  # no heterogeneity at x*: no drift
    sim0 = simulate(same, fedavg(eta, K), uniform(4, 4), 2, 400, device="cpu")
    assert np.allclose(sim0.final_x[0], same.x_star, atol=1e-10)


def test_client_apply_both_layouts_match_a_loop():
    rng = np.random.default_rng(3)
    mats = torch.as_tensor(rng.standard_normal((40, 3, 5)))
    for n in (1, 2, 3, 40):  # n = 1, 2 of 40 clients: gathered layout; n = 3, 40: client-major
        idx = torch.as_tensor(np.argsort(rng.random((4, 40)), 1)[:, :n])
        v = torch.as_tensor(rng.standard_normal((4, n, 5)))
        out = client_apply(mats, idx, v).numpy()
        w = torch.as_tensor(rng.standard_normal((4, n, 3)))
        out_t = client_apply(mats, idx, w, transpose=True).numpy()
        for t in range(4):
            for j in range(n):
                m = mats[idx[t, j]].numpy()
                assert np.allclose(out[t, j], m @ v[t, j].numpy(), rtol=1e-13, atol=1e-13)
                assert np.allclose(out_t[t, j], m.T @ w[t, j].numpy(), rtol=1e-13, atol=1e-13)
