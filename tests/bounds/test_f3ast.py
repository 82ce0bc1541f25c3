"""F3AST results at the spec's worked examples (f3ast.md), checked against plain arithmetic.

Expected numbers are quoted from the spec or computed here by hand, never through the encoded
sympy expressions.
"""

import math

import numpy as np
import pytest

from bounds import registry
from bounds.core.errors import UserInputError
from bounds.result import Kind, Status

REL = 1e-9  # float round-off: spec numbers are exact rationals
SPEC6 = 1e-6  # spec values printed with 6-7 significant digits

P = "0.5,0.5"
R_STAR = "0.375,0.5"  # EX1 optimum (3/8, 1/2)
R_C = "0.225,0.65"  # EX1 naive policy (9/40, 13/20)
UNIT = dict(E=1, G2=0.25)  # 4 E^2 G^2 = 1, so the bound equals its bracketed factor


def get(key):
    return registry.get(key)


# F3AST.E3
@pytest.mark.parametrize("r, h2, h1", [
    (R_STAR, 7 / 6, 7 / 3),
    (R_C, 175 / 117, 350 / 117),
    ("0.075,0.8", 175 / 48, 175 / 24),
    ("0.4375,0.4375", 8 / 7, 16 / 7),
])
def test_e3_both_variants_at_ex1_points(r, h2, h1):
    assert get("F3AST.E3").evaluate({"p": P, "r": r}).value == pytest.approx(h2, rel=REL)
    assert get("F3AST.E3@p").evaluate({"p": P, "r": r}).value == pytest.approx(h1, rel=REL)


def test_e3_default_is_p2_and_kind_equality():
    assert get("F3AST.E3").variant == "p2"
    assert {r.variant for r in registry.variants("F3AST.E3")} == {"p2", "p"}
    assert get("F3AST.E3").kind is Kind.EQUALITY and get("F3AST.E3").lhs == "H(r)"


def test_e3_vectorised_over_leading_batch_axis():
    p = np.array([[0.5, 0.5], [0.25, 0.75]])
    r = np.array([[0.375, 0.5], [0.5, 1.0]])
    out = get("F3AST.E3").evaluate({"p": p, "r": r}).value
    np.testing.assert_allclose(out, [7 / 6, 0.0625 / 0.5 + 0.5625 / 1.0], rtol=REL)


# F3AST.L3.4
def test_l34_factors_at_ex1():
    assert get("F3AST.L3.4").evaluate({**UNIT, "p": P, "r": R_STAR}).value == pytest.approx(4 / 3, rel=REL)
    assert get("F3AST.L3.4@eq7").evaluate({**UNIT, "p": P, "r": R_STAR}).value == pytest.approx(5 / 3, rel=REL)
    assert get("F3AST.L3.4").evaluate({**UNIT, "p": P, "r": R_C}).value == pytest.approx(233 / 117, rel=REL)
    assert get("F3AST.L3.4@eq7").evaluate({**UNIT, "p": P, "r": R_C}).value == pytest.approx(1.99573, rel=SPEC6 * 3)


def test_l34_scales_with_4_e2_g2():
    ev = get("F3AST.L3.4").evaluate({"E": 5, "G2": 1, "p": P, "r": R_STAR})
    assert ev.value == pytest.approx(4 * 25 * 1 * 4 / 3, rel=REL)  # the 133.333 of T3.5's example


def test_l34_printed_normalisation_variants_flagged():
    keys = {r.key for r in registry.variants("F3AST.L3.4")}
    assert keys == {"F3AST.L3.4@eq6", "F3AST.L3.4@eq7", "F3AST.L3.4@eq6-printed", "F3AST.L3.4@eq7-printed"}
    printed = get("F3AST.L3.4@eq6-printed")
    assert "/ eta:" in printed.lhs and not printed.reconstructed
    assert get("F3AST.L3.4").reconstructed and "eta^2" in get("F3AST.L3.4").lhs
    assert any("proof gap" in f for f in get("F3AST.L3.4").flags)


