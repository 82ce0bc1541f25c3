"""Orders along rays, shrinking of confirmed violations, closed forms of scalar counterexamples (issue 27 items 3-4).

Independent numbers: the scalar FedAvg second moment is iterated here in plain floats from its one-round
recursion (hand-derived in the test, not sympy's), the planted errors' violations are known by construction
(the correct bound is proved in docs/examples/fedavg_local_sgd.py), and the rays are read off the axes.
"""

from pathlib import Path

import pytest
from verify_helpers import scalar_fedavg_second_moment

from bounds import plugins

PLANTED = Path(__file__).resolve().parents[1] / "benchmarks" / "planted"


@pytest.fixture(scope="module")
def planted():
    plugins.add_files([str(PLANTED / "planted.py"), str(PLANTED / "regime.py")])
    from verify.scenarios import get

    return get


def test_closed_form_matches_exact_and_an_independent_iteration(planted):
    from verify.search.closed_form import derive

    sc = planted("PLANT.noise-10x")
    pt = dict(M=4, m_frac=0.5, K=3, R=20, eta_frac=0.3, d=1, sigma=1.0, zeta=1.0, draw=3)
    out = derive(sc, pt)
    assert out["derived"], out
    inst = sc.build(sc.point(pt))
    pb = inst.problem
    u = [float(b) - float(pb.x_star[0]) for b in pb.b[:, 0]]
    assert inst.values["m"] == 3  # m = 1 + round(0.5 (M - 1)) = 1 + round(1.5) = 3
    hand = scalar_fedavg_second_moment(0.3, 1.0, 3, 3, 4, 1.0, u, float(pb.x0[0] - pb.x_star[0]), 20)
    assert out["lhs_closed_form"] == pytest.approx(hand, rel=1e-12)
    assert abs(out["lhs_closed_form"] - out["lhs_exact_path"]) <= 1e-10 * abs(out["lhs_exact_path"])
    assert out["agrees"]


def test_closed_form_refuses_what_it_does_not_cover(planted):
    from verify.search.closed_form import derive

    out = derive(planted("PLANT.noise-10x"), dict(d=4))
    assert out == {"derived": False, "why": "state of 4 numbers (RoundMap.D): derived only for a state of at most 3"}


def test_shrink_keeps_both_points_and_reaches_the_simplest_instance(planted):
    from verify.search.shrink import shrink

    sc = planted("PLANT.noise-10x")
    # noise 10x too small: violated wherever the noise dominates a tight bound; d = 1, K = 1 make it tight
    pt = dict(M=8, m_frac=0.5, K=2, R=300, eta_frac=0.01, d=3, mu_frac=0.5, sigma=10.0, zeta=0.01, draw=7)
    rec = shrink(sc, pt, confirm_trials=64)
    assert rec.original["M"] == 8 and rec.original["d"] == 3
    assert (rec.shrunk["M"], rec.shrunk["d"], rec.shrunk["K"], rec.shrunk["draw"]) == (2, 1, 1, 0)
    assert rec.confirmation["verdict"] == "violated" and rec.confirmation["method"] == "exact"
    assert rec.confirmation["cross_check"]["agrees"]
    assert rec.closed_form["derived"] and rec.closed_form["agrees"]
    assert rec.closed_form["lhs_closed_form"] > rec.closed_form["rhs_at_point"]


def test_rays_follow_the_axes(planted):
    from verify.search.rays import order_rays, ray_through

    sc = planted("PLANT.correct")
    names = {r.name for r in order_rays(sc.space)}
    # positive log axes to 0, integer axes to their high end, step and curvature to 0 with the horizon scaled
    assert {"eta_frac -> low", "sigma -> low", "zeta -> low", "mu_frac -> low", "R -> high", "M -> high",
            "eta_frac -> low (R x eta_frac fixed)", "mu_frac -> low (R x mu_frac fixed)"} <= names
    assert "eta_frac -> high" not in names  # a step at its cap is no limit
    ray = next(r for r in order_rays(sc.space) if r.name == "eta_frac -> low (R x eta_frac fixed)")
    pts = ray_through(sc.space, sc.point({"R": 50, "eta_frac": 0.5}), ray, 5)
    assert pts[0]["eta_frac"] == 1.0 and pts[-1]["eta_frac"] == pytest.approx(1e-4)
    assert pts[0]["R"] == 25 and pts[-1]["R"] == 250_000  # step x horizon = 25 along the ray


def test_orders_flag_a_wrong_power_with_a_confirmed_point_and_not_the_correct_bound(planted):
    from verify.search.orders import ray_order, term_bases
    from verify.search.rays import Ray

    # PLANT.eta-power: noise eta^3 L instead of eta^2 (an order too high in the step); along the step to 0 with the
    # horizon scaled, from where the noise dominates, the LHS decays like eta and the wrong RHS like eta^2
    wrong, right = planted("PLANT.eta-power"), planted("PLANT.correct")
    base = term_bases(wrong, candidates=64)["noise dominates"]
    ray = Ray("eta_frac", "low", "R")
    row = ray_order(wrong, ray, base, confirm_trials=64, points=6)
    assert row.finding == "fails far along", row.why
    assert row.violation["confirmation"]["verdict"] == "violated"
    cc = row.violation["confirmation"]["cross_check"]  # Monte Carlo replay, or why it was skipped (too long)
    assert cc.get("agrees") is True or "past the" in cc.get("skipped", "")
    assert row.lhs_fit["slope"] == pytest.approx(1.0, abs=0.05)
    assert row.rhs_leading["noise"] == pytest.approx(2.0, abs=1e-6)  # eta^3 / eta: the planted order
    ok = ray_order(right, ray, base, confirm_trials=64, points=6)
    assert ok.finding == "same order", ok.why
    assert ok.rhs_leading["noise"] == pytest.approx(1.0, abs=1e-6)


def test_rays_optimiser_walks_one_axis_at_a_time_from_a_stratum_best(planted, monkeypatch):
    import verify.search.rays
    from verify.search.optimisers import clip, make_optimiser

    monkeypatch.setattr(verify.search.rays, "WARMUP", 6)  # a short warm-up: the walk is what is tested
    sc = planted("PLANT.correct")

    def run(seed):
        opt = make_optimiser("rays", sc, seed=seed, population=8, budget=64)
        asked = []
        for _ in range(3):
            props = opt.ask(8)
            pts, labels = [p.point for p in props], [p.stratum for p in props]
            opt.tell(pts, [-float(p["eta_frac"]) for p in pts])  # a score that prefers small steps
            asked += list(zip(pts, labels))
        return opt, asked

    opt, asked = run(3)
    assert [p for p, _ in asked] == [p for p, _ in run(3)[1]]  # same seed, same points
    assert all(clip(sc.space, p) == p for p, _ in asked)  # inside the space
    walked = [(i, p) for i, (p, st) in enumerate(asked) if st.kind == "ray"]
    assert walked and walked[0][0] >= 6
    for i, p in walked:  # a ray moves one axis from an earlier point, or the step (or mu) with the horizon
        diffs = [{k for k in p if p[k] != b[k]} for b, _ in asked[:i]]
        assert any(len(d) == 1 or d in ({"eta_frac", "R"}, {"mu_frac", "R"}) for d in diffs), p
    assert min(float(p["eta_frac"]) for _, p in walked) == pytest.approx(1e-4)  # the walk reached the step's end
