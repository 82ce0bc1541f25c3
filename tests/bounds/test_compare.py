"""bounds.compare: which results cover a setting, their numbers against hand arithmetic, the ordering, and the
conversions between conventions (eps on ||grad f|| vs its square, gap vs distance) or the refusal to convert."""

import math

import numpy as np
import pytest

from bounds.compare import compare, curve, make_setting
from bounds.core.errors import UserInputError
from bounds.registry import all_results

REL = 1e-9
# FAST-style: S = 10 of N = 100 uniformly, non-convex, E||grad f||^2 <= eps
FAST_STYLE = dict(L=1, tau=5, S=10, N=100, sigma=1, zeta_G=0.5, Delta0=1, eps=0.05, R=1000, eta_c=0.005)
# F3AST-style: two clients, static rates, strongly convex, f - f* <= eps (f3ast.md worked example constants)
F3AST_STYLE = dict(L=4, mu=1, tau=5, G=1, D0=1, sigma=1, p="0.5,0.5", r="0.5,0.5", Gamma=0.1, var_s=400 / 3,
                   R=1000, eps=0.05)


def _fast(**kw):
    return make_setting({**FAST_STYLE, **kw}, pattern="iid", measure="grad-sq", convexity="nonconvex")


def test_fast_style_ordering_of_three_results_by_hand():
    eps, S, N, K = 0.05, 10, 100, 5
    # SCAF.T1 non-convex (beta = L = 1, F = Delta0 = 1, G = zeta_G = 0.5, B = 1)
    fedavg = 1 / (K * S * eps**2) + (1 - S / N) * 0.25 / (S * eps**2) + 0.5 / eps**1.5 + 1 / eps
    # SCAF.T3 non-convex
    scaffold = 1 / (K * S * eps**2) + (N / S) ** (2 / 3) / eps
    # ASCAF.P.IID: eps on ||grad f|| -> its eps = sqrt(0.05); rho^2 = 1/S, I = tau, P = 1, p_min = S/N
    e = math.sqrt(eps)
    amplified = (1 / S) / (K * e**4) + 1 / ((S / N) * e**2)
    assert fedavg < scaffold < amplified  # 81.7 < 100.8 < 208
    out = compare(_fast(), ["ASCAF.P.IID", "SCAF.T3@nonconvex", "SCAF.T1@nonconvex"])
    assert [r.key for r in out.covered] == ["SCAF.T1@nonconvex", "SCAF.T3@nonconvex", "ASCAF.P.IID"]
    assert [r.rounds for r in out.covered] == pytest.approx([fedavg, scaffold, amplified], rel=REL)
    assert all(r.order_constant_one for r in out.covered)
    # eps reached at R = 1000 by SCAF.T3: 1000 = 1/(50 e^2) + 10^(2/3)/e, a quadratic in 1/e
    a, b = 1 / 50, 10 ** (2 / 3)
    inv = (-b + math.sqrt(b * b + 4 * a * 1000)) / (2 * a)
    assert out.covered[1].reached == pytest.approx(1 / inv, rel=1e-6)


