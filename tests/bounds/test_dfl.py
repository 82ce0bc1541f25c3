"""Democratic FL Theorem 1 at the spec's worked examples (democratic_fl.md), by plain arithmetic."""

import math

import numpy as np
import pytest

from bounds import registry
from bounds.core.errors import UserInputError
from bounds.result import Kind, Status

REL = 1e-9
SPEC7 = 5e-8  # spec values printed with 7 decimals
EX = dict(K=10, Q_max=5, R=1000, Gamma_max=3, sigma_G2=0.1)


def by_hand(K, Q_max, R, Gamma_max, sg2):
    return (math.sqrt(K) / (math.sqrt(Q_max) * math.sqrt(R)), Gamma_max**2 / (R * Q_max),
            K**2 * math.sqrt(Q_max) / R, sg2)


@pytest.mark.parametrize("K, spec_terms, spec_sum", [
    (10, (0.0447214, 0.0018, 0.2236068, 0.1), 0.3701282),
    (20, (0.0632456, 0.0018, 0.8944272, 0.1), 1.0594727),
])
def test_worked_examples(K, spec_terms, spec_sum):
    ev = registry.get("DFL.T1").evaluate({**EX, "K": K})
    assert list(ev.terms.values()) == pytest.approx(spec_terms, abs=SPEC7)
    assert list(ev.terms.values()) == pytest.approx(by_hand(K, 5, 1000, 3, 0.1), rel=REL)
    assert ev.value == pytest.approx(spec_sum, abs=SPEC7)


def test_structure_and_flags():
    res = registry.get("DFL.T1")
    assert res.kind is Kind.ORDER and float(res.rate_map["R"]) == -0.5
    assert {Status.FLAG, Status.INFERRED} <= set(res.status)
    assert res.provenance.seed.startswith("002_") and len(res.flags) >= 3
    assert [v.key for v in registry.variants("DFL.T1")] == ["DFL.T1"]


def test_hypotheses_with_margins():
    res = registry.get("DFL.T1")
    rep = res.check({**EX, "eta_0": 0.5, "Q_min": 2})
    assert checked_hold(rep)
    rep = res.check({**EX, "eta_0": 0.1, "Q_min": 2, "Gamma_max": 6})
    step, stale, _ = rep.conditions
    assert step.holds is False and step.margin == pytest.approx(0.1 - 0.5, rel=REL)
    assert stale.holds is False and stale.margin == pytest.approx(5 - 6, rel=REL)
    assert rep.holds is False
    assert rep.evaluation.value == pytest.approx(sum(by_hand(10, 5, 1000, 6, 0.1)), rel=REL)


def test_solve_smallest_initial_step_and_rounds_for_target():
    res = registry.get("DFL.T1")
    assert res.solve("eta_0", {**EX, "Q_min": 4}).value == pytest.approx(0.25, rel=1e-10)
    sol = res.solve("R", {k: v for k, v in EX.items() if k != "R"} | {"eta_0": 1, "Q_min": 1}, target=0.2)
    R = np.arange(1, 10**6, dtype=float)
    total = np.sqrt(10 / (5 * R)) + 9 / (5 * R) + 100 * np.sqrt(5) / R + 0.1
    assert sol.value == float(R[np.argmax(total <= 0.2)])
    # the sigma_G^2 floor cannot be beaten
    floor = res.solve("R", {k: v for k, v in EX.items() if k != "R"} | {"eta_0": 1, "Q_min": 1}, target=0.05)
    assert not floor.success and floor.value is None


@pytest.mark.parametrize("values, message", [
    ({**EX, "K": 0}, "K=0"),
    ({**EX, "Gamma_max": -1}, "Gamma_max=-1"),
    ({**EX, "Q_max": 1.5}, "integer"),
    ({**EX, "Qmax": 5}, "did you mean"),
    ({k: v for k, v in EX.items() if k != "R"}, "needs R"),
])
def test_user_errors(values, message):
    with pytest.raises(UserInputError, match=message):
        registry.get("DFL.T1").evaluate(values)


def test_check_without_step_inputs_names_them():
    with pytest.raises(UserInputError, match="eta_0"):
        registry.get("DFL.T1").check(EX)


def checked_hold(rep) -> bool:
    """Every encoded hypothesis holds; the rest are the not-checked participation/availability ones."""
    rest = [c for c in rep.conditions if c.reason.startswith("condition, not checked")]
    return rep.holds is None and all(c.holds is None for c in rest) and all(
        c.holds is True for c in rep.conditions if c not in rest)
