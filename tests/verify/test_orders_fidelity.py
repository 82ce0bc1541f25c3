"""The orders table reads each point's fidelity before evaluating it, runs past stand-in ends, and counts a
conditional violation (issue 27 items 2-3; ``verify.search.ray_bases.exact_at``, ``widened``, ``verify.search.orders``).

Independent numbers: the scalar FedAvg second moment iterated here in plain floats from its one-round recursion
(the same hand derivation as tests/verify/test_orders_shrink.py), the growth exponent of LHS/RHS as the
difference of two given slopes, and the widened end as low x 10^3 worked out by hand.
"""

import math
from pathlib import Path

import pytest
from verify_helpers import scalar_fedavg_second_moment

from bounds import plugins

PLANTED = Path(__file__).resolve().parents[1] / "benchmarks" / "planted"


@pytest.fixture(scope="module")
def planted():
    plugins.add_files([str(PLANTED / "planted.py")])
    from verify.scenarios import get

    return get


PT = dict(M=4, m_frac=0.5, K=3, R=20, eta_frac=0.3, d=1, sigma=1.0, zeta=1.0, draw=3)


def test_an_exact_point_is_scored_without_simulation_and_matches_the_recursion(planted, monkeypatch):
    import quadratics
    from verify.search.ray_bases import exact_at

    def boom(*a, **k):
        raise AssertionError("simulated")

    monkeypatch.setattr(quadratics, "simulate", boom)
    sc = planted("PLANT.correct")
    est, why = exact_at(sc, PT)
    assert why == "" and est.exact
    pb = sc.build(sc.point(PT)).problem
    u = [float(b) - float(pb.x_star[0]) for b in pb.b[:, 0]]
    # m = 1 + round(0.5 (M - 1)) = 3 of M = 4; step eta = 0.3 (curvature 1)
    hand = scalar_fedavg_second_moment(0.3, 1.0, 3, 3, 4, 1.0, u, float(pb.x0[0] - pb.x_star[0]), 20)
    assert est.lhs == pytest.approx(hand, rel=1e-12)


def test_a_point_not_scored_exactly_is_refused_before_any_simulation(monkeypatch):
    import quadratics
    from verify.scenarios import get
    from verify.search.orders import ray_order
    from verify.search.rays import Ray

    def boom(*a, **k):
        raise AssertionError("a point the table refuses was simulated")

    monkeypatch.setattr(quadratics, "simulate", boom)
    sc = get("FAST.T1")  # its default family, the cosine one, declares no affine gradients
    row = ray_order(sc, Ray("R", "high"), sc.default_point())
    assert row.finding == "not fitted"
    assert row.why.startswith("point 0 of the ray is not scored exactly: problem 'nonconvex' declares no affine")
    assert row.why.endswith("(R = 1), as is every point after it")


def test_a_leading_point_with_no_measured_round_is_left_out_and_said():
    """The survey's FedAvg instance at T = 1 averages no round (not scored); the rest of the T ray spans 5.3 decades
    and is fitted: the RHS's exponent is the rate's -1/2 (its formula, O(1/sqrt(T)))."""
    from verify.scenarios import get
    from verify.search.orders import ray_order
    from verify.search.rays import Ray

    sc = get("SURV.FEDAVG.instance")
    row = ray_order(sc, Ray("T", "high"), sc.default_point())
    assert row.dropped.startswith("T = 1 (not scored exactly: a mean over rounds 0..0 has no measured round)")
    assert row.finding != "not fitted" and row.x[0] > 1
    assert row.rhs_leading["rate"] == pytest.approx(-0.5, abs=1e-9)
    assert row.rhs_fit["slope"] == pytest.approx(-0.5, abs=1e-3)


def test_an_exact_point_past_the_per_point_budget_is_cut_not_evaluated(planted, monkeypatch):
    import quadratics.exact
    from verify.search.ray_bases import exact_at

    def boom(*a, **k):
        raise AssertionError("a cut point was evaluated")

    monkeypatch.setattr(quadratics.exact, "exact_moments", boom)
    monkeypatch.setenv("CONVBOUND_POINT_SECONDS", "1e-12")
    est, why = exact_at(planted("PLANT.correct"), PT)
    assert est is None
    assert why.startswith("cut by cost: exact moments of order") and "CONVBOUND_POINT_SECONDS" in why


