"""Reliability cases of issue 30 item 10, each refused in one line (exit 2) and fast, in-process.

Each test failed on c0dc853: ``--workers 2**63`` ran (with an intermittent Dask traceback); an exponent
tower in a TOML formula exited 1 with a ValueError from the guard's own message (or ran for minutes);
two outputs naming one file were caught after the search; an unreachable ``--scheduler`` host waited
20 s and blamed a timeout; a FIFO target was told "exists; pass --force"; SIGINT during rendering
printed a blank line before its message.
"""

from __future__ import annotations

import os

import pytest

from tests.cli.test_fuzz_newer import GOOD_TOML, toml_text

FAL = ["falsify", "FAST.T1", "--budget", "2", "--trials", "2", "--confirm-trials", "4"]


def _one_line_exit_2(res, *words):
    assert res.code == 2, (res.code, res.out[-300:], res.err[-600:])
    lines = res.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("convbound: error: "), res.err
    for w in words:
        assert w in lines[0], lines[0]


@pytest.mark.parametrize("value", [str(2**63), str(10**22), "1025"])
def test_workers_above_the_documented_cap_are_refused(convbound, value):
    from verify.runtime.executor import MAX_WORKERS

    assert MAX_WORKERS == 1024
    res = convbound(*FAL, "--workers", value)
    _one_line_exit_2(res, "--workers", "1024")


@pytest.mark.parametrize("formula", ["((10**64)**64)**64", "(((10**64)**64)**64)**64",
                                     "((((10**64)**64)**64)**64)**64", "(10**60*10**60)**64", "(2**60)**60",
                                     "((1/10**64)**64)**64"])
def test_exponent_towers_are_refused_fast(convbound, tmp_path, formula):
    path = tmp_path / "tower.toml"
    doc = {**GOOD_TOML, "terms": [{**GOOD_TOML["terms"][0], "expr": formula}]}
    path.write_text(toml_text(doc))
    res = convbound("check", "--file", str(path), "L=1", "gamma=1", "n=10", "D2=1")
    _one_line_exit_2(res, "float64")


def test_small_powers_still_read():
    from bounds.tomlresult import parse_formula

    assert parse_formula("(10**2)**3", []) == 10**6
    assert parse_formula("(2**10)**30", []) == 2**300  # 2.04e90: within float64
    assert parse_formula("L**64", ["L"]).exp == 64


@pytest.mark.parametrize("pair", [("--out", "--instance-out"), ("--out", "--trace"), ("--instance-out", "--trace")])
def test_two_outputs_sharing_a_path_are_refused_before_the_search(convbound, tmp_path, monkeypatch, pair):
    monkeypatch.chdir(tmp_path)
    res = convbound(*FAL, pair[0], "same.json", pair[1], "./same.json")
    _one_line_exit_2(res, pair[0], pair[1], "same file")
    assert not (tmp_path / "same.json").exists()


def test_unreachable_scheduler_host_is_named_fast(convbound):
    res = convbound(*FAL, "--scheduler", "tcp://no-such-host.invalid:8786")
    _one_line_exit_2(res, "cannot be reached")
    assert "timed out" not in res.err.lower() and "timeout" not in res.err.lower()


def test_fifo_target_is_not_a_regular_file(convbound, tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    res = convbound(*FAL, "--out", str(fifo))
    _one_line_exit_2(res, "not a regular file")
    assert "--force" not in res.err.split("not a regular file")[0]
    assert "pass --force" not in res.err


def test_interrupt_message_has_no_blank_line_before_it(tmp_path, capfd):
    """SIGINT while the report renders: the message is the first thing on stderr (no blank line)."""
    import subprocess
    import sys

    script = ("import signal, os, threading\n"
              "import reports.build as b\n"
              "def slow(*a, **k):\n"
              "    os.kill(os.getpid(), signal.SIGINT)\n"
              "    import time; time.sleep(5)\n"
              "b.write_report = slow\n"
              "import reports.cli.cmd_report as r\n"
              "from reports.cli.main import main\n"
              "main(['report', '--from-json', sys.argv[1], '--out', sys.argv[2]])\n")
    import json
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reports"))
    from report_fixtures import fixture_doc

    doc = tmp_path / "r.json"
    doc.write_text(json.dumps(fixture_doc()))
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    done = subprocess.run([sys.executable, "-c", "import sys\n" + script, str(doc), str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 130, done.stderr[-800:]
    assert done.stderr.startswith("convbound: error: interrupted"), repr(done.stderr[:200])


def test_plot_overflow_is_a_note_not_a_library_warning(convbound, tmp_path):
    import warnings

    args = ["compare", "L=1", "tau=5", "S=10", "N=100", "sigma2=1", "zeta_G2=0.25", "Delta0=1", "eps=1e-300",
            "R=1e300", "eta_c=1e-300", "--pattern", "iid", "--plot", str(tmp_path / "c.png")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = convbound(*args)
    assert res.code == 0, res.err
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], [str(w.message) for w in caught]
    assert (tmp_path / "c.png").stat().st_size > 0
    assert res.err.strip().startswith("convbound: note: the figure's values reach float64's limits")
    assert "RuntimeWarning" not in res.err and len(res.err.strip().splitlines()) == 1
