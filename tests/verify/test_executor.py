"""verify.runtime.executor: seeds, failures with their inputs, and the same numbers in-process and on Dask.

The Dask tests start real clusters: a ``LocalCluster`` of 2 worker processes, and ``dask scheduler`` /
``dask worker`` subprocesses on 127.0.0.1 at a free port; every process is stopped at the end.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bounds.core.errors import UserInputError
from verify.runtime.executor import Outcome, Task, check_scheduler, run_tasks, summary

ROOT = Path(__file__).resolve().parents[2]
VOLATILE = ("elapsed_s",)  # wall-clock time, the only field allowed to differ between runs


def _cli(convbound, *argv: str) -> tuple[int, str, str]:
    run = convbound(*argv)
    return run.code, run.out, run.err


def _numbers(doc: list[dict]) -> list[dict]:
    return [{k: v for k, v in rec.items() if k not in VOLATILE} for rec in doc]


# Validation (no Dask)
@pytest.mark.parametrize("scheduler,workers", [("dask", None), ("tcp://", None), ("local", 0), ("tcp://h:1", 2)])
def test_bad_scheduler_options_are_refused(scheduler, workers):
    with pytest.raises(UserInputError):
        check_scheduler(scheduler, workers)


def test_scheduler_kinds():
    assert check_scheduler(None, None) == "inprocess"
    assert check_scheduler(None, 3) == "local"
    assert check_scheduler("tcp://127.0.0.1:8786", None) == "tcp://127.0.0.1:8786"


def test_inprocess_failure_is_reported_with_its_inputs_and_the_rest_finish():
    tasks = [Task("builtins:dict", {"i": 0}, "a"), Task("builtins:int", {"bogus": 3}, "bad"),
             Task("builtins:dict", {"i": 2}, "c")]
    seen = []
    out = run_tasks(tasks, progress=lambda done, total, key: seen.append((done, total, key)))
    assert [o.status for o in out] == ["ok", "failed", "ok"]
    assert out[0].value == {"i": 0} and out[2].value == {"i": 2}
    assert "TypeError" in out[1].error and out[1].inputs == {"bogus": 3}
    assert "bogus=3" in out[1].describe() and "bad" in out[1].describe()
    assert summary(out) == "1 of 3 tasks missing (failed: bad)"
    assert seen[0] == (0, 3, "") and seen[-1] == (3, 3, "c")


def test_summary_of_a_complete_run():
    assert summary([Outcome("a", "ok"), Outcome("b", "ok")]) == "all 2 tasks completed"


# Dask clusters
@pytest.mark.xdist_group("quick_suite")
def test_workers_option_starts_its_own_cluster_with_the_same_numbers(convbound, quick_groups):
    """``--workers 2`` gives what this process gives (the in-process side: the shared quick run's groups)."""
    pytest.importorskip("distributed")
    from reports.cli.common import dumps
    from verify.suite import all_ok

    ids = ("F3AST.LB.5", "FAST.T2")
    here = [v for g in ids for v in quick_groups[g]]
    code_a, out_a = (0 if all_ok(here) else 1), dumps([v.to_dict() for v in here])
    code_b, out_b, _ = _cli(convbound, "verify", *ids, "--quick", "--json", "--device", "cpu", "--workers", "2")
    assert code_a == code_b == 0
    assert _numbers(json.loads(out_a)) == _numbers(json.loads(out_b))


def abort_quietly() -> None:
    """Task function: kill this worker by SIGABRT, as ``os.abort`` does, without a traceback dump.

    The worker is forked from pytest's process and inherits its faulthandler, which would write
    "Fatal Python error: Aborted" and every thread's stack into a passing run's output.
    """
    import faulthandler

    faulthandler.disable()
    os.abort()


def test_a_task_that_kills_its_worker_is_marked_failed_not_dropped():
    pytest.importorskip("distributed")
    import dask

    tasks = [Task("builtins:dict", {"i": i}, f"t{i}") for i in range(6)]
    # kills whichever worker runs it, every time (this module is imported before the workers fork)
    tasks.insert(2, Task(f"{__name__}:abort_quietly", {}, "suicide"))
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        out = run_tasks(tasks, scheduler="local", workers=2, progress=False, retries=1)
    assert len(out) == len(tasks) and [o.key for o in out] == [t.key for t in tasks]
    bad = out[2]
    assert bad.status == "failed" and "KilledWorker" in bad.error and bad.attempts == 2
    for o, t in zip(out, tasks):  # an innocent task may share a dying worker: then it is failed, never absent
        assert o.status in ("ok", "failed")
        if o.ok:
            assert o.value == t.kwargs
    n_bad = sum(not o.ok for o in out)
    assert summary(out).startswith(f"{n_bad} of {len(tasks)} tasks missing")


def test_interrupt_cancels_and_closes_the_cluster():
    pytest.importorskip("distributed")
    psutil = pytest.importorskip("psutil")
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    tasks = [Task("time:sleep", {}, f"t{i}") for i in range(1)]  # raises TypeError at once: a completion
    tasks += [Task("verify.suite:run_group", {"check_id": "FAST.T1", "quick": True, "device": "cpu"}, "long")]

    def interrupt(done, total, key):
        if done >= 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tasks(tasks, scheduler="local", workers=2, progress=interrupt)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        left = {p.pid for p in psutil.Process().children(recursive=True) if p.is_running()} - before
        if not left:
            break
        time.sleep(0.2)
    assert not left, f"worker processes left running after the interrupt: {left}"


# An existing cluster: dask scheduler / dask worker subprocesses
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_workers(address: str, n: int, timeout: float = 60.0) -> None:
    from distributed import Client

    with Client(address, timeout="30s") as client:
        client.wait_for_workers(n, timeout=timeout)


@pytest.fixture
def tcp_cluster():
    pytest.importorskip("distributed")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    dask_cli = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    procs: list[subprocess.Popen] = []
    try:
        procs.append(subprocess.Popen([*dask_cli, "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                      env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        workers = []
        for _ in range(2):  # no nanny: a killed worker stays dead, so the survivor must take its task
            w = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                  "--no-nanny", "--no-dashboard", "--host", "127.0.0.1"],
                                 env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            procs.append(w)
            workers.append(w)
        _wait_for_workers(address, 2)
        yield address, workers
    finally:
        # one at a time, the workers before their scheduler: a worker sent SIGTERM together with the scheduler
        # sometimes waited for the gone scheduler until the kill below, 15 s later (4 of 14 runs of this set-up;
        # stopped one at a time, 0 of 14)
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=15)


@pytest.mark.xdist_group("quick_suite")
def test_existing_cluster_by_address_and_a_worker_killed_mid_sweep(tcp_cluster, quick_groups):
    """Seven groups of the quick suite on `dask scheduler` + 2 `dask worker` processes give the in-process numbers,
    though one worker is SIGKILLed after the first group completes. The in-process reference is the shared quick
    run (seed 0, as below). One cluster run for both properties: every group's task runs in another process, and a
    lost task is moved (the --scheduler option of the command reaches the same ``run_suite``). Seven, not all
    twenty: two long groups and five more keep each worker holding a task when the kill lands, at a third of the
    whole suite's cost."""
    from verify.suite import LONG_GROUPS, run_suite

    address, workers = tcp_cluster
    # suite order: the long groups are sent first (suite.LONG_GROUPS), so the kill after the first group lands
    # while the killed worker still holds one
    ids = ["FAST.T1", "ASCAF.T1", "FAST.T2", "FAST.T2.adversarial", "FAST.T1.drift", "SCAF.T3", "SCAF.T4"]
    assert set(ids) <= set(quick_groups) and len(set(ids) & set(LONG_GROUPS)) == 2
    ref = [v.to_dict() for g in ids for v in quick_groups[g]]
    killed = []

    def kill_one(done, total, key):
        if done == 1 and not killed:
            workers[0].send_signal(signal.SIGKILL)
            killed.append(key)

    got = [v.to_dict() for v in run_suite(ids, quick=True, device="cpu", scheduler=address, progress=kill_one)]
    assert killed and workers[0].wait(timeout=15) == -signal.SIGKILL
    assert len(got) == len(ref) > len(ids) and [r["id"] for r in got] == [r["id"] for r in ref]
    assert _numbers(got) == _numbers(ref)  # complete after the scheduler moved the lost task
    assert not any(n.startswith("INCOMPLETE") for v in got for n in v["notes"])


def test_a_failing_check_group_becomes_an_incomplete_record_and_the_rest_run(monkeypatch):
    from verify import suite

    real = suite.registry()

    def broken(ctx):
        raise RuntimeError("simulated crash")

    monkeypatch.setattr(suite, "registry", lambda: {**real, "F3AST.LB.5": broken})
    out = suite.run_suite(["F3AST.LB.5", "F3AST.naive.control"], quick=True, device="cpu")
    bad = [v for v in out if v.id == "F3AST.LB.5"]
    assert len(bad) == 1 and bad[0].verdict == "unverified" and not bad[0].ok
    assert bad[0].notes[0].startswith("INCOMPLETE: task F3AST.LB.5 (check_id='F3AST.LB.5'")
    assert "RuntimeError: simulated crash" in bad[0].notes[0]
    assert len(out) > 1 and not suite.all_ok(out)  # the other group still ran


def test_cli_refuses_a_bad_scheduler_with_one_line(convbound):
    code, out, err = _cli(convbound, "verify", "FAST.T2", "--scheduler", "dask://x")
    assert code == 2 and "tcp://HOST:PORT" in err and "Traceback" not in err


def test_cli_start_up_does_not_import_dask():
    code = ("import sys, reports.cli.main as m; m._register_all(); "
            "bad = [n for n in ('dask', 'distributed') if n in sys.modules]; print(bad); sys.exit(1 if bad else 0)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_cli_interrupt_exits_130(monkeypatch, convbound):
    import verify.suite

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(verify.suite, "run_suite", interrupted)
    code, _, err = _cli(convbound, "verify", "FAST.T2")
    assert code == 130 and "interrupted" in err


def test_a_group_gives_the_same_numbers_alone_or_with_others():
    """Seeds: each group derives its streams from the base seed and its own fixed offsets (today's rule,
    kept), so selecting a subset or another order does not change a group's numbers."""
    from verify.suite import run_suite

    alone = [v.to_dict() for v in run_suite(["F3AST.LB.5"], quick=True, device="cpu", seed=5)]
    both = [v.to_dict() for v in run_suite(["F3AST.naive.control", "F3AST.LB.5"], quick=True, device="cpu", seed=5)]
    ids = {r["id"] for r in alone}
    assert _numbers(alone) == _numbers([r for r in both if r["id"] in ids])


def test_cli_says_how_many_groups_are_missing(monkeypatch, convbound):
    from verify import suite

    real = suite.registry()

    def broken(ctx):
        raise RuntimeError("simulated crash")

    monkeypatch.setattr(suite, "registry", lambda: {**real, "F3AST.LB.5": broken})
    code, out, err = _cli(convbound, "verify", "F3AST.LB.5", "F3AST.naive.control", "--quick", "--json")
    assert code == 1 and "1 of 2 check groups did not complete (F3AST.LB.5)" in err
    assert any(r["notes"][0].startswith("INCOMPLETE:") for r in json.loads(out) if r["id"] == "F3AST.LB.5")


def test_workers_are_spawned_for_cuda_tasks_and_forked_for_cpu_ones():
    import sys as _sys

    from verify.runtime.executor import _start_method

    cpu = [Task("builtins:dict", {"device": "cpu"}, "a")]
    gpu = [Task("builtins:dict", {"device": "cuda:0"}, "b")]
    assert _start_method(gpu) == "spawn"
    assert _start_method(cpu) == ("fork" if _sys.platform == "linux" else "spawn")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork: POSIX only")
def test_a_forked_child_writes_through_streams_of_its_own():
    """After a fork-started local cluster registers its hook, a forked child's sys.stderr and the logging handlers
    that wrote to the parent's are new objects on fd 2: a buffer lock another parent thread held at the fork
    cannot block the child's first log line."""
    import logging

    from verify.runtime.executor import _fresh_streams_in_forked_children

    handler = logging.StreamHandler(sys.stderr)
    logger = logging.getLogger("convbound-test-fork")
    logger.addHandler(handler)
    parent_stream = sys.stderr
    _fresh_streams_in_forked_children()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report what it sees, then leave without running the parent's clean-up
        ok = sys.stderr is not parent_stream and handler.stream is sys.stderr and sys.stderr.fileno() == 2
        os.write(write, b"1" if ok else b"0")
        os._exit(0)
    os.close(write)
    try:
        assert os.read(read, 1) == b"1"
    finally:
        os.close(read)
        os.waitpid(pid, 0)
        logger.removeHandler(handler)
    assert sys.stderr is parent_stream  # the parent keeps its own


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork: POSIX only")
def test_a_forked_child_reopens_a_file_handlers_file_appending(tmp_path):
    """A logging file handler's file object is not the parent's in a forked child (its buffer lock may have been
    held at the fork): the child's next record reopens the file, appending, and the parent's lines stay."""
    import logging

    from verify.runtime.executor import _fresh_streams_in_forked_children

    log = tmp_path / "run.log"
    handler = logging.FileHandler(log, mode="w")
    logger = logging.getLogger("convbound-test-fork-file")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.info("parent line")
    parent_stream = handler.stream
    _fresh_streams_in_forked_children()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        fresh = handler.stream is None and handler.mode == "a"
        logger.info("child line")
        ok = fresh and handler.stream is not parent_stream
        handler.flush()
        os.write(write, b"1" if ok else b"0")
        os._exit(0)
    os.close(write)
    try:
        assert os.read(read, 1) == b"1"
        os.waitpid(pid, 0)
        assert log.read_text().splitlines() == ["parent line", "child line"]  # appended, not truncated ("w")
        assert handler.stream is parent_stream and handler.mode == "w"  # the parent keeps its own
    finally:
        os.close(read)
        logger.removeHandler(handler)
        handler.close()
