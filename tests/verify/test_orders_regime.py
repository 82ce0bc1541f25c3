"""Orders of the planted errors that live in one scale parameter (issue 27 item 3): each flagged on its own ray with
a confirmed violating point, its correct counterpart not.

The order-kind planted errors (a term of the wrong order in one scale parameter) and the ray each lives on:
PLANT.eta-power (eta; tests/verify/test_orders_shrink.py), PLANT.K-power (K), PLANT.R-power (R),
REGIME.noise-mu-* and REGIME.sampling-mu-* (mu/L), REGIME.drift-noise-M (M). Independent numbers: the planted
factors are known by construction (regime.py, planted.py), the exact LHS at the rays' ends is compared with the
scalar recursion's stationary value worked out by hand below, and the RHS with its formula evaluated here.
"""

from pathlib import Path

import numpy as np
import pytest

from bounds import plugins

PLANTED = Path(__file__).resolve().parents[1] / "benchmarks" / "planted"


@pytest.fixture(scope="module")
def get():
    plugins.add_files([str(PLANTED / "planted.py"), str(PLANTED / "regime.py")])
    from verify.scenarios import get

    return get


def _flagged(row):
    return row.finding == "fails far along" and row.violation["confirmation"]["verdict"] == "violated"


def test_K_runs_past_its_cost_cap_and_the_K_power_error_is_confirmed(get):
    from verify.search.orders import ray_order
    from verify.search.rays import Ray

    # d = 1 (A = L = 1), m = 1 of M = 2, a small step: the correct sampling term is tight while K eta << 1 and the
    # planted one (K instead of K^2) is K times too small; R = 10^6 rounds reach the stationary value
    base = dict(M=2, m_frac=0.0, K=4, R=10**6, eta_frac=1e-3, d=1, sigma=1e-4, zeta=3.0, draw=0)
    ray = Ray("K", "high")
    row = ray_order(get("PLANT.K-power"), ray, base, confirm_trials=16, points=6)
    assert "past its cost cap 64 to 1000" in row.widened
    assert row.x[0] == 1 and row.x[-1] == 1000  # three decades, past the space's K <= 64
    assert _flagged(row), row.why
    # the stationary second moment of scalar FedAvg, B = 1 - eta: s = (1 - B^K)^2 V / (1 - B^2K) + eta^2 sigma^2 /
    # (m (1 - B^2)), V = zeta2 (M - m) / (m (M - 1)) = zeta2 here (m = 1, M = 2); zeta2 read off the instance
    sc = get("PLANT.K-power")
    zeta2 = sc.build(sc.point({**base, "K": 64})).values["zeta2"]
    eta, B, K = 1e-3, 1 - 1e-3, 1000
    hand = (1 - B**K) ** 2 * zeta2 / (1 - B ** (2 * K)) + eta**2 * 1e-8 / (1 - B**2)
    assert row.lhs[-1] == pytest.approx(hand, rel=1e-6)
    # the planted RHS at K = 1000: sampling S_R K eta^2 zeta2 (K, not K^2), S_R = 1 / (1 - B^2K) at R = 10^6
    assert row.rhs[-1] == pytest.approx((K * eta**2 * zeta2 + K * eta**2 * 1e-8) / (1 - B ** (2 * K)), rel=1e-6)
    ok = ray_order(get("PLANT.correct"), ray, base, confirm_trials=16, points=6)
    assert ok.finding != "fails far along" and not ok.violation.get("confirmation", {}).get("verdict") == "violated"


def test_the_R_power_error_is_confirmed_on_the_R_ray_from_its_tight_base(get):
    from verify.search.orders import ray_order
    from verify.search.ray_bases import tight_base
    from verify.search.rays import Ray

    # rho^(2 K R^2) instead of rho^(2 K R): the planted optimisation term vanishes long before the LHS's; from a
    # point whose slow direction has not contracted by R = 10^6 (eta mu K R = 0.1), noise and sampling near 0
    ray = Ray("R", "high")
    start = dict(M=4, m_frac=0.5, K=1, R=50, eta_frac=1e-4, d=2, mu_frac=1e-3, sigma=1e-4, zeta=1e-4, draw=0)
    wrong, right = get("PLANT.R-power"), get("PLANT.correct")
    base, ratio = tight_base(wrong, ray, start)
    assert ratio > 1  # at R = 10^6 the planted RHS is its noise floor, the LHS still the slow direction's decay
    row = ray_order(wrong, ray, base, confirm_trials=16, points=8)
    assert _flagged(row), row.why
    ok = ray_order(right, ray, base, confirm_trials=16, points=8)
    assert ok.finding != "fails far along", ok.why


