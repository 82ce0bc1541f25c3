"""Property-based tests (hypothesis) of the F3AST and Amplified SCAFFOLD encodings.

H(r) convex and decreasing in each r_k on (0,1] (both variants), homogeneity in r, the exact
variance identity (Lemma B.5) against enumeration of random selection laws, bound (6) on those
instances, and monotonicity / scaling of the rate results.
"""

import itertools

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from bounds import registry

REL = 1e-9
rate = st.floats(0.01, 1.0)
weight = st.floats(0.05, 1.0)
VARIANTS = ("F3AST.E3@p2", "F3AST.E3@p")


def vectors(elements, n_min=1, n_max=5):
    return st.integers(n_min, n_max).flatmap(lambda n: st.lists(elements, min_size=n, max_size=n))


def normalised(w):
    w = np.asarray(w, dtype=float)
    return w / w.sum()


def H(key, p, r):
    return float(registry.get(key).evaluate({"p": p, "r": r}).value)


@pytest.mark.parametrize("key", VARIANTS)
@given(data=st.data())
def test_h_midpoint_convex(key, data):
    n = data.draw(st.integers(1, 5))
    p = normalised(data.draw(st.lists(weight, min_size=n, max_size=n)))
    r1 = np.array(data.draw(st.lists(rate, min_size=n, max_size=n)))
    r2 = np.array(data.draw(st.lists(rate, min_size=n, max_size=n)))
    mid = H(key, p, (r1 + r2) / 2)
    assert mid <= (H(key, p, r1) + H(key, p, r2)) / 2 * (1 + REL)


@pytest.mark.parametrize("key", VARIANTS)
@given(data=st.data())
def test_h_decreasing_in_each_rate(key, data):
    n = data.draw(st.integers(1, 5))
    p = normalised(data.draw(st.lists(weight, min_size=n, max_size=n)))
    r = np.array(data.draw(st.lists(st.floats(0.01, 0.99), min_size=n, max_size=n)))
    k = data.draw(st.integers(0, n - 1))
    up = r.copy()
    up[k] = data.draw(st.floats(r[k], 1.0).filter(lambda x: x > r[k] * (1 + 1e-6)))
    assert H(key, p, up) < H(key, p, r)


@pytest.mark.parametrize("key", VARIANTS)
@given(p=vectors(weight), c=st.floats(1.0, 20.0))
def test_h_homogeneous_of_degree_minus_one_in_r(key, p, c):
    p = normalised(p)
    r = np.full(len(p), 1.0)
    assert H(key, p, r / c) == pytest.approx(c * H(key, p, r), rel=REL)


@given(p=vectors(weight), r=vectors(rate))
def test_h_variants_ordered_and_floor(p, r):
    # p_k <= 1 gives sum p^2/r <= sum p/r; Cauchy-Schwarz gives sum p/r >= (sum p)^2/sum r >= 1
    n = min(len(p), len(r))
    p, r = normalised(p[:n]), np.array(r[:n])
    assert H("F3AST.E3@p2", p, r) <= H("F3AST.E3@p", p, r) * (1 + REL)
    assert H("F3AST.E3@p", p, r) >= 1 - REL


@given(p=vectors(weight), r=vectors(rate), e=st.integers(1, 10), g2=st.floats(0.01, 10.0))
def test_l34_difference_of_factors(p, r, e, g2):
    # (6) - (7) = 4E^2G^2 (sum p(1-p)/r - 1 - sum p^2): neither bound dominates in general
    n = min(len(p), len(r))
    p, r = normalised(p[:n]), np.array(r[:n])
    vals = {"E": e, "G2": g2, "p": p, "r": r}
    b6 = float(registry.get("F3AST.L3.4@eq6").evaluate(vals).value)
    b7 = float(registry.get("F3AST.L3.4@eq7").evaluate(vals).value)
    by_hand = 4 * e**2 * g2 * (sum(pk * (1 - pk) / rk for pk, rk in zip(p, r)) - 1 - sum(pk**2 for pk in p))
    assert b6 - b7 == pytest.approx(by_hand, rel=1e-7, abs=1e-9 * (abs(b6) + abs(b7)))


def test_l34_neither_factor_dominates():
    one = {"E": 1, "G2": 0.25}
    small = {**one, "p": "0.5,0.5", "r": "0.01,0.01"}  # (6) = 99, (7) = 50.5
    full = {**one, "p": "0.5,0.5", "r": "1,1"}  # (6) = 0, (7) = 1
    assert registry.get("F3AST.L3.4@eq6").evaluate(small).value > registry.get("F3AST.L3.4@eq7").evaluate(small).value
    assert registry.get("F3AST.L3.4@eq6").evaluate(full).value < registry.get("F3AST.L3.4@eq7").evaluate(full).value


