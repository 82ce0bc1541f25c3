"""FAST results at the spec's worked examples (fast.md), checked against plain arithmetic.

Every expected number below is either quoted from the spec or computed here by hand-written
arithmetic, never through the encoded sympy expressions.
"""

import math

import numpy as np
import pytest

from bounds import registry
from bounds.core.errors import UserInputError
from bounds.fast import TOY1, corollary1_dominance_rounds
from bounds.result import Kind, Status

REL = 1e-9  # float round-off only: the spec numbers are exact rationals or 7-digit roundings
SPEC7 = 5e-7  # spec values printed with 7 significant digits

# FAST.T1 worked example (fast.md section 3)
T1 = dict(L=1, K=5, m=10, n=5, q=0.5, sigma2=1, sigma_G2=0.25, zeta=1, R=1000)
G_HYPO = dict(G1=10, G2=1, G3=1)  # the spec's hypothetical appendix constants
Q_MIN_SPEC = 0.5372093


def t1_by_hand(eta, L=1, K=5, m=10, n=5, q=0.5, s2=1, sg2=0.25, zeta=1, R=1000):
    D = n * q + m * (1 - q)
    return (4 * zeta / (K * R * eta), 4 * D * L * eta * s2 / (m * n), (120 * (1 - q) + 60 * q) * L**2 * K**2 * eta**2 * sg2)


def cond(report, prefix):
    (c,) = [c for c in report.conditions if c.name.startswith(prefix)]
    return c


# FAST.T1
def test_t1_worked_example_terms_and_total():
    ev = registry.get("FAST.T1").evaluate({**T1, "eta_c": 0.005})
    assert ev.terms["optimization"] == pytest.approx(0.16, rel=REL)
    assert ev.terms["statistical"] == pytest.approx(0.003, rel=REL)
    assert ev.terms["heterogeneity"] == pytest.approx(0.0140625, rel=REL)
    assert ev.value == pytest.approx(0.1770625, rel=REL)
    assert ev.value == pytest.approx(sum(t1_by_hand(0.005)), rel=REL)


def test_t1_without_g_is_unverified_not_holding():
    rep = registry.get("FAST.T1").check({**T1, "eta_c": 0.005})
    assert rep.holds is None
    assert cond(rep, "step size cap 1/(8LK)").holds is True
    assert cond(rep, "step size cap 1/(8LK)").margin == pytest.approx(0.025 - 0.005, rel=REL)
    assert cond(rep, "step size cap (nq").margin == pytest.approx(0.006 - 0.005, rel=REL)
    qc = cond(rep, "snapshot probability")
    assert qc.holds is None and "G1" in qc.reason
    assert rep.evaluation.value == pytest.approx(0.1770625, rel=REL)


def test_t1_q_threshold_with_hypothetical_g():
    rep = registry.get("FAST.T1").check({**T1, "eta_c": 0.005, **G_HYPO})
    qc = cond(rep, "snapshot probability")
    # numerator (2LK eta - 1) G2 + 2 K^2 sigma_G^2 = -0.95 + 12.5; denominator 10 - 0.95 - 0.05 + 12.5
    assert 11.55 / 21.5 == pytest.approx(Q_MIN_SPEC, abs=SPEC7)
    assert qc.rhs == pytest.approx(11.55 / 21.5, rel=REL)
    assert qc.holds is False and qc.margin == pytest.approx(0.5 - 11.55 / 21.5, rel=REL)
    assert rep.holds is False
    rep = registry.get("FAST.T1").check({**T1, "q": 0.6, "eta_c": 0.005, **G_HYPO})
    assert checked_hold(rep)


