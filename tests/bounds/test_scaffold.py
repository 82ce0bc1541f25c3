"""SCAFFOLD's results (scaffold.md SCAF.T1-T4) and the survey's rows (survey_methods.md), by plain arithmetic.

Each SCAFFOLD result is evaluated at one instance and compared with the formula written out here
by hand; the units test rescales x -> c x and f -> d f and checks which rounds-count terms change,
which is what the flags claim (a rounds count must be dimensionless).
"""

import math

import pytest
import sympy as sp

from bounds import Kind, Status, get, variants
from bounds.survey_rows import ENTRIES, entry

REL = 1e-12
V = dict(beta=2.0, mu=0.5, sigma=1.5, G=0.8, B=1.2, K=4, S=10, N=40, eps=0.01, D=3.0, F=5.0, delta=0.25)


def _terms(key, values):
    res = get(key)
    ev = res.evaluate({k: v for k, v in values.items() if k in res.symbol_map})
    return {k: float(v) for k, v in ev.terms.items()}, float(ev.value)


def test_fedavg_strongly_convex_by_hand():
    b, mu, s, G, B, K, S, N, e = (V[k] for k in ("beta", "mu", "sigma", "G", "B", "K", "S", "N", "eps"))
    terms, total = _terms("SCAF.T1@sc", V)
    hand = {"statistical": s**2 / (mu * K * S * e), "sampling": (1 - S / N) * G**2 / (mu * S * e),
            "drift": math.sqrt(b) * G / (mu * math.sqrt(e)), "deterministic": B**2 * b / mu}
    assert terms == pytest.approx(hand, rel=REL)
    # 1.5^2/(0.5*4*10*0.01) = 11.25; 0.75*0.64/(0.5*10*0.01) = 9.6; sqrt2*0.8/(0.5*0.1) = 22.627...; 1.44*2/0.5 = 5.76
    assert total == pytest.approx(11.25 + 9.6 + 16 * math.sqrt(2) + 5.76, rel=REL)


def test_fedavg_strongly_convex_matches_the_table2_shorthand_at_beta_1():
    """Table 2 writes M^2/(mu S K eps) + G/(mu sqrt(eps)) + B^2/mu, M^2 = sigma^2 + K (1 - S/N) G^2, beta = 1."""
    mu, s, G, B, K, S, N, e = (V[k] for k in ("mu", "sigma", "G", "B", "K", "S", "N", "eps"))
    M2 = s**2 + K * (1 - S / N) * G**2
    _, total = _terms("SCAF.T1@sc", {**V, "beta": 1.0})
    assert total == pytest.approx(M2 / (mu * S * K * e) + G / (mu * math.sqrt(e)) + B**2 / mu, rel=REL)


def test_fedavg_convex_and_nonconvex_by_hand():
    b, s, G, B, K, S, N, e, D, F = (V[k] for k in ("beta", "sigma", "G", "B", "K", "S", "N", "eps", "D", "F"))
    _, convex = _terms("SCAF.T1@convex", V)
    assert convex == pytest.approx(s**2 * D**2 / (K * S * e**2) + (1 - S / N) * G**2 * D**2 / (S * e**2)
                                   + math.sqrt(b) * G / e**1.5 + B**2 * b * D**2 / e, rel=REL)
    _, nonconvex = _terms("SCAF.T1@nonconvex", V)
    assert nonconvex == pytest.approx(b * s**2 * F / (K * S * e**2) + (1 - S / N) * G**2 * F / (S * e**2)
                                      + math.sqrt(b) * G / e**1.5 + B**2 * b * F / e, rel=REL)


def test_full_participation_removes_the_sampling_term():
    terms, _ = _terms("SCAF.T1@nonconvex", {**V, "S": 40})
    assert terms["sampling"] == 0.0


def test_lower_bound_value_and_its_hypotheses():
    res = get("SCAF.T2")
    assert res.kind is Kind.LOWER and float(res.rate_map["R"]) == -2
    vals = dict(G=0.8, mu=0.5, R=20, K=2, sigma=0.0, S=40, N=40)
    rep = res.check(vals)
    assert float(rep.evaluation.value) == pytest.approx(0.64 / (0.5 * 400), rel=REL)  # G^2/(mu R^2) = 0.0032
    assert all(c.holds for c in rep.conditions if c.name.startswith(("local", "no gradient", "full")))
    broken = res.check({**vals, "K": 1, "S": 10})
    by_name = {c.name: c for c in broken.conditions}
    assert by_name["local steps K >= 2"].holds is False and by_name["full participation: S >= N"].holds is False
    assert broken.holds is False
    assert Status.UNRECOVERED in res.status


