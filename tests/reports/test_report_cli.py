"""`convbound report`: refusal of a non-empty DIR, rendering a saved results.json, bad input (one line, exit 2)."""

import json

import pytest
from report_fixtures import fixture_doc

from reports.build import to_json


def test_non_empty_dir_is_refused_in_one_line(tmp_path, convbound):
    (tmp_path / "keep.txt").write_text("mine")
    code, _, err = convbound("report", "--quick", "--out", str(tmp_path))
    assert code == 2
    assert err.strip().count("\n") == 0 and "not empty; pass --force" in err and "Traceback" not in err
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_renders_a_saved_results_json(tmp_path, convbound):
    saved = tmp_path / "results.json"
    saved.write_text(to_json(fixture_doc(drop_control=True)))
    out = tmp_path / "rep"
    code, _, err = convbound("report", "--from-json", str(saved), "--out", str(out))
    assert code == 0, err
    assert "ALERT" in err and "FAST.T1.control is missing" in err
    page = (out / "index.html").read_text()
    assert 'class="banner alert"' in page
    assert json.loads((out / "results.json").read_text())["expected_controls"] == ["FAST.T1.control"]


@pytest.mark.parametrize("argv, message", [
    (["--from-json", "{missing}"], "does not exist"),
    (["--from-json", "{notjson}"], "is not a JSON file"),
    (["--device", "tpu"], "--device 'tpu' is not a device"),
    (["--only", ","], "--only needs comma-separated IDs"),
])
def test_bad_input_is_one_line(tmp_path, convbound, argv, message):
    (tmp_path / "bad.json").write_text("{not json")
    argv = [a.format(missing=tmp_path / "none.json", notjson=tmp_path / "bad.json") for a in argv]
    code, _, err = convbound("report", "--out", str(tmp_path / "rep"), *argv)
    assert code == 2 and message in err and err.strip().count("\n") == 0
    assert not (tmp_path / "rep").exists()


def test_force_never_replaces_the_working_directory(tmp_path, convbound, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = convbound("report", "--out", ".", "--force", "--only", "FAST.T1")
    assert code == 2 and "working directory" in err
    assert tmp_path.exists()


def test_rate_checks_with_conditions_per_point_render_from_json(tmp_path, convbound):
    """A rate check records its hypotheses per point of its series ({"R", "checks"}), as verify writes them."""
    doc = fixture_doc()
    cond = {"name": "step size cap", "relation": "", "holds": True, "lhs": 200.0, "rhs": 25.0, "margin": 175.0,
            "reason": ""}
    doc["verifications"][1]["conditions"] = [{"R": 200, "eta_c": 0.0177, "checks": [cond]}]
    saved = tmp_path / "results.json"
    saved.write_text(to_json(doc))
    code, _, err = convbound("report", "--from-json", str(saved), "--out", str(tmp_path / "rep"))
    assert code == 0, err
    assert "step size cap" in (tmp_path / "rep" / "index.html").read_text()
    doc["verifications"][1]["conditions"][0]["checks"] = [{"holds": True}]
    saved.write_text(to_json(doc))
    code, _, err = convbound("report", "--from-json", str(saved), "--out", str(tmp_path / "rep2"))
    assert code == 2 and "verifications[1].conditions[0].checks[0].name' is missing" in err
