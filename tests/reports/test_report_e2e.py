"""`convbound report --quick` end to end: every section present, verify's checks and controls included,
the page clean in Chromium and the PDF's pages rendered.

The report built here is the quick one of one result, ``--only FAST.T2`` (its certificates and controls,
and the live worst case, which is FAST.T2's): every section and every assertion below still has its
subject, in about a fifth of the whole report's time. The whole ``--quick`` report (59 results, every
check group; budget: under 2 minutes on 2 CPU cores) is measured by
``python tests/benchmarks/bench_reports.py --record``, whose record the last test checks.
"""

import json
import subprocess
import time
from pathlib import Path

import pytest
from report_browser import IMAGES_LOADED, Browser

from reports.cli.main import main
from verify.verdict import VERDICTS

# one xdist worker for the module, so the report is built once (see pyproject's --dist loadgroup)
pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.xdist_group("quick_report")]

QUICK_BUDGET_S = 120
ONLY = "FAST.T2"
RECORD = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "report_quick.json"


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("e2e") / "convbound-report"
    t0 = time.perf_counter()
    with pytest.raises(SystemExit) as exc:
        main(["report", "--quick", "--only", ONLY, "--out", str(out)])
    return out, exc.value.code, time.perf_counter() - t0


def test_quick_report_writes_every_section(quick_report):
    out, code, elapsed = quick_report
    assert code == 0
    doc = json.loads((out / "results.json").read_text())
    assert doc["sections_failed"] == {}
    assert doc["results"] and doc["region"] and doc["large_n"] and doc["sampler"] and doc["participation"]
    (live,) = doc["worst_cases"]  # one exact worst case, solved by the suite itself
    assert live["source"].startswith("computed live") and live["record"]["certificate"]["status"] == "certified"
    kinds = {v["kind"] for v in doc["verifications"]}
    assert {"certificate", "control"} <= kinds
    assert any(v["control"] for v in doc["verifications"])
    assert all(v["verdict"] in VERDICTS
               for v in doc["verifications"])
    assert doc["environment"]["packages"]["convbound"] != "not installed"
    # its time is measured by tests/benchmarks/bench_reports.py, not asserted here (a busy machine would fail it)


def test_quick_report_renders_again_from_its_results_json(quick_report, tmp_path):
    out, code, _ = quick_report
    assert code == 0
    with pytest.raises(SystemExit) as exc:
        main(["report", "--from-json", str(out / "results.json"), "--out", str(tmp_path / "again")])
    assert exc.value.code == 0
    first, again = (json.loads((d / "results.json").read_text()) for d in (out, tmp_path / "again"))
    assert again["verifications"] == first["verifications"] and again["worst_cases"] == first["worst_cases"]


def test_quick_report_page_and_pdf(quick_report, tmp_path):
    out, code, _ = quick_report
    assert code == 0
    with Browser() as b:
        b.open((out / "index.html").resolve().as_uri())
        loaded = b.evaluate(IMAGES_LOADED)
        assert b.errors() == []
        b.open((out / "index.html").resolve().as_uri(), width=390, height=844, mobile=True)
        phone = b.evaluate(IMAGES_LOADED)
        assert b.errors() == []
    assert loaded["count"] > 20 and loaded["broken"] == []
    assert phone["broken"] == [] and phone["width"] <= phone["viewport"] + 1  # nothing wider than a phone
    subprocess.run(["pdftoppm", "-r", "20", "-gray", str(out / "report.pdf"), str(tmp_path / "p")], check=True)
    assert len(list(tmp_path.glob("p-*.pgm"))) >= 5


def test_the_recorded_whole_quick_report():
    """The whole ``report --quick`` as ``tests/benchmarks/bench_reports.py --record`` measured it: the same
    assertions as above, on every result and check group (rerun the command after changing the report)."""
    rec = json.loads(RECORD.read_text(encoding="utf-8"))
    assert rec["sections_failed"] == {}
    assert rec["sections_present"] == ["large_n", "participation", "region", "results", "sampler"]
    assert rec["results"] >= 50 and [w["status"] for w in rec["worst_cases"]] == ["certified"]
    assert rec["worst_cases"][0]["source"].startswith("computed live")
    assert {"certificate", "control"} <= set(rec["kinds"]) and rec["controls"] > 0
    assert rec["verdicts"] and set(rec["verdicts"].values()) <= set(VERDICTS)
    assert rec["html_images"] > 20 and rec["pdf_pages"] >= 5
    assert rec["versions"]["convbound"] != "not installed" and rec["commit"]
    # the live test's allowance, on the report process's CPU time: the wall time of a run on a shared
    # machine (recorded with its load average) also measures the other jobs
    assert rec["cpu_seconds"] < 2 * QUICK_BUDGET_S, rec["cpu_seconds"]