@st.composite
def selection_instances(draw):
    """A random law over subsets of N clients (every client selected with positive probability),
    weights p and update vectors with ||v_k|| <= 1."""
    n = draw(st.integers(1, 3))
    subsets = list(itertools.product((0, 1), repeat=n))
    probs = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=len(subsets), max_size=len(subsets))))
    assume(probs.sum() > 1e-3)
    probs = probs / probs.sum()
    X = np.array(subsets, dtype=float)
    r = probs @ X
    assume(r.min() > 1e-2)
    p = normalised(draw(st.lists(weight, min_size=n, max_size=n)))
    d = draw(st.integers(1, 3))
    v = np.array(draw(st.lists(st.floats(-1.0, 1.0), min_size=n * d, max_size=n * d))).reshape(n, d)
    v = v / np.maximum(1.0, np.linalg.norm(v, axis=1, keepdims=True))
    return probs, X, r, p, v


@given(inst=selection_instances(), eta=st.floats(0.1, 2.0))
def test_lb5_identity_matches_enumeration(inst, eta):
    probs, X, r, p, v = inst
    vbar = p @ v
    # Direct: E||sum_{k in S} (p_k/r_k) v_k - vbar||^2 over the enumerated law
    deltas = (X * (p / r)) @ v
    direct = float(probs @ np.sum((deltas - vbar) ** 2, axis=1)) / eta**2
    Sigma = (X.T * probs) @ X - np.outer(r, r)
    ev = registry.get("F3AST.LB.5").evaluate({"p": p, "r": r, "v": v, "Sigma": Sigma, "eta": eta})
    assert float(ev.value) == pytest.approx(direct, rel=1e-7, abs=1e-12)


@given(inst=selection_instances())
def test_eq6_holds_on_random_instances(inst):
    # Instance-level check (spec): ||v_k|| <= 1 = 2 E G eta with E = eta = 1, G^2 = 1/4
    probs, X, r, p, v = inst
    deltas = (X * (p / r)) @ v
    var = float(probs @ np.sum((deltas - p @ v) ** 2, axis=1))
    bound = float(registry.get("F3AST.L3.4@eq6").evaluate({"E": 1, "G2": 0.25, "p": p, "r": r}).value)
    assert var <= bound + 1e-9


T35 = dict(mu=1, L=4, E=5, p="0.5,0.5", sigma2="1,1", Gamma=0.1, G2=1, D0=1, var_s=50.0)


@pytest.mark.parametrize("key", ["F3AST.T3.5", "F3AST.T3.5@explicit", "F3AST.T3.5@explicit-eq19"])
@given(t=st.integers(1, 10**6))
def test_t35_decreasing_in_rounds_and_explicit_is_eq19_times_l_over_2(key, t):
    res = registry.get(key)
    assert res.evaluate({**T35, "T": t + 1}).value < res.evaluate({**T35, "T": t}).value
    if key.endswith("eq19"):
        full = registry.get("F3AST.T3.5@explicit").evaluate({**T35, "T": t}).value
        assert full == pytest.approx(4 / 2 * res.evaluate({**T35, "T": t}).value, rel=REL)


ASC = dict(Delta=1, L=1, sigma2=1, rho2=0.1, R=1000, I=10, P=5, p_min=0.1, gamma=2, eta=1.5e-5)


@given(R=st.integers(5, 10**7), s2=st.floats(0.0, 100.0), c=st.floats(1.01, 100.0))
def test_ascaf_t1_monotone_in_rounds_and_noise(R, s2, c):
    t1 = registry.get("ASCAF.T1")
    base = {**ASC, "R": R, "sigma2": s2}
    assert t1.evaluate({**base, "R": R + 1}).value < t1.evaluate(base).value
    assert t1.evaluate({**base, "sigma2": s2 * c + 1e-3}).value > t1.evaluate(base).value


@given(eps=st.floats(1e-3, 1.0), c=st.floats(1.5, 10.0), N=st.integers(1, 1000), S=st.integers(1, 1000))
def test_pattern_scaling_in_eps(eps, c, N, S):
    # At I = 1, the i.i.d. R argument scales like eps^-4 (statistical) and eps^-2 (participation)
    assume(S <= N)
    res = registry.get("ASCAF.P.IID")
    vals = dict(L=1, Delta=1, sigma2=1, N=N, S=S, I=1)
    a, b = res.evaluate({**vals, "eps": eps}).terms, res.evaluate({**vals, "eps": eps / c}).terms
    assert b["statistical"] == pytest.approx(c**4 * a["statistical"], rel=1e-9)
    assert b["participation"] == pytest.approx(c**2 * a["participation"], rel=1e-9)