@pytest.mark.parametrize("wrong, a", [("REGIME.noise-mu-32", 32), ("REGIME.sampling-mu-48", 48)])
def test_a_masked_mu_order_is_confirmed_from_where_the_masking_term_is_zero(get, wrong, a):
    from verify.search.orders import ray_order
    from verify.search.ray_bases import tight_base
    from verify.search.rays import Ray

    ray = Ray("mu_frac", "low")
    # from the default point (d = 2, R = 50, K = 4) the contraction of the other direction masks the factor
    sc = get(wrong)
    masked = ray_order(sc, ray, sc.default_point(), confirm_trials=16, points=6)
    assert masked.finding != "fails far along"
    big, small = ("sigma", "zeta") if "noise" in wrong else ("zeta", "sigma")  # the planted term dominates
    base, ratio = tight_base(sc, ray, {**sc.default_point(), big: 10.0, small: 1e-4}, seed=0)
    assert ratio > 1 and base["d"] >= 2  # d = 1 fixes mu = L: a ray that moves nothing is not a base
    row = ray_order(sc, ray, base, confirm_trials=16, points=6)
    assert _flagged(row), row.why
    # the planted order: RHS exponent minus LHS exponent is the dominant term's share of 1/a (LHS flat: the noise
    # after one round of one step is exact and does not depend on mu)
    assert row.lhs_fit["slope"] == pytest.approx(0.0, abs=0.005)
    assert row.rhs_fit["slope"] == pytest.approx(1 / a, rel=0.25)
    # at the ray's end the planted RHS, evaluated here from the instance's values
    v = sc.build(sc.point({**base, "mu_frac": 1e-3})).values
    eta, K, R, m, M = v["eta"], v["K"], v["R"], v["m"], v["M"]
    rho = 1 - eta * v["mu"]
    S = (1 - rho ** (2 * K * R)) / (1 - rho ** (2 * K))
    f = (v["mu"] / v["L"]) ** (1 / a)
    noise = S * K * eta**2 * v["sigma"] ** 2 / m * (f if "noise" in wrong else 1)
    sampling = S * K**2 * eta**2 * v["zeta2"] * (M - m) / (m * (M - 1)) * (f if "sampling" in wrong else 1)
    assert row.rhs[-1] == pytest.approx(rho ** (2 * K * R) * v["D0"] + noise + sampling, rel=1e-9)
    ok = ray_order(get("REGIME.correct"), ray, base, confirm_trials=16, points=6)
    assert ok.finding != "fails far along", ok.why


def test_model_choice_tells_an_exponential_from_a_power():
    from verify.search.orders import _fits

    x = np.geomspace(10, 10_000, 8)
    power, expo, res_p, res_e = _fits(x, np.exp(-0.001 * x))
    assert res_e < 1e-9 < res_p and expo.slope == pytest.approx(-0.001, rel=1e-9)
    power, expo, res_p, res_e = _fits(x, 3 * x**-2.0)
    assert res_p < 1e-9 < res_e and power.slope == pytest.approx(-2.0, rel=1e-9)


