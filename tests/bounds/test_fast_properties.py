"""Property-based tests of FAST's rate conditions (hypothesis; derandomised 'ci' profile).

Expected values are plain arithmetic written here; the encoded results are only evaluated.
"""

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from bounds import registry

T1 = registry.get("FAST.T1")
T2 = registry.get("FAST.T2")
T2C = registry.get("FAST.T2@corrected")
R2 = registry.get("FAST.R2")

REL = 1e-9

pos = st.floats(0.1, 10.0)
ints = st.integers(1, 50)
prob = st.floats(0.0, 1.0)
frac = st.floats(0.01, 1.0)  # fraction of a step-size cap


@st.composite
def t1_point(draw):
    L, K, m, n, q = draw(pos), draw(st.integers(1, 20)), draw(ints), draw(ints), draw(prob)
    D = n * q + m * (1 - q)
    cap = min(1 / (8 * L * K), D / (5 * m * n * L * K))
    return dict(L=L, K=K, m=m, n=n, q=q, eta_c=draw(frac) * cap, sigma=draw(st.floats(0, 10)),
                sigma_G=draw(st.floats(0, 10)), zeta=draw(pos), R=draw(st.integers(1, 10**6)))


def t1_value(values, **override):
    """Evaluate FAST.T1 with one input replaced by a 2-point array."""
    return np.asarray(T1.evaluate({**values, **override}).value)


# FAST.T1 monotonicity
@given(t1_point(), st.integers(1, 10**6))
def test_t1_decreases_in_rounds(p, dR):
    v = t1_value(p, R=np.array([p["R"], p["R"] + dR], dtype=float))
    assert v[1] < v[0]  # strict: zeta > 0, so 4 zeta/(K R eta) falls


@given(t1_point(), st.floats(0.0, 10.0), st.floats(0.0, 10.0))
def test_t1_increases_in_sigma_and_sigma_g(p, a, b):
    lo, hi = sorted((a, b))
    vs = t1_value(p, sigma=np.array([lo, hi]))
    vg = t1_value(p, sigma_G=np.array([lo, hi]))
    assert vs[1] >= vs[0] and vg[1] >= vg[0]
    # strict where the by-hand increment is above round-off of the total
    D = p["n"] * p["q"] + p["m"] * (1 - p["q"])
    inc_s = 4 * D * p["L"] * p["eta_c"] * (hi**2 - lo**2) / (p["m"] * p["n"])
    inc_g = (120 * (1 - p["q"]) + 60 * p["q"]) * (p["L"] * p["K"] * p["eta_c"]) ** 2 * (hi**2 - lo**2)
    if inc_s > 1e-12 * vs[1]:
        assert vs[1] > vs[0]
        assert vs[1] - vs[0] == pytest.approx(inc_s, rel=1e-6, abs=1e-15 * vs[1])
    if inc_g > 1e-12 * vg[1]:
        assert vg[1] > vg[0]


# FAST.T2 q-threshold
@given(pos, pos, st.integers(1, 20), ints, st.floats(0.001, 1.0), st.floats(0.01, 10.0))
def test_t2_threshold_in_unit_interval_iff_condition_can_be_met(mu, L, K, m, eta_frac, sigma_G):
    eta = eta_frac / (20 * m * L * K)
    gain = mu * K * eta - 16 * L**2 * K**2 * eta**2
    t = 1 - gain / (4 * sigma_G**2)
    assume(abs(t - 1) > 1e-7 and abs(t) > 1e-7)  # keep off the exact boundaries
    values = dict(mu=mu, L=L, K=K, m=m, n=m, eta_c=eta, sigma_G=sigma_G, sigma=1, kappa=1, R=100)
    sol = T2.solve("q", values)
    # the inequality q >= t has a solution q in [0, 1] exactly when t <= 1, i.e. mu >= 16 L^2 K eta
    assert sol.success is (t <= 1) is (mu >= 16 * L**2 * K * eta)
    if sol.success:
        assert 0.0 <= sol.value <= 1.0
        assert sol.value == pytest.approx(max(t, 0.0), abs=1e-9)
    # the threshold itself lies in [0, 1] exactly when 0 <= gain <= 4 sigma_G^2
    assert (0 <= t <= 1) is (0 <= gain <= 4 * sigma_G**2)
    chk = T2.check({**values, "q": 0.5})
    (cond,) = [c for c in chk.conditions if c.name == "snapshot probability threshold"]
    assert cond.rhs == pytest.approx(t, rel=1e-9, abs=1e-12)


