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
    assert est.to_dict()["exact"]["fp_error"] == err and "exact" not in mc.to_dict()  # records say which
    assert mc.ci[0] <= est.lhs <= mc.ci[1]
    # same point, same numbers: the exact score does not depend on the seed
    again = evaluate_point(sc, T1_QUAD, trials=64, seed=5)
    assert again.lhs == est.lhs


def test_exact_interval_decides_the_verdict():
    est = evaluate_point(get("FAST.T1"), T1_QUAD, trials=2, seed=0)
    assert decide(est.kind, *est.ci, est.rhs, hypotheses=est.hypotheses) == "holds"
    assert decide(est.kind, *est.ci, 0.999 * est.lhs, hypotheses=True) == "violated"


def test_fast_t2_is_integrated_exactly_given_each_trials_propensities():
    """FAST's arbitrary rounds draw propensities once per trial: the LHS is a mean over those draws only."""
    sc = get("FAST.T2")
    inst = sc.build(sc.point({}))
    why = exact_lhs(inst)
    assert isinstance(why, str) and "propensities" in why
    est = evaluate_point(sc, {}, trials=64, seed=0)
    assert est.exact["method"] == "per-trial exact" and est.trials == 64 and est.samples.shape == (64,)
    with monte_carlo():
        mc = evaluate_point(sc, {}, trials=1024, seed=3)
    assert mc.exact == {}
    assert mc.ci[0] <= est.lhs <= mc.ci[1]
    assert (est.ci[1] - est.ci[0]) < 0.05 * (mc.ci[1] - mc.ci[0])  # the propensities are all that is left
    # the record's curve: the trials' exact curves averaged, ending at the LHS (E dist_sq at round R)
    curve = np.asarray(est.series["lhs"])
    assert curve.size == len(mc.series["lhs"]) and curve[0] == mc.series["lhs"][0]
    assert abs(curve[-1] - est.lhs) <= 1e-12 * est.lhs


def test_per_trial_values_are_the_conditional_means_of_the_engines_own_trials():
    """Same seed, same propensities: each simulated trial minus its conditional expectation has mean 0, so
    the paired differences' 99% interval covers 0 (a sharp check of the per-trial law)."""
    from quadratics import fast, fast_mixture, heterogeneous_quadratic, simulate
    from quadratics.exact import per_trial_moments
    from quadratics.summary import t_interval

    pb = heterogeneous_quadratic(L=1.0, mu=0.3, d=3, M=5, zeta=1.0, sigma=0.5, D0=1.0, seed=2)
    for pat in (fast_mixture(M=5, m=2, n=2, q=0.4, a=0.3, b=0.3), fast_mixture(M=5, m=1, n=3, I=2)):
        alg, R, T = fast(eta=0.1, K=2), 12, 1024  # the interval half-width 0.005 against per-trial spread 0.02-0.035
        pm = per_trial_moments(pb, alg, pat, R, trials=T, seed=11)
        sim = simulate(pb, alg, pat, trials=T, rounds=R, seed=11, device="cpu")
        diff = sim.metrics["dist_sq"][R] - pm.final["dist_sq"]
        _, low, high, _ = t_interval(diff, 0.99)
        assert low <= 0.0 <= high


def test_other_instances_fall_back_to_monte_carlo():
    est = evaluate_point(get("FAST.T1"), {"R": 20}, trials=8, seed=0)  # the non-convex family
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
    assert "'max' declares no quadratic form" in exact_lhs(dataclasses.replace(inst, measure=np.max))
    window = functools.partial(window_mean, R=10, P=2)
    assert "'window_mean' declares no quadratic form" in exact_lhs(dataclasses.replace(inst, measure=window))
    assert "complete" in exact_lhs(dataclasses.replace(inst, complete=lambda sim, v: v))
    assert "run_broken" in exact_lhs(dataclasses.replace(inst, run_broken=lambda sim: {}))
    with monte_carlo():
        assert "Monte Carlo requested" in exact_lhs(inst)
    assert not isinstance(exact_lhs(inst), str)  # the context is left again


def test_a_certificate_built_from_an_exact_point_keeps_a_finite_interval_around_it():
    """A check record (verify.checks.certify_record) of an exact point keeps [LHS - err, LHS + err]."""
    from verify.checks import Context, certify_record

    est = evaluate_point(get("FAST.T1"), T1_QUAD, trials=64, seed=0)
    v = certify_record(est, ctx=Context(), seed=0, id="FAST.T1", title="exact point")
    assert v.verdict == "holds"
    assert v.ci[0] <= est.ci[0] <= est.ci[1] <= v.ci[1] and v.ci[1] - v.ci[0] < 1e-7 * est.lhs


def test_a_horizon_the_exact_path_declines_falls_back_to_monte_carlo_instead_of_failing():
    """F3AST.T3.5's main-text step changes every round; the exact path advances such a schedule one round at a
    time only up to MAX_SCHEDULED_ROUNDS. Past it, a point inside the scenario's box (T <= 3200) used to end
    evaluate_point with 'exact evaluation does not apply'; it is simulated instead."""
    from quadratics.exact.evaluate import MAX_SCHEDULED_ROUNDS

    sc = get("F3AST.T3.5")
    T = MAX_SCHEDULED_ROUNDS + 1
    assert T <= next(p.high for p in sc.space if p.name == "T")
    why = exact_lhs(sc.build(sc.point({"T": T})))
    assert isinstance(why, str) and f"{T} rounds > {MAX_SCHEDULED_ROUNDS}" in why
    est = evaluate_point(sc, {"T": T}, trials=4, seed=0)
    assert est.exact == {} and est.trials == 4 and np.isfinite(est.lhs) and est.ci[0] <= est.lhs <= est.ci[1]
    inside = evaluate_point(sc, {"T": MAX_SCHEDULED_ROUNDS}, trials=4, seed=0)
    assert inside.exact["method"] == "exact" and inside.trials == 0  # at the limit it is still exact