def test_t1_step_size_breaking_a_cap_reports_margin_and_value():
    rep = registry.get("FAST.T1").check({**T1, "eta_c": 0.007})
    cap = cond(rep, "step size cap (nq")
    assert cap.holds is False
    assert cap.margin == pytest.approx(0.006 - 0.007, rel=REL)
    assert cap.rhs == pytest.approx(7.5 / 1250, rel=REL)
    assert cond(rep, "step size cap 1/(8LK)").holds is True
    assert rep.holds is False  # a failing hypothesis wins over the unverified G-condition
    assert rep.evaluation.value == pytest.approx(sum(t1_by_hand(0.007)), rel=REL)


def test_t1_solve_largest_step_size():
    res = registry.get("FAST.T1").solve("eta_c", T1)
    assert res.success and res.value == pytest.approx(0.006, rel=1e-12)
    assert res.unverified  # the G-condition is reported as not used


def test_t1_solve_smallest_and_largest_q():
    vals = {k: v for k, v in T1.items() if k != "q"} | {"eta_c": 0.005, **G_HYPO}
    lo = registry.get("FAST.T1").solve("q", vals)
    assert lo.value == pytest.approx(11.55 / 21.5, rel=1e-10)
    # largest q: the cap eta_c <= (10 - 5q)/1250 gives q <= (10 - 6.25)/5
    hi = registry.get("FAST.T1").solve("q", vals, mode="max")
    assert hi.value == pytest.approx(0.75, rel=1e-10)


def test_t1_solve_rounds_for_target():
    vals = {k: v for k, v in T1.items() if k != "R"} | {"eta_c": 0.005}
    res = registry.get("FAST.T1").solve("R", vals, target=0.2)
    # 4/(5 * 0.005 * R) <= 0.2 - 0.003 - 0.0140625
    expected = math.ceil(4 / (5 * 0.005 * (0.2 - 0.003 - 0.0140625)))
    assert expected == 875
    assert res.value == expected and res.bound <= 0.2


@pytest.mark.parametrize("R, interior", [(1000, False), (100000, True)])
def test_t1_solve_argmin_step_size(R, interior):
    vals = {**T1, "R": R}
    res = registry.get("FAST.T1").solve("eta_c", vals, mode="argmin")
    # d/d eta [A/eta + B eta + C eta^2] = 0  <=>  2C eta^3 + B eta^2 - A = 0
    A, B, C = 4 / (5 * R), 4 * 7.5 / 50, 90 * 25 * 0.25
    roots = np.roots([2 * C, B, 0.0, -A])
    stationary = float(max(r.real for r in roots if abs(r.imag) < 1e-12))
    expected = min(stationary, 0.006)
    assert (stationary < 0.006) is interior
    assert res.value == pytest.approx(expected, rel=1e-6)


def test_toy1_unverifiable_is_never_reported_as_violated_or_holding():
    t1 = registry.get("FAST.T1")
    for eta in TOY1["simulated"]:
        rep = t1.check({**TOY1["values"], "eta_c": eta, "R": 200000})
        assert rep.holds is None
        assert all(c.holds for c in rep.conditions if c.holds is not None)
        assert rep.evaluation.value == pytest.approx(90 * eta**2, rel=REL)
        assert min(TOY1["simulated"][eta]) > rep.evaluation.value  # the printed bound is false here
    # (1-q)^2 sigma_G^2
    assert TOY1["limit"] == pytest.approx((1 - 0.5) ** 2 * 1.0)
    # G's making q_min = (-0.98 + 2)/(1 - 0.98 + 2) = 0.50495 > 0.5 exclude the toy
    rep = t1.check({**TOY1["values"], "eta_c": 0.01, "R": 200000, "G1": 1, "G2": 1, "G3": 0})
    assert cond(rep, "snapshot probability").rhs == pytest.approx(1.02 / 2.02, rel=REL)
    assert rep.holds is False


# FAST.C1 and FAST.C2
C1 = dict(m=10, n=5, q=0.5, K=5, R=1000)