# FAST.R2 limits
@st.composite
def remark2_point(draw):
    """G's for which Remark 2's sigma_G -> 0 statement applies: G2 > 0 and Theorem 1's denominator at
    sigma_G = 0, G1 + (2LK eta - 1) G2 - 2LK eta G3, positive; eta within the cap 1/(8LK)."""
    L, K = draw(pos), draw(st.integers(1, 20))
    eta = draw(frac) / (8 * L * K)
    a = 2 * L * K * eta
    G2, G3, slack = draw(st.floats(0.01, 100.0)), draw(st.floats(-100.0, 100.0)), draw(st.floats(0.01, 100.0))
    G1 = (1 - a) * G2 + a * G3 + slack
    return dict(L=L, K=K, eta_c=eta, G1=G1, G2=G2, G3=G3)


@given(remark2_point(), st.floats(0.0, 1.0))
def test_r2_threshold_nonpositive_as_sigma_g_vanishes(p, shrink):
    a = 2 * p["L"] * p["K"] * p["eta_c"]
    # below sigma_G^2 = (1 - a) G2 / (2 K^2) the numerator (a - 1) G2 + 2 K^2 sigma_G^2 is <= 0
    sg = shrink * math.sqrt((1 - a) * p["G2"] / (2 * p["K"] ** 2))
    v = float(R2.evaluate({**p, "sigma_G": sg}).value)
    assert v <= 1e-12
    num = (a - 1) * p["G2"] + 2 * p["K"] ** 2 * sg**2
    den = p["G1"] + (a - 1) * p["G2"] - a * p["G3"] + 2 * p["K"] ** 2 * sg**2
    assert v == pytest.approx(num / den, rel=1e-6, abs=1e-12)
    assert float(R2.evaluate({**p, "sigma_G": 0.0}).value) < 0


@given(pos, st.integers(1, 20), frac, st.floats(-100, 100), st.floats(-100, 100), st.floats(-100, 100))
def test_r2_threshold_tends_to_one_as_sigma_g_grows(L, K, f, G1, G2, G3):
    """Applies to any finite G1..G3: 1 - q_min = P / (N + P) with N ~ 2 K^2 sigma_G^2."""
    eta = f / (8 * L * K)
    a = 2 * L * K * eta
    P = G1 - a * G3
    gaps = []
    for sg in (1e2, 1e4, 1e6):
        v = float(R2.evaluate(dict(L=L, K=K, eta_c=eta, G1=G1, G2=G2, G3=G3, sigma_G=sg)).value)
        N = (a - 1) * G2 + 2 * K**2 * sg**2
        assert abs(1 - v) <= abs(P) / (N - abs(P)) * (1 + 1e-6) + 1e-12
        gaps.append(abs(1 - v))
    assert gaps[2] <= gaps[1] <= gaps[0] and gaps[2] < 1e-8


def test_r2_sigma_g_to_zero_statement_needs_positive_g2():
    """Outside the stated G-range the sigma_G -> 0 limit is positive: G2 < 0 gives (a-1)G2 > 0."""
    v = float(R2.evaluate(dict(L=1, K=5, eta_c=0.005, G1=10, G2=-1, G3=0, sigma_G=0.0)).value)
    assert v == pytest.approx(0.95 / (10 + 0.95), rel=REL)  # (a - 1) G2 / (G1 + (a - 1) G2), a = 0.05


# Corollary 1 step size in Theorem 1: slope -1/2
def c1_step(c, m, n, q, K, R):
    return c * np.sqrt(m * n / (R * K * (n * q + m * (1 - q))))


