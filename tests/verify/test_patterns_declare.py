"""Patterns declare the participation assumptions they guarantee (``Pattern.meets``), and a simulation
decides a result's participation hypothesis from them (issue 18 item 4).

Acceptance: a user's bound assuming full participation, simulated with every client in every round, is
decided (not left `unverified`), so a 7e4x violation is scored as one. Expected numbers are written out
by hand: gradient descent with step 1/2 on x^2/2 from x0 = 1 has f(x_n) - f* = (1/2)(1/2)^(2n).
"""

from __future__ import annotations

import numpy as np
import pytest

from bounds import Domain, Kind, ParticipationAssumption, Provenance, Result, SymbolInfo, Term, sym
from quadratics import cyclic, fast_mixture, fedavg, heterogeneous_quadratic, regularized, static_policy, uniform
from verify.scenario import Instance, Param, Scenario, evaluate_point

L, gamma, n, D2 = (sym(s, d) for s, d in (("L", Domain.POSITIVE), ("gamma", Domain.POSITIVE),
                                          ("n", Domain.POSITIVE_INTEGER), ("D2", Domain.POSITIVE)))
WRONG_BY = 7e4
FULL = ParticipationAssumption("full", (), "every client takes part in every round")

# a user's (wrong) bound: Drori & Teboulle's GD bound divided by 7e4, assuming full participation
USER = Result(
    id="USER.GD.FULL", title="a user's GD bound, 7e4x too small", paper="a notebook", kind=Kind.UPPER,
    lhs="f(x_n) - f* after n rounds", lhs_latex=r"f(x_n) - f_\star",
    terms=(Term("optimisation", L * D2 / (4 * n * L * gamma + 2) / WRONG_BY),),
    symbols=(SymbolInfo("L", "smoothness"), SymbolInfo("gamma", "step size"),
             SymbolInfo("n", "rounds", Domain.POSITIVE_INTEGER), SymbolInfo("D2", "||x0 - x*||^2")),
    provenance=Provenance("test", "built in a cell"), participation=(FULL,))


def build(point):
    pb = heterogeneous_quadratic(L=1.0, mu=1.0, d=1, M=2, zeta=0.0, sigma=0.0, D0=1.0)
    rounds = int(point["n"])
    return Instance(problem=pb, algorithm=fedavg(eta=0.5, K=1), pattern=uniform(M=2, S=int(point["S"])),
                    rounds=rounds, values={"L": 1.0, "gamma": 0.5, "n": rounds, "D2": 1.0},
                    measure=lambda sim: sim.metrics["gap"][rounds])


@pytest.fixture
def scenario(monkeypatch):
    # the result is registered for this test only: other tests (the CLI fuzz cases) list the registry
    monkeypatch.setattr("bounds.registry._session", {})
    return Scenario("USER.GD.FULL.S", USER, "GD, all or some clients",
                    (Param("n", 1, 10, default=4, integer=True), Param("S", 1, 2, default=2, integer=True)), build)


def test_a_full_participation_run_decides_full_participation_and_scores_the_violation(scenario):
    est = evaluate_point(scenario, {}, trials=2, seed=0)
    assert est.decided["participation (full)"][0] is True
    assert est.hypotheses is True
    lhs, rhs = 0.5 * 0.5 ** 8, 1.0 / 10 / WRONG_BY  # n = 4: (1/2)(1/2)^8 against L D2/(4 n L gamma + 2) / 7e4
    assert est.lhs == pytest.approx(lhs, rel=1e-12) and est.rhs == pytest.approx(rhs, rel=1e-12)
    assert est.score == pytest.approx(lhs / rhs, rel=1e-9) and est.score > 1000


def test_a_partial_run_is_outside_a_full_participation_bound(scenario):
    est = evaluate_point(scenario, {"S": 1}, trials=2, seed=0)
    assert est.decided["participation (full)"][0] is False
    assert est.hypotheses is False and est.score is None and "participation (full)" in est.broken


def test_the_scenario_keeps_the_key_of_a_result_built_in_a_cell(scenario):
    import bounds
    from bounds.core.errors import UserInputError

    assert scenario.result == "USER.GD.FULL" and scenario.source is USER
    # building the scenario registered nothing (issue 26: no global side effect); its first scoring does
    with pytest.raises(UserInputError, match="unknown result ID 'USER.GD.FULL'"):
        bounds.get("USER.GD.FULL")
    evaluate_point(scenario, {}, trials=2, seed=0)
    assert bounds.get("USER.GD.FULL") == USER