def test_c1_worked_example():
    res = registry.get("FAST.C1")
    assert res.kind is Kind.ORDER and float(res.rate_map["R"]) == -0.5
    ev = res.evaluate(C1)
    assert ev.terms["optimization+statistical"] == pytest.approx(0.0054772, abs=SPEC7)
    assert ev.terms["optimization+statistical"] == pytest.approx(math.sqrt(7.5 / (10 * 5 * 5 * 1000)), rel=REL)
    assert ev.terms["heterogeneity"] == pytest.approx(250 / 7500, rel=REL)
    dom_expr = corollary1_dominance_rounds()
    dom = float(dom_expr.subs({s: C1[s.name] for s in dom_expr.free_symbols}))
    assert dom == pytest.approx(37037.04, abs=0.01)
    step = res.prescribed_map["eta_c"]
    assert float(step.subs({s: {"c": 1, **C1}[s.name] for s in step.free_symbols})) == pytest.approx(0.0365148, abs=SPEC7)


def test_c1_round_condition_needs_c_and_fails_at_spec_example():
    res = registry.get("FAST.C1")
    assert res.check({**C1, "L": 1}).holds is None  # c (and G's) unknown
    rep = res.check({**C1, "L": 1, "c": 1})
    assert rep.holds is False
    cap = cond(rep, "prescribed eta_c within cap (nq")
    assert cap.rhs == pytest.approx(25 * 10**3 * 5**3 * 5 / 7.5**3, rel=REL)
    assert cap.margin == pytest.approx(1000 - 37037.037037, rel=1e-9)
    assert cond(rep, "prescribed eta_c within cap 1/(8LK)").rhs == pytest.approx(64 * 50 * 5 / 7.5, rel=REL)
    sol = res.solve("R", {k: v for k, v in C1.items() if k != "R"} | {"L": 1, "c": 1})
    assert sol.value == 37038


def test_c1_step_meets_t1_cap_exactly_from_the_inferred_round_count():
    # eta_c = sqrt(mn/(RKD)) at R = 25 m^3 n^3 L^2 K / D^3 equals the cap D/(5mnLK)
    R = 25 * 10**3 * 5**3 * 5 / 7.5**3
    assert math.sqrt(50 / (R * 5 * 7.5)) == pytest.approx(7.5 / 1250, rel=1e-12)


def test_c2_default_is_corrected_with_both_terms():
    corr = registry.get("FAST.C2")
    assert corr.variant == "corrected" and corr.reconstructed and Status.FLAG in corr.status
    ev = corr.evaluate(dict(m=10, K=5, R=10**6))
    assert ev.terms["optimization+statistical"] == pytest.approx(1.41421e-4, rel=1e-5)
    assert ev.terms["heterogeneity"] == pytest.approx(5e-5, rel=REL)
    printed = registry.get("FAST.C2@printed")
    assert not printed.reconstructed
    ev = printed.evaluate(dict(m=10, K=5, R=10**6))
    assert list(ev.terms) == ["optimization+statistical"]
    assert ev.value == pytest.approx(math.sqrt(1 / (10 * 10**6 * 5)), rel=REL)


def test_c2_equals_c1_at_m_equal_n():
    for q in (0.0, 0.3, 1.0):
        c1 = registry.get("FAST.C1").evaluate(dict(m=7, n=7, q=q, K=3, R=500)).value
        c2 = registry.get("FAST.C2").evaluate(dict(m=7, K=3, R=500)).value
        assert c1 == pytest.approx(c2, rel=REL)
    # inferred round condition at n = m: R >= 25 c^2 m^3 L^2 K
    rep = registry.get("FAST.C2").check(dict(m=10, K=5, R=10**6, L=1, c=1))
    assert cond(rep, "prescribed eta_c within cap (nq").rhs == pytest.approx(25 * 1000 * 5, rel=REL)


