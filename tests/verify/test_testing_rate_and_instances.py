"""The helpers a user's property tests rely on: assert_rate on exact power laws, and instances_for that shrinks.

Expected numbers come from the data's construction (y = c x^p computed in floating point), never from the fit.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from bounds.core.errors import UserInputError
from verify.fit import fit_loglog, rounding_error
from verify.testing import assert_rate, instances_for


def test_the_issues_example_passes_exact_power_laws():
    R = np.array([100.0, 200.0, 400.0, 800.0])
    assert_rate(R, 3 / R, exponent=-1)
    assert_rate(R, 1 / np.sqrt(R), exponent=-0.5)
    with pytest.raises(AssertionError, match="does not contain the exponent -1.000001"):
        assert_rate(R, 3 / R, exponent=-1.000001)


_EXPONENTS = st.floats(-3.0, 3.0, allow_nan=False)
_SCALES = st.floats(-12.0, 12.0).map(lambda e: 10.0**e)


@st.composite
def _sweeps(draw):
    n = draw(st.integers(3, 20))
    start = draw(st.floats(0.0, 4.0))               # x from 1 to 10^4 at the start
    ratio = draw(st.floats(1.05, 4.0))              # geometric spacing
    xs = [10.0**start * ratio**i for i in range(n)]
    return np.array(xs)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(_sweeps(), _EXPONENTS, _SCALES, st.floats(1e-6, 0.5))
def test_exact_power_law_passes_and_a_wrong_exponent_fails(x, p, c, wrong_by):
    y = c * x**p
    fit = assert_rate(x, y, exponent=p)  # exact data: the rounding floor covers the fit's floating-point error
    # the floor is a rounding error, far below any exponent a user would call wrong
    assert fit.rounding < 1e-9 and fit.high - fit.low < 1e-8
    for wrong in (p - wrong_by, p + wrong_by):
        with pytest.raises(AssertionError, match="does not contain"):
            assert_rate(x, y, exponent=wrong)


@given(_sweeps(), _EXPONENTS, st.integers(2, 5))
def test_per_seed_rows_of_exact_data_pass_too(x, p, seeds):
    Y = np.array([(k + 1) * x**p for k in range(seeds)])  # one scale per seed, the same exponent
    assert_rate(x, Y, exponent=p)
    with pytest.raises(AssertionError):
        assert_rate(x, Y, exponent=p + 1e-4)


def test_the_rounding_floor_is_the_derived_bound_not_a_constant():
    x = np.array([1.0, 2.0, 4.0, 8.0])
    lx, ly = np.log(x), np.log(5 * x**-2)
    xc = lx - lx.mean()
    by_hand = 4 * np.finfo(float).eps * 4 * (np.abs(xc).sum() / (xc @ xc)) * ((1 + np.abs(ly).max())
                                                                              + 2 * (1 + np.abs(lx).max()))
    assert rounding_error(lx, ly, -2.0) == pytest.approx(by_hand, rel=1e-12)
    fit = fit_loglog(x, 5 * x**-2)
    assert fit.rounding == pytest.approx(by_hand, rel=1e-3) and fit.high - fit.slope == pytest.approx(fit.rounding, rel=0.05)
    # noisy data: the t interval is the wider one, the floor does not change it
    noisy = fit_loglog(x, 5 * x**-2 * np.array([1.0, 1.1, 0.95, 1.02]))
    assert noisy.high - noisy.slope > 1e3 * noisy.rounding


_SMALL = dict(problem="quadratic", R=st.integers(1, 30), M=st.integers(2, 6), K=st.integers(1, 3),
              d=st.integers(1, 3), samples=4)


def test_a_failing_property_shrinks_to_a_minimal_instance():
    # the smallest instance of the drawn ranges where M >= 4 and K >= 2: counts shrink to their low ends
    found = find(instances_for("FAST.T1", **_SMALL), lambda i: i.point["M"] >= 4 and i.point["K"] >= 2,
                 settings=settings(database=None, derandomize=True, max_examples=200))
    assert (found.point["M"], found.point["K"], found.point["R"], found.point["d"]) == (4, 2, 1, 1)
    assert found.instance.rounds == 1 and found.point["problem"] == "quadratic"


@settings(max_examples=3)
@given(instances_for("FAST.T1", **_SMALL))
def test_a_drawn_instance_is_scored_by_the_engine(inst):
    e = inst.score(trials=4, seed=3)
    assert e.scenario == "FAST.T1" and dict(e.point) == dict(inst.point) and e.seed == 3
    assert e.hypotheses is True and math.isfinite(e.lhs)
    assert e.ci[0] <= e.rhs  # FAST Theorem 1 is an upper bound: the LHS interval starts below it


def test_instances_for_refuses_an_unknown_axis_and_defaults_stop_at_the_shipped_counts():
    with pytest.raises(UserInputError, match="has no axis Q"):
        instances_for("FAST.T1", Q=3)
    from verify.scenarios import get
    from verify.testing.instances import axis_strategy

    R = next(p for p in get("FAST.T1").space if p.name == "R")
    top = find(axis_strategy(R), lambda v: v >= R.default, settings=settings(database=None, max_examples=500))
    assert top == R.default == 400
    with pytest.raises(NoSuchExample):
        find(axis_strategy(R), lambda v: v > R.default, settings=settings(database=None, max_examples=200))