@pytest.mark.parametrize(("pattern", "kind", "values", "expected"), [
    (uniform(M=10, S=10), "full", {}, True),
    (uniform(M=10, S=3), "full", {}, False),
    (uniform(M=10, S=3), "iid", {"S": 3, "N": 10}, True),
    (uniform(M=10, S=3), "iid", {"S": 4, "N": 10}, None),
    # every uniform round is a snapshot round: FAST's mixture with q = 1, m = S
    (uniform(M=10, S=3), "snapshot", {"q": 1.0, "m": 3, "n": 5}, True),
    (uniform(M=10, S=3), "snapshot", {"q": 0.5, "m": 3, "n": 5}, None),
    # Assumption 2 with P = 1: Pr(in a round) = S/M = 0.3, sum of squared weights 1/S = 1/3
    (uniform(M=10, S=3), "regularized", {"P": 1, "p_min": 0.3, "rho2": 0.34}, True),
    (uniform(M=10, S=3), "regularized", {"P": 1, "p_min": 0.31, "rho2": 0.34}, None),
    (uniform(M=10, S=3), "regularized", {"P": 1, "p_min": 0.3, "rho2": 0.33}, None),
    (fast_mixture(M=10, m=4, n=2, q=0.5), "snapshot", {"q": 0.5, "m": 4, "n": 2}, True),
    (fast_mixture(M=10, m=4, n=2, q=0.5), "full", {}, False),
    (fast_mixture(M=10, m=10, n=2, q=1.0), "full", {}, True),
    (fast_mixture(M=10, m=4, n=2, I=2), "snapshot", {"q": 0.5, "m": 4, "n": 2}, None),
    (fast_mixture(M=10, m=10, n=10, I=2), "full", {}, True),
    (fast_mixture(M=10, m=10, n=2, I=1), "full", {}, True),  # I = 1: every round is a snapshot of all 10
    (fast_mixture(M=10, m=10, n=2, I=2), "full", {}, False),
    (fast_mixture(M=10, m=3, n=10, q=0.0), "full", {}, True),  # q = 0: only the n = M rounds happen
    (fast_mixture(M=10, m=10, n=10, adaptive=True), "full", {}, True),
    (fast_mixture(M=10, m=10, n=9, adaptive=True), "full", {}, False),
    (cyclic(M=12, S=2, P=6, groups=3), "cyclic", {"Kbar": 3, "S": 2, "N": 12}, True),
    (cyclic(M=12, S=2, P=6, groups=3), "full", {}, False),
    # window of g = 2 rounds per group of 4, S = 2: p_min = 1 - (1 - 2/4)^2 = 0.75
    (cyclic(M=12, S=2, P=6, groups=3), "regularized", {"P": 6, "p_min": 0.75, "rho2": 0.5}, True),
    (cyclic(M=12, S=2, P=6, groups=3), "regularized", {"P": 6, "p_min": 0.76, "rho2": 0.5}, None),
    (regularized(M=4, S=2, P=2), "regularized", {"P": 2, "p_min": 1.0, "rho2": 0.5}, True),
    (regularized(M=4, S=4, P=1), "full", {}, True),
    (static_policy(np.array([[1, 0], [0, 1]]), np.array([0.375, 0.625])), "static-rate", {"r": [0.375, 0.625]}, True),
    (static_policy(np.array([[1, 0], [0, 1]]), np.array([0.375, 0.625])), "static-rate", {"r": [0.5, 0.5]}, None),
    (static_policy(np.array([[1, 0], [0, 1]]), np.array([0.375, 0.625])), "full", {}, False),
    (static_policy(np.array([[1, 1]]), np.array([1.0])), "full", {}, True),
    (uniform(M=10, S=3), "asynchronous", {}, None),  # a kind no pattern of ours declares
])
def test_each_pattern_declares_what_it_meets(pattern, kind, values, expected):
    got = pattern.meets(kind, values)
    assert (None if got is None else got[0]) is expected
    if got is not None:
        assert got[1].startswith("met by construction" if expected else "not met")


def test_a_pattern_repr_is_short():
    assert len(repr(fast_mixture(M=1000, m=10, n=5, q=0.3))) < 200
