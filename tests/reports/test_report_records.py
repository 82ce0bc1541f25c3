"""`report --include`: a falsify search, a worst case and an audit in one HTML + PDF + results.json;
`--from-json` renders them again; bad include files are refused in one line (exit 2).

Expected numbers are computed here from the records' inputs (plain arithmetic), never by the renderers.
"""

import copy
import json
import math
import shutil
import subprocess

import numpy as np
import pytest
from report_fixtures import fixture_doc

from reports.build import to_json
from reports.cli.main import main
from reports.document import fmt

# FAST.T2 at deterministic full participation: q = 1, sigma = 0, kappa = D0 = 1, sigma_G = zeta
WC = dict(L=1.0, mu=0.1, zeta=0.1, eta=0.003, K=2, R=3, M=2)
WC_VALUE = 0.99640594  # a stated worst case: the test checks how it is shown, not how it was solved


def fast_t2_bound(p):
    return math.exp(-p["K"] * p["R"] * p["eta"] * p["mu"]) + 8 * p["K"] * p["eta"] * p["zeta"] ** 2 / p["mu"]


def search_record():
    trace = [{"evaluation": 1, "ratio": 0.05, "admissible": True, "best": 0.05},
             {"evaluation": 2, "ratio": None, "admissible": False, "best": 0.05},
             {"evaluation": 3, "ratio": 2.5, "admissible": True, "best": 2.5}]
    lhs, rhs = 2.2e-4, 1.0e-4
    return {"id": "FAST.T2@corrected", "result": "FAST.T2@corrected", "optimiser": "random", "seed": 3,
            "budget": 3, "evaluations": 3, "admissible": 2, "stopped_by": "budget", "trace": trace,
            "notes": ["a saved search"], "default": {"point": {"M": 4}, "estimate": {"ratio": 0.0625}},
            "best": {"point": {"M": 2, "het": 0.135}, "estimate": {"ratio": 2.5}},
            "confirmation": {"verdict": "violated", "lhs": lhs, "ci": [1.9e-4, 2.5e-4], "rhs": rhs,
                             "ratio": lhs / rhs, "ratio_ci": [1.9, 2.5], "trials": 4096, "seeds": [7]}}


def worst_case_record():
    bound = fast_t2_bound(WC)
    return {"kind": "worst-case", "method": "local_gd", "parameters": {"method": "local_gd", **WC, "eta_g": 1.0,
                                                                        "D0": 1.0, "measure": "dist_sq"},
            "value": WC_VALUE, "pepit_tau": WC_VALUE, "primal_value": WC_VALUE - 1e-8, "success": True,
            "solver_status": "optimal", "solver": "CLARABEL", "solve_seconds": 0.8,
            "certificate": {"status": "certified", "worst_dual_error": 2.6e-7},
            "seeds": "n/a (deterministic SDP)", "notes": ["M=2 is exact"], "versions": {},
            "coverage": [{"key": "FAST.T2", "covers": "yes", "reason": "contains FAST's class", "bound": bound,
                          "ratio": WC_VALUE / bound, "hypotheses_hold": True},
                         {"key": "ASCAF.T1", "covers": "no", "reason": "non-convex"}]}


@pytest.fixture(scope="module")
def audit_case():
    """A real audit of a synthetic log (12 clients, 3 per round, client 2 under-served) and its selections."""
    from rate_region.audit import audit
    from rate_region.audit.synthetic import biased_uniform
    from rate_region.logs import ParticipationLog
    from reports.cli.common import dumps

    T, N = 400, 12
    A = np.ones((T, N), bool)
    S = biased_uniform(A, 3, np.array([2]), 0.2, 0)
    log = ParticipationLog("synthetic", T * N, np.arange(T), np.arange(N), A, S, None, None, 0)
    return json.loads(dumps(audit(log, "uniform:3/12").to_dict())), np.asarray(S, dtype=float)


def write(path, obj):
    path.write_text(json.dumps(obj))
    return str(path)