def test_l34_exact_variance_of_ex1_instance_is_below_both_bounds():
    # Direct enumeration of the EX1 policy at r*: S={1} w.p. 3/8, {2} w.p. 1/2, {} w.p. 1/8,
    # anti-aligned unit updates v1 = -v2 (spec: 7/6).
    w = [0.5 / 0.375, 0.5 / 0.5]
    v = [1.0, -1.0]
    vbar = 0.5 * 1 + 0.5 * -1
    var = 3 / 8 * (w[0] * v[0] - vbar) ** 2 + 1 / 2 * (w[1] * v[1] - vbar) ** 2 + 1 / 8 * vbar**2
    assert var == pytest.approx(7 / 6, rel=REL)
    # With ||v_k|| <= 1 the instance-level G^2 = 1/(4 E^2 eta^2): E=1, eta=1, G2=1/4
    assert var <= get("F3AST.L3.4").evaluate({**UNIT, "p": P, "r": R_STAR}).value
    assert var <= get("F3AST.L3.4@eq7").evaluate({**UNIT, "p": P, "r": R_STAR}).value


# F3AST.T3.5
T35 = dict(mu=1, L=4, E=5, T=1000, p=P, sigma2="1,1", Gamma=0.1, G2=1, D0=1, var_s=4 * 25 * 1 * 4 / 3)


def test_t35_explicit_worked_example():
    var1 = 0.25 * 1 + 0.25 * 1 + 6 * 4 * 0.1 + 8 * 16 * 1  # 130.9
    v = max(4 * (var1 + 400 / 3) / 1**2, 32 * 1)  # 1056.933
    assert var1 == pytest.approx(130.9) and v == pytest.approx(1056.933, abs=1e-3)
    ev = get("F3AST.T3.5@explicit").evaluate(T35)
    assert ev.value == pytest.approx(4 / 2 * v / (31 + 5000), rel=REL)
    assert ev.value == pytest.approx(0.420168, rel=SPEC6)
    assert get("F3AST.T3.5@explicit-eq19").evaluate(T35).value == pytest.approx(0.210084, rel=SPEC6)


def test_t35_explicit_distance_branch_of_max():
    # Large D0 makes (gamma'+1) D0 the larger branch: 32 * 100 vs 4 * 264.23
    ev = get("F3AST.T3.5@explicit").evaluate({**T35, "D0": 100})
    assert ev.value == pytest.approx(2 * 3200 / 5031, rel=REL)


def test_t35_order_form_terms():
    ev = get("F3AST.T3.5").evaluate(T35)
    den = 1000 * 5 + 32  # TE + gamma, gamma = max(8L/mu, E) = 32
    assert ev.terms["initial distance"] == pytest.approx(1 / den, rel=REL)
    assert ev.terms["stochastic gradients"] == pytest.approx(0.5 / den, rel=REL)
    assert ev.terms["objective gap"] == pytest.approx(0.6 / den, rel=REL)
    assert ev.terms["local drift"] == pytest.approx(128 / den, rel=REL)
    assert ev.value == pytest.approx((1 + 0.5 + 0.6 + 128 + 400 / 3) / den, rel=REL)
    assert get("F3AST.T3.5").kind is Kind.ORDER and get("F3AST.T3.5").rate_map["T"] == -1


def test_t35_step_conditions_are_strict_as_the_seed_states_them():
    # seed 001 line 444: "eta_(1,1) < min{1/mu, 1/(4L)}". The proof's gamma' = max{8L/mu, E} - 1 = 31 at the
    # worked example gives eta_(1,1) = 2/(mu (gamma' + 1)) = 2/32 = 1/16 = 1/(4L): equality, so it fails strictly
    rep = get("F3AST.T3.5@explicit").check(T35)
    by = {c.name: c for c in rep.conditions}
    cap = by["first step eta_(1,1) < 1/(4L) (strict, seed line 444)"]
    assert cap.holds is False and cap.lhs == pytest.approx(1 / 16) and cap.rhs == pytest.approx(1 / 16)
    assert by["first step eta_(1,1) < 1/mu (strict, seed line 444)"].margin == pytest.approx(1 - 1 / 16, rel=REL)
    assert by["L >= mu (an L-smooth, mu-strongly convex function)"].margin == pytest.approx(3)
    assert rep.verdict == "fails"
    # E > 8L/mu: gamma' = E - 1 = 40, eta_(1,1) = 2/41 < 1/(4L) = 1/16 (L = mu = 1: 8L/mu = 8 < E = 41)
    ok = get("F3AST.T3.5@explicit").check({**T35, "L": 1, "E": 41})
    assert {c.name: c.holds for c in ok.conditions}["first step eta_(1,1) < 1/(4L) (strict, seed line 444)"] is True
    assert ok.conditions[2].margin == pytest.approx(1 / 4 - 2 / 41, rel=REL)


