"""F3AST Table I (spec F3AST.EX1): region, vertices, named points, r*, KKT, certificates."""

from fractions import Fraction as Fr

import numpy as np
import pytest

from rate_region.models import named_model
from rate_region.optimum import min_variance_rates
from rate_region.region import extreme_points, membership, naive_rate, support
from rate_region.variance import H

TIGHT = 1e-12  # exact methods: floating-point round-off only
CVX = 1e-6  # CVXPY: the agreement tolerance


@pytest.fixture(scope="module")
def table1():
    return named_model("table1")


def test_vertices_are_the_spec_pentagon(table1):
    got = {tuple(np.round(v, 12)) for v in extreme_points(table1, None)}
    spec = {(0.0, 0.0), (0.375, 0.0), (0.375, 0.5), (0.075, 0.8), (0.0, 0.8)}
    assert got == spec


@pytest.mark.parametrize(
    "r, achievable",
    [((0.375, 0.0), True), ((0.375, 0.5), True), ((0.225, 0.65), True), ((1.0, 1.0), False),
     ((0.44, 0.44), False), ((0.075, 0.8), True), ((0.1, 0.81), False)],
)
def test_membership_of_named_points(table1, r, achievable):
    m = membership(table1, None, r)
    assert m.achievable is achievable
    if achievable:
        assert m.policy is not None and m.policy.check()
        np.testing.assert_allclose(m.policy.rate(), r, atol=1e-12)
    else:
        h, _ = support(table1, None, m.direction)
        assert float(np.dot(m.direction, r)) > h + 1e-9


def test_policy_for_rb_is_one_if_available_else_two(table1):
    pol = membership(table1, None, (0.375, 0.5)).policy
    # configuration {1,2} must select client 1 (index 0) with probability 1
    rows = [(tuple(np.flatnonzero(pol.config_sets[c])), tuple(np.flatnonzero(s)), w)
            for c, s, w in zip(pol.config, pol.subsets, pol.prob) if w > 1e-12]
    assert ((0, 1), (0,), 1.0) in [(a, s, round(w, 12)) for a, s, w in rows]


def test_naive_rate_is_9_40_and_13_20(table1):
    np.testing.assert_allclose(naive_rate(table1, None, [0.5, 0.5]), [9 / 40, 13 / 20], atol=TIGHT)
    # on the face r1 + r2 = 7/8
    assert abs(sum(naive_rate(table1, None, [0.5, 0.5])) - 7 / 8) < TIGHT


@pytest.mark.parametrize("objective, H_star", [("p2", 7 / 6), ("p", 7 / 3)])
@pytest.mark.parametrize("method", ["auto", "enumeration", "cvxpy"])
def test_r_star_is_rb(table1, objective, H_star, method):
    opt = min_variance_rates(table1, None, None, objective, method=method)
    tol = CVX if method == "cvxpy" else TIGHT
    np.testing.assert_allclose(opt.r_star, [0.375, 0.5], rtol=tol, atol=tol)
    assert abs(opt.H - H_star) <= tol * H_star
    assert opt.success


def test_markov_version_has_the_same_r_star():
    opt = min_variance_rates(named_model("table1-markov"))
    np.testing.assert_allclose(opt.r_star, [0.375, 0.5], atol=TIGHT)


def test_kkt_multipliers_match_the_spec(table1):
    # spec: grad H2 = (-16/9, -1); mu2 = 1 on r1+r2 <= 7/8, mu1 = 7/9 on r1 <= 3/8
    r = min_variance_rates(table1).r_star
    grad = -0.25 / r**2
    mu2 = -grad[1]
    mu1 = -grad[0] - mu2
    assert abs(mu2 - 1) < TIGHT and abs(mu1 - 7 / 9) < TIGHT and mu1 > 0
    assert abs(r[0] - 3 / 8) < TIGHT and abs(r.sum() - 7 / 8) < TIGHT  # both constraints active


def test_H_table_of_the_spec():
    p = np.array([0.5, 0.5])
    pts = np.array([[3 / 8, 1 / 2], [9 / 40, 13 / 20], [3 / 40, 4 / 5], [7 / 16, 7 / 16]])
    H2 = [Fr(7, 6), Fr(175, 117), Fr(175, 48), Fr(8, 7)]
    np.testing.assert_allclose(H(pts, p, "p2"), [float(x) for x in H2], rtol=1e-14)
    np.testing.assert_allclose(H(pts, p, "p"), [2 * float(x) for x in H2], rtol=1e-14)
    assert H(np.array([3 / 8, 0.0]), p) == np.inf


def test_r_star_on_grid_search(table1):
    # independent check: grid over the spec's inequalities
    g = np.linspace(1e-4, 0.8, 801)
    R1, R2 = np.meshgrid(g, g)
    feas = (R1 <= 3 / 8) & (R2 <= 4 / 5) & (R1 + R2 <= 7 / 8 + 1e-12)
    Hs = np.where(feas, 0.25 / R1 + 0.25 / R2, np.inf)
    i = np.unravel_index(np.argmin(Hs), Hs.shape)
    assert Hs[i] >= 7 / 6 - 1e-12
    np.testing.assert_allclose([R1[i], R2[i]], [0.375, 0.5], atol=2e-3)
