"""`convbound audit` and the availability-model files under bad input (issue 22, audit's items; issue 21 item 5).

Two parts. First, each example the outside re-run found on 26ec3e4 (a traceback, a bad input accepted, a
hang, a blow-up or a warning on stderr) as its own test. Second, a generated suite: a valid log and valid
model files, mutated (deleted columns, wrong types, truncation, binary junk, special files, sizes) and run
in-process; ``bad`` must exit 2 with exactly one line on stderr, ``ok`` must exit 0 with nothing on stderr.
Nothing is excused (no xfail). Same seed, same cases.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from reports.cli.main import main

SEED = 20261124
ROOT = Path(__file__).resolve().parents[2]
HEADER = "round,client,available,participated"

if sys.platform != "linux":  # FIFOs, /dev/null and ru_maxrss in kB are Linux facts
    pytestmark = pytest.mark.skip(reason="the cases use FIFOs, /dev/null and Linux's ru_maxrss")


def _run(argv: list[str], timeout: float | None = None) -> tuple[int, str, str, BaseException | None]:
    """main(argv) in this process: (exit status, stdout, stderr, exception other than SystemExit)."""
    out, err = io.StringIO(), io.StringIO()
    result: list = [0, None]

    def call() -> None:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main([str(a) for a in argv])
            except SystemExit as exc:
                result[0] = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except BaseException as exc:  # a traceback: what this suite exists to catch
                result[1] = exc

    if timeout is None:
        call()
    else:  # a reader blocked on a FIFO never returns: run it aside and give up after ``timeout``
        th = threading.Thread(target=call, daemon=True)
        th.start()
        th.join(timeout)
        if th.is_alive():
            _unblock_fifos(argv)
            th.join(5)
            return -1, out.getvalue(), err.getvalue(), TimeoutError(f"still running after {timeout} s")
    return result[0], out.getvalue(), err.getvalue(), result[1]


def _unblock_fifos(argv) -> None:
    """Open each FIFO named in argv for writing and close it, so a reader blocked in open() sees end of file."""
    import stat

    for a in map(str, argv):
        with contextlib.suppress(OSError):
            if stat.S_ISFIFO(os.stat(a).st_mode):
                os.close(os.open(a, os.O_WRONLY | os.O_NONBLOCK))


def _judge(argv, expect: str, timeout: float | None = 20.0) -> None:
    code, out, err, crash = _run(argv, timeout)
    shown = " ".join(str(a)[:80] for a in argv)
    assert crash is None, f"{type(crash).__name__}: {crash} from: convbound {shown}"
    assert "Traceback" not in err and "Warning" not in err, f"{err[:500]} from: convbound {shown}"
    if expect == "bad":
        assert code == 2, f"bad input accepted (exit {code}) by: convbound {shown}\n{out[:300]}{err[:300]}"
        assert len(err.splitlines()) == 1 and err.endswith("\n"), f"not exactly one line on stderr: {err!r}"
        assert err.startswith("convbound: error: ")
    else:
        assert code == 0, f"good input refused (exit {code}) by: convbound {shown}: {err}"
        assert err == "", f"stderr not empty for good input: convbound {shown}: {err[:500]}"


# A small valid log: 40 rounds, 6 clients, k = 2 uniformly among the available
def _log_arrays(seed: int = 0, T: int = 40, N: int = 6):
    rng = np.random.default_rng(seed)
    A = rng.random((T, N)) < 0.7
    keys = np.where(A, rng.random((T, N)), -1.0)
    kth = -np.sort(-keys, axis=1)[:, 1:2]
    S = A & (keys >= kth)
    return A, S


def _write_log(path: Path, **extra) -> Path:
    from rate_region.logs import write_log

    A, S = _log_arrays()
    return write_log(path, A, S, **extra)


def _csv_lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def _edit_csv(src: Path, dst: Path, row: int, col: int, value: str) -> Path:
    lines = _csv_lines(src)
    cells = lines[row].split(",")
    cells[col] = value
    lines[row] = ",".join(cells)
    dst.write_text("\n".join(lines) + "\n")
    return dst


@pytest.fixture
def log_csv(tmp_path) -> Path:
    return _write_log(tmp_path / "log.csv")


# --- Part 1: the examples of issue 22, each a test that failed on 26ec3e4 ---------------------------------


def test_client_id_beyond_int64_is_a_text_id(tmp_path, log_csv):
    # polars reads 2^64 as i128, which numpy cannot hold: it was a traceback. Ids are labels: read as text.
    path = _edit_csv(log_csv, tmp_path / "c.csv", 1, 1, str(2**64))
    code, out, err, crash = _run(["audit", path, "--target", "uniform:2/7", "--json"])
    assert crash is None and code == 0 and err == "", (code, err, crash)
    assert str(2**64) in json.loads(out)["rates"]["client_ids"]


def test_level_whose_quantile_is_infinite_is_refused(log_csv):
    # 0.5 + level / 2 rounds to 1.0 in floating point: the normal quantile is infinite (StatisticsError)
    _judge(["audit", log_csv, "--level", "0.9999999999999999"], "bad")
    _judge(["audit", log_csv, "--level", "0.999999"], "ok")


@pytest.mark.parametrize("name", ["fifo.csv", "fifo.parquet", "fifo.jsonl"])
def test_fifo_log_is_refused_at_once(tmp_path, name):
    fifo = tmp_path / name
    os.mkfifo(fifo)
    t = time.perf_counter()
    _judge(["audit", fifo], "bad", timeout=10)
    assert time.perf_counter() - t < 5


@pytest.mark.parametrize("rnd", ["inf", str(2**63), str(2**64), "1" * 40, "-inf", "nan"])
def test_round_numbers_beyond_exact_integers_are_refused(tmp_path, log_csv, rnd):
    # they passed the "non-negative integer" test as floats, then wrapped in astype(int64) (with a warning)
    path = _edit_csv(log_csv, tmp_path / "r.csv", 1, 0, rnd)
    _judge(["audit", path], "bad")


def test_duplicated_header_is_refused(tmp_path, log_csv):
    lines = _csv_lines(log_csv)
    lines = [lines[0] + ",participated"] + [x + "," + x.split(",")[3] for x in lines[1:]]
    (tmp_path / "d.csv").write_text("\n".join(lines) + "\n")
    _judge(["audit", tmp_path / "d.csv"], "bad")


@pytest.mark.parametrize("target", ["uniform:-1/-2", "uniform:-3/-4", "uniform:0/5", "uniform:1/-2"])
def test_uniform_target_with_negative_parts_is_refused(log_csv, target):
    _judge(["audit", log_csv, "--target", target], "bad")


@pytest.mark.parametrize("k", [str(2**63), str(2**64), "7"])
def test_cap_above_the_number_of_clients_is_refused(log_csv, k):
    # (--k 10^9 and 2^31 allocate gigabytes on 26ec3e4: they run in a memory-limited child, below)
    _judge(["audit", log_csv, "--k", k], "bad")


def test_cap_equal_to_the_number_of_clients_is_accepted(log_csv):
    _judge(["audit", log_csv, "--k", "6"], "ok")


@pytest.mark.parametrize("columns", ["weight=w,weight=x", "round=r,round=r", "round=c,client=c"])
def test_columns_with_a_repeated_role_or_name_are_refused(log_csv, columns):
    _judge(["audit", log_csv, "--columns", columns], "bad")


_CHILD = """
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))  # a regression fails here, not the machine
import contextlib, io
import numpy, polars
from reports.cli.main import main
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out = []
for argv in json.loads(sys.argv[1]):
    err = io.StringIO()
    t = time.perf_counter()
    rc = 0
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 1
        except BaseException as e:
            rc, err = -1, io.StringIO(repr(e))
    out.append([rc, time.perf_counter() - t, err.getvalue()])
