"""A search point's scoring (verify.search.falsify.evaluate_points): built once, no per-round curve computed for a
summary that drops it, and the same LHS as hand arithmetic (the cost work of issue 27 item 6)."""

import dataclasses

import pytest
from plugin_helpers import EXAMPLES, fedavg_hand_lhs

from bounds import plugins

EXAMPLE = EXAMPLES / "fedavg_local_sgd.py"
SMALL = {"M": 3, "m_frac": 0.5, "K": 2, "R": 4, "eta_frac": 0.4, "d": 2, "mu_frac": 0.3, "sigma": 0.7, "zeta": 0.9,
         "draw": 3}


def _counting_scenario():
    """USER.FEDAVG with a builder that counts its calls."""
    from verify.scenarios import get

    plugins.add_files([str(EXAMPLE)])
    sc = get("USER.FEDAVG")
    calls = []

    def build(point):
        calls.append(dict(point))
        return sc.build(point)

    return dataclasses.replace(sc, build=build), calls


def test_a_point_is_built_once_and_scored_as_by_hand():
    from verify.search.falsify import evaluate_points

    sc, calls = _counting_scenario()
    points = [SMALL, {**SMALL, "R": 7, "draw": 5}]
    out = evaluate_points(sc, points, [11, 12], trials=4)
    assert len(calls) == 2  # sized and scored from one build each
    for pt, summary in zip(points, out):
        assert summary["fidelity"] == "exact"
        assert summary["lhs"] == pytest.approx(fedavg_hand_lhs(sc.point(pt)), rel=1e-12)


def test_without_series_drops_the_curve_only():
    from verify.exact_score import without_series
    from verify.scenario import evaluate_point

    sc, _ = _counting_scenario()
    full = evaluate_point(sc, SMALL, trials=4, seed=1)
    with without_series():
        bare = evaluate_point(sc, SMALL, trials=4, seed=1)
    assert bare.series == {}
    # the curve is E||x_r - x*||^2 for r = 0..R: its last entry is the LHS (by hand), its first ||x*||^2 = D0 = 1
    assert full.series["lhs"][-1] == pytest.approx(fedavg_hand_lhs(sc.point(SMALL)), rel=1e-12)
    assert full.series["lhs"][0] == pytest.approx(1.0, rel=1e-12)
    timeless = [{**d, "exact": {k: v for k, v in d["exact"].items() if k != "wall_seconds"}}
                for d in (bare.to_dict(), full.to_dict())]
    assert timeless[0] == timeless[1]
    assert bare.samples.tobytes() == full.samples.tobytes()
