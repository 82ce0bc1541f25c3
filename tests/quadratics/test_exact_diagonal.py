"""The exact path coordinate by coordinate (quadratics.exact.diagonal): against the dense path, against a scalar
recursion written here by hand, and its check of the declared separability."""

from __future__ import annotations

import numpy as np
import pytest

from quadratics import fast, fedavg, fedprox, heterogeneous_quadratic, uniform
from quadratics.curvature import rotated_quadratic
from quadratics.exact import applies, exact_moments
from quadratics.exact import evaluate as ev
from quadratics.exact.declare import markov_law, uniform_law
from quadratics.exact.diagonal import _DiagonalPlan, diagonal_plan
from quadratics.exact.plan import _Plan
from quadratics.exact.probe import _Declined

TRANSITION, INITIAL = np.array([[0.9, 0.1], [0.4, 0.6]]), np.array([0.3, 0.7])


def _problem(d: int, M: int, sigma: float = 0.8):
    return heterogeneous_quadratic(L=1.0, mu=1.0 if d == 1 else 0.2, d=d, M=M, zeta=0.7, sigma=sigma, D0=1.5,
                                   seed=d + M)


CASES = [  # (d, M, K, algorithm, law)
    (1, 2, 1, "fedavg", "uniform"), (2, 5, 4, "fast", "uniform"), (3, 9, 13, "fedavg", "markov"),
    (4, 3, 2, "fedprox", "uniform"), (5, 4, 7, "fast", "markov"), (6, 16, 3, "fedavg", "uniform"),
]


