"""HTML and PDF rendering of a fixture document, and the atomic report directory (no browser)."""

import json
import re

import pytest
from report_fixtures import fixture_doc

from bounds.core.errors import UserInputError
from reports.build import write_report
from reports.formulas import formula_png, png_size, simplify
from reports.html import render_html


@pytest.fixture(scope="module")
def page():
    return render_html(fixture_doc())


def test_page_is_self_contained(page):
    assert not re.search(r'(src|href)="(https?:)?//', page)
    srcs = re.findall(r'<img[^>]* src="([^"]+)"', page)
    assert srcs and all(s.startswith("data:image/png;base64,") for s in srcs)
    assert "<link" not in page and "<script" not in page


def test_summary_links_point_at_sections(page):
    ids = set(re.findall(r' id="([^"]+)"', page))
    links = set(re.findall(r'href="#([^"]+)"', page))
    assert links and links <= ids
    for target in ("chk-FAST-T1-cert", "chk-FAST-T1-control", "res-FAST-T1", "res-FAST-T2", "region", "sampler"):
        assert target in links


def test_every_figure_is_drawn(page):
    # 2 results' terms? only FAST.T1 has values; + region, sampler, participation, one series
    assert page.count("<figure>") == 6  # terms (FAST.T1 sweep), region, sampler, participation, 2 series


def test_banner_only_when_evidence_is_wrong(page):
    assert 'class="banner alert"' not in page and 'class="banner ok"' not in page
    # the checks' all-clear is a line of the summary's checks part, below any decision, saying what it covers
    assert page.index('id="summary"') < page.index('class="checks-ok"')
    assert "it says nothing about the decisions above" in page
    bad = render_html(fixture_doc(violated=True))
    assert 'class="banner alert"' in bad
    assert bad.index('class="banner alert"') < bad.index('id="summary"')
    dropped = render_html(fixture_doc(drop_control=True))
    assert 'class="banner alert"' in dropped and "FAST.T1.control is missing" in dropped


def test_formulas_render_offline():
    png = formula_png(r"\eta_{c} \le \frac{1}{8 K L} + \underbrace{x}_{\text{a b}}")
    assert png is not None and png.startswith(b"\x89PNG") and png_size(png)[0] > 20
    assert simplify(r"\underbrace{a+b}_{\text{t}} + c") == "a+b + c"
    assert formula_png(r"\frac{") is None


def test_write_report_is_atomic_and_refuses_non_empty_dir(tmp_path):
    out = tmp_path / "rep"
    write_report(fixture_doc(), out)
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "report.pdf", "results.json"]
    saved = json.loads((out / "results.json").read_text())
    assert saved["verifications"][2]["control"] is True
    assert (out / "report.pdf").read_bytes().startswith(b"%PDF")
    with pytest.raises(UserInputError, match="not empty; pass --force"):
        write_report(fixture_doc(), out)
    write_report(fixture_doc(violated=True), out, force=True)  # an earlier report is replaced
    assert 'class="banner alert"' in (out / "index.html").read_text()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(UserInputError, match="not part of a report"):  # --force never deletes other files
        write_report(fixture_doc(), out, force=True)
    assert (out / "notes.txt").read_text() == "mine"
    assert [p.name for p in tmp_path.iterdir()] == ["rep"]  # no temporary directories left behind


def test_saved_json_renders_again(tmp_path):
    out = tmp_path / "rep"
    write_report(fixture_doc(), out)
    doc = json.loads((out / "results.json").read_text())
    assert render_html(doc).count("<figure>") == 6


def test_rendering_a_saved_report_does_not_import_torch(tmp_path):
    import subprocess
    import sys

    saved = tmp_path / "results.json"
    from reports.build import to_json

    saved.write_text(to_json(fixture_doc()))
    code = ("import json, sys; from reports.build import write_report; "
            f"write_report(json.load(open({str(saved)!r})), {str(tmp_path / 'rep')!r}); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_documented_finding_is_noted_at_the_top():
    doc = fixture_doc()
    finding = dict(doc["verifications"][0], id="FAST.T2.adversarial@corrected", verdict="violated",
                   expected="violated", control=False, kind="certificate")
    doc["verifications"].append(finding)
    page = render_html(doc)
    assert 'class="banner alert"' not in page
    assert "Finding: certificate FAST.T2.adversarial@corrected is violated" in page
    assert page.index("Finding: certificate") < page.index('id="summary"')
