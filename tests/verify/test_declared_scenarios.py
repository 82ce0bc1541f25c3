"""Declared scenarios (verify.scenarios.declared, verify.scenarios.settings): every result has a scenario or a
stated reason; each declared scenario's default point against numbers computed by hand; a tiny search runs."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from verify.scenario import evaluate_point
from verify.scenarios import get, registry
from verify.scenarios.declared import ALGORITHMS, LAWS, MEASURES, rounds_to_gap, rounds_to_grad, window_grad
from verify.scenarios.settings import DECLARATIONS, WITHOUT_SCENARIO

NEW_IDS = [d.id for d in DECLARATIONS] + ["F3AST.L3.4@eq6-printed", "F3AST.L3.4@eq7-printed"]


def _covered() -> dict[str, list[str]]:
    import bounds

    out: dict[str, list[str]] = {}
    for sid, sc in registry().items():
        out.setdefault(bounds.get(sc.result).key, []).append(sid)
    return out


def _built_in(bounds):
    """The built-in results (a result another test registered in this process is its own test's business)."""
    from bounds.plugins import BUILT_IN

    return [r for r in bounds.all_results() if r.origin == BUILT_IN]


def test_every_result_has_a_scenario_or_a_stated_reason():
    import bounds

    covered = _covered()
    keys = [r.key for r in _built_in(bounds)]
    missing = [k for k in keys if k not in covered and k not in WITHOUT_SCENARIO]
    assert missing == []
    # a reason is only for a result that has no scenario, and names a registered result
    assert sorted(set(WITHOUT_SCENARIO) - set(keys)) == []
    assert sorted(k for k in WITHOUT_SCENARIO if k in covered) == []
    # few, each named: definitions, a threshold in lost constants, and what the engine does not run (Theorem
    # III.7's burn-in has its exact enumeration, verify.scenarios.f3ast_burnin)
    assert sorted(WITHOUT_SCENARIO) == ["F3AST.E3@p", "F3AST.E3@p2", "F3AST.LB.2@operative", "F3AST.LB.2@printed",
                                        "F3AST.LB.3", "FAST.R2", "SURV.FEDAMD", "SURV.FEDEF", "SURV.GRADMA"]


def test_every_searchable_result_without_a_reason_has_a_searchable_scenario():
    import bounds

    covered = _covered()
    searchable = [r.key for r in _built_in(bounds) if r.kind.value in ("upper", "order")]
    assert [k for k in searchable if k not in covered and k not in WITHOUT_SCENARIO] == []
    assert len([k for k in searchable if k in covered]) >= 45


def test_declarations_name_the_engine_vocabulary():
    for d in DECLARATIONS:
        assert d.algorithm in ALGORITHMS and d.law in LAWS and d.measure in MEASURES, d.id
        assert get(d.id).result == d.result


def test_default_points_are_admissible_and_finite():
    for sid in NEW_IDS:
        e = evaluate_point(get(sid), {}, trials=2, seed=0)
        assert e.hypotheses is True, (sid, e.broken)
        assert math.isfinite(e.lhs) and e.rhs > 0, sid


# Independent numbers at the default points ------------------------------------------------------------------------

def test_fast_c1_default_rhs_and_prescribed_step_by_hand():
    e = evaluate_point(get("FAST.C1"), {}, trials=2, seed=0)
    # M = 8, s_frac = 0.25: m = n = 2, q = 1, K = 2, R = 800, c = 0.25
    m = n = 2
    K, R, c, q = 2, 800, 0.25, 1.0
    Dq = n * q + m * (1 - q)
    rhs = K * m * n / (R * Dq) + math.sqrt(Dq) / math.sqrt(K * R * m * n)
    assert e.rhs == pytest.approx(rhs, rel=1e-12)
    assert e.describe["eta"] == pytest.approx(c * math.sqrt(m * n / (R * K * Dq)), rel=1e-12)


def test_survey_genfedavg_table_default_rhs_by_hand():
    e = evaluate_point(get("SURV.GENFEDAVG@table"), {}, trials=2, seed=0)
    # T = 400 rounds, n = S = round(0.25 x 20) = 5 workers a round, eta = 1/sqrt(T)
    assert e.rhs == pytest.approx(1 / math.sqrt(400 * 5), rel=1e-12)
    assert e.describe["eta"] == pytest.approx(0.05) and e.describe["eta_g"] == 2.0


def test_fast_c3_printed_default_rhs_by_hand():
    e = evaluate_point(get("FAST.C3.printed"), {}, trials=2, seed=0)
    v = e.values  # L = 1, mu = 0.5, m = 2, K = 2, q = 1, R = 400, sigma = 1, sigma_G read off the problem
    assert (v["L"], v["mu"], v["m"], v["K"], v["q"], v["R"], v["sigma"]) == (1.0, 0.5, 2, 2, 1.0, 400, 1.0)
    mu, R = 0.5, 400
    rhs = math.exp(-R * mu / (20 * 1 * 2)) + v["sigma_G"] ** 2 / (R * mu) + 0 + 1 / (2 * R * 2 * mu)
    assert e.rhs == pytest.approx(rhs, rel=1e-12)
    assert e.describe["eta"] == pytest.approx(1 / (20 * 2 * 1 * 2))


def test_fedavg_rounds_to_eps_matches_the_closed_recursion():
    """Full participation, sigma = 0, shared Hessian diag(lam): FedAvg's error contracts exactly as
    e_{r+1} = (1 - eta lam)^K e_r; the rounds until the mean ||lam e||^2 so far is <= eps, counted by hand."""
    sc = get("SCAF.T1@nonconvex")
    point = {"problem": "quadratic", "sigma": 0.0, "s_frac": 1.0, "eps": 0.05}
    inst = sc.build(sc.point(point))
    pb, eta, K, R = inst.problem, inst.describe["eta"], inst.describe["K"], inst.rounds
    e = pb.x0 - pb.x_star
    total, first = 0.0, R + 1
    for r in range(R + 1):
        total += float(np.sum((pb.lam * e) ** 2))
        if total / (r + 1) <= 0.05:
            first = r
            break
        e = (1 - eta * pb.lam) ** K * e
    assert first < R  # reached inside the run: the count is not censored
    est = evaluate_point(sc, point, trials=2, seed=0)
    assert est.lhs == first and est.ci == (first, first)


def test_rounds_and_window_measures_on_hand_made_curves():
    grad = np.array([[4.0, 1.0], [2.0, 1.0], [0.0, 1.0], [0.0, 1.0]])  # rounds x trials
    sim = SimpleNamespace(metrics={"grad_sq": grad, "gap": grad / 2})
    # trial 0: running means 4, 3, 2, 1.5; trial 1: 1 throughout
    assert rounds_to_grad(sim, eps=2.0, R=3).tolist() == [2.0, 0.0]
    assert rounds_to_grad(sim, eps=0.5, R=3).tolist() == [4.0, 4.0]  # never reached: R + 1
    # window starts x_0, x_2 (P = 2): means (4 + 0)/2 = 2, 1; the count is in rounds (window index x P)
    assert window_grad(sim, R=4, P=2).tolist() == [2.0, 1.0]
    assert rounds_to_grad(sim, eps=2.0, R=3, every=2).tolist() == [2.0, 0.0]
    assert rounds_to_grad(sim, eps=2.0, R=3, every=2, scale=3).tolist() == [6.0, 0.0]  # local steps R I
    assert rounds_to_grad(sim, eps=0.5, R=3, every=2).tolist() == [4.0, 4.0]  # never reached: R + 1 rounds
    assert rounds_to_gap(sim, eps=1.0, R=3).tolist() == [2.0, 0.0]  # running mean gap 2, 1.5, 1, 0.75


def test_printed_lemma_34_is_the_operative_lhs_times_eta():
    from verify.scenarios.f3ast_sampling import UPDATE_ETA

    for n in (6, 7):
        op = evaluate_point(get(f"F3AST.L3.4@eq{n}"), {}, trials=64, seed=3)
        pr = evaluate_point(get(f"F3AST.L3.4@eq{n}-printed"), {}, trials=64, seed=3)
        assert pr.lhs == pytest.approx(op.lhs * UPDATE_ETA, rel=1e-12) and pr.rhs == pytest.approx(op.rhs)


@pytest.mark.parametrize("sid", NEW_IDS)
def test_a_tiny_search_runs(sid):
    from verify.search.falsify import search

    rec = search(get(sid), budget=3, seed=0, trials=2, confirm_trials=4, population=3)
    assert rec.result == get(sid).result and rec.confirmation.get("verdict")


def test_fast_r2_threshold_is_theorem_1s_q_hypothesis_rewritten():
    """FAST.R2 has no scenario (its G1..G3 are lost); what can be checked exactly is that Remark 2's printed form
    1/(1 + (G1 - 2LK eta G3)/(G2(2LK eta - 1) + 2K^2 sigma_G^2)) is Theorem 1's q-threshold, typed apart."""
    import sympy as sp

    import bounds

    hyp = next(h for h in bounds.get("FAST.T1").hypotheses if h.name == "snapshot probability q >= q_min(G1,G2,G3)")
    assert sp.simplify(hyp.relation.rhs - bounds.get("FAST.R2").rhs) == 0
    # and at one point by plain arithmetic: L = 1, K = 5, eta = 0.005, sigma_G = 0.5, G1 = 10, G2 = G3 = 1
    a = 2 * 1 * 5 * 0.005
    by_hand = (a - 1 + 2 * 25 * 0.25) / (10 + (a - 1) - a + 2 * 25 * 0.25)
    r2 = bounds.get("FAST.R2").evaluate({"L": 1, "K": 5, "eta_c": 0.005, "sigma_G": 0.5, "G1": 10, "G2": 1, "G3": 1})
    assert float(r2.value) == pytest.approx(by_hand, rel=1e-12)


def test_falsify_given_a_result_key_names_its_scenarios(convbound):
    run = convbound("falsify", "FAST.C3@corrected", "--space")
    assert run.code == 2 and "'FAST.C3@corrected' is a result, not a scenario id; its scenarios: FAST.C3" in run.err
    assert convbound("falsify", "SCAF.T3@nonconvex", "--space").code == 0  # a declared scenario keeps its result's key


def test_compiled_declarations_agree_with_sympys_exact_value():
    """A declaration's step expression is compiled to float64 once (declared._expr): at random contexts it agrees
    with sympy's evaluation of the same text at 30 digits to 2 units in the last place; a name the context lacks
    is still refused."""
    import random

    import sympy as sp

    import bounds
    from verify.scenarios.declared import DECLARED, _expr

    rng = random.Random(3)
    names = ("L", "K", "I", "R", "T", "m", "n", "q", "mu", "P", "p_min", "sigma", "rho", "eps", "N", "Kbar", "c")
    seen = 0
    for d in DECLARED.values():
        res = bounds.get(d.result)
        for text in (t for t in (d.step, d.local, d.gamma) if t):
            for _ in range(5):
                ctx = {n: rng.uniform(0.1, 0.9) if n in ("q", "c", "p_min") else float(rng.randint(2, 400))
                       for n in names}
                expr = (res.prescribed_map[text.split(":", 1)[1]] if text.startswith("prescribed:")
                        else sp.sympify(text, locals={n: sp.Symbol(n) for n in ctx}))
                want = float(expr.subs({s: sp.Rational(ctx[str(s)]) for s in expr.free_symbols}).evalf(30))
                assert _expr(text, ctx, res) == pytest.approx(want, rel=4.5e-16, abs=0), (d.id, text, ctx)
                seen += 1
    assert seen > 40
    with pytest.raises(ValueError, match="no context value for L"):
        _expr("1/(L*K)", {"K": 2.0}, None)