def test_the_seeded_optimiser_climbs_a_ray_end_to_a_masked_violation(get, monkeypatch):
    import verify.search.ray_seed
    from verify.scenario import evaluate_point
    from verify.search.optimisers import make_optimiser

    monkeypatch.setattr(verify.search.ray_seed, "INTERLEAVE", 10**9)  # no stratified draws between: the walk is tested
    sc = get("REGIME.noise-mu-32")
    opt = make_optimiser("seeded", sc, seed=0, population=8, budget=300)
    # the (mu -> 0, noise) pair only: the test drives the ask/tell loop as falsify.search does
    names = [(r.name, t) for r, t in opt.pairs]
    assert ("zeta -> low", "noise") not in names and ("sigma -> low", "noise") in names  # noise has no zeta
    opt.order = [names.index(("mu_frac -> low", "noise"))]  # scouting skipped: this pair's walk is tested
    opt.queue = []
    opt._start_pair()
    best, asked = 0.0, 0
    while best <= 1 and opt.ray_i < len(opt.pairs) and asked < 120:
        props = opt.ask(8)
        pts = [p.point for p in props]
        assert [sc.point(p) for p in pts]  # every point lies in the space
        ests = [evaluate_point(sc, p, trials=2, seed=0) for p in pts]
        opt.tell(pts, [e.ratio if e.score is not None else -1.0 for e in ests])
        asked += 8
        for p, s, e in zip(pts, [q.stratum for q in props], ests):
            if s.kind == "ray" and e.score is not None and e.ratio > best:
                best, where = e.ratio, p
    # at the ray's end, one step of one round, noise dominating: the planted factor (1e-3)^(1/32) = 0.806 is
    # what separates the wrong RHS from an exact noise term, so the ratio exceeds 1 (up to 1 / 0.806 = 1.24)
    assert 1.0 < best <= 1e-3 ** (-1 / 32) + 1e-9, best
    assert where["mu_frac"] == pytest.approx(1e-3) and where["d"] >= 2


def test_every_horizon_cut_error_is_detectable_at_the_slowest_contraction(get):
    """The horizon-cut errors (regime.HORIZONS) clear the exact path's floating-point interval at the space's slowest
    contraction, and their excesses shrink like rho^(2 K R0) (rho read off the instance, worked out here): why the
    horizons stop at 80k (a 100k cut's excess, e^-4 of 80k's, lies inside that interval; regime.py)."""
    import importlib.util

    from verify.scenario import evaluate_point

    spec = importlib.util.spec_from_file_location("regime_file", PLANTED / "regime.py")
    regime = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(regime)
    slowest = dict(M=2, K=1, R=10**6, eta_frac=1e-4, d=1, mu_frac=1e-3, draw=0)
    at = {"noise": dict(m_frac=1.0, sigma=10.0, zeta=1e-4), "sampling": dict(m_frac=0.5, sigma=1e-4, zeta=10.0)}
    for term, knobs in at.items():
        excess = {}
        for R0 in regime.HORIZONS:
            sc = get(f"REGIME.{term}-cut-{R0 // 1000}k")
            est = evaluate_point(sc, sc.point({**slowest, **knobs}), trials=2, seed=0)
            assert est.exact and est.ci[0] > est.rhs, (term, R0, est.ci, est.rhs)  # confirmed: a violation
            excess[R0] = est.ratio - 1
            rho = float(regime._BASE.rho.subs({s: est.values[s.name] for s in regime._BASE.rho.free_symbols}))
        # consecutive horizons: excess(R0) / excess(R0') = rho^(2 K (R0 - R0')), K = 1
        for a, b in zip(regime.HORIZONS, regime.HORIZONS[1:]):
            assert excess[a] / excess[b] == pytest.approx(rho ** (2 * (a - b)), rel=0.01)
        # a cut at 100k: 80k's excess times rho^(2 x 20k), below the interval's half-width at that point
        assert excess[80_000] * rho ** (2 * 20_000) < (est.ci[1] - est.ci[0]) / 2 / est.rhs


def test_leading_exponents_where_a_term_is_not_defined_at_the_point_say_so(get):
    """At the step eta = 1/L the drift bound's terms hold log1p(-1): sympy makes it zoo on substitution and Min(..,
    nan) raises; the ray's row says the term was not evaluated there instead of the command failing."""
    import bounds
    from verify.search.orders import leading_exponents

    get("REGIME.drift-2x")  # the plugin file loaded
    res = bounds.get("REGIME.drift-2x")
    values = {"L": 1.0, "mu": 1e-4, "mu_F": 0.50005, "eta": 1.0, "K": 64.0, "R": 119.0, "M": 2.0, "sigma": 1e-4,
              "zeta_bar": 1.0, "D0": 1.0, "delta_A": 0.49995}
    out = leading_exponents(res, values, {"mu": 1.0, "mu_F": 0.0}, 1e-4, "low")
    assert set(out) == {t.name for t in res.terms}
    assert any(isinstance(v, str) and v.startswith("not evaluated at this point") for v in out.values())
    at_half = leading_exponents(res, {**values, "eta": 0.5}, {"mu": 1.0, "mu_F": 0.0}, 1e-4, "low")
    assert all(isinstance(v, float) for v in at_half.values())  # a step below 1/L: every term has its exponent
