"""A hypothesis no number can decide is a condition, not a missing constant (issue 18 item 4).

`check` says "holds given <conditions>" when every hypothesis a number decides holds and the rest are
conditions (participation, availability); "unverified: needs <constants>" when a hypothesis lacks
constants the sources do not give; `holds` stays None for both (a condition is never true by default).
"""

from __future__ import annotations

import dataclasses
import json

import bounds
from bounds.evaluate import CHECK_VERDICTS
from reports.document import hypotheses_verdict, summary_rows, verdict_counts

# README's worked example of `convbound check FAST.T1`
README = dict(L=1, K=5, m=10, n=5, q=0.5, sigma2=1, sigma_G2=0.25, zeta=1, R=1000, eta_c=0.005)
README_ARGS = [f"{k}={v}" for k, v in README.items()]


def _caps_only():
    """FAST.T1 without its q_min hypothesis: the step caps (decidable) and the snapshot condition."""
    res = bounds.get("FAST.T1")
    return dataclasses.replace(res, hypotheses=tuple(h for h in res.hypotheses if "q_min" not in h.name))


def test_the_readme_example_separates_the_condition_from_the_missing_constants():
    rep = bounds.get("FAST.T1").check(README)
    assert rep.holds is None
    assert rep.verdict == "unverified"
    assert rep.needs == ("G1", "G2", "G3")
    assert rep.given == ("participation (snapshot)",)
    kinds = {c.name: c.open for c in rep.conditions if c.holds is None}
    assert kinds == {"snapshot probability q >= q_min(G1,G2,G3)": "constants", "participation (snapshot)": "condition"}


def test_only_a_condition_open_is_holds_given_conditions_never_holds():
    rep = _caps_only().check(README)
    assert rep.holds is None  # never true by default
    assert rep.verdict == "holds given conditions"
    assert rep.given == ("participation (snapshot)",) and rep.needs == ()
    out = rep.to_dict()
    assert (out["holds"], out["verdict"], out["given"], out["needs"]) == (
        None, "holds given conditions", ["participation (snapshot)"], [])


def test_a_decided_condition_closes_it_and_a_failing_one_fails():
    res = _caps_only()
    assert res.check(README, {"participation (snapshot)": (True, "audited")}).verdict == "holds"
    assert res.check(README, {"participation (snapshot)": (False, "audited")}).verdict == "fails"
    # a failing decidable hypothesis beats any open condition
    assert res.check({**README, "eta_c": 1.0}).verdict == "fails"


def test_an_undefined_side_is_unverified_not_conditional():
    # a hypothesis whose right side is 1/(L - 1) = 1/0 at L = 1: undecided at these values, not a condition
    import sympy as sp

    from bounds.result import Hypothesis

    res = _caps_only()
    hyp = Hypothesis("side undefined at L = 1", sp.Symbol("eta_c") <= 1 / (sp.Symbol("L") - 1))
    rep = dataclasses.replace(res, hypotheses=res.hypotheses + (hyp,)).check(README)
    assert rep.verdict == "unverified" and rep.needs == ()
    assert [c.open for c in rep.conditions if c.holds is None] == ["values", "condition"]


def test_verdicts_are_named_once():
    assert CHECK_VERDICTS == ("holds", "holds given conditions", "unverified", "fails")


def test_cli_check_separates_them(convbound):
    code, out, err = convbound("check", "FAST.T1", *README_ARGS)
    assert code == 0, err
    head = " ".join(out.split("optimization")[0].split())
    assert "unverified: needs G1, G2, G3" in head and "given participation (snapshot)" in head
    code, out, _ = convbound("check", "FAST.T1", *README_ARGS, "--json")
    data = json.loads(out)
    assert (data["holds"], data["verdict"], data["needs"], data["given"]) == (
        None, "unverified", ["G1", "G2", "G3"], ["participation (snapshot)"])


def test_cli_show_marks_the_constants_and_the_conditions(convbound):
    code, out, _ = convbound("show", "FAST.T1")
    text = " ".join(out.split())
    assert "[needs G1, G2, G3: constants the sources do not give]" in text
    assert "conditions (no number decides them" in text


def test_the_report_counts_conditional_results_apart_from_unverified():
    conditional = {**bounds.get("FAST.T1").to_dict(), "example": {"check": _caps_only().check(README).to_dict()}}
    needs = {**bounds.get("FAST.T1").to_dict(), "example": {"check": bounds.get("FAST.T1").check(README).to_dict()}}
    needs["key"] = "FAST.T1#2"
    assert hypotheses_verdict(conditional)[0] == "holds given conditions"
    verdict, detail = hypotheses_verdict(needs)
    assert verdict == "unverified" and "needs G1, G2, G3" in detail and "given: participation (snapshot)" in detail
    counts = verdict_counts(summary_rows({"results": [conditional, needs]}))
    assert counts == {"holds given conditions": 1, "unverified": 1}


def test_older_records_without_the_field_stay_unverified():
    old = bounds.get("FAST.T1").to_dict()
    check = _caps_only().check(README).to_dict()
    for c in check["conditions"]:
        c.pop("open")
    assert hypotheses_verdict({**old, "example": {"check": check}})[0] == "unverified"


def test_the_report_shows_the_condition_beside_the_hypotheses():
    from reports.build import to_json
    from reports.html import render_html
    from reports.schema import as_report_document

    res = bounds.get("FAST.T1")
    entry = {**res.to_dict(), "example": {"values": res.example_values, "source": "README",
                                          "check": res.check(res.example_values).to_dict()}}
    doc = as_report_document(json.loads(to_json({"schema": "convbound.report/1", "results": [entry]})), "doc")
    page = render_html(doc)
    row = page[page.index("<tr><td>participation (snapshot)"):]
    row = row[:row.index("</tr>")]
    assert 'class="badge v-condition">condition<' in row and "no number decides it" in row
    q_row = page[page.index("<tr><td>snapshot probability q"):]
    assert 'class="badge v-unverified">unverified<' in q_row[:q_row.index("</tr>")]
