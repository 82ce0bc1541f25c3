"""The worst-case report section renders records (dicts as saved in JSON) without PEPit."""

import pytest

from reports.worstcase_section import worstcase_section


def _record(**over):
    rec = {
        "method": "local_gd", "value": 0.99640594, "primal_value": 0.99640593, "solver": "CLARABEL",
        "solver_status": "optimal", "solve_seconds": 2.5,
        "parameters": {"method": "local_gd", "L": 1.0, "mu": 0.1, "zeta": 0.1, "eta": 0.003, "K": 2, "R": 3,
                       "M": 2, "eta_g": 1.0, "D0": 1.0, "measure": "dist_sq"},
        "certificate": {"status": "certified", "worst_dual_error": 2.6e-7},
        "coverage": [{"key": "FAST.T2", "covers": "yes", "reason": "contains <FAST's> class", "bound": 1.003,
                      "ratio": 0.9934, "hypotheses_hold": True},
                     {"key": "ASCAF.T1", "covers": "no", "reason": "non-convex"}],
        "notes": ["M=2 is exact"],
    }
    rec.update(over)
    return rec


def test_section_shows_value_status_time_and_tightness():
    html = worstcase_section([_record(), _record(method="scaffold", certificate={"status": "approximate"})])
    assert html.startswith('<section id="worst-cases">') and html.endswith("</section>")
    assert html.count("<tr>") == 3  # header + two records
    assert "0.9964059" in html and "optimal" in html and "2.5 s" in html
    assert "FAST.T2" in html and "0.9934" in html and "hypotheses hold" in html
    assert "ASCAF.T1" not in html  # a result that does not cover is not listed as a comparison
    assert "&lt;FAST&#x27;s&gt;" in html  # reasons are escaped
    assert 'v-holds">certified' in html and 'v-inconclusive">approximate' in html


def test_section_says_when_nothing_covers_or_nothing_was_computed():
    assert "no encoded result covers" in worstcase_section([_record(coverage=[])])
    assert "No worst case was computed" in worstcase_section([])


def test_section_shows_the_horizon_sweep_and_the_replay():
    sweep = [{"R": 1, "kind": "exact", "value": 0.9988, "results": {"FAST.T2": {"ratio": 0.9946, "hypotheses_hold": True}}},
             {"R": 1000, "kind": "per-round bound", "value": 0.3011,
              "results": {"FAST.T2": {"ratio": 0.5440, "hypotheses_hold": False}}}]
    html = worstcase_section([_record(sweep=sweep, replay={"status": "replayed", "curvature": 0.1,
                                                           "engine_value": 0.7225, "difference": -1.7e-8})])
    assert "tightness against the horizon" in html and "per-round bound" in html
    assert "0.9946" in html and "0.544" in html and "(hypotheses fail)" in html
    assert "replayed in the engine" in html and "0.7225" in html
    plain = worstcase_section([_record(replay={"status": "not replayed", "reason": "heterogeneity <b>"})])
    assert "tightness against the horizon" not in plain and "heterogeneity &lt;b&gt;" in plain


@pytest.mark.parametrize("sweep,replay,field", [
    ("x", None, "sweep' is the text"), ([{"R": "1", "kind": "exact", "results": {}}], None, "sweep[0].R"),
    ([{"R": 1, "kind": "exact", "value": "big", "results": {}}], None, "sweep[0].value"),
    ([{"R": 1, "kind": "exact", "results": {"FAST.T2": {"ratio": "one"}}}], None, "results.FAST.T2.ratio"),
    ([{"R": 1, "kind": "exact", "results": []}], None, "sweep[0].results"),
    (None, {"status": 3}, "replay.status"), (None, {"status": "replayed", "engine_value": "x"}, "engine_value"),
])
def test_an_included_record_with_a_broken_sweep_is_refused_in_one_line(tmp_path, sweep, replay, field):
    import json

    from bounds.core.errors import UserInputError
    from reports.schema import load_include

    rec = {**_record(), "kind": "worst-case", "solve_seconds": 2.5}
    if sweep is not None:
        rec["sweep"] = sweep
    if replay is not None:
        rec["replay"] = replay
    path = tmp_path / "wc.json"
    path.write_text(json.dumps(rec))
    with pytest.raises(UserInputError) as err:
        load_include(str(path))
    assert field in str(err.value) and "\n" not in str(err.value)


def test_an_included_record_with_a_sweep_loads(tmp_path):
    import json

    from reports.schema import load_include

    sweep = [{"R": 1000, "kind": "per-round bound", "value": 0.3, "results": {"FAST.T2": {"bound": 0.55, "ratio": 0.54,
                                                                                          "hypotheses_hold": True}}}]
    rec = {**_record(), "kind": "worst-case", "sweep": sweep, "replay": {"status": "not replayed", "reason": "r"}}
    path = tmp_path / "wc.json"
    path.write_text(json.dumps(rec))
    assert load_include(str(path))


def test_the_pdf_lists_the_horizon_sweep_and_the_replay(tmp_path):
    import shutil
    import subprocess

    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext not installed")
    from reports.build import write_report

    sweep = [{"R": 1000, "kind": "per-round bound", "value": 0.3011,
              "results": {"FAST.T2": {"bound": 0.5536, "ratio": 0.5440, "hypotheses_hold": True}}}]
    rec = {**_record(), "kind": "worst-case", "sweep": sweep,
           "replay": {"status": "replayed", "engine_value": 0.7225, "difference": 0.0}}
    doc = {"schema": "convbound.report/1", "title": "sweep", "results": [], "verifications": [],
           "sections_failed": {}, "environment": {"packages": {}},
           "worst_cases": [{"source": "test", "record": rec}]}
    write_report(doc, tmp_path / "out")
    text = subprocess.run(["pdftotext", str(tmp_path / "out" / "report.pdf"), "-"], check=True, capture_output=True,
                          text=True).stdout
    assert "against the horizon" in text and "R=1000 (per-round bound): FAST.T2 0.544" in text.replace("\n", " ")
    assert "engine replay: replayed, engine 0.7225" in text.replace("\n", " ")