def test_t35_statement_step_meets_the_strict_condition_and_a_flag_names_the_tension():
    # the statement's gamma = max{8L/mu, E} = 32 (no - 1): first step at most 2/(mu (gamma + 1)) = 2/33 < 1/16
    rep = get("F3AST.T3.5").check(T35)
    cap = {c.name: c for c in rep.conditions}["first step eta_(1,1) < 1/(4L) (strict, seed line 444)"]
    assert cap.holds is True and cap.margin == pytest.approx(1 / 16 - 2 / 33, rel=REL)
    for key in ("F3AST.T3.5", "F3AST.T3.5@explicit", "F3AST.T3.5@explicit-eq19"):
        assert any("exactly whenever 8L/mu >= E" in f for f in get(key).flags)


def test_t35_records_its_schedule_and_optimisers():
    # seed 001 lines 198 and 408: the step schedule and CLIENTOPT/SERVEROPT are prescribed by the theorem
    for key in ("F3AST.T3.5", "F3AST.T3.5@explicit"):
        names = {a.name: a.statement for a in get(key).assumptions}
        assert "CLIENTOPT = SGD, SERVEROPT = w + Delta" in names
        assert "2/mu" in names["step schedule"] or "2/(mu" in names["step schedule"]


def test_t35_admits_exact_gradients():
    # A3 bounds a variance (seed 001 line 182): sigma_k^2 = 0 is allowed
    rep = get("F3AST.T3.5").check({**T35, "sigma2": "0,0"})
    assert rep.verdict != "fails" and rep.evaluation.value == pytest.approx(
        (1 + 0 + 0.6 + 128 + 400 / 3) / (5 * 1000 + 32), rel=REL)


def test_t35_l_below_mu_fails():
    rep = get("F3AST.T3.5@explicit").check({**T35, "L": 0.5})
    assert rep.holds is False
    assert any(not c.holds for c in rep.conditions if c.name.startswith("L >= mu"))


# F3AST.LB.5
SIGMA_EX1 = "0.234375,-0.1875;-0.1875,0.25"  # (15/64, -3/16; -3/16, 1/4)


def test_lb5_worked_example_and_direct_enumeration():
    direct = 3 / 8 * ((5 / 6) ** 2 + 0.25) + 1 / 2 * (0.25 + 0.25) + 1 / 8 * (0.25 + 0.25)
    assert direct == pytest.approx(2 / 3, rel=REL)
    ev = get("F3AST.LB.5").evaluate(dict(p=P, r=R_STAR, v="1,0;0,1", Sigma=SIGMA_EX1, eta=1))
    assert ev.value == pytest.approx(2 / 3, rel=REL)
    ev = get("F3AST.LB.5").evaluate(dict(p=P, r=R_STAR, v="1,0;-1,0", Sigma=SIGMA_EX1, eta=0.5))
    assert ev.value == pytest.approx(7 / 6 / 0.25, rel=REL)  # anti-aligned updates, divided by eta^2


def test_lb5_batched_matrices():
    v = np.stack([np.eye(2), np.array([[1.0, 0.0], [-1.0, 0.0]])])
    sig = np.array([[15 / 64, -3 / 16], [-3 / 16, 1 / 4]])
    ev = get("F3AST.LB.5").evaluate(dict(p=np.array([0.5, 0.5]), r=np.array([0.375, 0.5]), v=v,
                                         Sigma=np.stack([sig, sig]), eta=1.0))
    np.testing.assert_allclose(ev.value, [2 / 3, 7 / 6], rtol=REL)


# F3AST.LB.2 / LB.3 / T3.7
def test_lb2_operative_and_printed():
    vals = dict(eta=0.0625, mu=1, D=1, V1=130.9)
    assert get("F3AST.LB.2").evaluate(vals).value == pytest.approx(0.9375 + 0.00390625 * 130.9, rel=REL)
    assert get("F3AST.LB.2").evaluate(vals).value == pytest.approx(1.4488281, rel=SPEC6)
    assert get("F3AST.LB.2@printed").evaluate(vals).value == pytest.approx(1.5074219, rel=SPEC6)
    assert get("F3AST.LB.2").variant == "operative" and get("F3AST.LB.2").reconstructed


