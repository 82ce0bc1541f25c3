"""Which participation hypotheses a simulated pattern meets by construction, and which it must not claim."""

import numpy as np

import bounds
from quadratics import fast_mixture, static_policy
from quadratics.participation import regularized
from verify.scenario import realised_participation

SNAP = "participation (snapshot)"
REG = "participation (regularized)"
RATE = "participation (static-rate)"


def test_fast_mixture_meets_the_snapshot_hypothesis_only_with_its_own_q_m_n():
    res = bounds.get("FAST.T1")
    pat = fast_mixture(M=10, m=4, n=2, q=0.5)
    assert realised_participation(pat, res, {"q": 0.5, "m": 4, "n": 2})[SNAP][0] is True
    assert SNAP not in realised_participation(pat, res, {"q": 0.6, "m": 4, "n": 2})  # another q
    assert SNAP not in realised_participation(pat, res, {"q": 0.5, "m": 5, "n": 2})
    # snapshot every I rounds is a schedule, not the theorem's Bernoulli(q) coin
    assert SNAP not in realised_participation(fast_mixture(M=10, m=4, n=2, I=2), res, {"q": 0.5, "m": 4, "n": 2})


def test_regularized_pattern_meets_assumption_2_within_the_checked_bounds():
    res = bounds.get("ASCAF.P.REG")
    pat = regularized(M=8, S=4, P=2)  # every client once per window of 2 rounds, 4 of 8 with weight 1/4
    rho2 = 4 * (1 / 4) ** 2  # sum of squared weights: 0.25, computed here from S = 4
    assert realised_participation(pat, res, {"P": 2, "p_min": 1.0, "rho2": rho2})[REG][0] is True
    assert realised_participation(pat, res, {"P": 2, "p_min": 0.5, "rho": 0.6})[REG][0] is True  # looser bounds
    assert REG not in realised_participation(pat, res, {"P": 2, "p_min": 1.0, "rho2": 0.2})  # rho^2 too small
    assert REG not in realised_participation(pat, res, {"P": 3, "p_min": 1.0, "rho2": rho2})  # another window


def test_static_policy_meets_static_rate_only_at_its_true_rates():
    res = bounds.get("F3AST.L3.4@eq6")
    # a selection law that picks client 1 w.p. 0.375, else client 2: rates (0.375, 0.625)
    sets = np.array([[1.0, 0.0], [0.0, 1.0]])
    probs = np.array([0.375, 0.625])
    pat = static_policy(sets, probs, np.array([0.5, 0.5]))
    r = np.asarray(pat.constants["rates"])
    assert np.allclose(r, [0.375, 0.625])
    assert realised_participation(pat, res, {"r": [0.375, 0.625]})[RATE][0] is True
    assert RATE not in realised_participation(pat, res, {"r": [0.375, 0.5]})