def test_fast_style_lists_covering_results_and_reasons_for_the_rest():
    out = compare(_fast())
    covered = {r.key for r in out.covered}
    assert {"SCAF.T1@nonconvex", "SCAF.T3@nonconvex", "ASCAF.P.IID"} <= covered
    # FAST.C1's q >= q_min(G1, G2, G3) needs constants the sources lost: undecided, listed apart with its values
    assert "FAST.C1" in {r.key for r in out.undecided} and "FAST.C1" not in covered
    reasons = {r.key: r.reason for r in out.other}
    assert "strongly-convex" in reasons["SCAF.T1@sc"] and "strongly-convex" in reasons["F3AST.T3.5"]
    assert "cyclic participation" in reasons["ASCAF.P.CYC"]
    assert "lower bound" in reasons["SCAF.T2"]
    assert "does not say which error measure" in reasons["SURV.FEDAVG"]
    assert "needs delta" in reasons["SCAF.T4@weakly-convex"]
    # the printed step cap of FAST Theorem 1: 0.005 <= (nq + m(1-q))/(5 m n L K) = 10/(5*100*5) = 0.004 fails
    assert reasons["FAST.T1"] == "hypothesis 'step size cap (nq+m(1-q))/(5mnLK)' fails in this setting"
    assert all(r.reason for r in out.other) and covered.isdisjoint(reasons)
    # FAST read under i.i.d. sampling with q = 1, m = n = S, stated as a condition
    fast_c1 = next(r for r in out.undecided if r.key == "FAST.C1")
    assert any("q = 1" in c for c in fast_c1.conditions) and "cannot decide" in fast_c1.reason
    # Amplified SCAFFOLD's regularized rows that fix p_min = 1 are not read as i.i.d. sampling
    assert "regularized participation" in reasons["ASCAF.P.REG"]


def test_fast_t1_covers_with_a_smaller_step_and_matches_its_bound():
    out = compare(_fast(eta_c=0.002), ["FAST.T1"])
    (row,) = out.undecided  # values computed; its snapshot threshold needs G1..G3, so it is not "covered"
    assert out.covered == ()
    # FAST Theorem 1 with q = 1, m = n = 10: 4 zeta/(K R eta) + 4 L eta sigma^2/m + 60 L^2 K^2 eta^2 sigma_G^2
    at_R = 4 / (5 * 1000 * 0.002) + 4 * 0.002 / 10 + 60 * 25 * 0.002**2 * 0.25
    assert row.reached == pytest.approx(at_R, rel=REL)
    assert not row.order_constant_one
    assert any(c.startswith("unverified: snapshot probability") for c in row.conditions)


def test_f3ast_style_setting_by_hand():
    s = make_setting(F3AST_STYLE, pattern="static-rate", measure="gap", convexity="strongly-convex")
    out = compare(s)
    assert {r.key for r in out.covered} == {"F3AST.T3.5"}
    # the proof's gamma' = max{8L/mu, E} - 1 = 31 gives eta_(1,1) = 2/32 = 1/(4L) exactly: the seed's strict
    # condition (001 line 444) fails, so the explicit forms do not cover 8L/mu = 32 >= E = 5
    reasons = {r.key: r.reason for r in out.other}
    for key in ("F3AST.T3.5@explicit", "F3AST.T3.5@explicit-eq19"):
        assert "eta_(1,1) < 1/(4L)" in reasons[key]
    row = next(r for r in out.covered if r.key == "F3AST.T3.5")
    # (D0 + sum p^2 sigma^2 + 6 Gamma + 8 G^2 (E-1)^2 + var_s) / (E T + max(E, 8L/mu))
    top = 1 + 0.5 + 0.6 + 128 + 400 / 3
    assert row.reached == pytest.approx(top / (5 * 1000 + 32), rel=REL)
    assert row.rounds == math.ceil((top / 0.05 - 32) / 5)  # 1048
    reasons = {r.key: r.reason for r in out.other}
    assert "assumes iid participation" in reasons["SCAF.T3@sc"]
    assert "assumes snapshot participation" in reasons["FAST.T2"]


def test_eps_on_the_gradient_norm_is_converted_exactly():
    """The same setting asked with eps on ||grad f|| (grad) at eps = sqrt(0.05) gives the same rounds."""
    sq = compare(_fast(), ["ASCAF.P.IID", "SCAF.T3@nonconvex"])
    norm = compare(make_setting({**FAST_STYLE, "eps": math.sqrt(0.05)}, pattern="iid", measure="grad",
                                convexity="nonconvex"), ["ASCAF.P.IID", "SCAF.T3@nonconvex"])
    assert [r.rounds for r in norm.covered] == pytest.approx([r.rounds for r in sq.covered], rel=REL)
    ascaf = next(r for r in sq.covered if r.key == "ASCAF.P.IID")
    assert "eps^2" in ascaf.conversion and "(exact)" in ascaf.conversion


