"""Exact scores in evaluate_point: chosen automatically where the LHS is an exact expectation, agreeing with
the Monte Carlo replay, declined (with the reason) elsewhere."""

import dataclasses
import functools

import numpy as np

from verify.exact_score import exact_lhs, monte_carlo
from verify.scenario import evaluate_point
from verify.scenarios import get
from verify.scenarios.ascaf import window_mean
from verify.verdict import decide

T1_QUAD = {"problem": "quadratic", "M": 4, "d": 3, "R": 60, "K": 2}


def test_fast_t1_on_the_quadratic_is_scored_exactly_and_the_monte_carlo_replay_agrees():
    sc = get("FAST.T1")
    est = evaluate_point(sc, T1_QUAD, trials=64, seed=0)
    assert est.exact["method"] == "exact" and est.trials == 0
    err = est.exact["fp_error"]
    assert 0 < err < 1e-9 * est.lhs
    assert est.ci == (est.lhs - err, est.lhs + err)
    assert est.score == est.ratio == est.lhs / est.rhs
    with monte_carlo():
        mc = evaluate_point(sc, T1_QUAD, trials=2048, seed=1)
    assert mc.exact == {} and mc.trials == 2048
    assert mc.ci[0] <= est.lhs <= mc.ci[1]
    # same point, same numbers: the exact score does not depend on the seed
    again = evaluate_point(sc, T1_QUAD, trials=64, seed=5)
    assert again.lhs == est.lhs


def test_exact_interval_decides_the_verdict():
    est = evaluate_point(get("FAST.T1"), T1_QUAD, trials=2, seed=0)
    assert decide(est.kind, *est.ci, est.rhs, hypotheses=est.hypotheses) == "holds"
    assert decide(est.kind, *est.ci, 0.999 * est.lhs, hypotheses=True) == "violated"


def test_fast_t2_default_point_falls_back_to_monte_carlo_with_the_reason():
    sc = get("FAST.T2")
    inst = sc.build(sc.point({}))
    why = exact_lhs(inst)
    assert isinstance(why, str) and "propensities" in why
    est = evaluate_point(sc, {"horizon": 1.0}, trials=8, seed=0)
    assert est.exact == {} and est.trials == 8


def test_fast_t2_with_every_client_in_arbitrary_rounds_is_exact():
    sc = get("FAST.T2")
    inst = sc.build(sc.point({"n_frac": 1.0, "horizon": 1.0}))
    ex = exact_lhs(inst)
    assert not isinstance(ex, str), ex
    assert ex.measure.startswith("E dist_sq at round")


def test_declines_measures_and_run_checks_it_cannot_follow():
    sc = get("FAST.T1")
    inst = sc.build(sc.point(T1_QUAD))
    assert "not at_round/mean_over_rounds" in exact_lhs(dataclasses.replace(inst, measure=np.max))
    window = functools.partial(window_mean, R=10, P=2)
    assert "'window_mean' has no exact counterpart" in exact_lhs(dataclasses.replace(inst, measure=window))
    assert "complete" in exact_lhs(dataclasses.replace(inst, complete=lambda sim, v: v))
    assert "run_broken" in exact_lhs(dataclasses.replace(inst, run_broken=lambda sim: {}))
    with monte_carlo():
        assert "Monte Carlo requested" in exact_lhs(inst)
    assert not isinstance(exact_lhs(inst), str)  # the context is left again