def test_kept_per_trial_laws_are_the_built_ones_in_a_fresh_list():
    """per_trial_laws keeps its answers: a second call gives the same law objects (same moments as a build with
    no keeping), in a list of its own, so a caller's edit of the list reaches no other caller."""
    from quadratics.exact.laws import _per_trial_laws, per_trial_laws

    c = {"m": 2, "n": 2, "q": 0.4, "I": None, "dist": "beta", "a": 0.3, "b": 0.3}
    first = per_trial_laws(5, c, 4, 11)
    first.clear()
    again = per_trial_laws(5, c, 4, 11)
    built = _per_trial_laws(5, tuple(sorted(c.items())), 4, 11)
    assert len(again) == len(built) == 4
    for kept, fresh in zip(again, built):
        mean_k, pair_k = kept.moments(kept.key(0))
        mean_f, pair_f = fresh.moments(fresh.key(0))
        assert np.array_equal(mean_k, mean_f) and np.array_equal(pair_k.apply(np.eye(10)), pair_f.apply(np.eye(10)))
    # a constant that is no plain value is built each time, not refused
    assert len(per_trial_laws(5, {**c, "extra": [1, 2]}, 2, 0)) == 2


def test_trials_advanced_together_give_the_numbers_of_trials_advanced_one_by_one(monkeypatch, recorded_calls):
    """per_trial_moments stacks the trials' recursions (one batched product per step): every number, its rounding
    bound and the mean curve are bitwise those of the trials evaluated one at a time, for a mixture and an
    every-I-rounds pattern (a window of two rounds), from round 0, 1 or 5, all nine trials in one stack or in
    stacks of two (the last of one: the size bound on a stacked matrix)."""
    import quadratics.exact.evaluate as evaluate
    from quadratics import fast, fast_mixture, heterogeneous_quadratic
    from quadratics.exact import per_trial_moments
    from quadratics.exact.plan import _Plan

    pb = heterogeneous_quadratic(L=1.0, mu=0.3, d=3, M=5, zeta=1.0, sigma=0.5, D0=1.0, seed=2)
    alg = fast(eta=0.1, K=2)
    calls = recorded_calls(_Plan, "stack", arg=1)  # the laws of each stack
    default = evaluate.STACK_BYTES
    for pat in (fast_mixture(M=5, m=2, n=2, q=0.4, a=0.3, b=0.3), fast_mixture(M=5, m=1, n=3, I=2)):
        for first in (0, 1, 5):
            with monkeypatch.context() as mp:
                mp.setattr(_Plan, "stack", lambda self, laws: False)
                alone = per_trial_moments(pb, alg, pat, 37, first, trials=9, seed=4, curve="dist_sq")
            # a law's stacked matrix: (3 moments + 3 sums)^2 entries for each of d = 3 coordinates, 8 bytes each
            for limit, stacks in ((default, [9]), (2 * 8 * 6 * 6 * 3, [2, 2, 2, 2, 1])):
                calls.clear()
                monkeypatch.setattr(evaluate, "STACK_BYTES", limit)
                together = per_trial_moments(pb, alg, pat, 37, first, trials=9, seed=4, curve="dist_sq")
                assert [len(laws) for laws in calls] == stacks
                for part in ("final", "final_err", "mean", "mean_err"):
                    for name, values in getattr(alone, part).items():
                        assert np.array_equal(getattr(together, part)[name], values), (part, name, first, limit)
                assert alone.curve is not None and np.array_equal(together.curve, alone.curve)


def test_a_plan_declares_its_round_matrix_shape_and_stacks_only_what_numpy_multiplies(monkeypatch):
    """matrix_shape is the shape of the matrices the plan builds ([d, n, n] by coordinate, n = 3 moments + 3
    sums here); where one law's products would leave numpy, laws are not stacked and are evaluated one by one."""
    import quadratics.exact.plan as plan_module
    from quadratics import fast, fast_mixture, heterogeneous_quadratic
    from quadratics.exact import per_trial_moments
    from quadratics.exact.diagonal import diagonal_plan
    from quadratics.exact.evaluate import per_trial_laws

    pb = heterogeneous_quadratic(L=1.0, mu=0.3, d=3, M=5, zeta=1.0, sigma=0.5, D0=1.0, seed=2)
    alg, pat = fast(eta=0.1, K=2), fast_mixture(M=5, m=2, n=2, q=0.4, a=0.3, b=0.3)
    laws = per_trial_laws(pat, 4, 1)
    plan = diagonal_plan(pb, alg, pat, law=laws[0])
    assert plan.matrix_shape() == plan.G(0).val.shape == (3, 6, 6)
    assert plan.stack(laws) and plan.G(0).val.shape == (4, 3, 6, 6)
    stacked = per_trial_moments(pb, alg, pat, 20, trials=4, seed=1)
    monkeypatch.setattr(plan_module, "NUMPY_MAX_WORK", 3 * 6 * 6)  # one law's product: 3 x 6 x 6
    assert not diagonal_plan(pb, alg, pat, law=laws[0]).stack(laws)
    alone = per_trial_moments(pb, alg, pat, 20, trials=4, seed=1)
    assert all(np.array_equal(stacked.final[k], alone.final[k]) for k in alone.final)