def test_gap_and_distance_convert_with_L_and_mu_or_are_refused():
    base = dict(L=2, mu=0.5, tau=5, S=10, N=100, sigma=1, zeta_G=0.5, Delta0=1, D0=4, eps=0.01)
    # strongly convex, measure dist-sq: SCAF.T3@sc (gap) converts with ||x - x*||^2 <= (2/mu)(f - f*)
    s = make_setting(base, pattern="iid", measure="dist-sq", convexity="strongly-convex")
    (row,) = compare(s, ["SCAF.T3@sc"]).covered
    gap_eps = 0.01 * 0.5 / 2  # the gap that guarantees dist <= 0.01
    assert row.rounds == pytest.approx(1 / (0.5 * 5 * 10 * gap_eps) + 2 / 0.5 + 10, rel=REL)
    assert "(2/mu)" in row.conversion
    # non-convex setting, measure gap: a gradient-norm result cannot be turned into a gap bound
    s = make_setting(base, pattern="iid", measure="gap", convexity="nonconvex")
    out = compare(s, ["SCAF.T3@nonconvex", "ASCAF.P.IID"])
    assert not out.covered
    assert all("mu-strongly convex" in r.reason and "nonconvex" in r.reason for r in out.other)


def test_full_participation_setting_admits_the_full_participation_results():
    s = make_setting(dict(L=1, mu=0.1, tau=4, N=20, sigma=0, zeta_G=1, Delta0=1, delta=0.25, eps=0.01),
                     pattern="full", measure="gap", convexity="strongly-convex")
    out = compare(s, ["SCAF.T4@sc", "SCAF.T3@sc"])
    t4 = next(r for r in out.covered if r.key == "SCAF.T4@sc")
    assert t4.rounds == pytest.approx((1 + 0.25 * 4) / (0.1 * 4), rel=REL)  # sigma = 0
    partial = make_setting(dict(L=1, mu=0.1, tau=4, N=20, S=10, sigma=0, Delta0=1, delta=0.25, eps=0.01),
                           pattern="iid", measure="gap", convexity="strongly-convex")
    (row,) = compare(partial, ["SCAF.T4@sc"]).other
    assert row.reason == "hypothesis 'full participation: S >= N' fails in this setting"


def test_curve_matches_the_rows_for_both_forms():
    s = _fast()
    out = compare(s, ["SCAF.T3@nonconvex", "FAST.C1"])
    R = np.array([1000.0])
    for row in out.covered:
        assert curve(row.key, s, R)[0] == pytest.approx(row.reached, rel=1e-4)


@pytest.mark.parametrize("kw, match", [
    ({"nope": 1}, "unknown setting name 'nope'"),
    ({"S": 200}, "exceeds N"),
    ({"L": -1}, "must be > 0"),
    ({"tau": 2.5}, "must be an integer"),
    ({"rho2": -1}, "must be >= 0"),
    ({"sigma2": 1}, "sigma given twice"),
    ({"p": "0.5,x"}, "not a number"),
])
def test_bad_settings_are_one_line_errors(kw, match):
    with pytest.raises(UserInputError, match=match):
        make_setting({**FAST_STYLE, **kw}, pattern="iid")


def test_a_setting_needs_eps_or_a_horizon_and_known_words():
    with pytest.raises(UserInputError, match="give eps"):
        make_setting({"L": 1}, pattern="iid")
    with pytest.raises(UserInputError, match="unknown participation pattern"):
        make_setting(FAST_STYLE, pattern="sometimes")
    with pytest.raises(UserInputError, match="S=10 must equal N=100"):
        make_setting(FAST_STYLE, pattern="full")
    with pytest.raises(UserInputError, match="unknown measure"):
        make_setting(FAST_STYLE, pattern="iid", measure="loss")


