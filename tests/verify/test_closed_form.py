"""Closed forms of scalar counterexamples read from declarations (issue 27 item 4, verify/search/closed_form.py).

Independent numbers: the exact path's own value (quadratics.exact by repeated squaring in float64, through
verify.exact_score), and moment recursions iterated here in plain floats by enumerating the two equally likely
participation outcomes of a uniform 1-of-2 law, with the one-round numbers written in the test by hand.
"""

import dataclasses

import numpy as np
import pytest
import torch

# the conditional violation `falsify FAST.T1 --problems quadratic --budget 200 --seed 0` shrank to (LHS/RHS 11.05)
FAST_T1_POINT = dict(problem="quadratic", M=2, m_frac=0.1, K=1, R=28104, d=1, mu_frac=0.1, beta=0.9, zeta=10.0,
                     sigma=0.0, x0_scale=0.07, eta_frac=0.004, draw=0, mix=0.6, spread=1.0, samples=14)


def _fast_t1():
    from verify.scenarios import get

    return get("FAST.T1")


def test_fast_t1_shrunk_violation_closed_form_agrees_with_the_exact_path():
    from verify.exact_score import exact_lhs
    from verify.search.closed_form import derive

    sc = _fast_t1()
    out = derive(sc, FAST_T1_POINT)
    assert out["derived"], out
    ex = exact_lhs(sc.build(sc.point(FAST_T1_POINT)))  # quadratics.exact: G^R by squaring, float64
    assert abs(out["lhs_closed_form"] - ex.value) <= 1e-10 * abs(ex.value)
    assert out["lhs_closed_form"] / out["rhs_at_point"] == pytest.approx(11.05, abs=0.005)
    assert any(a <= 28104 <= b for a, b in out["violated_for_R"]), out["violated_for_R"]
    assert out["measure"] == "mean of E grad_sq over rounds 1..28104 (in R: mean over rounds 1..R)"
    assert out["compared_with"] == "exact path"


def _hand_mean(R, outcomes, Q, c, s, e0, first=1):
    """(measure at round R, its mean over rounds first..R) of E[Q e^2 + c e + s], e' = A e + c + n, each outcome
    (A, c, Var n) with probability 1/len(outcomes), iterated in floats."""
    mu, sq, vals = e0, e0 * e0, [Q * e0 * e0 + c * e0 + s]
    for _ in range(R):
        mu, sq = (sum(A * mu + b for A, b, _ in outcomes) / len(outcomes),
                  sum(A * A * sq + 2 * A * b * mu + b * b + v for A, b, v in outcomes) / len(outcomes))
        vals.append(Q * sq + c * mu + s)
    return vals[R], sum(vals[first:R + 1]) / (R + 1 - first)


def test_fast_t1_uniform_1_of_2_matches_a_hand_recursion():

    from verify.search.closed_form import closed_lhs

    sc = _fast_t1()
    pt = dict(problem="quadratic", M=2, m_frac=0.1, K=1, R=10, d=1, zeta=2.0, sigma=1.0, x0_scale=0.5, eta_frac=0.5)
    pb = sc.build(sc.point(pt)).problem
    # by hand: curvature 1, optima x* +- 2 (b = 2.5, -1.5 around x* = 0.5), x0 = 0; step eta_frac / (8 L K) = 1/16;
    # one client of two per round with weight 1: e' = (1 - eta) e + eta u_i + eta xi, Var xi = sigma^2 = 1
    assert np.ravel(pb.b).tolist() == [2.5, -1.5] and float(pb.x_star[0]) == 0.5 and float(pb.x0[0]) == 0.0
    eta = 1 / 16
    outcomes = [(1 - eta, eta * 2.0, eta**2), (1 - eta, -eta * 2.0, eta**2)]
    got = closed_lhs(sc, pt)
    assert not isinstance(got, str), got
    R = next(iter(got.lhs.free_symbols))
    for r in (1, 2, 7, 60, 500):
        hand = _hand_mean(r, outcomes, 1.0, 0.0, 0.0, -0.5)[1]  # grad_sq = (1 * e)^2 averaged over rounds 1..R
        assert float(got.lhs.subs(R, r).evalf(30)) == pytest.approx(hand, rel=1e-12), r
    assert got.stationary == pytest.approx(eta * (4 + 1) / (2 - eta), rel=1e-15)  # s* = eta^2 (4 + 1) / (1 - (1-eta)^2)