# FAST.R2
def test_r2_threshold_at_spec_values_matches_theorem1_form():
    r2 = registry.get("FAST.R2")
    assert r2.kind is Kind.THRESHOLD
    vals = dict(L=1, K=5, eta_c=0.005, sigma_G2=0.25, **G_HYPO)
    ev = r2.evaluate(vals)
    assert ev.value == pytest.approx(Q_MIN_SPEC, abs=SPEC7)
    # Remark 2's form by hand: 1 / (1 + (G1 - 2LK eta G3) / (2K^2 sg2 + 2LK eta G2 - G2))
    assert ev.value == pytest.approx(1 / (1 + (10 - 0.05) / (12.5 + 0.05 - 1)), rel=REL)
    assert r2.check(vals).holds is True
    with pytest.raises(UserInputError, match="G1"):
        r2.evaluate(dict(L=1, K=5, eta_c=0.005, sigma_G2=0.25))


# FAST.T2
T2 = dict(mu=0.1, L=1, K=5, m=10, n=10, eta_c=0.001, sigma_G2=1e-4, sigma2=1, kappa=1, R=1000, q=0.8)


def test_t2_worked_example_published():
    rep = registry.get("FAST.T2").check(T2)
    ev = rep.evaluation
    assert ev.terms["contraction"] == pytest.approx(math.exp(-0.5), rel=REL)
    assert ev.terms["partial participation"] == pytest.approx(0.005, rel=REL)
    assert ev.terms["heterogeneity"] == pytest.approx(4e-5, rel=REL)
    assert ev.terms["statistical"] == pytest.approx(0.002, rel=REL)
    assert ev.value == pytest.approx(0.6135707, abs=SPEC7)
    qc = cond(rep, "snapshot probability threshold")
    assert qc.rhs == pytest.approx(1 - (5e-4 - 4e-4) / 4e-4, rel=1e-9)  # 0.75
    assert qc.margin == pytest.approx(0.05, rel=1e-9)
    assert checked_hold(rep)  # eta_c = 0.001 is exactly the cap 1/(20 m L K)


def test_t2_worked_example_corrected_and_threshold_failure():
    ev = registry.get("FAST.T2@corrected").evaluate(T2)
    assert ev.terms["partial participation"] == pytest.approx(0.005 * 1e-4, rel=REL)
    assert ev.value == pytest.approx(math.exp(-0.5) + 5e-7 + 4e-5 + 0.002, rel=REL)
    rep = registry.get("FAST.T2").check({**T2, "q": 0.7})
    assert rep.holds is False and cond(rep, "snapshot").margin == pytest.approx(-0.05, rel=1e-9)
    rep = registry.get("FAST.T2").check({**T2, "sigma_G2": 1.0})
    assert cond(rep, "snapshot").rhs == pytest.approx(0.999975, rel=1e-12)


def test_t2_solve_smallest_q_and_largest_step():
    vals = {k: v for k, v in T2.items() if k != "q"}
    assert registry.get("FAST.T2").solve("q", vals).value == pytest.approx(0.75, rel=1e-9)
    vals = {k: v for k, v in T2.items() if k != "eta_c"}
    assert registry.get("FAST.T2").solve("eta_c", vals).value == pytest.approx(1 / 1000, rel=1e-9)


# FAST.C3
C3 = dict(mu=0.1, m=10, L=1, R=1000, K=5, q=0.8, eta_c=0.001, sigma2=1, sigma_G2=1e-4)


@pytest.mark.parametrize("key, needed", [("FAST.C3", 200.0), ("FAST.C3@corrected", 2000.0)])
def test_c3_worked_example_and_round_condition(key, needed):
    rep = registry.get(key).check(C3)
    ev = rep.evaluation
    assert ev.terms["contraction"] == pytest.approx(0.6065, abs=5e-5)
    assert ev.terms["contraction"] == pytest.approx(math.exp(-0.1 * 1000 / 200), rel=REL)
    assert ev.terms["partial participation"] == pytest.approx(0.2 / 100, rel=REL)
    assert ev.terms["heterogeneity"] == pytest.approx(1e-4 / 100, rel=REL)
    assert ev.terms["statistical"] == pytest.approx(1 / (0.1 * 10 * 5 * 1000), rel=REL)
    rounds = cond(rep, "rounds")
    assert rounds.rhs == pytest.approx(needed, rel=REL)
    assert checked_hold(rep) if 1000 >= needed else rep.holds is False
    assert rounds.margin == pytest.approx(1000 - needed, rel=REL)


