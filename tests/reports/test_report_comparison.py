"""The report's comparison section: `convbound compare` on the quick suite's two settings, and its HTML."""

import shutil
import subprocess

import pytest

from reports.suite import collect


@pytest.fixture(scope="module")
def doc():
    return collect(quick=True, sections=("comparisons",), argv=["convbound", "report", "--quick"])


def test_both_settings_with_covered_rows_first_and_reasons(doc):
    assert doc["sections_failed"] == {}
    fast, f3ast = doc["comparisons"]
    assert fast["setting"]["pattern"] == "iid" and f3ast["setting"]["pattern"] == "static-rate"
    rows = {r["key"]: r for r in fast["rows"]}
    # SCAF.T3 non-convex at eps = 0.05, L = 1, Delta0 = 1, S = 10, N = 100, tau = 5, sigma = 1:
    # 1/(5*10*0.05^2) + 10^(2/3)/0.05 = 8 + 92.83 -> 101 rounds
    assert rows["SCAF.T3@nonconvex"]["covered"] and rows["SCAF.T3@nonconvex"]["rounds"] == 101
    covered = [r["covered"] for r in fast["rows"]]
    assert covered == sorted(covered, reverse=True)  # covered rows first
    assert all(r["note"] for r in fast["rows"] if not r["covered"])
    rounds = [r["rounds"] for r in f3ast["rows"] if r["covered"]]
    assert rounds == sorted(rounds) and rounds[0] == 1048  # F3AST.T3.5, (263.43/0.05 - 32)/5 -> 1048


def test_html_has_the_section(doc):
    from reports.html import render_html

    html = render_html({**doc, "environment": doc["environment"]}, [])
    assert 'id="comparisons"' in html and "SCAF.T3@nonconvex" in html and "F3AST.T3.5@explicit" in html


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler's pdftotext")
def test_pdf_has_the_section(doc, tmp_path):
    from reports.pdf import render_pdf

    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(render_pdf(doc, []))
    assert pdf.read_bytes()[:5] == b"%PDF-"
    text = " ".join(subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True,
                                   text=True).stdout.split())
    assert "Results compared on the quick settings" in text and "SCAF.T3@nonconvex" in text