@pytest.mark.parametrize("d, M, K, name, law", CASES)
def test_agrees_with_the_dense_path_to_1e_10_and_within_both_bounds(d, M, K, name, law):
    algorithm = {"fedavg": fedavg(eta=0.3 / K, K=K), "fast": fast(eta=0.25 / K, K=K),
                 "fedprox": fedprox(eta=0.2 / K, K=K, mu_prox=0.5)}[name]
    pb, pat = _problem(d, M), uniform(M=M, S=max(1, M // 2))
    chain = None
    if law == "markov":
        chain = markov_law(TRANSITION, [uniform_law(M, max(1, M - 1)), uniform_law(M, 1, pool=[0])], INITIAL)
    for R, first in ((1, 1), (37, 0), (10**6, 1), (10**6, 500_000)):
        diag = ev._evaluate(_DiagonalPlan(pb, algorithm, pat, law=chain), R, first)
        dense = ev._evaluate(_Plan(pb, algorithm, pat, law=chain), R, first)
        for (dv, de), (sv, se) in ((diag[1:3], dense[1:3]), (diag[3:5], dense[3:5])):
            assert np.all(np.abs(dv - sv) <= 1e-10 * np.abs(sv)), (R, first, dv, sv)
            assert np.all(np.abs(dv - sv) <= de + se)  # the two rounding bounds cover the two computations
            assert np.all(de < 1e-7 * np.abs(dv)) and np.all(de <= 2 * se)  # as tight as the dense bound


@pytest.mark.parametrize("S", [1, 5])
def test_fedavg_against_a_scalar_recursion_per_coordinate_by_hand(S):
    """FedAvg, eta_g = 1, shared A = diag(lam), b_i = x* + delta_i (sum_i delta_i = 0). Coordinate j, s = 1 - eta lam_j:
    K local steps give y_i - b_ij = s^K (x - b_ij) + noise of variance eta^2 (sigma^2/d) (1 - s^2K)/(1 - s^2).
    S = M (every client, weight 1/M): e' = s^K e + mean noise; S = 1 (one client, weight 1):
    e' = s^K e + (1 - s^K) delta_ij + noise_i. So E e'^2 = a E e^2 + c with a = s^2K and c per case."""
    M, d, K, eta, sigma = 5, 3, 4, 0.15, 0.9
    pb = _problem(d, M, sigma)
    s = 1 - eta * pb.lam
    noise = eta**2 * sigma**2 / d * (1 - s ** (2 * K)) / (1 - s**2)
    delta = pb.b - pb.x_star
    a = s ** (2 * K)
    c = noise / M if S == M else (1 - s**K) ** 2 * np.mean(delta**2, 0) + noise
    e0sq = (pb.x0 - pb.x_star) ** 2
    weights = {"dist_sq": np.ones(d), "gap": pb.lam / 2, "grad_sq": pb.lam**2}
    # R = 30 round by round
    Es, hist = e0sq.copy(), []
    for _ in range(30):
        Es = a * Es + c
        hist.append(Es)
    ex = exact_moments(pb, fedavg(eta=eta, K=K), uniform(M=M, S=S), rounds=30)
    for k, w in weights.items():
        assert ex.final[k] == pytest.approx(float(w @ hist[-1]), rel=1e-10, abs=0)
        assert ex.mean[k] == pytest.approx(float(np.mean([w @ h for h in hist])), rel=1e-10, abs=0)
    # R = 10^6 from the geometric sums: E e_R^2 = a^R e0^2 + c (1 - a^R)/(1 - a), and its mean over r = 1..R
    R = 10**6
    aR = a**R
    fin = aR * e0sq + c * (1 - aR) / (1 - a)
    mean = (e0sq * a * (1 - aR) / (1 - a) + c / (1 - a) * (R - a * (1 - aR) / (1 - a))) / R
    ex = exact_moments(pb, fedavg(eta=eta, K=K), uniform(M=M, S=S), rounds=R)
    assert ex.order == 3
    for k, w in weights.items():
        assert ex.final[k] == pytest.approx(float(w @ fin), rel=1e-10, abs=0)
        assert ex.mean[k] == pytest.approx(float(w @ mean), rel=1e-10, abs=0)


def _coupled(alg):
    """FedAvg's declaration kept, its round changed to mix coordinate d-1 into coordinate 0 (not separable)."""

    def round_(state, bound, q, r, gen, aux):
        new = alg.round(state, bound, q, r, gen, aux)
        x = new["x"].clone()
        x[:, 0] = x[:, 0] + 0.01 * state["x"][:, -1]
        return {**new, "x": x}

    return alg._replace(name="coupled", round=round_)


def test_a_round_that_mixes_coordinates_is_caught_and_not_scored_by_coordinate():
    alg = _coupled(fedavg(eta=0.1, K=2))
    small, pat = _problem(3, 4), uniform(M=4, S=2)
    with pytest.raises(_Declined, match="not separable by coordinate"):
        _DiagonalPlan(small, alg, pat)
    assert type(diagonal_plan(small, alg, pat)) is _Plan  # small enough for the dense path (which trusts it)
    big = _problem(40, 4)
    ok, why = applies(big, alg, uniform(M=4, S=2))
    assert not ok and "order 861" in why and "not separable by coordinate" in why
    ok, why = applies(big, fedavg(eta=0.1, K=2), uniform(M=4, S=2))
    assert ok and ev.exact_shape(big, fedavg(eta=0.1, K=2), uniform(M=4, S=2)) == (3, 40)


def test_rotated_hessians_are_not_scored_by_coordinate():
    pb = rotated_quadratic(L=1.0, mu=0.2, d=3, M=3, zeta=0.5, sigma=0.5, D0=1.0)
    with pytest.raises(_Declined, match="not diagonal"):
        _DiagonalPlan(pb, fedavg(eta=0.1, K=2), uniform(M=3, S=2))
    assert ev.exact_shape(pb, fedavg(eta=0.1, K=2), uniform(M=3, S=2)) == (1 + 3 + 6, 1)


def test_the_questions_build_one_plan_per_instance_and_answer_each_instance_for_itself(monkeypatch, recorded_calls):
    """applies and exact_shape of the same objects build the plan once; other objects get their own answer (a
    rotated problem, asked right after, is not answered from the diagonal one's plan)."""
    built = recorded_calls(ev, "diagonal_plan")
    monkeypatch.setattr(ev._ASKED, "entries", [])
    pb, alg, pat = _problem(3, 4), fedavg(eta=0.1, K=2), uniform(M=4, S=2)
    assert applies(pb, alg, pat)[0] and applies(pb, alg, pat, rounds=10)[0]
    assert ev.exact_shape(pb, alg, pat) == (3, 3)
    assert built == [pb]
    rot = rotated_quadratic(L=1.0, mu=0.2, d=3, M=4, zeta=0.7, sigma=0.8, D0=1.5, seed=1)
    assert ev.exact_shape(rot, alg, pat) == (1 + 3 + 6, 1)  # dense: one block of order 1 + D + D(D+1)/2
    assert built == [pb, rot]
    assert ev.exact_shape(pb, alg, pat) == (3, 3) and built == [pb, rot]  # the last two are remembered
