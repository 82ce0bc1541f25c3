"""Verdict logic at its edges: intervals touching, straddling and clearing the right-hand side."""

import math

import numpy as np
import pytest
from scipy import stats

from verify.verdict import HOLDS, INAPPLICABLE, INCONCLUSIVE, UNVERIFIED, VIOLATED, decide, mean_ci, ratio


@pytest.mark.parametrize("low, high, rhs, expected", [
    (0.1, 0.9, 1.0, HOLDS),
    (0.1, 1.0, 1.0, HOLDS),            # upper end touching the RHS still holds
    (0.1, 1.0 + 1e-12, 1.0, INCONCLUSIVE),
    (0.9, 1.1, 1.0, INCONCLUSIVE),
    (1.0, 1.2, 1.0, INCONCLUSIVE),     # lower end touching: not a violation
    (1.0 + 1e-12, 1.2, 1.0, INCONCLUSIVE),  # within the RHS's rounding allowance RHS_REL
    (1.0 + 2e-12, 1.2, 1.0, VIOLATED),
    (5.0, 5.0, 1.0, VIOLATED),
])
def test_upper_edges(low, high, rhs, expected):
    assert decide("upper", low, high, rhs) == expected


@pytest.mark.parametrize("low, high, rhs, expected", [
    (1.0, 2.0, 1.0, HOLDS),
    (0.5, 2.0, 1.0, INCONCLUSIVE),
    (0.5, 1.0, 1.0, INCONCLUSIVE),
    (0.5, 0.999, 1.0, VIOLATED),
])
def test_lower_edges(low, high, rhs, expected):
    assert decide("lower", low, high, rhs) == expected


def test_equality_uses_tolerance():
    assert decide("equality", 0.60, 0.65, 2 / 3, tol=0.02) == HOLDS
    assert decide("equality", 0.60, 0.64, 2 / 3, tol=0.02) == VIOLATED


def test_hypotheses_override_the_interval():
    assert decide("upper", 5.0, 6.0, 1.0, hypotheses=None) == UNVERIFIED   # never 'violated' when unverifiable
    assert decide("upper", 0.0, 0.1, 1.0, hypotheses=False) == INAPPLICABLE


def test_bad_interval_and_kind_rejected():
    with pytest.raises(ValueError):
        decide("upper", 2.0, 1.0, 1.0)
    with pytest.raises(ValueError):
        decide("order", 0.0, 1.0, 1.0)


def test_ratio():
    assert ratio(1.0, 4.0) == 0.25
    assert math.isnan(ratio(1.0, 0.0))


def test_mean_ci_matches_hand_t_interval():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    est = mean_ci(x, level=0.95)
    # mean 2.5, sd = sqrt(5/3), se = sd/2, t_{0.975,3} = 3.182446305284263
    half = 3.182446305284263 * math.sqrt(5 / 3) / 2
    assert est.mean == 2.5
    assert est.low == pytest.approx(2.5 - half, rel=1e-12)
    assert est.high == pytest.approx(2.5 + half, rel=1e-12)


def test_mean_ci_coverage_on_many_seeded_samples():
    # 400 seeded experiments of 30 normal draws: a 95% interval covers the mean about 95% of the time.
    rng = np.random.default_rng(7)
    draws = rng.normal(3.0, 2.0, (400, 30))
    hits = sum(1 for row in draws if (e := mean_ci(row, level=0.95)).low <= 3.0 <= e.high)
    # binomial(400, 0.95): 99.9% of outcomes lie in [366, 393]
    lo, hi = stats.binom.ppf([0.0005, 0.9995], 400, 0.95)
    assert lo <= hits <= hi


def test_mean_ci_single_sample_is_unbounded():
    est = mean_ci([1.0])
    assert est.low == -math.inf and est.high == math.inf


def test_a_violation_needs_more_than_the_rhs_rounding():
    """An exactly scored, exactly tight bound: LHS = RHS up to rounding. A low end 2e-13 relative above the RHS
    (inside RHS_REL = 1e-12) is inconclusive; 2e-12 above it is a violation; the same for lower bounds."""
    rhs = 0.2475
    assert decide("upper", rhs * (1 + 2e-13), rhs * (1 + 3e-13), rhs) == INCONCLUSIVE
    assert decide("upper", rhs * (1 + 2e-12), rhs * (1 + 3e-12), rhs) == VIOLATED
    assert decide("lower", rhs * (1 - 3e-13), rhs * (1 - 2e-13), rhs) == INCONCLUSIVE
    assert decide("lower", rhs * (1 - 3e-12), rhs * (1 - 2e-12), rhs) == VIOLATED