@pytest.fixture(scope="module")
def built(tmp_path_factory, audit_case):
    tmp = tmp_path_factory.mktemp("records")
    doc = tmp / "doc.json"
    doc.write_text(to_json(fixture_doc()))
    files = [write(tmp / "search.json", search_record()), write(tmp / "wc.json", worst_case_record()),
             write(tmp / "audit.json", audit_case[0])]
    out = tmp / "rep"
    with pytest.raises(SystemExit) as exc:
        main(["report", "--from-json", str(doc), "--out", str(out),
              *[a for f in files for a in ("--include", f)]])
    assert exc.value.code == 0
    return tmp, out, files


def test_each_kind_has_its_section_with_the_records_numbers(built, audit_case):
    _, out, files = built
    page = (out / "index.html").read_text()
    for ident in ("falsify", "worst-cases", "audits"):
        assert f'<section id="{ident}">' in page and f'href="#{ident}"' in page
    # search: confirmed ratio LHS/RHS and the hand-picked ratio (the search's default point)
    s = search_record()
    assert fmt(2.2e-4 / 1.0e-4) in page and fmt(0.0625) in page and "violated" in page
    assert f"included from {files[0]}" in page and "het = 0.135" in page
    # a confirmed violation is a finding noticed at the top, linked to its search
    assert 'href="#falsify-FAST-T2-corrected">Finding: the search on FAST.T2@corrected' in page
    assert 'id="falsify-FAST-T2-corrected"' in page
    # worst case: its value and FAST.T2's tightness = value / (e^{-KR eta mu} + 8 K eta zeta^2 / mu)
    assert fmt(WC_VALUE, 8) in page and fmt(WC_VALUE / fast_t2_bound(WC)) == "0.9934" and "0.9934" in page
    assert f"included from {files[1]}" in page
    # audit: H(realised r) = sum p_k^2 / r_k with p = 1/12 and r_k = the client's share of rounds
    rec, S = audit_case
    r = S.mean(axis=0)
    h = float(np.sum((1 / 12) ** 2 / r))
    assert abs(rec["variance"]["H_realised"] - h) <= 1e-9 * h
    assert f"H(realised r) = {h:.6g}" in page and f"H(r*) = {1 / 3:.6g}" in page  # r* = k/N: H = 1/k
    assert "flagged: 2" in page and f"included from {files[2]}" in page
    saved = json.loads((out / "results.json").read_text())
    assert [e["record"] for e in saved["searches"]] == [s]
    assert [e["record"] for e in saved["worst_cases"]] == [worst_case_record()]
    assert saved["audits"][0]["record"]["variance"]["H_realised"] == rec["variance"]["H_realised"]
    assert saved["audits"][0]["source"] == f"included from {files[2]}"


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler's pdftotext")
def test_the_pdf_holds_the_same_sections_and_numbers(built, audit_case):
    _, out, _ = built
    text = subprocess.run(["pdftotext", str(out / "report.pdf"), "-"], check=True, capture_output=True,
                          text=True).stdout
    for heading in ("Worst instances found by search (falsify)", "Exact worst cases (performance estimation)",
                    "Participation audits"):
        assert heading in text
    h = float(np.sum((1 / 12) ** 2 / audit_case[1].mean(axis=0)))
    assert fmt(2.2e-4 / 1.0e-4) in text and fmt(WC_VALUE, 8) in text and "0.9934" in text
    assert f"{h:.6g}" in text


def test_from_json_renders_the_included_records_again(built, convbound):
    tmp, out, _ = built
    again = tmp / "again"
    code, _, err = convbound("report", "--from-json", str(out / "results.json"), "--out", str(again))
    assert code == 0, err
    first, second = (json.loads((d / "results.json").read_text()) for d in (out, again))
    for key in ("searches", "worst_cases", "audits"):
        assert second[key] == first[key] and len(second[key]) == 1
    page = (again / "index.html").read_text()
    assert '<section id="falsify">' in page and '<section id="worst-cases">' in page and 'id="audit-1"' in page


def _drop(rec, *path):
    rec = copy.deepcopy(rec)
    obj = rec
    for p in path[:-1]:
        obj = obj[p]
    del obj[path[-1]]
    return rec


