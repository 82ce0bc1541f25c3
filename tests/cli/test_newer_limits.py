"""Sizes refused fast and small, workers capped at the cores, report --out rules (links, permissions).

The generated suite (test_fuzz_newer.py) says *that* bad input is refused; these tests measure *how*:
the time and peak memory of size refusals (in a fresh process, so the peak is the refusal's own), the
number of worker processes a local cluster is asked for, and what ``report --out`` leaves on disk.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTANCE = {"format": "convbound-instance/1", "scenario": "FAST.T1",
            "point": {"problem": "quadratic", "M": 4, "K": 2, "R": 20, "d": 2, "samples": 4},
            "trials": 4, "seeds": [12345], "level": 0.99, "device": "cpu"}
SIZE_REFUSALS = [
    ["falsify", "FAST.T1", "--trials", str(10**9)],
    ["falsify", "FAST.T1", "--confirm-trials", str(10**9)],
    ["falsify", "FAST.T1", "--trials", str(10**6)],
    ["falsify", "FAST.T1", "--budget", str(10**18), "--time", "3"],
    ["falsify", "FAST.T1", "--budget", str(2**63 - 1), "--time", "3"],
    ["falsify", "FAST.T1", "--budget", str(10**18)],
    ["falsify", "ASCAF.T1", "--confirm-trials", str(10**7)],
    ["verify", "FAST.T1", "--quick", "--trials", str(10**9)],
    ["verify", "--instance", "{tmp}/trials70.json"],
    ["verify", "--instance", "{tmp}/trials8.json"],
]
# 500 MB: the acceptance bound on any allocation before a refusal. The process's whole peak (Python,
# torch, sympy and numpy imported: about 300 MB) must stay under it.
PEAK_LIMIT_BYTES = 500e6


def test_size_refusals_before_allocating_500_mb(tmp_path):
    for name, trials in (("trials70.json", 2**70), ("trials8.json", 10**8)):
        (tmp_path / name).write_text(json.dumps({**INSTANCE, "trials": trials}))
    script = textwrap.dedent("""
        import contextlib, io, json, sys, time
        from reports.cli.main import main

        def run(argv):
            err = io.StringIO()
            t0 = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                try:
                    main(argv)
                    code = 0
                except SystemExit as exc:
                    code = exc.code
            return code, time.perf_counter() - t0, err.getvalue()

        # warm-up: the imports (torch, sympy, the registries: seconds on a cold, shared machine) are Python's
        # start-up, paid by every run of these commands; what is timed is the refusal itself
        from verify.instance import instance_sizes, largest_point
        from verify.scenarios import get
        instance_sizes(get("FAST.T1"), largest_point(get("FAST.T1")))
        run(["falsify", "FAST.T1", "--budget", "0"])
        out = []
        for argv in json.loads(sys.argv[1]):
            code, seconds, err = run(argv)
            out.append({"argv": argv, "code": code, "seconds": seconds, "err": err})
        # VmHWM: this process's own peak resident memory (ru_maxrss would carry the parent's peak over
        # fork and exec: the pytest process that started us)
        with open("/proc/self/status") as fh:
            peak = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmHWM:"))
        print(json.dumps({"runs": out, "peak_bytes": peak}))
    """)
    argvs = [[a.replace("{tmp}", str(tmp_path)) for a in argv] for argv in SIZE_REFUSALS]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", script, json.dumps(argvs)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    for run in report["runs"]:
        shown = " ".join(run["argv"])
        assert run["code"] == 2, f"not refused: {shown}: {run['err']}"
        assert run["err"].count("\n") == 1 and "needs about" in run["err"], run["err"]
        assert "would fit" in run["err"] or "below" in run["err"], f"no 'what would fit' in: {run['err']}"
    print(f"peak {report['peak_bytes'] / 1e6:.0f} MB; slowest refusal {max(r['seconds'] for r in report['runs']):.3f} s")
    assert report["peak_bytes"] < PEAK_LIMIT_BYTES, f"peak memory {report['peak_bytes'] / 1e6:.0f} MB"


@pytest.mark.parametrize("workers, cores, want, noted", [
    (1000, 2, 2, True), (10**6, 2, 2, True), (2**63, 4, 4, True), (2, 2, 2, False), (1, 8, 1, False),
    (None, 1, 1, False), (None, 8, 2, False),
])
def test_local_workers_capped_at_the_cores(monkeypatch, workers, cores, want, noted):
    from verify.runtime.executor import local_workers

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)))
    count, note = local_workers(workers)
    assert count == want
    assert bool(note) == noted
    if noted:
        assert f"capped at {cores}" in note


class _Recorded(Exception):
    pass


def test_a_local_cluster_is_asked_for_no_more_processes_than_cores(monkeypatch, convbound):
    """falsify --workers 1000: the note says it is capped, and LocalCluster gets n_workers = the cores."""
    import distributed

    asked = {}

    class FakeCluster:
        def __init__(self, n_workers, **kwargs):
            asked["n_workers"] = n_workers
            raise _Recorded()

    monkeypatch.setattr(distributed, "LocalCluster", FakeCluster)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    with pytest.raises(_Recorded):
        convbound("falsify", "FAST.T1", "--budget", "2", "--trials", "2", "--confirm-trials", "4",
                  "--workers", "1000")
    assert asked["n_workers"] == 2


def test_workers_note_printed_when_the_run_starts(monkeypatch, capsys):
    from reports.cli.common import check_workers

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    announce = check_workers(None, 1000)
    assert capsys.readouterr().err == ""  # nothing yet: a refusal found later stays the only line
    announce()
    err = capsys.readouterr().err
    assert err.startswith("convbound: note: --workers 1000 capped at 2") and err.count("\n") == 1


def _earlier_report(path: Path) -> None:
    path.mkdir()
    for name in ("index.html", "report.pdf", "results.json"):
        (path / name).write_text("earlier")


def _doc(tmp_path: Path) -> Path:
    sys.path.insert(0, str(ROOT / "tests" / "reports"))
    from report_fixtures import fixture_doc

    path = tmp_path / "doc.json"
    path.write_text(json.dumps(fixture_doc()))
    return path


def test_force_through_a_link_replaces_the_report_it_points_to_and_keeps_the_link(tmp_path, monkeypatch, convbound):
    monkeypatch.chdir(tmp_path)
    doc = _doc(tmp_path)
    _earlier_report(tmp_path / "r1")
    (tmp_path / "LINK").symlink_to("r1")
    run = convbound("report", "--from-json", str(doc), "--out", "LINK", "--force")
    assert run.code == 0, run.err
    assert (tmp_path / "LINK").is_symlink() and os.readlink(tmp_path / "LINK") == "r1"
    assert json.loads((tmp_path / "r1" / "results.json").read_text())["schema"].startswith("convbound.report/")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["LINK", "doc.json", "r1"]  # nothing hidden left
    assert sorted(p.name for p in (tmp_path / "r1").iterdir()) == ["index.html", "report.pdf", "results.json"]


def test_force_through_a_link_to_anything_but_a_report_is_refused(tmp_path, monkeypatch, convbound):
    monkeypatch.chdir(tmp_path)
    doc = _doc(tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    (tmp_path / "L1").symlink_to("mine")
    (tmp_path / "L2").symlink_to("nowhere")
    for link in ("L1", "L2"):
        run = convbound("report", "--from-json", str(doc), "--out", link, "--force")
        assert run.code == 2 and run.err.count("\n") == 1 and run.err.startswith("convbound: error: "), run.err
        assert (tmp_path / link).is_symlink()
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep"
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir())


def _refusal_as_other_user(argv: list[str]) -> tuple[int, str]:
    """Run the command in a forked child that gave up root (permissions do not apply to root)."""
    import rich.console  # noqa: F401  the one-line error is printed with rich: nobody may not read root's packages
    import rich.markup  # noqa: F401

    import reports.build  # noqa: F401  everything the refusal needs is imported before the fork
    import reports.cli.cmd_report  # noqa: F401
    import verify.runtime.executor  # noqa: F401
    from reports.cli.main import main

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: nobody, then the command, then its exit status and stderr down the pipe
        code, err = 99, ""
        try:
            os.setgid(65534)
            os.setuid(65534)
            import contextlib
            import io

            buf = io.StringIO()
            with contextlib.redirect_stderr(buf), contextlib.redirect_stdout(io.StringIO()):
                try:
                    main(argv)
                    code = 0
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 1
            err = buf.getvalue()
        except BaseException as exc:  # noqa: BLE001  reported to the parent as a traceback
            code, err = 98, f"Traceback: {type(exc).__name__}: {exc}"
        os.write(write, json.dumps({"code": code, "err": err}).encode())
        os._exit(0)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
    os.waitpid(pid, 0)
    got = json.loads(b"".join(chunks))
    return got["code"], got["err"]


def test_report_out_where_we_may_not_look_is_one_line(tmp_path, monkeypatch):
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="convbound-perm-"))
    try:
        os.chmod(base, 0o777)
        locked = base / "locked"
        locked.mkdir()
        doc = _doc(base)
        os.chmod(doc, 0o644)
        os.chmod(locked, 0o000)
        monkeypatch.chdir(base)
        for out in (locked / "sub", locked / "sub" / "deeper", locked):
            argv = ["report", "--from-json", str(doc), "--out", str(out)]
            if os.geteuid() == 0:
                code, err = _refusal_as_other_user(argv)
            else:
                import contextlib
                import io

                from reports.cli.main import main

                buf = io.StringIO()
                with contextlib.redirect_stderr(buf), contextlib.redirect_stdout(io.StringIO()):
                    try:
                        main(argv)
                        code = 0
                    except SystemExit as exc:
                        code = exc.code
                err = buf.getvalue()
            assert code == 2 and err.startswith("convbound: error: ") and err.count("\n") == 1, (out, code, err)
            assert "Traceback" not in err
    finally:
        os.chmod(base / "locked", 0o755)
        import shutil

        shutil.rmtree(base, ignore_errors=True)


if sys.platform != "linux":
    pytestmark = pytest.mark.skip(reason="sched_getaffinity, fork and permission bits as on Linux")