def _declared_two_client_round():
    """A user's round on 2 clients, features (1, q_1, q_2, 1_1, 1_2): A = 0.9 - 0.2 q_1 - 0.3 q_2 + 0.05 1_1,
    c = 0.1 + 0.4 q_1 - 0.2 q_2 + 0.3 1_2; noise: client 1 Var 0.01 q_1^2, client 2 0.04 1_2 + 2 x 0.005 q_2 1_2."""
    from quadratics.exact.declare import RoundCoefficients, RoundMap

    t = lambda x: torch.tensor(x, dtype=torch.float64)  # noqa: E731
    noise = torch.zeros(2, 2, 2, 1, 1, dtype=torch.float64)
    noise[0, 0, 0], noise[1, 1, 1], noise[1, 0, 1], noise[1, 1, 0] = 0.01, 0.04, 0.005, 0.005
    co = RoundCoefficients(t([[[0.9]], [[-0.2]], [[-0.3]], [[0.05]], [[0.0]]]), t([[0.1], [0.4], [-0.2], [0.0], [0.3]]),
                           noise, 1.0, 1)
    return RoundMap((("x", 1),), t([1.0]), t([0.25]), lambda r: co)


@pytest.mark.parametrize("kind", ["final", "mean"])
def test_declared_user_round_with_drift_and_a_linear_measure_matches_enumeration(kind):
    from quadratics.exact.declare import uniform_law
    from verify.search.closed_form import lhs_of_R, moment_recursion

    rec = moment_recursion(_declared_two_client_round(), uniform_law(2, 1))
    assert not isinstance(rec, str), rec
    # client 1 drawn: A = 0.75, c = 0.5, Var n = 0.01; client 2: A = 0.6, c = 0.2, Var n = 0.04 + 0.01
    outcomes = [(0.75, 0.5, 0.01), (0.6, 0.2, 0.05)]
    expr = lhs_of_R(rec, (np.array([[2.0]]), np.array([0.3]), 0.1), kind, 1, 0)
    R = next(iter(expr.free_symbols))
    for r in (1, 2, 5, 30, 400):
        hand = _hand_mean(r, outcomes, 2.0, 0.3, 0.1, 0.75)[0 if kind == "final" else 1]
        assert float(expr.subs(R, r).evalf(30)) == pytest.approx(hand, rel=1e-12), r


def _renamed_build(point):
    """FAST.T1's instance with its algorithm renamed (same declarations): what a user's copy would be."""
    inst = _fast_t1().build(point)
    return dataclasses.replace(inst, algorithm=inst.algorithm._replace(name="my-local-method"))


def test_a_renamed_algorithm_gets_the_same_closed_form():
    from verify.search.closed_form import closed_lhs

    sc = _fast_t1()
    renamed = dataclasses.replace(sc, id="USER.T1", build=_renamed_build)
    pt = dict(FAST_T1_POINT, R=500)
    assert renamed.build(renamed.point(pt)).algorithm.name == "my-local-method"
    a, b = closed_lhs(sc, pt), closed_lhs(renamed, pt)
    assert not isinstance(b, str), b
    assert b.recursion == a.recursion and b.lhs == a.lhs


def test_an_algorithm_that_declares_nothing_is_refused_with_its_reason():
    from verify.search.closed_form import closed_lhs

    sc = _fast_t1()

    def build(point):
        inst = sc.build(point)
        return dataclasses.replace(inst, algorithm=inst.algorithm._replace(name="opaque", linear=None))

    got = closed_lhs(dataclasses.replace(sc, id="USER.T1", build=build), FAST_T1_POINT)
    assert got == "algorithm 'opaque' declares no affine round (Algorithm.linear): simulated"


def _declared_triangular_round(feed):
    """A user's round on 2 clients and a state of 2 numbers, features (1, q_1, q_2, 1_1, 1_2): B_f diagonal, except
    that the first coordinate feeds the second by ``feed`` in B_0 (lower triangular: the moments stay triangular)."""
    from quadratics.exact.declare import RoundCoefficients, RoundMap

    t = lambda x: torch.tensor(x, dtype=torch.float64)  # noqa: E731
    B = t(np.array([np.diag(v) for v in ([0.9, 0.8], [-0.2, -0.1], [-0.3, 0.05], [0.05, 0.0], [0.0, 0.0])]))
    B[0, 1, 0] = feed
    c = t([[0.1, -0.2], [0.4, 0.1], [-0.2, 0.3], [0.0, 0.0], [0.3, 0.0]])
    noise = torch.zeros(2, 2, 2, 2, 2, dtype=torch.float64)
    noise[0, 0, 0] = t([[0.01, 0.002], [0.002, 0.02]])  # client 1: q_1^2 N
    noise[1, 1, 1] = t([[0.04, 0.0], [0.0, 0.01]])  # client 2: 1_2 N + 2 q_2 1_2 N'
    noise[1, 0, 1] = noise[1, 1, 0] = t([[0.005, 0.0], [0.0, 0.0]])
    co = RoundCoefficients(B, c, noise, 1.0, 1)
    return RoundMap((("x", 2),), t([1.0, -0.5]), t([0.25, 0.5]), lambda r: co)


