"""The verdict rules of verify.verdict as pure functions (issue 26 item 2, issue 31 item 1), at hand-made points."""

from types import SimpleNamespace

import pytest

from verify.verdict import (
    FINDINGS,
    VERDICTS,
    constant_verdict,
    finding_kind,
    is_finding,
    legend,
    verdict_of,
)

ASSUMED = {"name": "q >= q_min(G)", "holds": None, "assumed": "q = 1 meets every threshold q_min <= 1",
           "reason": "needs G"}
UNDECIDED = {"name": "q >= q_min(G)", "holds": None, "reason": "unverified: needs G1, G2"}
MET = {"name": "step cap", "holds": True}
FAILS = {"name": "step cap", "holds": False}


def est(low, high, rhs, hypotheses, *conditions, kind="upper"):
    return SimpleNamespace(kind=kind, ci=(low, high), rhs=rhs, hypotheses=hypotheses, conditions=conditions)


@pytest.mark.parametrize("point, word, unless", [
    # the interval's low end 2 clears the RHS 1 (by far more than RHS_REL): a violation ...
    (est(2.0, 3.0, 1.0, True, MET), "violated", ()),
    # ... conditional where the hypothesis is only assumed, or undecided (it needs lost constants)
    (est(2.0, 3.0, 1.0, True, MET, ASSUMED), "violated unless", ("q >= q_min(G)",)),
    (est(2.0, 3.0, 1.0, None, MET, UNDECIDED), "violated unless", ("q >= q_min(G)",)),
    # a straddling interval with an undecided hypothesis stays unverified; with an assumed one, inconclusive
    (est(0.5, 1.5, 1.0, None, UNDECIDED), "unverified", ()),
    (est(0.5, 1.5, 1.0, True, ASSUMED), "inconclusive", ()),
    # within the bound: undecided -> unverified, assumed -> holds (the theorem is not refuted there)
    (est(0.1, 0.5, 1.0, None, UNDECIDED), "unverified", ()),
    (est(0.1, 0.5, 1.0, True, ASSUMED), "holds", ()),
    # a hypothesis decided False: the theorem says nothing at the point, whatever the interval
    (est(2.0, 3.0, 1.0, False, FAILS, UNDECIDED), "inapplicable", ()),
    # an exceedance inside the RHS's rounding allowance (1e-12 relative) is no violation, conditional or not
    (est(1.0 + 5e-13, 1.1, 1.0, True, ASSUMED), "inconclusive", ()),
    # LOWER is the mirror image
    (est(0.1, 0.5, 1.0, True, ASSUMED, kind="lower"), "violated unless", ("q >= q_min(G)",)),
    # ORDER: a point bounds the hidden constant from below only
    (est(2.0, 3.0, 1.0, True, ASSUMED, kind="order"), "unverified", ()),
])
def test_verdict_of_at_hand_made_points(point, word, unless):
    got = verdict_of(point)
    assert got.word == word and got.unless == unless and word in VERDICTS
    if unless:  # what the theorem needs for the point not to count, with the recorded reason
        said = " ".join(got.notes)
        assert "'q >= q_min(G)' fails at this point" in said
        assert ("q = 1 meets every threshold" if point.conditions[-1].get("assumed") else "needs G1, G2") in said


@pytest.mark.parametrize("spread, hyps, pending, control, word", [
    (1.5, [True, True], [], False, "holds"),
    (5.0, [True, True], [], False, "violated"),
    (1.5, [True, None], ["c_w"], False, "unverified"),
    (5.0, [True, True], ["c_w"], False, "violated unless"),
    (5.0, [True, False], ["c_w"], False, "inapplicable"),
    (5.0, [False], [], True, "violated"),   # a control is the shape alone
])
def test_constant_verdict(spread, hyps, pending, control, word):
    got = constant_verdict(spread, 4.0, hyps, pending, control=control)
    assert got.word == word and got.unless == (tuple(pending) if word == "violated unless" else ())


def test_findings_and_the_legend_level():
    assert FINDINGS == ("violated", "violated unless") and all(is_finding(w) for w in FINDINGS)
    assert [w for w in VERDICTS if is_finding(w)] == list(FINDINGS)
    assert finding_kind("violated unless") == "conditional violation" and finding_kind("holds") == ""
    words = legend([0.99])
    assert [w for w, _ in words] == list(VERDICTS)
    assert "upper 99% confidence limit" in dict(words)["holds"] and "95%" not in str(words)


def test_building_a_scenario_from_a_result_has_no_global_side_effect(monkeypatch):
    import dataclasses

    import bounds
    from bounds.core.errors import UserInputError
    from verify.scenario import Param, Scenario, evaluate_point
    from verify.scenarios.fast import build_t1

    monkeypatch.setattr("bounds.registry._session", {})
    mine = dataclasses.replace(bounds.get("FAST.T1"), id="MINE.T1", origin="built-in")
    sc = Scenario("MINE.T1", mine, "mine", (Param("R", 1, 10, 2, integer=True),),
                  lambda p: dataclasses.replace(build_t1({**_t1_point(), "R": p["R"]}), exact_lhs=None))
    assert sc.result == "MINE.T1" and sc.source is mine
    with pytest.raises(UserInputError):
        bounds.get("MINE.T1")  # building registered nothing
    est = evaluate_point(sc, {}, trials=4, seed=0)
    assert est.result == "MINE.T1" and bounds.get("MINE.T1").origin == "registered in this session"


def _t1_point():
    from verify.scenarios import get

    return get("FAST.T1").default_point()


def test_a_conditional_verification_round_trips_and_says_what_it_rests_on():
    from verify.record import Verification

    v = Verification("X.T1", "t", "violated unless", unless=("A1",), lhs=2.0, ci=(1.5, 2.5), rhs=1.0)
    back = Verification.from_dict(v.to_dict())
    assert back == v and back.unless == ("A1",) and not back.ok
    assert repr(v).startswith("Verification(X.T1: violated unless A1 (expected holds)")


def test_the_report_legend_prints_the_level_the_checks_used():
    from reports.html import verdict_legend

    said = dict(verdict_legend({"verifications": [{"instance": {"level": 0.9}}, {"instance": {"level": 0.9}}]}))
    assert "upper 90% confidence limit" in said["holds"] and "99%" not in str(said)
    assert "upper 99% confidence limit" in dict(verdict_legend({}))["holds"]  # none recorded: MEAN_LEVEL