PLUGIN = '''
import sympy as sp
from bounds import Kind, Provenance, Result, SymbolInfo, Term, sym
from bounds.conventions import Convention, declare, same

eps, L, Delta0 = sym("eps"), sym("L"), sym("Delta0")

def results():
    return [Result(id="MY.GD", title="GD rounds", paper="mine", kind=Kind.ORDER, lhs="R: rounds to E||grad f||^2 <= eps",
                   lhs_latex="R", terms=(Term("rate", L * Delta0 / eps),),
                   symbols=(SymbolInfo("L", "smoothness"), SymbolInfo("Delta0", "gap"), SymbolInfo("eps", "accuracy")),
                   provenance=Provenance("mine", "Thm 1"), example=(("L", 1.0), ("Delta0", 1.0), ("eps", 0.1))),
            Result(id="MY.UNDECLARED", title="no convention", paper="mine", kind=Kind.ORDER, lhs="R", lhs_latex="R",
                   terms=(Term("rate", 1 / eps),), symbols=(SymbolInfo("eps", "accuracy"),),
                   provenance=Provenance("mine", "Thm 2"), example=(("eps", 0.1),))]

declare("MY.GD", Convention("gradient descent", "rounds", "grad-sq", 1, "nonconvex"))
'''


def test_a_plugin_result_takes_part_once_it_declares_its_convention(tmp_path):
    from bounds import plugins

    path = tmp_path / "mine.py"
    path.write_text(PLUGIN, encoding="utf-8")
    plugins.add_files([str(path)])
    try:
        out = compare(_fast(), ["MY.GD", "MY.UNDECLARED", "SCAF.T3@nonconvex"])
        rows = {r.key: r for r in out.covered}
        assert rows["MY.GD"].rounds == pytest.approx(1 * 1 / 0.05, rel=REL)  # L Delta0 / eps = 20
        assert [r.key for r in out.covered] == ["MY.GD", "SCAF.T3@nonconvex"]  # 20 < 100.8
        (other,) = out.other
        assert other.key == "MY.UNDECLARED" and "declares no convention" in other.reason
    finally:
        plugins.clear_files()


@pytest.mark.parametrize("kw, pattern, measure, convexity", [
    (dict(eps=1e-300, L=1, tau=5, S=10, N=100, sigma=1, zeta_G=1, Delta0=1), "iid", "grad-sq", "nonconvex"),
    (dict(R=100, L=1e300, tau=5, S=10, N=100, sigma=1, zeta_G=1, Delta0=1e300), "iid", "grad", "nonconvex"),
    (dict(R=10**18, eps=1e-200, L=1e200, mu=1e-200, tau=5, S=10, N=100, sigma=1e100, zeta_G=1e100, Delta0=1e300,
          D0=1e300, delta=1e300), "iid", "dist-sq", "strongly-convex"),
    (dict(R=1000, eps=1e200, L=4, mu=1, tau=5, G=1, D0=1, sigma=1e200, p="0.5,0.5", r="0.5,0.5", Gamma=0.1,
          var_s=1.0), "static-rate", "gap", "strongly-convex"),
])
def test_extreme_settings_give_rows_not_tracebacks(kw, pattern, measure, convexity):
    out = compare(make_setting(kw, pattern=pattern, measure=measure, convexity=convexity))
    for r in (*out.covered, *out.undecided):
        assert all(x is None or math.isfinite(x) for x in (r.rounds, r.reached))
        assert r.rounds is not None or r.reached is not None
    assert all(r.reason for r in (*out.other, *out.undecided))
    assert len(out.covered) + len(out.undecided) + len(out.other) == len(all_results())


def test_probabilities_are_checked():
    with pytest.raises(UserInputError, match="q=2 must be a probability"):
        make_setting({**FAST_STYLE, "q": 2}, pattern="snapshot")
