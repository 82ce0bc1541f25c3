"""Words that claim no more than was shown (issue 30 item 5).

On c0dc853: a result whose only hypotheses are conditions no number decides read "the other 0 hypotheses
hold"; an exact control card read "0 trials" beside a "99% CI"; `worst-case --banded` called its bracket
"proved" with a float64 lower end; progress lines read "done done" with step times that did not add up;
`report --from-json` on a document with no records wrote an empty report.
"""

import json
import re

import pytest

from reports.cli.cmd_bounds import _verdict_line
from reports.cli.cmd_report import StepLog
from reports.document import ci_label, hypotheses_verdict, trials_label
from verify.pep.banded import bracket_note


def _given(name):
    return {"name": name, "holds": None, "open": "condition"}


def test_no_numeric_hypothesis_is_said_so():
    verdict, detail = hypotheses_verdict({"example": {"check": {"conditions": [_given("p-fair"), _given("ergodic")]}}})
    assert verdict == "holds given conditions"
    assert "other 0" not in detail and "no numeric hypothesis" in detail and "p-fair; ergodic" in detail
    # with one decided hypothesis the count is still given
    _, detail = hypotheses_verdict({"example": {"check": {"conditions": [_given("p-fair"),
                                                                         {"name": "eta", "holds": True}]}}})
    assert detail.startswith("the other 1 hypotheses hold")


def test_check_line_says_no_numeric_hypothesis():
    out = {"verdict": "holds given conditions", "given": ["p-fair"], "conditions": [_given("p-fair")]}
    assert "no numeric hypothesis" in _verdict_line(out)
    out["conditions"].append({"name": "eta", "holds": True})
    assert "no numeric hypothesis" not in _verdict_line(out)


def test_exact_record_prints_exact_and_its_error_bound_not_trials():
    exact = {"trials": 0, "instance": {"error_bound": 2.5e-13, "level": 0.99}}
    assert trials_label(exact) == "exact (floating-point error bound 2.500e-13)"
    assert "CI" not in ci_label(exact) and "error bound" in ci_label(exact)
    sampled = {"trials": 400, "instance": {"level": 0.99}}
    assert trials_label(sampled) == "400 trials" and ci_label(sampled) == "99% CI"
    assert "0 trials" not in trials_label({"trials": 0, "instance": {}})


def test_bracket_lower_end_from_float64_search_is_not_called_proved():
    cert = {"proved_upper_bound": 0.5, "lower_bound_instance": {"dimension": 2}}
    note = bracket_note(0.49, 0.5, cert)
    assert "attained in floating point" in note and "not proved" in note and not note.startswith("proved")
    assert cert["lower_bound_basis"].startswith("attained in floating point")
    assert cert["upper_bound_basis"].startswith("proved")
    cert = {"proved_upper_bound": None, "lower_bound_instance": {"kind": "fixed point of one round"}}
    note = bracket_note(0.49, 0.5, cert)
    assert "lower end proved" in note and "not certified" in note


def test_progress_events_do_not_end_steps_and_step_times_add_up():
    lines, now = [], [0.0]
    log = StepLog(lines.append, lambda m: None, 0.0, clock=lambda: now[0])
    for t, msg in [(0.0, "results"), (2.0, "verifying"), (2.5, "verify: 3 check groups"),
                   (10.0, "verify 1/3: A finished"), (20.0, "verify 2/3: B finished"),
                   (37.0, "verify 3/3: C finished"), (37.0, "rendering"), (40.0, "finished")]:
        now[0] = t
        log(msg)
    text = "\n".join(lines)
    assert "done done" not in text and "finished [green]done" not in text
    steps = [float(x) for x in re.findall(r"done\[/green\] \[dim\]\((\d+\.\d)s\)", text)]
    assert steps == [2.0, 35.0, 3.0] and sum(steps) == 40.0  # results, verifying (35 s, not 17 s), rendering


def test_from_json_with_no_records_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    from reports.cli.main import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty.json").write_text(json.dumps({"schema": "convbound.report/1"}))
    with pytest.raises(SystemExit) as exc:
        main(["report", "--from-json", "empty.json", "--out", "rep"])
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and "\n" not in err and "holds no records" in err
    assert not (tmp_path / "rep").exists()