def test_c3_variants_flags():
    pub, corr = registry.variants("FAST.C3")
    assert pub.variant == "published" and not pub.reconstructed
    assert corr.variant == "corrected" and corr.reconstructed
    assert registry.get("FAST.C3@corrected").solve("R", {k: v for k, v in C3.items() if k != "R"}).value == 2000


# Registry, inputs, rendering
def test_registered_keys_and_kinds():
    kinds = {r.key: r.kind for r in registry.all_results() if r.id.startswith("FAST.")}
    assert kinds == {
        "FAST.T1": Kind.UPPER, "FAST.C1": Kind.ORDER, "FAST.C2@corrected": Kind.ORDER,
        "FAST.C2@printed": Kind.ORDER, "FAST.R2": Kind.THRESHOLD, "FAST.T2": Kind.UPPER,
        "FAST.T2@corrected": Kind.UPPER, "FAST.C3": Kind.ORDER, "FAST.C3@corrected": Kind.ORDER,
        "FAST.T1@repaired": Kind.UPPER, "FAST.T2@repaired": Kind.UPPER,
    }
    for res in registry.all_results():
        if res.id.startswith("FAST."):
            assert res.provenance.seed.startswith("000_") and res.hypotheses and res.terms
            assert res.reconstructed == (res.variant in ("corrected", "repaired"))
            text = res.text()
            assert all(t.name in text for t in res.terms) and all(h.name in text for h in res.hypotheses)
            assert res.latex()


@pytest.mark.parametrize("key, values, message", [
    ("FAST.T1", {**T1, "eta": 0.005}, "did you mean"),
    ("FAST.T1", {**T1, "eta_c": 0.005, "q": 1.5}, "q=1.5"),
    ("FAST.T1", {**T1, "eta_c": 0.005, "L": 0}, "L=0"),
    ("FAST.T1", {**T1, "eta_c": 0.005, "K": 2.5}, "integer"),
    ("FAST.T1", {**T1, "eta_c": "fast"}, "not a number"),
    ("FAST.T2@corrected", {**T2, "mu": -1}, "mu=-1"),
    ("FAST.C1", {**C1, "R": 0}, "R=0"),
    ("FAST.C2", {"m": 10, "K": 5}, "needs R"),
    ("FAST.C3", {**C3, "q": -0.1}, "q=-0.1"),
    ("FAST.R2", {"L": 1, "K": 5, "eta_c": 0.005, "sigma_G2": -1, **G_HYPO}, "square"),
])
def test_user_errors(key, values, message):
    with pytest.raises(UserInputError, match=message):
        registry.get(key).check(values)


def test_unknown_variant_and_solve_symbol():
    with pytest.raises(UserInputError, match="printed"):
        registry.get("FAST.C2@publishd")
    with pytest.raises(UserInputError):
        registry.get("FAST.T1").solve("eta", T1)


def test_vectorised_sweep_matches_pointwise():
    R = np.array([10.0, 1000.0, 1e6])
    ev = registry.get("FAST.C1").evaluate({**C1, "R": R})
    by_hand = np.sqrt(7.5 / (250 * R)) + 250 / (7.5 * R)
    np.testing.assert_allclose(ev.value, by_hand, rtol=REL)


def checked_hold(rep) -> bool:
    """Every encoded hypothesis holds; the rest are the not-checked participation/availability ones."""
    rest = [c for c in rep.conditions if c.reason.startswith("condition, not checked")]
    return rep.holds is None and all(c.holds is None for c in rest) and all(
        c.holds is True for c in rep.conditions if c not in rest)