def test_lb2_solve_largest_step():
    sol = get("F3AST.LB.2").solve("eta", dict(mu=4, D=1, V1=1))
    assert sol.success and sol.value == pytest.approx(0.25, rel=1e-12)


def test_lb3_worked_example():
    assert get("F3AST.LB.3").evaluate(dict(E=5, G2=1, eta=0.0625)).value == pytest.approx(0.390625, rel=REL)


def test_t37_corrected_and_printed():
    assert get("F3AST.T3.7").evaluate(dict(alpha=0.9, eps=0.01, C=1)).value == pytest.approx(43.71, abs=5e-3)
    assert get("F3AST.T3.7").evaluate(dict(alpha=0.9, eps=0.01, C=2)).value == pytest.approx(50.29, abs=5e-3)
    assert get("F3AST.T3.7").evaluate(dict(alpha=0.9, eps=0.01, C=2)).value == pytest.approx(
        math.log(0.005) / math.log(0.9), rel=REL)
    assert get("F3AST.T3.7@printed").evaluate(dict(alpha=0.9, eps=0.01)).value == pytest.approx(
        math.log(0.01) / math.log(0.9), rel=REL)
    assert get("F3AST.T3.7").kind is Kind.THRESHOLD


def test_t37_alpha_one_fails_its_hypothesis():
    rep = get("F3AST.T3.7").check(dict(alpha=1.0, eps=0.01, C=1))
    assert rep.holds is False


# Bad input
@pytest.mark.parametrize("key, values, fragment", [
    ("F3AST.E3", {"p": P, "r": "0.5,0"}, "outside its domain"),
    ("F3AST.E3", {"p": P, "r": "0.5,1.5"}, "outside its domain"),
    ("F3AST.E3", {"p": P, "r": "0.5,0.5,0.5"}, "equal lengths"),
    ("F3AST.E3", {"p": "0.3,0.3", "r": R_STAR}, "sum to 1"),
    ("F3AST.E3", {"p": P, "r": "a,b"}, "not a number"),
    ("F3AST.E3", {"p": P}, "needs r"),
    ("F3AST.L3.4", {"E": 0, "G2": 1, "p": P, "r": R_STAR}, "outside its domain"),
    ("F3AST.LB.5", dict(p=P, r=R_STAR, v="1,0;0,1", Sigma="1,0", eta=1), "N x N"),
    ("F3AST.LB.5", dict(p=P, r=R_STAR, v="1,0;0,1;1,1", Sigma=SIGMA_EX1, eta=1), "N x d"),
    ("F3AST.T3.5@explicit", {**T35, "mu": -1}, "outside its domain"),
    ("F3AST.T3.5", {**T35, "sigma": 1}, "unknown symbol"),
])
def test_bad_input_is_user_error(key, values, fragment):
    with pytest.raises(UserInputError, match=fragment):
        get(key).evaluate(values)


def test_every_f3ast_result_has_provenance_and_status():
    for res in registry.all_results():
        if res.paper != "F3AST":
            continue
        assert res.provenance.seed.startswith("001_") and res.provenance.spec.startswith("f3ast.md")
        assert res.lhs and res.terms
        if res.reconstructed:
            assert Status.FLAG in res.status and res.flags
        res.latex(), res.text(), res.to_dict()


def test_t35_explicit_rounds_for_target():
    # (L/2) v / (gamma' + 5T) <= 0.1 with v = 4 (130.9 + 400/3): T >= (2 v / 0.1 - 31) / 5
    v = 4 * (130.9 + 400 / 3)
    t_min = math.ceil((2 * v / 0.1 - 31) / 5)
    vals = {k: x for k, x in T35.items() if k != "T"}
    sol = get("F3AST.T3.5@explicit").solve("T", vals, target=0.1)
    assert sol.success and sol.value == t_min == 4222


def checked_hold(rep) -> bool:
    """Every encoded hypothesis holds; the rest are the not-checked participation/availability ones."""
    rest = [c for c in rep.conditions if c.reason.startswith("condition, not checked")]
    return rep.holds is None and all(c.holds is None for c in rest) and all(
        c.holds is True for c in rep.conditions if c not in rest)