peak = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
print(json.dumps({"cases": out, "peak_mib": peak}))
"""


def _refusals(cases: list[list]) -> tuple[list, float]:
    """Run each argv in one memory-limited child: ([exit, seconds in main, stderr] per case, peak MiB above the
    high-water mark of the imports). The peak covers every case: each stayed below it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-c", _CHILD, json.dumps([[str(a) for a in c] for c in cases])],
                         capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert res.returncode == 0, res.stderr[-2000:]
    d = json.loads(res.stdout.strip().splitlines()[-1])
    return d["cases"], d["peak_mib"]


def _grid_log(tmp_path: Path) -> Path:
    # 60,000 rows, each its own round and its own client: 3.6e9 (round, client) cells, 7-27 GB on 26ec3e4
    n = 60_000
    path = tmp_path / "diag.parquet"
    pl.DataFrame({"round": np.arange(n), "client": np.arange(n), "available": np.ones(n, np.int8),
                  "participated": np.zeros(n, np.int8)}).write_parquet(path)
    return path


def test_sizes_are_refused_within_2_s_and_before_allocating(tmp_path, log_csv):
    cases = [["audit", log_csv, "--k", str(10**9)], ["audit", log_csv, "--k", str(2**31)],
             ["audit", log_csv, "--target", f"available:{10**9}"], ["audit", _grid_log(tmp_path)]]
    results, peak = _refusals(cases)
    for argv, (rc, seconds, err) in zip(cases, results):
        assert rc == 2 and len(err.splitlines()) == 1 and seconds < 2, (argv, rc, seconds, err)
    assert "cells" in results[-1][2] and "3.6e+09" in results[-1][2], results[-1][2]
    assert peak < 500, peak


def test_good_audit_prints_no_library_warning(log_csv):
    # numpy's cast and division warnings used to reach stderr around good output
    for target in ("rstar", "uniform:2/6", "available:2"):
        _judge(["audit", log_csv, "--target", target, "--period", "5"], "ok")
