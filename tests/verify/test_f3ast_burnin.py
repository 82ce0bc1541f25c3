"""F3AST Theorem III.7's burn-in by exact enumeration: constants against hand closed forms, the printed threshold
refuted, the corrected one holding (numbers recomputed here with numpy's matrix powers, not the module's walk)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from verify.scenarios.f3ast_burnin import chain, mixing


def _distance(P: np.ndarray, t: int) -> float:
    w, v = np.linalg.eig(P.T)
    pi = np.real(v[:, np.argmin(abs(w - 1))])
    pi = pi / pi.sum()
    return float(0.5 * np.abs(np.linalg.matrix_power(P, t) - pi).sum(axis=1).max())


def test_two_state_chain_matches_its_closed_form():
    # P = [[1-a, a], [b, 1-b]]: pi = (b, a)/(a+b), lambda* = |1-a-b|, d(t) = max(a, b)/(a+b) lambda*^t, so for any
    # alpha > lambda* the least C is d(0) = 0.75; d(t) > 0.01 iff 0.6^t > 0.01/0.75, t < 8.45: t_bad = 8
    a, b = 0.3, 0.1
    m = mixing(np.array([[1 - a, a], [b, 1 - b]]), slack=0.1, eps=0.01)
    assert m["lambda_star"] == pytest.approx(0.6, rel=1e-12)
    assert m["alpha"] == pytest.approx(0.6 + 0.1 * 0.4, rel=1e-12)
    assert m["C"] == pytest.approx(0.75, rel=1e-9)
    assert m["t_bad"] == 8 and math.log(0.01 / 0.75) / math.log(0.6) == pytest.approx(8.45, abs=0.01)
    # C <= 1 here: the printed threshold log(eps)/log(alpha) = 10.3 is larger than the corrected 9.7, both > 8
    assert math.log(0.01) / math.log(m["alpha"]) > math.log(0.01 / m["C"]) / math.log(m["alpha"]) > 8


@pytest.mark.parametrize("states, concentration, draw", [(3, 0.3, 0), (4, 0.2, 7), (6, 1.0, 3)])
def test_the_constant_is_valid_at_every_round(states, concentration, draw):
    P = chain(states, concentration, draw)
    m = mixing(P, slack=0.05, eps=0.01)
    for t in range(0, 60):
        assert _distance(P, t) <= m["C"] * m["alpha"] ** t * (1 + 1e-9) + 1e-13
    # and the least one: some round reaches it, so no smaller C is valid (rounds where float64 still resolves d(t))
    ratios = [_distance(P, t) / m["alpha"] ** t for t in range(0, 60) if _distance(P, t) > 1e-9]
    assert max(ratios) == pytest.approx(m["C"], rel=1e-6)
    d_bad, d_next = _distance(P, m["t_bad"]), _distance(P, m["t_bad"] + 1)
    assert d_bad > 0.01 >= d_next


def test_printed_threshold_is_refuted_and_the_corrected_one_holds_at_the_shipped_chain():
    from verify.scenario import evaluate_point
    from verify.scenarios import registry
    from verify.verdict import verdict_of

    P = chain(3, 0.3, 0)  # the scenarios' default point
    lam = sorted(abs(np.linalg.eigvals(P)))[-2]
    alpha = lam + 0.01 * (1 - lam)
    t_bad = max(t for t in range(0, 40) if _distance(P, t) > 0.01)
    C = max(_distance(P, t) / alpha**t for t in range(0, 200) if _distance(P, t) > 1e-9)  # where float64 resolves d
    printed, corrected = math.log(0.01) / math.log(alpha), math.log(0.01 / C) / math.log(alpha)
    assert C > 1 and printed < t_bad <= corrected  # the chain needs more rounds than the printed burn-in says
    for key, rhs, word in (("F3AST.T3.7@printed", printed, "violated"), ("F3AST.T3.7@corrected", corrected, "holds")):
        sc = registry()[key]
        est = evaluate_point(sc, sc.point({}), trials=2, seed=0)
        assert est.lhs == t_bad and est.rhs == pytest.approx(rhs, rel=1e-6)
        assert verdict_of(est).word == word


def test_a_small_concentration_still_gives_an_irreducible_aperiodic_chain():
    P = chain(6, 0.05, 1)  # Dirichlet(0.05) rows underflow to exact zeros at this draw before the floor
    assert P.min() >= 1e-12 * 0.99 and np.allclose(P.sum(axis=1), 1.0)
    assert sorted(abs(np.linalg.eigvals(P)))[-2] < 1 - 1e-15  # one eigenvalue of modulus 1: irreducible, aperiodic