def test_a_stand_in_end_is_run_past_and_a_domain_end_is_not(planted):
    import dataclasses

    from verify.scenario import Param
    from verify.search.ray_bases import OPEN_ENDS, widened
    from verify.search.rays import Ray

    # the kind of end is declared, not read: a source that says "bounds no M" without the declaration is no stand-in
    assert Param("M", 2, 1000, 10, integer=True, end="stand-in").end in OPEN_ENDS
    assert Param("R", 2, 1000, 10, integer=True, end="cost").end in OPEN_ENDS
    assert Param("M", 2, 1000, 10, integer=True, source="Theorem 1 bounds no M: the axis stops at 1000").end \
        not in OPEN_ENDS
    with pytest.raises(ValueError, match="end 'far'"):
        Param("T", 1, 10, 2, integer=True, end="far")
    sc = planted("PLANT.correct")
    p = next(q for q in sc.space if q.name == "M")
    stand_in = dataclasses.replace(p, high=40, doc="clients", source="the theorem bounds no M", end="stand-in")
    sc2 = dataclasses.replace(sc, space=tuple(stand_in if q.name == "M" else q for q in sc.space))
    wide, note = widened(sc2, Ray("M", "high"), sc2.point(PT), 3.0)
    assert next(q.high for q in wide.space if q.name == "M") == int(p.low) * 1000  # low x 10^3, by hand
    assert "stand-in end 40" in note
    domain = dataclasses.replace(p, high=40, doc="clients", source="M <= 40 (the pattern's domain)", end="domain")
    sc3 = dataclasses.replace(sc, space=tuple(domain if q.name == "M" else q for q in sc.space))
    assert widened(sc3, Ray("M", "high"), sc3.point(PT), 3.0) == (sc3, "")


class _Fit:
    def __init__(self, slope, low, high):
        self.slope, self.low, self.high = slope, low, high


@pytest.mark.parametrize(("verdict", "finding"), [("violated unless", "fails far along"),
                                                  ("unverified", "same order")])
def test_a_conditional_violation_counts_as_confirmed_and_names_its_hypothesis(monkeypatch, verdict, finding):
    import numpy as np

    from verify.search import orders
    from verify.search.orders import RayOrder, _classify, _Samples
    from verify.search.rays import Ray

    conf = {"verdict": verdict, "ratio": 12.4, "unless": ["snapshot probability q >= q_min"] if verdict != "unverified"
            else []}
    monkeypatch.setattr(orders, "_extrapolate", lambda *a, **k: {"confirmation": conf, "axis": "eta"})
    row = RayOrder("R", "S", "eta -> low", {}, "not fitted")
    row.rhs_leading = {"t": -1.0}
    ray = Ray("eta", "low")
    xs = np.array([1.0, 0.1, 0.01, 0.001])
    # LHS ~ eta^1, RHS ~ eta^1.5: toward eta -> 0 the ratio grows like eta^(1 - 1.5) = eta^-0.5
    _classify(row, None, _Samples(ray, [], xs, xs**-0.5), (_Fit(1.0, 0.99, 1.01), _Fit(1.5, 1.5, 1.5)), 2, 0)
    assert row.finding == finding
    if verdict == "violated unless":
        assert "x^-0.5 " in row.why and "unless snapshot probability q >= q_min fails there" in row.why
    else:
        assert "no violation was confirmed (verdict unverified)" in row.why


def test_term_bases_stop_early_with_the_full_scans_choice(planted):
    """The nearest-first scan that stops once every term has its base picks what a full scan of every draw picks
    (the scan written out here: each draw's shares from the RHS terms, nearest exact draw with share >= 0.9)."""
    import dataclasses
    import math

    import bounds
    from bounds.evaluate import evaluate
    from verify.search import orders
    from verify.search.stratified import Random

    sc = planted("PLANT.correct")
    builds = []
    counted = dataclasses.replace(sc, build=lambda pt: builds.append(1) or sc.build(pt))
    got = orders.term_bases(counted, seed=0, candidates=32)
    draw = Random(sc, 0)
    draw.first = False
    pts = draw.draws(32)
    res = bounds.get(sc.result)
    d0 = sc.default_point()
    num = [p for p in sc.space if p.choices is None and p.low < p.high and p.name != "draw"]

    def dist(pt):
        return sum((math.log(float(pt[p.name]) / float(d0[p.name])) if p.low > 0
                    else float(pt[p.name]) - float(d0[p.name])) ** 2 for p in num)

    # every draw of this family is scored exactly: the pool is all of them
    rhs = [{k: abs(float(v)) for k, v in evaluate(res, dict(sc.build(sc.point(pt)).values)).terms.items()}
           for pt in pts]
    want = {}
    for t in (term.name for term in res.terms):
        best = None
        for pt, terms in zip(pts, rhs):
            if terms[t] >= 0.9 * sum(terms.values()) and (best is None or dist(pt) < dist(best)):
                best = pt
        if best is not None:
            want[f"{t} dominates"] = sc.point(best)
    assert want and set(want) <= set(got)
    assert all(got[k] == v for k, v in want.items())
    assert len(builds) < 32  # stopped before building every draw


def test_a_point_with_an_undecided_hypothesis_is_said_to_be_so():
    """FAST.T1.toy1 leaves a hypothesis undecided at every point (its expected verdict is `violated unless`):
    the row says that, not that a hypothesis fails."""
    from verify.scenarios import get
    from verify.search.orders import ray_order
    from verify.search.rays import Ray

    sc = get("FAST.T1.toy1")
    row = ray_order(sc, Ray("R", "high"), sc.default_point(), points=4)
    assert row.finding == "not fitted"
    assert row.why == "point 0 of the ray is not admissible (a hypothesis undecided there) (R = 1), as is every point after it"