@pytest.mark.parametrize("content, message", [
    (None, "does not exist"),
    ("{not json", "is not a readable JSON file"),
    ({"a": 1}, "is none of the records a report shows"),
    ([{"id": "FAST.T1"}], "rendered with --from-json"),
    ({"schema": "convbound.report/1"}, "rendered with --from-json"),
    (_drop(search_record(), "confirmation"), "confirmation' is missing"),
    # a word outside the closed set of verdicts (the "none" of old records), or a status that is no status
    ({**search_record(), "confirmation": {"verdict": "none"}}, "confirmation.verdict' is 'none'; expected one of"),
    ({**search_record(), "confirmation": {"status": "none"}}, "confirmation.status' is 'none' (with no verdict)"),
    ({**search_record(), "evaluations": "three"}, "record.evaluations' is the text"),
    ({**worst_case_record(), "value": "big"}, "record.value' is the text"),
    (_drop(worst_case_record(), "certificate", "status"), "record.certificate.status' is missing"),
    ({"kind": "audit", "log": {"rows": 1}}, "record.log.rounds' is missing"),
])
def test_bad_include_files_are_refused_in_one_line(tmp_path, convbound, content, message):
    path = tmp_path / "rec.json"
    if content is not None:
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    code, _, err = convbound("report", "--only", "FAST.T1", "--out", str(tmp_path / "rep"), "--include", str(path))
    assert code == 2 and message in err, err
    assert err.strip().count("\n") == 0 and "Traceback" not in err and str(path) in err
    assert not (tmp_path / "rep").exists()


def test_a_partial_audit_and_a_directory_are_refused(tmp_path, convbound, audit_case):
    rec = _drop(audit_case[0], "variance", "H_rstar")
    for path, message in ((write(tmp_path / "a.json", rec), "record.variance.H_rstar' is missing"),
                          (str(tmp_path), "is a directory")):
        code, _, err = convbound("report", "--out", str(tmp_path / "rep"), "--include", path)
        assert code == 2 and message in err and err.strip().count("\n") == 0, err


def test_a_saved_document_with_a_broken_record_is_refused(tmp_path, convbound):
    doc = fixture_doc()
    doc["worst_cases"] = [{"source": "included from x", "record": _drop(worst_case_record(), "coverage")}]
    saved = tmp_path / "results.json"
    saved.write_text(to_json(doc))
    code, _, err = convbound("report", "--from-json", str(saved), "--out", str(tmp_path / "rep"))
    assert code == 2 and "worst_cases[0].record.coverage' is missing" in err and err.strip().count("\n") == 0


def test_the_suite_solves_fast_t2s_tightness_live():
    pytest.importorskip("PEPit")
    from reports.html import render_html
    from reports.suite import collect

    doc = collect(quick=True, sections=("worst_cases",), argv=["convbound", "report", "--quick"])
    assert doc["sections_failed"] == {}
    (entry,) = doc["worst_cases"]
    rec = entry["record"]
    row = next(c for c in rec["coverage"] if c["key"] == "FAST.T2")
    bound = fast_t2_bound(rec["parameters"])
    assert abs(row["bound"] - bound) <= 1e-12 and abs(row["ratio"] - rec["value"] / bound) <= 1e-12
    assert round(row["ratio"], 4) == 0.9934 and rec["certificate"]["status"] == "certified"
    assert entry["source"].startswith("computed live") and rec["solver"] in entry["source"]
    page = render_html(doc, [])
    assert "computed live by convbound report" in page and "0.9934" in page
    # an --only that does not name FAST.T2 leaves the worst case out
    assert collect(quick=True, only=["FAST.T1"], sections=("worst_cases",))["worst_cases"] == []


def _leaves(obj, path=()):
    """Every (path, value) inside a record: the places a hand edit can break."""
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for k, v in items:
        yield path + (k,), v
        yield from _leaves(v, path + (k,))


