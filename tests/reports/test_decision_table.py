"""The decision table heads the report (HTML and PDF) and is `convbound decide`'s, given the same evidence.

A small report: FAST.T1 and FAST.T2 with their variants, the repository's saved searches,
and one worst case (FAST.T2's tightness setting, solved here in under a second) included as `report --include`
adds it. `decide` is then run with the same evidence: `--no-live-pep --worst-case FILE`.
"""

import json
import re
import shutil
import subprocess

import pytest

from reports.suite import collect

ONLY = ["FAST.T1", "FAST.T2"]
# `--only ID` selects the result and its variants (the corrected and repaired statements), in registry order
KEYS = ["FAST.T1", "FAST.T2", "FAST.T2@corrected", "FAST.T1@repaired", "FAST.T2@repaired"]


@pytest.fixture(scope="module")
def worst_case_file(tmp_path_factory):
    from reports.suite import LIVE_WORST_CASE
    from verify.pep import Setting
    from verify.pep.core import solve

    path = tmp_path_factory.mktemp("wc") / "fast-t2.json"
    path.write_text(json.dumps(solve(Setting(**LIVE_WORST_CASE)).to_dict()))
    return path


@pytest.fixture(scope="module")
def doc(worst_case_file):
    from reports.decision_section import refresh_decisions
    from reports.records import add_entries
    from reports.schema import load_include

    doc = collect(quick=True, only=ONLY, sections=("results", "decisions"), argv=["convbound", "report"])
    before = json.loads(json.dumps(doc["decisions"]))
    add_entries(doc, [load_include(str(worst_case_file))])  # what `report --include FILE` does, then decides again
    refresh_decisions(doc)
    return {"before": before, "doc": doc}


def _decide(convbound, *extra):
    run = convbound("decide", "all", "--no-live-pep", "--json", *extra)
    assert run.code == 0, run.err
    return [d for d in run.json() if d["id"] in KEYS]


def _same(records):
    """A decision without where each record was read from (a file here, the report's entry there)."""
    out = []
    for d in records:
        d = {k: v for k, v in d.items() if k != "versions"}
        d["worst_cases"] = [{k: v for k, v in w.items() if k != "source"} for w in d["worst_cases"]]
        out.append(d)
    return out


def test_the_table_is_decide_on_the_same_evidence(doc, worst_case_file, convbound):
    assert [d["id"] for d in doc["before"]["records"]] == KEYS
    assert _same(doc["before"]["records"]) == _same(_decide(convbound))
    after = doc["doc"]["decisions"]["records"]
    assert _same(after) == _same(_decide(convbound, "--worst-case", str(worst_case_file)))
    outcomes = {d["id"]: d["outcome"] for d in after}
    # FAST.T2's certified worst case / bound at K = 2, R = 3: 0.9934 (tests/verify/test_pep.py), so <= 1
    assert outcomes["FAST.T2"] == "certified at stated settings" and "ratio 0.9934" in after[1]["why"]
    assert doc["before"]["records"][1]["outcome"] != outcomes["FAST.T2"]  # the included worst case was used
    assert doc["doc"]["decisions"]["evidence"]["worst cases in this report"] == [f"included from {worst_case_file}"]


def test_the_table_heads_the_page_and_the_pdf(doc, tmp_path):
    from reports.build import to_json
    from reports.html import render_html
    from reports.pdf import render_pdf

    saved = json.loads(to_json(doc["doc"]))  # what the renderers read (results.json); no figures drawn
    page = render_html(saved, [])
    (tmp_path / "report.pdf").write_bytes(render_pdf(saved, []))
    headings = re.findall(r"<h2[^>]*>([^<]*)</h2>", page)
    assert headings[0] == "One decision per result" and "Summary of verdicts" in headings[1:]
    table = page[page.index('id="decisions"'):page.index('id="summary"')]
    for d in doc["doc"]["decisions"]["records"]:
        assert f'href="#res-{d["id"].replace(".", "-").replace("@", "-")}"' in table  # linked to its card
        assert f'class="badge d-{d["outcome"].split(" unless")[0].replace(" ", "-")}"' in table
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext not installed")
    text = subprocess.run(["pdftotext", str(tmp_path / "report.pdf"), "-"], check=True, capture_output=True,
                          text=True).stdout
    assert text.index("One decision per result") < text.index("Summary of verdicts")
    assert "certified at stated settings" in text[:text.index("Summary of verdicts")]


def test_a_saved_report_keeps_its_table_and_a_bad_one_is_one_line(doc):
    from bounds.core.errors import UserInputError
    from reports.build import to_json
    from reports.schema import as_report_document

    saved = json.loads(to_json(doc["doc"]))
    assert as_report_document(saved, "results.json")["decisions"] == saved["decisions"]
    saved["decisions"]["records"][0]["outcome"] = "probably fine"
    with pytest.raises(UserInputError, match=r"^results.json: .*decisions\.records\[0\].*not one of") as err:
        as_report_document(saved, "results.json")
    assert "\n" not in str(err.value)


def test_an_open_reason_that_repeats_the_missing_list_points_to_it():
    from reports.decision_section import shown_why

    row = {"why": "no evidence about the bound: no search recorded; orders: not computed",
           "missing": ["no search recorded", "orders: not computed"]}
    assert shown_why(row) == "no evidence about the bound (see what is missing)"
    kept = {"why": "a check did not pass: search x: best point inconclusive", "missing": ["no search recorded"]}
    assert shown_why(kept) == kept["why"]


def test_report_include_decides_again_with_the_included_worst_case(doc, worst_case_file, tmp_path, monkeypatch,
                                                                   convbound):
    """`report --from-json saved.json --include FILE`: the table is decided again with the included worst case
    (rendering replaced by a capture: what is written is the document handed to it)."""
    import reports.build
    from reports.build import to_json

    saved = json.loads(to_json(doc["doc"]))
    saved["worst_cases"], saved["decisions"] = [], doc["before"]  # the report as it was before the include
    (tmp_path / "results.json").write_text(json.dumps(saved))
    written = []
    monkeypatch.setattr(reports.build, "write_report", lambda d, out, **kw: written.append(d))
    run = convbound("report", "--from-json", str(tmp_path / "results.json"), "--include", str(worst_case_file),
                    "--out", str(tmp_path / "out"))
    assert run.code == 0, run.err
    (again,) = written
    assert again["decisions"]["records"] == doc["doc"]["decisions"]["records"]
    assert again["decisions"]["records"][1]["outcome"] == "certified at stated settings"