def test_term_bases_are_drawn_from_the_searched_space_only():
    """A choice a search leaves out (the survey's constant step: a control, outside our reading of its O(1/sqrt(T))
    rate) is no base: rays from it would be about another statement."""
    from verify.scenarios import get
    from verify.search import orders

    sc = get("SURV.FEDAVG.instance")
    step = next(p for p in sc.space if p.name == "step")
    assert step.searched == ("sqrt",) and "constant" in step.choices
    bases = orders.term_bases(sc, seed=0, candidates=32)
    assert bases and all(b["step"] == "sqrt" for b in bases.values())


def _small(planted, *extra):
    """PLANT.correct on a small box (M, K, d at most 4, R at most 50), with ``extra`` axes appended."""
    import dataclasses

    sc = planted("PLANT.correct")
    high = {"M": 4, "K": 4, "d": 4, "R": 50}
    space = tuple(dataclasses.replace(p, high=high.get(p.name, p.high)) for p in sc.space)
    return dataclasses.replace(sc, space=space + tuple(extra))


def test_a_climb_remembers_the_far_ends_it_scored_and_gives_the_same_base(planted, recorded_calls):
    from verify.search import ray_bases
    from verify.search.rays import Ray

    sc, ray, base = _small(planted), Ray("zeta", "low"), {**PT, "R": 20}
    fresh = ray_bases.tight_base(sc, ray, base)
    scores: dict = {}
    calls = recorded_calls(ray_bases, "exact_at")
    first = ray_bases.tight_base(sc, ray, base, scores=scores)
    n = len(calls)
    again = ray_bases.tight_base(sc, ray, base, scores=scores)
    assert first == fresh == again and math.isfinite(first[1])
    assert n == len(scores) > 0 and len(calls) == n  # each far end scored once; the second climb scored none


def test_a_climb_never_moves_an_axis_its_family_does_not_read(planted, recorded_calls):
    from verify.scenario import Param
    from verify.search import ray_bases
    from verify.search.rays import Ray

    family = Param("problem", default="shared", choices=("shared", "other"))
    for reads, moved in ((("other",), False), (("shared",), True)):
        knob = Param("knob", 0.0, 1.0, 0.5, families=reads)
        sc = _small(planted, family, knob)
        calls = recorded_calls(ray_bases, "exact_at", arg=1)
        ray_bases.tight_base(sc, Ray("zeta", "low"), sc.point({**PT, "R": 20}))
        assert calls and any(p["knob"] != 0.5 for p in calls) is moved


def test_an_axis_is_read_at_the_families_it_declares():
    from verify.scenario import Param

    knob = Param("knob", families=("logistic",))
    assert knob.read_at({"problem": "logistic"}) and not knob.read_at({"problem": "quadratic"})
    assert knob.read_at({"M": 3})  # a space without a problem axis has one family: the knob is read
    assert Param("any").read_at({"problem": "quadratic"})
    assert knob.to_dict()["families"] == ["logistic"] and Param("any").to_dict()["families"] is None


def test_a_cross_check_replays_the_most_trials_that_fit_the_point_budget(planted, monkeypatch):
    from verify.scenario import evaluate_point
    from verify.search.confirmation import CROSS_CHECK_LEAST_TRIALS, cross_check
    from verify.search.cost import simulated_cost

    sc = planted("PLANT.correct")
    est = evaluate_point(sc, PT, trials=2, seed=0)
    assert est.exact
    inst = sc.build(sc.point(PT))
    # a budget between the predicted cost of 32 and of 64 trials: 256 halves to 128, 64, then 32 fits
    between = (simulated_cost(inst, 32).seconds + simulated_cost(inst, 64).seconds) / 2
    monkeypatch.setenv("CONVBOUND_POINT_SECONDS", repr(between))
    out = cross_check(sc, PT, est, trials=256, seed=0)
    assert out["trials"] == 32 and out["trials_wanted"] == 256 and "32 of 256" in out["fewer_trials"]
    assert out["agrees"] is True
    monkeypatch.setenv("CONVBOUND_POINT_SECONDS", repr(simulated_cost(inst, CROSS_CHECK_LEAST_TRIALS).seconds / 2))
    out = cross_check(sc, PT, est, trials=256, seed=0)
    assert set(out) == {"skipped"} and out["skipped"].startswith("a Monte Carlo replay: ")
    monkeypatch.delenv("CONVBOUND_POINT_SECONDS")
    out = cross_check(sc, PT, est, trials=64, seed=0)  # the default budget affords it: no field says otherwise
    assert out["trials"] == 64 and "trials_wanted" not in out


def test_the_orders_table_scores_on_one_torch_thread_and_restores_the_setting(planted, monkeypatch):
    import torch

    from verify.search import orders, ray_bases
    from verify.search.rays import Ray

    seen: list[int] = []
    real = ray_bases.exact_at

    def spy(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return real(*args, **kwargs)

    monkeypatch.setattr(ray_bases, "exact_at", spy)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        rows = orders.order_table(_small(planted), base={**PT, "R": 20}, terms=False, tight=False,
                                  only=[Ray("zeta", "low").axis], points=4)
        assert rows and seen and set(seen) == {1} and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