def test_edited_records_are_refused_in_one_line_or_render(tmp_path, audit_case):
    """Seeded edits anywhere in each record: refused with one line, or rendered to HTML and PDF without error."""
    import random

    from bounds.core.errors import UserInputError
    from reports.build import write_report
    from reports.records import add_entries
    from reports.schema import load_include

    rng = random.Random(20261123)
    base = {"schema": "convbound.report/1", "title": "edited records", "results": [], "verifications": [],
            "sections_failed": {}, "environment": {"packages": {}}}
    outcomes = {"refused": 0, "rendered": 0}
    for name, rec in (("search", search_record()), ("wc", worst_case_record()), ("audit", audit_case[0])):
        paths = [p for p, _ in _leaves(rec)]
        for i in range(12):
            edited = copy.deepcopy(rec)
            path = rng.choice(paths)
            parent = edited
            for p in path[:-1]:
                parent = parent[p]
            if isinstance(parent, dict) and rng.random() < 0.3:
                del parent[path[-1]]
            else:
                parent[path[-1]] = rng.choice([None, "x", 7, -1.5, True, [], {}, [None]])
            file = write(tmp_path / f"{name}{i}.json", edited)
            try:
                included = [load_include(file)]
            except UserInputError as exc:
                assert "\n" not in str(exc) and file in str(exc)
                outcomes["refused"] += 1
                continue
            doc = copy.deepcopy(base)
            add_entries(doc, included)
            write_report(doc, tmp_path / f"out-{name}{i}")
            assert (tmp_path / f"out-{name}{i}" / "report.pdf").stat().st_size > 0
            outcomes["rendered"] += 1
    assert outcomes["refused"] > 0 and outcomes["rendered"] > 0, outcomes  # both paths were exercised


@pytest.mark.browser
def test_the_included_sections_load_in_chromium_and_fit_a_phone(built):
    from report_browser import IMAGES_LOADED, Browser

    _, out, _ = built
    url = (out / "index.html").resolve().as_uri()
    with Browser() as b:
        b.open(url)
        desk = b.evaluate(IMAGES_LOADED)
        assert b.errors() == []
        # the search trace and the audit figure are drawn into their own sections
        drawn = b.evaluate("['#falsify', '#audits'].map(s => Array.from(document.querySelectorAll(s + ' img'))"
                           ".filter(i => i.complete && i.naturalWidth > 100).length)")
        b.open(url, width=390, height=844, mobile=True)
        phone = b.evaluate(IMAGES_LOADED)
        assert b.errors() == []
    assert desk["broken"] == [] and phone["broken"] == []
    assert drawn == [1, 1]
    assert phone["width"] <= phone["viewport"] + 1  # tables scroll inside their box; nothing wider than a phone


def test_findings_of_included_records_are_noticed_at_the_top():
    from reports.document import alerts

    doc = fixture_doc()
    unbacked = {**worst_case_record(), "certificate": {"status": "failed"}}
    held = copy.deepcopy(search_record())
    held["confirmation"].update(verdict="holds", ratio=0.5)
    audit = {"log": {"source": "fl.csv"}, "checks": [{"check": "fast", "status": False, "reason": "no snapshots"},
                                                      {"check": "region", "status": True, "reason": ""}]}
    doc.update(worst_cases=[{"source": "s", "record": worst_case_record()}, {"source": "s", "record": unbacked}],
               searches=[{"source": "s", "record": held}], audits=[{"source": "s", "record": audit}])
    notices = [a for a in alerts(doc) if a.level == "notice"]
    assert [a.anchor for a in notices] == ["worst-cases", "audit-1"]  # a search that holds is no finding
    assert "status: failed" in notices[0].message and "'fast' is not met (no snapshots)" in notices[1].message
    assert all(a.level != "alert" for a in alerts(doc) if a.anchor in ("worst-cases", "audit-1"))


def test_a_search_that_confirmed_nothing_carries_a_status_not_a_verdict():
    from bounds.core.record import BadRecord
    from verify.search.saved import check_search as _check_search

    accepted = [{"status": "no admissible point", "reason": "why"},
                {"status": "interrupted before confirmation", "reason": "why"},
                {**search_record()["confirmation"], "verdict": "violated unless", "unless": ["A1"]}]
    refused = [{"status": "no admissible point", "verdict": "none"}, {"verdict": "not run"}]
    outcomes = []
    for c in accepted + refused:
        try:
            _check_search({**search_record(), "confirmation": c}, "record")
            outcomes.append(True)
        except BadRecord:
            outcomes.append(False)
    assert outcomes == [True] * len(accepted) + [False] * len(refused)
