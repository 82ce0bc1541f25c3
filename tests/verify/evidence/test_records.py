"""Verification records as evidence: which result a check is about, and how a passed or failed one counts."""

from __future__ import annotations

import pytest

from verify.decision import CONSISTENT, OPEN
from verify.decision_sources import decide_with
from verify.evidence.records import group_results, result_of_check


@pytest.mark.parametrize("check, variant, key", [
    ("FAST.T1", "", "FAST.T1"),
    ("FAST.T1.control:step-cap", "", "FAST.T1"),
    ("FAST.T1.drift.control:step-cap@zeta0", "", "FAST.T1"),  # a scenario's id names its result
    ("F3AST.T3.5.control:schedule@explicit", "", "F3AST.T3.5@explicit"),
    ("FAST.C2.rate", "", "FAST.C2@corrected"),
    ("FAST.T2", "corrected", "FAST.T2@corrected"),
    ("NOPE.T9", "", None),
])
def test_a_check_id_names_its_result(check, variant, key):
    assert result_of_check(check, variant) == key


def test_a_group_without_a_result_of_its_own_is_about_every_variant_of_its_id():
    assert group_results("SCAF.T4") == ["SCAF.T4@sc", "SCAF.T4@weakly-convex"]


def _check(verdict: str, *, expected: str = "holds", control: bool = False, cid: str = "SURV.FEDAVG"):
    from verify.record import Verification

    return Verification(id=cid, title="t", verdict=verdict, expected=expected, lhs=0.5, rhs=1.0, ratio=0.5,
                        instance={"T": 10}, control=control, kind="control" if control else "certificate")


def _decide(*checks):
    from bounds import get

    (d,) = decide_with([get("SURV.FEDAVG")], [], [], stored={}, verifications=[("test", c) for c in checks])
    return d


def test_a_certificate_that_holds_is_a_passed_check_and_one_that_fails_a_failed_one():
    ok = _decide(_check("holds"))
    assert ok.outcome == CONSISTENT and "1 verification check(s) as expected" in ok.why
    assert any(c.startswith("verification SURV.FEDAVG: holds as expected") for c in ok.covered)
    bad = _decide(_check("holds"), _check("inconclusive"))
    assert bad.outcome == OPEN and "verification SURV.FEDAVG: inconclusive, expected holds" in bad.why


def test_a_negative_control_is_context_when_it_fires_and_a_failed_check_when_it_does_not():
    fired = _decide(_check("violated", expected="violated", control=True, cid="SURV.FEDAVG.control:x"))
    assert fired.outcome == OPEN and "no evidence about the bound" in fired.why  # the instrument works; no pass
    silent = _decide(_check("holds", expected="violated", control=True, cid="SURV.FEDAVG.control:x"))
    assert silent.outcome == OPEN and "holds, expected violated" in silent.why


def test_a_record_under_a_bare_id_counts_for_the_default_variant():
    """A scenario names its result by id (SURV.GENFEDAVG.instance: "SURV.GENFEDAVG"); its search and checks are the
    default variant's (SURV.GENFEDAVG@text), however they were stored."""
    from verify.evidence.keys import resolved
    from verify.evidence.records import evidence_by_result
    from verify.evidence.store import new_record

    assert resolved("SURV.GENFEDAVG") == "SURV.GENFEDAVG@text" and resolved("SURV.GENFEDAVG@table") == \
        "SURV.GENFEDAVG@table" and resolved("NOPE.T9") is None
    assert result_of_check("SURV.GENFEDAVG.instance") == "SURV.GENFEDAVG@text"
    rec = new_record("orders", "SURV.GENFEDAVG@text", {"kind": "orders", "rows": [{"finding": "same order"}]}, seed=0)
    from dataclasses import replace

    by = evidence_by_result([replace(rec, result_key="SURV.GENFEDAVG")])  # as written before the key was resolved
    assert list(by) == ["SURV.GENFEDAVG@text"] and len(by["SURV.GENFEDAVG@text"].orders) == 1
