"""Every view of the report agrees with the decisions: the first banner, the checks, the cards, the decision rows.

A small report built from saved records, no check run: five results (FAST.T1, the corollaries that rest on it,
FAST.T2@corrected), their decisions from the repository's saved searches (``report``'s decisions section), and the
checks of those results as recorded by ``convbound verify all --quick --json`` (``data/quick_c0dc853.json``). The
page is parsed (``html.parser``) and read as a reader would: element by element.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from html_tree import Node, parse

KEYS = ["FAST.T1", "FAST.C1", "FAST.C2@corrected", "FAST.C2@printed", "FAST.T2@corrected"]
RECORDED = Path(__file__).with_name("data") / "quick_c0dc853.json"
SHRUNK_RUN = Path(__file__).parents[1] / "benchmarks" / "falsify_runs" / "conditional" / "FAST.T1.quadratic-seed1.json"
REFUTED_WORDS = ("refuted", "refuted unless")


@pytest.fixture(scope="module")
def report():
    from reports.build import to_json
    from reports.html import render_html
    from reports.suite import collect

    doc = collect(quick=True, only=KEYS, sections=("results", "decisions"), argv=["convbound", "report"])
    doc["verifications"] = [v for v in json.loads(RECORDED.read_text())
                            if (v.get("instance") or {}).get("result") in KEYS]
    saved = json.loads(to_json(doc))  # what the renderer reads (results.json); no figures drawn
    return {"doc": saved, "page": parse(render_html(saved, [])),
            "decided": {d["id"]: d for d in saved["decisions"]["records"]}}


def _word(outcome: str) -> str:
    return "refuted unless" if outcome.startswith("refuted unless ") else outcome


def test_the_fixture_holds_what_the_assertions_need(report):
    # FAST.T1 is conditionally refuted, FAST.T2@corrected refuted (saved searches), and checks of both held at
    # their own instances: the contradictions the views must explain are present
    decided = report["decided"]
    assert _word(decided["FAST.T1"]["outcome"]) == "refuted unless"
    assert decided["FAST.T2@corrected"]["outcome"] == "refuted"
    held = {v["id"] for v in report["doc"]["verifications"] if v["verdict"] == "holds"}
    assert {"FAST.T1", "FAST.T2@corrected"} <= held


def test_the_first_banner_counts_the_decisions_and_names_the_refuted_results(report):
    page, decided = report["page"], report["decided"]
    first = page.find_all(cls="banner")[0]
    text = first.text()
    # counts computed here from the decision records, not by the code under test
    for word in ("refuted", "refuted unless", "certified at stated settings", "consistent so far", "open"):
        n = sum(1 for d in decided.values() if _word(d["outcome"]) == word)
        assert re.search(rf"(^|[:,] ){n} {re.escape(word)}(,|\.)", text), (word, n, text)
    assert f"Decisions on {len(decided)} results" in text and set(KEYS) <= set(decided)
    refuted = [k for k, d in decided.items() if _word(d["outcome"]) in REFUTED_WORDS]
    assert sorted(refuted) == ["FAST.T1", "FAST.T2@corrected"]
    named = {a.text() for a in first.find_all("a")}
    assert set(refuted) <= named
    # the conditional one says what failing its condition would mean (declared by the hypothesis)
    assert "would leave the theorem no admissible q at all" in text
    # the checks' all-clear, if shown, is below the decisions and says what it covers
    ok = page.find_all(cls="checks-ok")
    assert not page.find_all(cls="ok", tag="section") and all("says nothing about the decisions" in o.text() for o in ok)


def _badges(node: Node, prefix: str) -> list[str]:
    return [b.text() for b in node.find_all(cls="badge") if any(c.startswith(prefix) for c in b.attrs["class"].split())]


def _check_verdicts(report) -> dict[str, tuple[str, bool, str]]:
    from reports.document import is_control

    return {v["id"]: (v["verdict"], is_control(v), v["instance"]["result"]) for v in report["doc"]["verifications"]}


def test_no_check_row_contradicts_its_result_without_the_line_that_explains_it(report):
    page, decided = report["page"], report["decided"]
    checks = _check_verdicts(report)
    checks_table = page.by_id("summary").find_all("table")[0]  # the checks part (then the encoded results)
    rows = [tr for tr in checks_table.find_all("tr") if tr.find_all("td")]
    seen = set()
    for tr in rows:
        ident = tr.find_all("td")[0].text()
        if ident not in checks:
            continue
        verdict, control, result = checks[ident]
        seen.add(ident)
        assert _badges(tr, "d-") == [_word(decided[result]["outcome"])], ident  # the result's decision is shown
        assert _badges(tr, "v-")[0] == verdict
        explained = " ".join(b.text() for b in tr.find_all(cls="beside"))
        if not control and verdict not in ("violated", "violated unless") and \
                _word(decided[result]["outcome"]) in REFUTED_WORDS:
            assert f"{verdict} at this instance; the result is {decided[result]['outcome']} at" in explained, ident
        else:
            assert explained == "", ident
    assert {"FAST.T1", "FAST.T2@corrected", "FAST.T1.toy1"} <= seen


def test_check_cards_name_their_results_decision_and_explain_a_held_check(report):
    page, decided = report["page"], report["decided"]
    for ident, anchor in (("FAST.T1", "chk-FAST-T1"), ("FAST.T2@corrected", "chk-FAST-T2-corrected")):
        card = page.by_id(anchor)
        decision = card.find_all(cls="decision")[0]
        assert _badges(decision, "d-") == [_word(decided[ident]["outcome"])]
        assert "holds at this instance; the result is " + decided[ident]["outcome"] in decision.text()
        assert "see the decision" in decision.text()


def test_result_cards_show_the_decision_first_and_the_checks_as_evidence(report):
    page, decided = report["page"], report["decided"]
    checks = _check_verdicts(report)
    for key in KEYS:
        card = page.by_id("res-" + re.sub(r"[^A-Za-z0-9]+", "-", key).strip("-"))
        heading = card.find_all("h3")[0]
        assert _badges(heading, "d-") == [_word(decided[key]["outcome"])] and not _badges(heading, "v-")
        decision = card.find_all(cls="decision")[0]
        assert decision.text().startswith("Decision: ")
        for a in decision.find_all("a"):
            if a.text() in checks and checks[a.text()][2] == key:
                verdict, control, _ = checks[a.text()]
                if verdict == "holds" and not control and _word(decided[key]["outcome"]) in REFUTED_WORDS:
                    assert "holds at this instance" in decision.text()


def test_the_corollaries_show_the_decision_of_the_theorem_they_rest_on(report):
    page, decided = report["page"], report["decided"]
    t1 = decided["FAST.T1"]["outcome"]
    table_rows = {tr.find_all("td")[0].text(): tr for tr in page.by_id("decisions").find_all("tr") if tr.find_all("td")}
    for key in ("FAST.C1", "FAST.C2@corrected", "FAST.C2@printed"):
        assert [(r["id"], r["outcome"]) for r in decided[key]["rests_on"]] == [("FAST.T1", t1)]
        for where in (table_rows[key], page.by_id("res-" + re.sub(r"[^A-Za-z0-9]+", "-", key).strip("-"))):
            carried = where.find_all(cls="rests-on")
            assert len(carried) == 1 and carried[0].text().startswith("rests on FAST.T1:")
            assert _badges(carried[0], "d-") == ["refuted unless"] and t1[len("refuted unless"):].strip() in carried[0].text()
            assert "(erratum: convbound erratum FAST.T1)" in carried[0].text()
    assert not table_rows["FAST.T1"].find_all(cls="rests-on")  # the theorem rests on nothing declared
    for key, row in table_rows.items():  # an erratum is pointed to for a refutation only
        refuted = _word(decided[key]["outcome"]) in REFUTED_WORDS
        assert (f"(erratum: convbound erratum {key})" in row.text()) is refuted, key


def test_the_decision_row_shows_the_minimal_instance_first(report):
    shrunk = json.loads(SHRUNK_RUN.read_text())["shrunk"]
    t1 = report["decided"]["FAST.T1"]
    assert t1["minimal_instance"] == shrunk["shrunk"] and t1["instance"] == shrunk["original"]
    row = next(tr for tr in report["page"].by_id("decisions").find_all("tr")
               if tr.find_all("td") and tr.find_all("td")[0].text() == "FAST.T1")
    text = row.text()
    # the shrunk point (K = 1, d = 1) comes before the search's own (K = 1000, d = 6)
    assert shrunk["shrunk"]["K"] == 1 and shrunk["original"]["K"] == 1000
    minimal, found = text.index("at the minimal instance"), text.index("shrunk from")
    assert minimal < text.index("K=1,") < found < text.index("K=1000,")
    assert minimal < text.index("d=1,") < found < text.index("d=6,")


def test_the_search_section_words_an_inconclusive_search_as_one():
    from reports.falsify_section import search_verdict

    said = search_verdict({"verdict": "unverified", "searched_ratio": 0.4446, "admissible": 12})
    assert said.startswith("search inconclusive: best point unverified, ratio 0.4446") and "not a proof" in said
    assert search_verdict({"verdict": "holds", "searched_ratio": 0.2, "admissible": 12}).startswith("not violated")


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler) is not installed")
def test_the_pdf_leads_with_the_same_headline(report, tmp_path):
    from reports.pdf import render_pdf

    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(render_pdf(report["doc"], []))
    text = " ".join(subprocess.run(["pdftotext", "-l", "1", str(pdf), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())
    headline = text.index("Decisions on ")
    assert headline < text.index("Refuted: FAST.T2@corrected") < text.index("Refuted unless a hypothesis fails: FAST.T1")
    assert headline < text.index("One decision per result")