@given(st.floats(0.2, 5.0), t1_point())
def test_t1_with_corollary1_step_has_slope_minus_half(c, p):
    R = np.array([1e30, 1e31])
    eta = c1_step(c, p["m"], p["n"], p["q"], p["K"], R)
    v = t1_value(p, R=R, eta_c=eta)
    slope = math.log(v[1] / v[0]) / math.log(R[1] / R[0])
    assert slope == pytest.approx(-0.5, abs=0.01)


def test_corollary1_slope_tends_to_minus_half_at_spec_values():
    p = dict(L=1, K=5, m=10, n=5, q=0.5, sigma=1, sigma_G=0.5, zeta=1)
    R = np.logspace(3, 15, 13)
    v = t1_value(p, R=R, eta_c=c1_step(1.0, 10, 5, 0.5, 5, R))
    slopes = np.diff(np.log(v)) / np.diff(np.log(R))
    assert np.all(np.diff(np.abs(slopes + 0.5)) <= 1e-12)  # approaches -1/2 monotonically
    assert abs(slopes[-1] + 0.5) < 1e-4
    # the prescribed step of FAST.C1 is this one
    expr = registry.get("FAST.C1").prescribed_map["eta_c"]
    vals = dict(c=1.0, m=10, n=5, q=0.5, K=5, R=1e6)
    assert float(expr.subs({s: vals[s.name] for s in expr.free_symbols})) == pytest.approx(
        float(c1_step(1.0, 10, 5, 0.5, 5, 1e6)), rel=REL)


# FAST.T2 unit scaling: F -> cF
@given(st.floats(0.01, 1.0), pos, st.integers(1, 20), ints, st.floats(0.0, 0.99), frac, st.floats(0.1, 10.0),
       st.floats(0.1, 10), st.floats(0.1, 10), st.integers(1, 1000), st.floats(0.1, 10.0))
def test_t2_unit_scaling_exposes_published_term(mu_frac, L, K, m, q, f, sigma, sigma_G, kappa, R, c):
    """Loss scaled by c: L, mu -> cL, c mu; sigma, sigma_G -> c sigma, c sigma_G; eta_c -> eta_c/c;
    kappa (a squared parameter distance) and the LHS are unchanged."""
    assume(abs(c - 1) > 0.05)
    mu = mu_frac * L
    eta = f / (20 * m * L * K)
    base = dict(mu=mu, L=L, K=K, m=m, n=m, q=q, eta_c=eta, sigma=sigma, sigma_G=sigma_G, kappa=kappa, R=R)
    scaled = dict(base, mu=c * mu, L=c * L, eta_c=eta / c, sigma=c * sigma, sigma_G=c * sigma_G)
    # corrected variant: invariant
    assert float(T2C.evaluate(scaled).value) == pytest.approx(float(T2C.evaluate(base).value), rel=1e-9)
    # published: only the (1-q) K eta_c / (2 mu) term moves, by the factor 1/c^2
    extra = (1 - q) * K * eta / (2 * mu)
    pub0, pub1 = float(T2.evaluate(base).value), float(T2.evaluate(scaled).value)
    assert pub1 - pub0 == pytest.approx(extra * (1 / c**2 - 1), rel=1e-6, abs=1e-12 * pub0)
    assert pub1 != pytest.approx(pub0, rel=1e-9)
    # the step-size caps are invariant; the printed q-threshold's fraction scales by 1/c^2
    chk0, chk1 = T2.check({**base}), T2.check({**scaled})
    for a, b in zip(chk0.conditions[:2], chk1.conditions[:2]):
        assert a.holds == b.holds
    gain = mu * K * eta - 16 * L**2 * K**2 * eta**2
    frac0 = 1 - float(chk0.conditions[2].rhs)
    frac1 = 1 - float(chk1.conditions[2].rhs)
    assert frac0 == pytest.approx(gain / (4 * sigma_G**2), rel=1e-6, abs=1e-14)
    assert frac1 == pytest.approx(frac0 / c**2, rel=1e-6, abs=1e-14)
