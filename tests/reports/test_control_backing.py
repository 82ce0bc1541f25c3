"""The report's rule "a certificate that holds needs a negative control" as the shipped suite meets it.

Before: the quick report opened with an alert about its own FAST.T1.drift group (3 certificates hold,
1 control), although its two bound certificates measure FAST.T1 exactly as the FAST.T1 group does,
whose step-cap control shows that this measurement can fail.
"""

from __future__ import annotations

from reports.document import alerts


def _rec(ident: str, group: str, *, result: str | None = None, control: bool = False) -> dict:
    instance = {"result": result} if result else {}
    return {"id": ident, "group": group, "kind": "control" if control else "certificate", "control": control,
            "verdict": "violated" if control else "holds", "expected": "violated" if control else "holds",
            "instance": instance}


def _group_alerts(records: list[dict]) -> list[str]:
    return [a.message for a in alerts({"verifications": records}) if a.message.startswith("Check group")]


DRIFT = [_rec("FAST.T1.drift@zeta0", "FAST.T1.drift", result="FAST.T1"),
         _rec("FAST.T1.drift", "FAST.T1.drift", result="FAST.T1"),
         _rec("FAST.T1.drift.effect", "FAST.T1.drift"),
         _rec("FAST.T1.drift.effect.control:shared-hessian", "FAST.T1.drift", control=True)]
T1 = [_rec("FAST.T1", "FAST.T1", result="FAST.T1"),
      _rec("FAST.T1.control:step-cap", "FAST.T1", result="FAST.T1", control=True)]


def test_bound_certificates_are_backed_by_a_control_of_the_same_result_in_another_group():
    assert _group_alerts(T1 + DRIFT) == []


def test_without_that_control_the_group_is_flagged():
    found = _group_alerts([T1[0]] + DRIFT)
    assert len(found) == 2  # FAST.T1's group and the drift group both lack a control for the bound
    assert any("FAST.T1.drift" in m and "3 certificates hold" in m for m in found)


def test_a_contrast_still_needs_a_control_in_its_own_group():
    found = _group_alerts(T1 + DRIFT[:3])
    assert len(found) == 1 and "1 certificate holds (FAST.T1.drift.effect)" in found[0]


def test_old_records_without_a_result_keep_the_per_group_count():
    old = [{**r, "instance": {}} for r in T1 + DRIFT]
    assert len(_group_alerts(old)) == 1  # the drift group: 3 certificates, 1 control


def test_the_shipped_groups_meet_the_rule():
    # the two groups the quick report flagged, run as the report runs them (quick sizes, seed 0)
    from reports.suite import verify_section

    checks, _ = verify_section(["FAST.T1", "FAST.T1.drift"], quick=True, device="cpu", seed=0,
                               progress=lambda message: None)
    assert {c["group"] for c in checks} == {"FAST.T1", "FAST.T1.drift"}
    assert _group_alerts(checks) == []
