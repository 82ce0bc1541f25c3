"""FAST.T1's and FAST.T2's dimension axis runs to 1000: the shared-Hessian quadratic is scored exactly there
(coordinate by coordinate), a distinct-Hessian family too large to build is counted as cut."""

from __future__ import annotations

import pytest

from verify.scenarios import get
from verify.search.cost import point_fidelity
from verify.search.falsify import evaluate_points


@pytest.mark.parametrize("sid", ["FAST.T1", "FAST.T2"])
def test_the_dimension_axis_ends_at_1000_and_says_how_each_family_is_scored(sid):
    d = next(p for p in get(sid).space if p.name == "d")
    assert d.high == 1000 and d.log
    assert "exact path's reach" not in d.source and "coordinate by coordinate" in d.source


def test_a_shared_hessian_point_at_d_1000_is_exact_not_cut():
    sc = get("FAST.T1")
    pt = {"problem": "quadratic", "d": 1000, "M": 64, "K": 8, "R": 10**6}
    kind, why = point_fidelity(sc, pt, 64)
    assert kind == "exact", why
    out = evaluate_points(sc, [pt], [0], 4)[0]
    assert out["fidelity"] == "exact" and out["score"] is not None and out["score"] > 0


def test_a_distinct_hessian_family_past_its_built_dimension_is_counted_as_cut():
    out = evaluate_points(get("FAST.T1"), [{"problem": "quadratic-rotated", "d": 1000, "M": 100}], [0], 4)[0]
    assert out["fidelity"] == "cut" and "built up to d = 32" in out["cut"] and out["score"] is None


def test_gradient_climbing_declines_a_point_past_the_dense_order_instead_of_building_it():
    """The climb's differentiable recursion is dense: at d = 100 (order 5,151) it says so, not allocating
    (2M + 1) d^2 coefficients; at d = 4 it gives a gradient."""
    from verify.search.climb import log_ratio_gradient

    sc = get("FAST.T1")
    why = log_ratio_gradient(sc, {"problem": "quadratic", "d": 100, "M": 8, "K": 2, "R": 100})
    assert isinstance(why, str) and "order 5151 > 600" in why
    assert not isinstance(log_ratio_gradient(sc, {"problem": "quadratic", "d": 4, "M": 8, "K": 2, "R": 100}), str)