@pytest.mark.parametrize("kind", ["final", "mean"])
@pytest.mark.parametrize("feed", [0.0, 0.15])
def test_declared_triangular_round_of_two_coordinates_matches_enumeration(kind, feed):
    from quadratics.exact.declare import uniform_law
    from verify.search.closed_form import lhs_of_R, moment_recursion

    rec = moment_recursion(_declared_triangular_round(feed), uniform_law(2, 1))
    assert not isinstance(rec, str), rec
    # client 1 drawn: A = diag(0.9 - 0.2 + 0.05, 0.8 - 0.1), c = (0.1 + 0.4, -0.2 + 0.1), Cov n = N_1;
    # client 2: A = diag(0.9 - 0.3, 0.8 + 0.05), c = (0.1 - 0.2 + 0.3, -0.2 + 0.3), Cov n = [[0.04 + 0.01, 0], [0, 0.01]]
    lower = np.array([[0.0, 0.0], [feed, 0.0]])  # and A[1, 0] = feed in both
    outcomes = [(np.diag([0.75, 0.7]) + lower, np.array([0.5, -0.1]), np.array([[0.01, 0.002], [0.002, 0.02]])),
                (np.diag([0.6, 0.85]) + lower, np.array([0.2, 0.1]), np.array([[0.05, 0.0], [0.0, 0.01]]))]
    Q, cv, s = np.array([[2.0, 0.5], [0.5, 1.0]]), np.array([0.3, -0.1]), 0.1
    m = np.array([0.75, -1.0])
    S, vals = np.outer(m, m), []
    for _ in range(400):
        vals.append(np.trace(Q @ S) + cv @ m + s)
        m, S = (sum(A @ m + b for A, b, _ in outcomes) / 2,
                sum(A @ S @ A.T + np.outer(A @ m, b) + np.outer(b, A @ m) + np.outer(b, b) + N for A, b, N in outcomes) / 2)
    vals.append(np.trace(Q @ S) + cv @ m + s)
    expr = lhs_of_R(rec, (Q, cv, s), kind, 1, 0)
    R = next(iter(expr.free_symbols))
    for r in (1, 3, 40, 400):
        hand = vals[r] if kind == "final" else float(np.mean(vals[1:r + 1]))
        assert float(expr.subs(R, r).evalf(30)) == pytest.approx(hand, rel=1e-12), r


def test_fast_t1_two_coordinates_agree_with_the_exact_path_and_a_rotated_one_is_refused():
    from verify.exact_score import exact_lhs
    from verify.search.closed_form import closed_lhs

    sc = _fast_t1()
    pt = dict(problem="quadratic", M=3, m_frac=0.5, K=2, R=300, d=2, sigma=0.5, zeta=1.0, eta_frac=0.3)
    got = closed_lhs(sc, pt)
    assert not isinstance(got, str), got
    ex = exact_lhs(sc.build(sc.point(pt)))
    R = next(iter(got.lhs.free_symbols))
    assert float(got.lhs.subs(R, 300).evalf(30)) == pytest.approx(ex.value, rel=1e-10)
    rotated = closed_lhs(sc, dict(pt, problem="quadratic-rotated"))
    assert rotated.startswith("the moment recursion is not triangular")


def test_an_rhs_undefined_once_r_is_free_is_not_derived_and_says_why():
    # the drift bound at eta = L-step, K = 2 (a shrunk REGIME.drift-3x counterexample of the benchmark): its RHS
    # with every input but R substituted has Max(..., nan); derive crashed the whole benchmark run there
    from pathlib import Path

    from bounds import plugins
    from verify.scenarios import get
    from verify.search.closed_form import derive

    plugins.add_files([str(Path(__file__).resolve().parents[1] / "benchmarks" / "planted" / "regime.py")])
    pt = {"problem": "quadratic-diagonal", "M": 2, "K": 2, "R": 108, "eta_frac": 1.0, "d": 2,
          "mu_frac": 0.9977439307335945, "mix": 0.7, "D0": 1e-08, "zeta": 1.0, "sigma": 0.0001, "draw": 0}
    got = derive(get("REGIME.drift-3x"), pt)
    assert got["derived"] is False and "undefined at this point" in got["why"]
