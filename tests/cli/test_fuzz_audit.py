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
import warnings
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
        # pytest captures Python warnings; outside it they are printed on stderr, so here they join it
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                main([str(a) for a in argv])
            except SystemExit as exc:
                result[0] = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except BaseException as exc:  # a traceback: what this suite exists to catch
                result[1] = exc
        for w in caught:
            err.write(f"{w.filename}:{w.lineno}: {w.category.__name__}: {w.message}\n")

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
    code, out, err, crash = _run(argv, timeout)  # the timeout guards against a hang, not a speed check
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
    _judge(["audit", fifo], "bad", timeout=10)  # the timeout guards against a hang; a refusal returns at once


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


def _refusals(cases: list[list], **env_extra: str) -> tuple[list, float]:
    """Run each argv in one memory-limited child: ([exit, seconds in main, stderr] per case, peak MiB above the
    high-water mark of the imports). The peak covers every case: each stayed below it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), **env_extra)
    res = subprocess.run([sys.executable, "-c", _CHILD, json.dumps([[str(a) for a in c] for c in cases])],
                         capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert res.returncode == 0, res.stderr[-2000:]
    d = json.loads(res.stdout.strip().splitlines()[-1])
    return d["cases"], d["peak_mib"]


def _grid_log(tmp_path: Path, fmt: str = "parquet") -> Path:
    # 60,000 rows, each its own round and its own client: 3.6e9 (round, client) cells, 7-27 GB on 26ec3e4
    n = 60_000
    path = tmp_path / f"diag.{fmt}"
    frame = pl.DataFrame({"round": np.arange(n), "client": np.arange(n), "available": np.ones(n, np.int8),
                          "participated": np.zeros(n, np.int8)})
    frame.write_parquet(path) if fmt == "parquet" else frame.write_csv(path)
    return path


def test_sizes_are_refused_before_allocating(tmp_path, log_csv):
    cases = [["audit", log_csv, "--k", str(10**9)], ["audit", log_csv, "--k", str(2**31)],
             ["audit", log_csv, "--target", f"available:{10**9}"], ["audit", _grid_log(tmp_path, "csv")],
             ["audit", _grid_log(tmp_path)]]
    results, peak = _refusals(cases)
    for argv, (rc, seconds, err) in zip(cases, results):
        assert rc == 2 and len(err.splitlines()) == 1, (argv, rc, seconds, err)
    for _, _, err in results[-2:]:
        assert "cells" in err and "3.6e+09" in err and "cap here is" in err, err
    assert peak < 500, peak


def test_model_files_too_large_are_refused_from_their_metadata(tmp_path, log_csv):
    # with a budget of 1 s the cap is 10^4 clients (1e-4 s per client, bounds.core.limits): files of 10^5 clients
    # are refused from the Parquet footer and the npy header, before their data are read
    n = 100_000
    pl.DataFrame({"q": np.full(n, 0.5), "k": np.full(n, 2)}).write_parquet(tmp_path / "m.parquet")
    np.savez_compressed(tmp_path / "m.npz", q=np.full(n, 0.5), k=np.int64(2))
    pl.DataFrame({"q": np.full(n, 0.5)}).write_csv(tmp_path / "m.csv")
    cases = [["region", "--model", tmp_path / "m.parquet"], ["region", "--model", tmp_path / "m.npz"],
             ["region", "--model", tmp_path / "m.csv", "--k", "2"], ["audit", log_csv, "--model", tmp_path / "m.npz"]]
    results, peak = _refusals(cases, CONVBOUND_MAX_SECONDS="1")
    for argv, (rc, _seconds, err) in zip(cases, results):
        assert rc == 2 and "1e+05 clients" in err and "cap here is 1e+04" in err, (argv, err)
    assert peak < 500, peak


def test_read_log_refuses_a_parquet_log_by_its_row_count(tmp_path):
    from bounds.core.errors import UserInputError
    from rate_region.logs import read_log

    path = _write_log(tmp_path / "log.parquet")  # 240 rows
    with pytest.raises(UserInputError, match="240 rows"):
        read_log(path, max_cells=100)
    with pytest.raises(UserInputError, match=r"40 rounds x 6 clients = 240 .* cap here is 239"):
        read_log(_write_log(tmp_path / "log.csv"), max_cells=239)
    assert read_log(path, max_cells=240).available.shape == (40, 6)


def test_good_audit_prints_no_library_warning(log_csv):
    # numpy's cast and division warnings used to reach stderr around good output
    for target in ("rstar", "uniform:2/6", "available:2"):
        _judge(["audit", log_csv, "--target", target, "--period", "5"], "ok")


# --- Part 2: the generated suite ---------------------------------------------------------------------------
# A valid log (40 rounds x 6 clients, with weight and snapshot columns) in three formats and valid model files
# for its 6 clients, then mutations. Each case is (class, argv, expect).

ROLES = ("round", "client", "available", "participated", "weight", "snapshot")
SIZES = ["0", "1", "-1", str(2**31), str(2**63), str(2**64), str(10**22), "nan", "inf"]


def _base(tmp: Path) -> dict[str, Path]:
    A, S = _log_arrays()
    snap = np.arange(A.shape[0]) % 3 == 0
    w = np.linspace(1.0, 2.0, A.shape[1])
    return {fmt: _write_log(tmp / f"base.{fmt}", weights=w, snapshot=snap) for fmt in ("csv", "parquet", "jsonl")}


def _models(tmp: Path, n: int = 6) -> dict[str, Path]:
    q = np.linspace(0.3, 0.9, n)
    w = np.linspace(1.0, 2.0, n)
    frame = pl.DataFrame({"q": q, "weight": w, "k": np.full(n, 2)})
    out = {"parquet": tmp / "model.parquet", "csv": tmp / "model.csv", "npz": tmp / "model.npz",
           "toml": tmp / "model.toml"}
    frame.write_parquet(out["parquet"])
    frame.write_csv(out["csv"])
    np.savez(out["npz"], q=q, weight=w, k=np.int64(2))
    out["toml"].write_text(f'kind = "independent"\nk = 2\nq = {q.tolist()}\nweights = {(w / w.sum()).tolist()}\n')
    return out


def _cut_points(text: bytes, rng: random.Random, n: int, avoid: bytes) -> list[int]:
    """n cut positions inside the file where the kept part does not end a record (so the cut is a defect)."""
    ok = [p for p in range(1, len(text) - 1) if text[p - 1:p] not in avoid and text[p:p + 1] != b"\n"]
    return sorted(rng.sample(ok, n))


def _cases(tmp: Path) -> list[tuple[str, list[str], str]]:
    rng = random.Random(SEED)
    cases: list[tuple[str, list[str], str]] = []

    def add(cls: str, argv: list, expect: str = "bad") -> None:
        cases.append((cls, ["audit" if argv[0] is None else argv[0], *[str(a) for a in argv[1:]]], expect))

    base = _base(tmp)
    csv, pq, jl = base["csv"], base["parquet"], base["jsonl"]
    n = [0]

    def new(suffix: str) -> Path:
        n[0] += 1
        return tmp / f"m{n[0]:03d}{suffix}"

    # valid invocations: good input must not be refused (nor print anything on stderr)
    for path in base.values():
        for target in ("rstar", "uniform:2/6", "available:2", "available", "fast:0.3"):
            add("ok", [None, path, "--target", target], "ok")
    link = tmp / "link.csv"
    link.symlink_to(csv)
    add("ok", [None, link], "ok")
    for k in ("1", "6"):
        add("ok", [None, csv, "--k", k], "ok")
    for period in ("1", str(2**31), str(2**63), str(2**64), str(10**22)):
        add("ok", [None, csv, "--period", period], "ok")
    for level in ("1e-300", "0.5", "0.999999999999999"):
        add("ok", [None, csv, "--level", level], "ok")
    for alpha in ("1e-300", "0.999"):
        add("ok", [None, csv, "--alpha", alpha], "ok")

    # edge logs that are valid: a client never available, everybody always chosen, one client, two rounds,
    # nobody chosen; every target answers without a warning. Nobody ever available: nothing to audit.
    T = 6
    ones, snap = np.ones((T, 3), bool), np.arange(T) % 2 == 0
    first = np.zeros((T, 3), bool)
    first[:, 0] = True
    edges = {"never": (np.c_[np.ones((T, 2), bool), np.zeros((T, 1), bool)], first),
             "all-chosen": (ones, ones), "one-client": (ones[:, :1], ones[:, :1]),
             "two-rounds": (ones[:2], first[:2]), "nobody-chosen": (ones, np.zeros((T, 3), bool))}
    from rate_region.logs import write_log

    for name, (A, S) in edges.items():
        path = write_log(new(".csv"), A, S, snapshot=snap[:A.shape[0]])
        for target in ("rstar", "uniform:1/3", "available:1", "available", "fast:0.5"):
            add(f"edge-{name}", [None, path, "--target", target, "--period", "2"], "ok")
    add("edge-nobody-available", [None, write_log(new(".csv"), ~ones, ~ones)])

    # deleted columns: the four required ones are refused, the two optional ones may go
    frames = {"csv": pl.read_csv(csv), "parquet": pl.read_parquet(pq), "jsonl": pl.read_ndjson(jl)}
    writers = {"csv": "write_csv", "parquet": "write_parquet", "jsonl": "write_ndjson"}
    for fmt, df in frames.items():
        for role in ROLES:
            path = new("." + fmt)
            getattr(df.drop(role), writers[fmt])(path)
            add("deleted-column", [None, path], "ok" if role in ("weight", "snapshot") else "bad")

    # CSV cell values, one column at a time; rows chosen where the defect is the only one
    lines = _csv_lines(csv)
    part_rows = [i for i, x in enumerate(lines[1:], 1) if x.split(",")[3] == "1"]
    idle_rows = [i for i, x in enumerate(lines[1:], 1) if x.split(",")[3] == "0" and x.split(",")[2] == "1"]
    unavailable = [i for i, x in enumerate(lines[1:], 1) if x.split(",")[2] == "0"]
    values = {
        "round": {"bad": ["-1", "1.5", "nan", "inf", "-inf", "", "abc", str(2**63), str(2**64), str(10**22), "1" * 40,
                          "0x10", "1_000", "1e999"], "ok": [str(2**31), "1e3", str(2**53)]},
        "client": {"bad": ["", "abc", "nan", "1.5", " "], "ok": [str(2**31), str(2**63), str(2**64), "-1"]},
        "available": {"bad": ["2", "-1", "0.5", "nan", "inf", "", "abc", str(2**63), str(10**22)], "ok": ["true"]},
        "participated": {"bad": ["2", "-1", "0.5", "nan", "", "abc", str(10**22)], "ok": ["false"]},
        "weight": {"bad": ["-1", "nan", "inf", "", "abc", "1e999", "-inf"], "ok": [str(10**22), str(2**63), "0",
                                                                                 "1e308"]},
        "snapshot": {"bad": ["2", "nan", "", "0.5", "-1"], "ok": ["1"]},
    }
    for role, by in values.items():
        col = ROLES.index(role)
        for expect, words in by.items():
            for word in words:
                row = rng.choice(idle_rows if role in ("available", "client", "round") else part_rows)
                add(f"csv-{role}", [None, _edit_csv(csv, new(".csv"), row, col, word)], expect)
    add("csv-participant-unavailable", [None, _edit_csv(csv, new(".csv"), rng.choice(unavailable), 3, "1")])
    dup = _csv_lines(csv)
    add("csv-duplicate-row", [None, _write_text(new(".csv"), "\n".join(dup + [dup[5]]) + "\n")])
    add("csv-header-twice", [None, _write_text(new(".csv"), "\n".join([dup[0], *dup[1:10], dup[0], *dup[10:]]) + "\n")])
    add("csv-extra-field", [None, _write_text(new(".csv"), "\n".join(dup + [dup[3] + ",7"]) + "\n")])
    add("csv-bom", [None, _write_text(new(".csv"), "\ufeff" + csv.read_text())], "ok")
    add("csv-ragged", [None, _write_text(new(".csv"), "\n".join(dup[:-1] + ["1,2"]) + "\n")])

    # JSON lines: typed values where a number belongs
    records = [json.loads(x) for x in jl.read_text().splitlines()]
    jvalues = {
        "round": {"bad": [-1, 1.5, 2**63, 2**64, 10**22, "x", None, [1], {"a": 1}, True], "ok": [2**31]},
        "client": {"bad": [True, None, [1], {"a": 1}, 1.5], "ok": [2**64]},
        "available": {"bad": [2, "yes", None, [1], 0.5], "ok": [True]},
        "participated": {"bad": [-1, None, "x", {"a": 1}], "ok": []},
        "weight": {"bad": [-1, None, "heavy", [2]], "ok": [10**22]},
    }
    for role, by in jvalues.items():
        for expect, words in by.items():
            for word in words:
                recs = [dict(r) for r in records]
                pick = [i for i, r in enumerate(recs) if r["participated"] == (0 if role != "participated" else 1)
                        and r["available"] == 1]
                recs[rng.choice(pick)][role] = word
                add(f"jsonl-{role}", [None, _write_text(new(".jsonl"), "\n".join(map(json.dumps, recs)) + "\n")],
                    expect)

    # Parquet: typed columns of the wrong type or range
    df = frames["parquet"]
    typed = [
        ("bad", df.with_columns(pl.col("round").cast(pl.Float64) + 0.5)),
        ("bad", df.with_columns(pl.col("round").cast(pl.String) + "a")),
        ("bad", df.with_columns(pl.col("client").cast(pl.Float64) + 0.5)),
        ("bad", df.with_columns(pl.col("available").cast(pl.Float64) * 0.5)),
        ("bad", df.with_columns(pl.lit("x").alias("participated"))),
        ("bad", df.with_columns((pl.col("round").cast(pl.UInt64) + (2**64 - 100)).alias("round"))),
        ("bad", df.with_columns(pl.col("round").cast(pl.Date))),
        ("bad", df.with_columns(pl.concat_list("round", "client").alias("round"))),
        ("bad", df.with_columns(pl.when(pl.col("client") == 3).then(None).otherwise(pl.col("round")).alias("round"))),
        ("bad", df.with_columns(pl.lit(float("nan")).alias("weight"))),
        ("ok", df.with_columns((pl.col("client").cast(pl.UInt64) + (2**64 - 100)).alias("client"))),
        ("ok", df.with_columns(pl.col("round").cast(pl.Int32))),
        ("ok", df.with_columns(pl.col("available").cast(pl.Boolean), pl.col("participated").cast(pl.Boolean))),
        ("ok", df.with_columns(pl.col("client").cast(pl.String) + "x")),
    ]
    for expect, frame in typed:
        path = new(".parquet")
        frame.write_parquet(path)
        add("parquet-typed", [None, path], expect)

    # truncated files: every cut leaves a defect (a partial record, or a Parquet file without its footer)
    for fmt, avoid in (("csv", (b"\n",)), ("jsonl", (b"\n", b"}")), ("parquet", ())):
        data = base[fmt].read_bytes()
        points = _cut_points(data, rng, 6, avoid) if fmt != "parquet" else sorted(rng.sample(range(1, len(data)), 6))
        for p in points:
            path = new("." + fmt)
            path.write_bytes(data[:p])
            add(f"truncated-{fmt}", [None, path])
        path = new("." + fmt)
        path.write_bytes(b"")
        add("empty", [None, path])
    add("header-only", [None, _write_text(new(".csv"), HEADER + "\n")])
    add("header-only", [None, _write_text(new(".csv"), HEADER)])

    # binary junk: random bytes under each name, junk after or before a valid file, another encoding
    for fmt in ("csv", "parquet", "jsonl"):
        for size in (1, 64, 4096):
            path = new("." + fmt)
            path.write_bytes(bytes(rng.getrandbits(8) for _ in range(size)))
            add("junk", [None, path])
        path = new("." + fmt)
        path.write_bytes(base[fmt].read_bytes() + b"\x00\xff\xfe junk \x01\n")
        add("junk-appended", [None, path])
        path = new("." + fmt)
        path.write_bytes(b"PK\x03\x04" + base[fmt].read_bytes())
        add("junk-prepended", [None, path])
    path = new(".csv")
    path.write_bytes(csv.read_text().encode("utf-16"))
    add("utf-16", [None, path])

    # special files: only regular files are read
    for suffix in (".csv", ".parquet", ".jsonl"):
        fifo = tmp / f"fifo{suffix}"
        os.mkfifo(fifo)
        add("fifo", [None, fifo])
    (tmp / "adir.csv").mkdir()
    add("directory", [None, tmp / "adir.csv"])
    (tmp / "todir.csv").symlink_to(tmp / "adir.csv")
    add("symlink-dir", [None, tmp / "todir.csv"])
    (tmp / "tofifo.csv").symlink_to(tmp / "fifo.csv")
    add("symlink-fifo", [None, tmp / "tofifo.csv"])
    (tmp / "dangling.csv").symlink_to(tmp / "nowhere.csv")
    add("symlink-dangling", [None, tmp / "dangling.csv"])
    for dev in ("/dev/null", "/dev/zero", "/dev/urandom"):
        add("device", [None, dev, "--format", "csv"])
    add("proc", [None, "/proc/self/status", "--format", "csv"])
    add("missing", [None, tmp / ("n" * 300 + ".csv")])
    add("missing", [None, ""])
    add("no-suffix", [None, tmp / "log"])

    # options: sizes and words out of range
    for word in SIZES + ["1.5", "-2", str(-(2**63))]:
        if word not in ("1",):
            add("opt-k", [None, csv, "--k", word])
    for word in ("0", "1", "nan", "inf", "-0.1", "-inf", "2"):
        add("opt-alpha", [None, csv, "--alpha", word])
    for word in ("0.9999999999999999", "1", "0", "nan", "inf", "-1", str(2**63)):
        add("opt-level", [None, csv, "--level", word])
    for word in ("0", "-1", str(-(2**64)), "1.5", "x"):
        add("opt-period", [None, csv, "--period", word])
    for word in ("uniform:-1/-2", "uniform:0/5", "uniform:1/0", "uniform:nan/1", "uniform:inf/inf", "uniform:1e999/1",
                 "uniform:2/1", "uniform:1e-400/1", "uniform:", "fast:0", "fast:-1", "fast:nan", "fast:2", "fast:",
                 "available:0", "available:-1", "available:1.5", "available:nan", "available:" + str(2**63),
                 "available:" + str(2**64), "available:" + str(10**22), "available:7", "available:", "rstar:1", "",
                 "x" * 300, "uniform:1/2/3", "available:2:3"):
        add("opt-target", [None, csv, "--target", word])
    for word in ("weight=w,weight=x", "round=a,client=a", "round=r", "x=y", "=x", "round=", "round", "round=r,,client=c"):
        add("opt-columns", [None, csv, "--columns", word])
    for fmt, path in (("csv", pq), ("parquet", csv), ("jsonl", csv), ("xls", csv)):
        add("opt-format", [None, path, "--format", fmt])

    # output files, refused before the audit runs: missing directory, /proc, an existing file without --force,
    # and with --force anything but a regular file
    (tmp / "exists.html").write_text("keep")
    (tmp / "keep.txt").write_text("keep")
    (tmp / "out-link.html").symlink_to(tmp / "keep.txt")
    (tmp / "out-dir.html").mkdir()
    os.mkfifo(tmp / "out-fifo.html")
    for opt in ("--html", "--write-model"):
        for where, force in ((tmp / "missing" / "x", False), ("/proc/convbound-x", False), (tmp / "exists.html", False),
                             (tmp / "out-link.html", True), (tmp / "out-dir.html", True), (tmp / "out-fifo.html", True),
                             ("/dev/null", True), (tmp / ("n" * 300), False)):
            add("output", [None, csv, opt, where, *(["--force"] if force else [])])
    add("output-ok", [None, csv, "--html", tmp / "fine.html", "--write-model", tmp / "fine.toml"], "ok")
    add("output-ok", [None, csv, "--html", tmp / "exists.html", "--force"], "ok")

    # model files (issue 21 item 5): valid ones for both commands, then mutations (region reads them alone)
    models = _models(tmp)
    for path in models.values():
        add("model-ok", [None, csv, "--model", path], "ok")
        add("model-ok", ["region", "--model", path], "ok")
    for fmt in ("parquet", "csv", "npz"):
        wrong = new("." + fmt)
        _write_model(wrong, fmt, {"q": np.full(7, 0.5), "k": np.full(7, 2)})
        add("model-clients", [None, csv, "--model", wrong])  # 7 clients for a log of 6
    good = {"q": np.linspace(0.3, 0.9, 6), "weight": np.linspace(1, 2, 6), "k": np.full(6, 2)}
    mutations = [
        ("no-q", {k: v for k, v in good.items() if k != "q"}),
        ("q>1", {**good, "q": np.r_[1.5, good["q"][1:]]}),
        ("q<0", {**good, "q": np.r_[-0.1, good["q"][1:]]}),
        ("q-nan", {**good, "q": np.r_[np.nan, good["q"][1:]]}),
        ("q-inf", {**good, "q": np.r_[np.inf, good["q"][1:]]}),
        ("weight<0", {**good, "weight": np.r_[-1.0, good["weight"][1:]]}),
        ("weight-zero", {**good, "weight": np.zeros(6)}),
        ("weight-nan", {**good, "weight": np.r_[np.nan, good["weight"][1:]]}),
        ("k=0", {**good, "k": np.zeros(6)}),
        ("k=1.5", {**good, "k": np.full(6, 1.5)}),
        ("k-nan", {**good, "k": np.full(6, np.nan)}),
        ("k-differs", {**good, "k": np.r_[2, 3, 2, 2, 2, 2]}),
        ("k=2^63", {**good, "k": np.full(6, 2.0**63)}),
        ("k>n", {**good, "k": np.full(6, 7)}),
        ("extra-column", {**good, "z": np.ones(6)}),
        ("client-unsorted", {**good, "client": np.array([0, 2, 1, 3, 4, 5])}),
        ("client-twice", {**good, "client": np.array([0, 1, 1, 3, 4, 5])}),
        ("no-rows", {k: v[:0] for k, v in good.items()}),
    ]
    for name, cols in mutations:
        for fmt in ("parquet", "csv", "npz"):
            path = new("." + fmt)
            _write_model(path, fmt, cols)
            add(f"model-{name}", ["region", "--model", path])
    for fmt, word in (("csv", "abc"), ("csv", ""), ("csv", "0x1"), ("parquet", "abc")):
        path = new("." + fmt)
        _write_model(path, fmt, {"q": np.array(["0.5", word, "0.5"], dtype=object), "k": np.full(3, 1)})
        add("model-text", ["region", "--model", path])
    add("model-dup-header", ["region", "--model", _write_text(new(".csv"), "q,q,k\n0.5,0.5,1\n0.5,0.5,1\n")])
    huge = new(".parquet")
    _write_model(huge, "parquet", {**good, "weight": np.full(6, 1e308)})
    add("model-weight-huge", ["region", "--model", huge], "ok")
    ids = "".join(f"{i},0.5,2\n" for i in range(12))  # 8, 9, 10: increasing as numbers, not as text
    add("model-client-ids", ["region", "--model", _write_text(new(".csv"), "client,q,k\n" + ids)], "ok")
    add("model-bom", ["region", "--model", _write_text(new(".csv"), "\ufeffq,k\n0.5,1\n0.7,1\n")], "ok")
    add("model-quoted", ["region", "--model", _write_text(new(".csv"), '"q","k"\n0.5,1\n0.7,1\n')], "ok")
    add("model-no-k", ["region", "--model", _write_text(new(".csv"), "q\n0.5\n0.5\n")])
    add("model-no-k-given", ["region", "--model", _write_text(new(".csv"), "q\n0.5\n0.5\n"), "--k", "1"], "ok")
    npz_bad = [("object", {"q": np.array([{"a": 1}, 2], dtype=object)}), ("2-d", {"q": np.full((2, 3), 0.5)}),
               ("strings", {"q": np.array(["a", "b"])}), ("complex", {"q": np.array([0.5 + 1j, 0.5])}),
               ("scalar", {"q": np.float64(0.5)})]
    for name, arrays in npz_bad:
        path = new(".npz")
        np.savez(path, **arrays, k=np.int64(1))
        add(f"model-npz-{name}", ["region", "--model", path])
    for fmt in ("parquet", "csv", "npz", "toml"):
        data = models[fmt].read_bytes()
        for p in sorted(rng.sample(range(1, len(data) - 1), 3)):
            path = new("." + fmt)
            path.write_bytes(data[:p] if fmt != "csv" else data[:p] + b"\n" + b"x" * (p % 3))
            if fmt == "csv":
                path.write_bytes(data[:p].rsplit(b"\n", 1)[0] + b"\n0.5,x,2\n")
            add(f"model-truncated-{fmt}", ["region", "--model", path])
        for size in (0, 16, 2048):
            path = new("." + fmt)
            path.write_bytes(bytes(rng.getrandbits(8) for _ in range(size)))
            add(f"model-junk-{fmt}", ["region", "--model", path])
        fifo = tmp / f"model-fifo.{fmt}"
        os.mkfifo(fifo)
        add("model-fifo", ["region", "--model", fifo])
        add("model-fifo", [None, csv, "--model", fifo])
        (tmp / f"model-dir.{fmt}").mkdir()
        add("model-directory", ["region", "--model", tmp / f"model-dir.{fmt}"])
        (tmp / f"model-link.{fmt}").symlink_to(fifo)
        add("model-symlink-fifo", ["region", "--model", tmp / f"model-link.{fmt}"])
    add("model-devnull", ["region", "--model", "/dev/null"])
    add("model-devnull", [None, csv, "--model", "/dev/null"])
    add("model-suffix", ["region", "--model", _write_text(new(".xlsx"), "q\n0.5\n")])
    return cases


def _write_text(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _write_model(path: Path, fmt: str, cols: dict) -> None:
    if fmt == "npz":
        np.savez(path, **{k: np.asarray(v) for k, v in cols.items()})
        return
    frame = pl.DataFrame({k: (list(v) if np.asarray(v).dtype == object else v) for k, v in cols.items()})
    frame.write_parquet(path) if fmt == "parquet" else frame.write_csv(path)


def test_generated_suite(tmp_path, monkeypatch):
    """Every case in one temporary directory; every failure is listed, not just the first."""
    monkeypatch.chdir(tmp_path)
    cases = _cases(tmp_path)
    failures = []
    for cls, argv, expect in cases:
        try:
            _judge(argv, expect, timeout=20)
        except AssertionError as exc:
            failures.append(f"[{cls}] " + str(exc).splitlines()[0][:300])
    assert not failures, f"{len(failures)} of {len(cases)} cases failed:\n" + "\n".join(failures)
    # what must not be touched is still there, unchanged
    assert (tmp_path / "out-link.html").is_symlink() and (tmp_path / "keep.txt").read_text() == "keep"
    assert (tmp_path / "out-dir.html").is_dir() and not any((tmp_path / "out-dir.html").iterdir())
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir()), "a hidden temporary file was left behind"


def test_suite_is_large_and_deterministic(tmp_path):
    a = _cases(tmp_path / "a" if (tmp_path / "a").mkdir() is None else tmp_path)
    b = _cases(tmp_path / "b" if (tmp_path / "b").mkdir() is None else tmp_path)
    assert len(a) >= 150 and sum(e == "bad" for *_, e in a) >= 120
    strip = [(c, [x.replace(str(tmp_path / "a"), "T") for x in v], e) for c, v, e in a]
    assert strip == [(c, [x.replace(str(tmp_path / "b"), "T") for x in v], e) for c, v, e in b]