def test_scaffold_rates_by_hand():
    b, mu, s, K, S, N, e, D, F = (V[k] for k in ("beta", "mu", "sigma", "K", "S", "N", "eps", "D", "F"))
    assert _terms("SCAF.T3@sc", V)[1] == pytest.approx(s**2 / (mu * K * S * e) + b / mu + N / S, rel=REL)
    assert _terms("SCAF.T3@convex", V)[1] == pytest.approx(
        s**2 * D**2 / (K * S * e**2) + b * D**2 / e + N * F / S, rel=REL)
    # non-convex: (N/S)^(2/3) = 4^(2/3)
    assert _terms("SCAF.T3@nonconvex", V)[1] == pytest.approx(
        b * s**2 * F / (K * S * e**2) + 4 ** (2 / 3) * b * F / e, rel=REL)
    # SCAFFOLD's rate does not depend on G or B (no dissimilarity assumption)
    assert not {"G", "B"} & set(get("SCAF.T3@sc").symbol_map)


def test_scaffold_quadratic_by_hand_and_best_local_steps():
    b, mu, s, N, e, F, d = (V[k] for k in ("beta", "mu", "sigma", "N", "eps", "F", "delta"))
    vals = {**V, "S": N}
    for K in (1, 4, 8):
        assert _terms("SCAF.T4@sc", {**vals, "K": K})[1] == pytest.approx(
            b * s**2 / (mu * K * N * e) + (b + d * K) / (mu * K), rel=REL)
        assert _terms("SCAF.T4@weakly-convex", {**vals, "K": K})[1] == pytest.approx(
            b * s**2 * F / (K * N * e**2) + (b + d * K) * F / (K * e), rel=REL)
    # sigma = 0: (beta + delta K)/(mu K) = beta/(mu K) + delta/mu falls with K; at K = beta/delta = 8 it is
    # within a factor 2 of its infimum delta/mu (the text's "best K")
    at_best = _terms("SCAF.T4@sc", {**vals, "sigma": 0.0, "K": 8})[1]
    assert at_best == pytest.approx(2 * d / mu, rel=REL)
    res = get("SCAF.T4@sc")
    rep = res.check({k: v for k, v in {**vals, "S": 10, "K": 4}.items() if k in res.symbol_map})
    assert {c.name: c.holds for c in rep.conditions}["full participation: S >= N"] is False


# Units: x (model coordinates) scaled by c, f by d. beta, mu, delta ~ d/c^2; sigma, G ~ d/c; D ~ c; F ~ d;
# eps ~ d (function gap) or d^2/c^2 (squared gradient norm). A rounds count must not change.
C, DD = sp.Rational(3), sp.Rational(7)


def _scaled_ratio(res, expr):
    eps_scale = DD**2 / C**2 if "grad" in res.symbol_map["eps"].meaning else DD
    scale = {"beta": DD / C**2, "mu": DD / C**2, "delta": DD / C**2, "sigma": DD / C, "G": DD / C, "D": C, "F": DD,
             "eps": eps_scale}
    subs = {s: s * scale.get(s.name, 1) for s in expr.free_symbols}
    return sp.simplify(expr.xreplace(subs) / expr)


FLAGGED_UNITS = {("SCAF.T1@convex", "drift"), ("SCAF.T1@nonconvex", "drift"), ("SCAF.T1@nonconvex", "sampling"),
                 ("SCAF.T3@convex", "sampling"), ("SCAF.T4@sc", "statistical")}
ROUNDS = [r for i in ("SCAF.T1", "SCAF.T3", "SCAF.T4") for r in variants(i)]


@pytest.mark.parametrize("res", ROUNDS, ids=lambda r: r.key)
def test_terms_are_dimensionless_except_the_flagged_ones(res):
    for term in res.terms:
        invariant = _scaled_ratio(res, term.expr) == 1
        assert invariant is ((res.key, term.name) not in FLAGGED_UNITS), (res.key, term.name)
        if not invariant:
            assert any(term.name in f or "dimensionless" in f for f in res.flags), (res.key, term.name)


def test_every_scaffold_result_has_provenance_epsilon_convention_and_unrecovered_steps():
    keys = [r.key for i in ("SCAF.T1", "SCAF.T2", "SCAF.T3", "SCAF.T4") for r in variants(i)]
    assert len(keys) == 9
    for key in keys:
        res = get(key)
        assert res.provenance.spec.startswith("scaffold.md SCAF.T")
        if res.kind is Kind.ORDER:
            assert any("INFERRED" in f and "eps" in f for f in res.flags)
            assert any("UNRECOVERED" in a.needs for a in res.assumptions)


