"""Defects of the search found on 26ec3e4, each with a test that failed there (issue 18 item 8)."""

from functools import partial

import numpy as np
import pytest

from verify.scenario import Instance, Param, Scenario
from verify.scenarios import get
from verify.scenarios.fast import build_t2
from verify.search.falsify import search
from verify.search.optimisers import clip, make_optimiser
from verify.verdict import VERDICTS


def _tiny(point):
    """A 2-round FAST.T2 instance whose measured LHS is the point's sigma (cheap, deterministic)."""
    inst = build_t2({**get("FAST.T2").default_point(), "horizon": 1.0})
    return Instance(problem=inst.problem, algorithm=inst.algorithm, pattern=inst.pattern, rounds=2,
                    values=inst.values, measure=partial(_const, value=float(point["sigma"])))


def _const(sim, value):
    return np.full(sim.trials, value) * (1 + 1e-3 * np.random.default_rng(sim.seed).standard_normal(sim.trials))


# nevergrad's Log(lower=1e-4, upper=0.01) returns 0.010000000000000004 at its upper end
NARROW = Scenario("STUB.narrow", "FAST.T2@corrected", "narrow log axis",
                  (Param("sigma", 1e-4, 1e-2, 1e-2, log=True),), _tiny)


def test_nevergrad_cma_never_proposes_a_point_outside_a_log_axis():
    opt = make_optimiser("nevergrad-cma", NARROW, seed=0, population=8, budget=64)
    pts = [p.point for _ in range(8) for p in opt.ask(8)]
    assert all(1e-4 <= p["sigma"] <= 1e-2 for p in pts)
    assert max(p["sigma"] for p in pts) == 1e-2  # the default (upper end) itself, exactly


def test_nevergrad_cma_search_completes_on_a_narrow_log_axis():
    import verify.scenarios as reg

    reg.registry()["STUB.narrow"] = NARROW
    try:
        rec = search(NARROW, budget=8, seed=0, trials=4, confirm_trials=8, optimiser="nevergrad-cma", population=4)
    finally:
        del reg.registry()["STUB.narrow"]
    assert rec.evaluations == 8 and rec.admissible == 8 and rec.confirmation["verdict"] in ("holds", "violated")


def test_clip_rounds_integers_and_clips_floats_by_hand():
    space = (Param("K", 1, 8, 2, integer=True), Param("x", 0.5, 2.0, 1.0), Param("c", choices=("a", "b")))
    out = clip(space, {"K": 8.6, "x": 2.0000000001, "c": "b"})
    assert out == {"K": 8, "x": 2.0, "c": "b"} and isinstance(out["K"], int)
    assert clip(space, {"K": 0.2, "x": 0.1})["K"] == 1 and clip(space, {"K": 0.2, "x": 0.1})["x"] == 0.5


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_f3ast_explicit_search_never_dies_on_its_own_domains(seed):
    # 26ec3e4: "sigma2=0 is outside its domain", exit 2, the whole search lost (the sigma axis reached 0)
    sc = get("F3AST.T3.5@explicit")
    rec = search(sc, budget=12, seed=seed, trials=4, confirm_trials=8, optimiser="random", population=4)
    assert rec.evaluations == 12 and rec.confirmation["verdict"] in VERDICTS and "status" not in rec.confirmation
    sigma = next(p for p in sc.space if p.name == "sigma")
    assert sigma.low > 0 and any(t["admissible"] for t in rec.trace)


def test_f3ast_explicit_admits_only_e_above_8l_over_mu():
    # the seed's strict eta_(1,1) < 1/(4L) with the proof's gamma' = max{8L/mu, E} - 1: E = 8 at mu = L is equality
    from verify.scenario import evaluate_point

    sc = get("F3AST.T3.5@explicit")
    at = {"E": 8, "mu_frac": 1.0, "T": 2, "d": 2}
    est = evaluate_point(sc, at, trials=2, seed=0)
    assert est.hypotheses is False and est.broken == ["first step eta_(1,1) < 1/(4L) (strict, seed line 444)"]
    assert evaluate_point(sc, {**at, "E": 9}, trials=2, seed=0).hypotheses is True


def test_a_point_outside_a_domain_is_skipped_and_counted():
    def build(point):
        inst = _tiny({"sigma": 1.0})
        return Instance(problem=inst.problem, algorithm=inst.algorithm, pattern=inst.pattern, rounds=2,
                        values={**inst.values, "L": point["L"]}, measure=inst.measure)

    sc = Scenario("STUB.domain", "FAST.T2@corrected", "L may be 0", (Param("L", 0.0, 1.0, 1.0),), build)
    import verify.scenarios as reg

    reg.registry()["STUB.domain"] = sc
    try:
        rec = search(sc, budget=12, seed=0, trials=4, confirm_trials=8, optimiser="random", population=4)
    finally:
        del reg.registry()["STUB.domain"]
    skipped = sum(1 for t in rec.trace if not t["admissible"])
    assert rec.outside_domain >= 1 and rec.evaluations == 12
    assert rec.outside_domain <= skipped and any("outside its domain" in n for n in rec.notes)


def _diverged(sim):
    return np.full(sim.trials, np.inf)


def _build_diverged(point):
    inst = _tiny({"sigma": 1.0})
    return Instance(problem=inst.problem, algorithm=inst.algorithm, pattern=inst.pattern, rounds=2,
                    values=inst.values, measure=_diverged)


def test_stop_at_violation_claims_a_diverged_lhs():
    # the summaries carry a diverged interval as the JSON string "inf"; comparing it crashed the search
    sc = Scenario("STUB.diverged", "FAST.T2@corrected", "diverges", (Param("u", 0.0, 1.0, 0.5),), _build_diverged)
    import verify.scenarios as reg

    reg.registry()["STUB.diverged"] = sc
    try:
        rec = search(sc, budget=8, seed=0, trials=4, confirm_trials=8, optimiser="random", population=4,
                     stop_at_violation=True)
    finally:
        del reg.registry()["STUB.diverged"]
    assert rec.stopped_by == "confirmed violation" and rec.confirmation["verdict"] == "violated"
    assert rec.first_violation["evaluation"] == 1 and rec.evaluations == 4


def test_t2_threshold_without_heterogeneity_is_its_limit_not_a_crash():
    """sigma_G = 0 (reached by a default random search of FAST.T2@corrected at seed 0): the printed threshold
    1 - (mu K eta - 16 L^2 K^2 eta^2) / (4 sigma_G^2) tends to -inf when the numerator is positive (every q
    admitted) and to +inf when it is not; on 883def8 it raised ZeroDivisionError and falsify exited 1."""
    import math

    from verify.scenarios.fast import t2_threshold

    c = {"mu": 0.5, "L": 1.0, "sigma_G2": 0.0}
    assert t2_threshold(c, K=2, eta=1e-3) == -math.inf  # 0.5*2*1e-3 - 16*4*1e-6 = 9.36e-4 > 0
    assert t2_threshold(c, K=2, eta=1.0) == math.inf  # 1 - 64 < 0
    # away from zero the printed formula, by hand: 1 - 9.36e-4 / (4 * 0.01) = 0.9766
    assert abs(t2_threshold({**c, "sigma_G2": 0.01}, K=2, eta=1e-3) - (1 - 9.36e-4 / 0.04)) < 1e-12
