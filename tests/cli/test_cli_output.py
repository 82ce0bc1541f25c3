"""Terminal output keeps square brackets; report --from-json takes verify --json; signals and names."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reports.cli.common import canonical_name, esc
from reports.cli.main import shorten

ROOT = Path(__file__).resolve().parents[2]


def test_show_keeps_bracketed_units(convbound):
    # the FAST.T2 flag reads "units [x]^4/[F]^2"; rich took [x] and [F] for markup and dropped them
    run = convbound("show", "FAST.T2")
    assert run.code == 0
    assert "[x]^4/[F]^2" in " ".join(run.out.split())


def test_show_keeps_expectation_brackets(convbound):
    run = convbound("show", "ASCAF.T1")
    assert run.code == 0 and "E[w^i]" in run.out


def test_escape_round_trips_through_rich():
    from rich.console import Console

    con = Console(record=True, width=200)
    texts = ["[x]^4/[F]^2", "E[w^i]", "[bold]not bold[/bold]", "a\\[b]", "[/]"]
    for text in texts:
        con.print(esc(text))
    assert con.export_text().splitlines() == texts


def test_from_json_accepts_verify_json_output(tmp_path, convbound):
    from verify.record import Verification

    records = [Verification(id="FAST.T1", title="t", verdict="holds", expected="holds", lhs=0.02, ci=(0.01, 0.03),
                            rhs=0.1, ratio=0.2, instance={}, control=False, kind="certificate", trials=8, seed=3),
               Verification(id="FAST.T1.weak", title="c", verdict="violated", expected="violated", lhs=0.02,
                            ci=(0.01, float("inf")), rhs=0.001, ratio=20.0, instance={}, control=True, kind="control",
                            trials=8, seed=3)]
    saved = tmp_path / "verify.json"
    saved.write_text(json.dumps([json.loads(json.dumps(r.to_dict())) for r in records]))
    run = convbound("report", "--from-json", str(saved), "--out", str(tmp_path / "rep"))
    assert run.code == 0, run.err
    doc = json.loads((tmp_path / "rep" / "results.json").read_text())
    assert [v["id"] for v in doc["verifications"]] == ["FAST.T1", "FAST.T1.weak"]
    assert doc["verifications"][1]["ci"] == [0.01, "inf"]  # the one converter keeps infinity
    assert "bounds" in doc["sections_failed"]


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.pop("results"), None),  # results are optional: verify-only documents exist
    (lambda d: d["verifications"][0].pop("id"), "verifications[0].id"),
    (lambda d: d["verifications"][1].__setitem__("verdict", "maybe"), "verifications[1].verdict"),
    (lambda d: d["results"][0].__setitem__("title", ["x"]), "results[0].title"),
])
def test_from_json_names_the_bad_field(tmp_path, convbound, mutate, field):
    sys.path.insert(0, str(ROOT / "tests" / "reports"))
    from report_fixtures import fixture_doc

    doc = fixture_doc()
    mutate(doc)
    (tmp_path / "doc.json").write_text(json.dumps(doc))
    run = convbound("report", "--from-json", str(tmp_path / "doc.json"), "--out", str(tmp_path / "rep"))
    if field is None:
        assert run.code == 0, run.err
    else:
        assert run.code == 2 and f"field '{field}'" in run.err and len(run.err.strip().splitlines()) == 1


def test_long_words_are_shortened():
    message = shorten("L=" + "9" * 100_000 + " is not a number")
    assert len(message) < 200 and "(100002 characters)" in message and message.endswith("is not a number")


@pytest.mark.parametrize("word, names, want", [
    ("amplified-fedavg", ["fedavg", "amplified_fedavg"], "amplified_fedavg"),
    ("lower_bound", ["quadratic", "lower-bound"], "lower-bound"),
    ("Lower-Bound", ["quadratic", "lower-bound"], "lower-bound"),
    ("nope", ["quadratic"], "nope"),
])
def test_hyphens_and_underscores_alike(word, names, want):
    assert canonical_name("problem", word, names) == want


def _spawn(argv, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # SIGINT answered as in a foreground command: a test run started in the background of a non-interactive shell
    # ignores SIGINT, and its children inherit that
    return subprocess.Popen([sys.executable, "-m", "reports.cli.main", *argv], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _wait_for_sigterm_handler(pid: int, timeout: float = 60.0) -> None:
    """Until the command has installed its SIGTERM handler (the kernel's caught-signal mask of the process, where
    Linux shows it; elsewhere a fixed 6 s): a signal sent before that would stop Python's start-up instead."""
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        time.sleep(6)
        return
    bit = 1 << (signal.SIGTERM - 1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        caught = next((int(line.split()[1], 16) for line in status.read_text().splitlines()
                       if line.startswith("SigCgt:")), 0)
        if caught & bit:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} installed no SIGTERM handler within {timeout:g} s")


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_exit_status_and_no_hidden_temporary_files(tmp_path, sig, code):
    # a long simulation writing --out: stopped mid-run, it leaves no .NAME.*.tmp behind
    proc = _spawn(["simulate", "--problem", "quadratic", "--trials", "50", "--rounds", "200000", "--device", "cpu",
                   "--out", "run.csv"], tmp_path)
    _wait_for_sigterm_handler(proc.pid)
    time.sleep(3)  # into the run (its start-up takes 2 s on a quiet machine; on a busy one the signal may land in
    # its imports, which the handler covers as well)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == code, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert [p.name for p in tmp_path.iterdir()] == []


def test_interrupted_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    import reports.cli.common as common
    from reports.cli.main import _Terminated

    for exc in (KeyboardInterrupt, _Terminated):
        def stop(*args, exc=exc):
            raise exc()

        monkeypatch.setattr(common.os, "replace", stop)
        with pytest.raises(exc):
            common.atomic_write_text(tmp_path / "x.csv", "a,b\n")
        assert list(tmp_path.iterdir()) == []


def test_all_diverged_simulation_is_not_a_silent_success(convbound):
    run = convbound("simulate", "--problem", "quadratic", "--trials", "4", "--rounds", "50", "--device", "cpu",
                    "eta=50", "--json")
    assert run.code == 1
    out = run.json()
    assert out["status"] == "all trials diverged" and out["diverged"]["count"] == 4
    assert "every one of the 4 trials diverged" in run.err
    ok = convbound("simulate", "--problem", "quadratic", "--trials", "4", "--rounds", "5", "--device", "cpu",
                   "eta=0.01", "--json")
    assert ok.code == 0 and ok.json()["status"] == "ok"