# ---- the survey
def test_survey_rates_by_hand_and_the_generalized_fedavg_inconsistency():
    T, n, K = 400, 16, 9
    assert float(get("SURV.FEDAVG").evaluate({"T": T}).value) == pytest.approx(1 / 20, rel=REL)
    assert float(get("SURV.FEDEF").evaluate({"T": T}).value) == pytest.approx(1 / 400, rel=REL)
    text = float(get("SURV.GENFEDAVG@text").evaluate({"T": T, "n": n, "K": K}).value)
    table = float(get("SURV.GENFEDAVG@table").evaluate({"T": T, "n": n}).value)
    assert text == pytest.approx(3 / 80 + 1 / 400, rel=REL) and table == pytest.approx(1 / 80, rel=REL)
    assert text != pytest.approx(table)  # the survey contradicts itself: both forms kept, flagged
    assert Status.FLAG in get("SURV.GENFEDAVG@text").status


def test_survey_results_state_no_constants_and_no_error_measure():
    for rid in ("SURV.FEDAVG", "SURV.CYCP", "SURV.GENFEDAVG", "SURV.FEDEF", "SURV.GRADMA", "SURV.FEDAMD"):
        for res in variants(rid):
            assert res.provenance.seed == "003_703fb3fbc0a289c6.txt"
            assert set(res.symbol_map) <= {"T", "n", "K"} and not res.hypotheses
            assert "UNRECOVERED" in res.lhs and Status.UNRECOVERED in res.status


def test_survey_rows_without_a_rate_are_entries_with_their_participation_model():
    ids = {e.id for e in ENTRIES}
    assert ids == {"SURV.SAFARI", "SURV.MIFA", "SURV.FEDCM", "SURV.FEDVARP", "SURV.FEDPROX", "SURV.SCAFFOLD",
                   "SURV.EMBRACING"}
    assert "without replacement" in entry("SURV.FEDVARP").participation
    assert len(entry("SURV.FEDVARP").flags) == 3 and entry("SURV.NOPE") is None


def test_list_and_show_print_provenance_flags_and_unrecovered(convbound):
    rows = convbound("list", "--json").json()
    by_key = {r["key"]: r for r in rows}
    assert by_key["SCAF.T1@convex"]["flags"] == 3 and "Theorem I" in by_key["SCAF.T1@convex"]["source"]
    assert by_key["SURV.MIFA"]["kind"] == "no rate" and by_key["SURV.FEDAVG"]["kind"] == "order"
    run = convbound("show", "SCAF.T2")
    assert run.code == 0
    for needle in ("Theorem II", "local steps K >= 2", "UNRECOVERED: the construction",
                   "the worst instance: the construction is in the appendix (UNRECOVERED)", "flag:"):
        assert needle in " ".join(run.out.split())
    run = convbound("show", "SURV.FEDVARP")
    assert run.code == 0
    for needle in ("participation model: uniform random sampling", "statement:", "hypotheses stated:",
                   "UNRECOVERED: the rate itself"):
        assert needle in " ".join(run.out.split())


def _at(expr, **values):
    return float(expr.xreplace({s: values[s.name] for s in expr.free_symbols}))


def test_fedavg_nonconvex_leading_term_matches_what_fast_cites_it_for():
    """FAST (seed 000, Remark 1) says its O(1/sqrt(mKR)) matches the uniform-participation rate of
    [Karimireddy et al., 2020]: SCAF.T1's statistical term R = beta sigma^2 F/(K S eps^2), solved for eps,
    gives eps = sqrt(beta sigma^2 F/(K S R)): the same exponents -1/2 in K, S (= m) and R as FAST.C1's first term."""
    def eps_at(K, S, R):  # SCAF.T1@nonconvex statistical term alone, solved for eps (beta = sigma = F = 1)
        return math.sqrt(1 / (K * S * R))

    res = get("SCAF.T1@nonconvex")
    term = next(t for t in res.terms if t.name == "statistical")
    for K, S, R in ((2, 10, 100), (8, 10, 100), (2, 40, 400)):
        e = eps_at(K, S, R)
        assert _at(term.expr, beta=1, sigma=1, F=1, K=K, S=S, eps=e) == pytest.approx(R)
    fast = get("FAST.C1")
    first = fast.terms[0].expr  # sqrt(m(1-q) + nq)/(sqrt(K R m n)); with m = n: 1/sqrt(K R m)
    for K, m, R in ((2, 10, 100), (8, 10, 100), (2, 40, 400)):
        value = _at(first, m=m, n=m, q=0.5, K=K, R=R)
        assert value == pytest.approx(eps_at(K, m, R), rel=1e-12)
