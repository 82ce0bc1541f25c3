"""Run independent tasks in this process, on a local Dask cluster, or on an existing one.

**Setting**: a sweep is a list of :class:`Task` (a function named by its import path, plain keyword
arguments, the plugin files the worker must load). Everything heavy is rebuilt inside the task from
its arguments, so a task's value does not depend on where it ran.
**Quantity**: one :class:`Outcome` per task, in task order: ``ok`` with the value, ``failed`` with the
error and the task's inputs, or ``cancelled``; :func:`summary` says how many are missing.
**Algorithm**: ``scheduler`` None/``"inprocess"`` runs the tasks one after the other here;
``"local"`` (or ``workers`` given) starts ``LocalCluster(n_workers, threads_per_worker=1,
processes=True)`` (workers forked after importing the tasks' modules on Linux for CPU work, spawned
otherwise); ``"tcp://host:port"`` connects to a running scheduler. Tasks whose worker dies are
rescheduled by Dask (``distributed.scheduler.allowed-failures``); one that still fails (``KilledWorker``
or a lost connection) is resubmitted up to ``retries`` more times, then marked ``failed``. Ctrl-C
cancels every future, closes the client and the cluster, and raises ``KeyboardInterrupt``.
Seeds travel in a task's kwargs, drawn by the caller from ``bounds.core.seeds`` streams, never by the worker.
Dask is imported only inside :func:`run_tasks` (the CLI's start-up stays fast).
"""

from __future__ import annotations

import contextlib
import re
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

from bounds.core.errors import UserInputError, clip

INPROCESS = "inprocess"
#: The most worker processes ``--workers`` may ask for. Why a limit beyond the cap at the cores: a count
#: such as 2**63 is no machine's size but a typing mistake (and used to reach Dask); anything up to this
#: is accepted and capped at the cores available, with a note (``local_workers``).
MAX_WORKERS = 1024
LOCAL = "local"
# errors that mean the worker (not the task) failed: worth another attempt
_LOST = ("KilledWorker", "CommClosedError", "FutureCancelledError", "StreamClosedError", "CancelledError")


@dataclass(frozen=True)
class Task:
    """One unit of work: ``fn`` ("package.module:function") called with ``kwargs`` in a worker.

    ``kwargs`` holds plain picklable values (points, ids, counts, seeds), never tensors or open files;
    ``key`` labels the task in progress and error messages; ``plugins`` are plugin files the worker
    loads before calling ``fn`` (so it sees the same registries as the caller); ``priority`` orders
    the start on a cluster only.
    """

    fn: str
    kwargs: Mapping[str, Any]
    key: str
    plugins: tuple[str, ...] = ()
    priority: int = 0  # higher starts first on a cluster (long tasks first balance the workers); never
    # changes a value


@dataclass(frozen=True)
class Outcome:
    """What became of one task: ``status`` is ``ok``, ``failed`` or ``cancelled``.

    ``error`` is the last line of the exception (empty when ok), ``detail`` its traceback, ``inputs``
    the task's kwargs (to rerun it), ``attempts`` how many times this client submitted it.
    """

    key: str
    status: str
    value: Any = None
    error: str = ""
    attempts: int = 1
    inputs: Mapping[str, Any] = field(default_factory=dict)
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def describe(self) -> str:
        """One line naming the task, its inputs and what went wrong."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.inputs.items())
        return f"task {self.key} ({args}) {self.status} after {self.attempts} attempt(s): {self.error}"


def resolve(fn: str) -> Callable[..., Any]:
    """The function named ``package.module:function``."""
    module, sep, name = fn.partition(":")
    if not sep or not module or not name:
        raise UserInputError(f"task function {fn!r} must be 'package.module:function'")
    try:
        return getattr(import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise UserInputError(f"task function {fn!r} cannot be imported ({exc})") from None


def load_plugins(paths: Sequence[str]) -> None:
    """Load plugin files in this process (a worker), as ``--plugin`` does in the client."""
    if paths:
        from bounds.plugins import add_files

        add_files(tuple(paths))


def call(task: Task) -> Any:
    """Run one task here: load its plugins, import its function, call it (what a worker executes)."""
    load_plugins(task.plugins)
    return resolve(task.fn)(**dict(task.kwargs))


def check_scheduler(scheduler: str | None, workers: int | None) -> str:
    """The scheduler kind after validation: ``inprocess``, ``local`` or a ``tcp://HOST:PORT`` address.

    Refused: ``workers`` below 1; ``workers`` with ``inprocess`` named (one process, no workers) or
    with a ``tcp://`` cluster (it has its own); an address without a host or a port in 1..65535.
    """
    if workers is not None and (isinstance(workers, bool) or int(workers) != workers or workers < 1):
        raise UserInputError(f"workers={workers} must be an integer >= 1", param="workers")
    if workers is not None and workers > MAX_WORKERS:
        raise UserInputError(f"workers={clip(workers)} is above {MAX_WORKERS}, the most a local cluster is asked for "
                             "(verify.runtime.executor.MAX_WORKERS; more are capped at the CPU cores anyway); for a "
                             "larger cluster use --scheduler tcp://HOST:PORT", param="workers")
    kind = (scheduler or "").strip()
    if kind == INPROCESS and workers is not None:
        raise UserInputError(f"--scheduler inprocess runs every task in this process; --workers {workers} needs "
                             "--scheduler local (or drop --workers)")
    if kind in ("", INPROCESS):
        return LOCAL if workers is not None else INPROCESS
    if kind == LOCAL:
        return LOCAL
    if kind.startswith("tcp://"):
        if workers is not None:
            raise UserInputError("--workers applies to a local cluster; an existing cluster (--scheduler tcp://...) "
                                 "has its own workers")
        match = re.fullmatch(r"tcp://([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})", kind)
        if not match or not 1 <= int(match.group(2)) <= 65535:
            raise UserInputError(f"--scheduler {clip(scheduler)} is not an address; give tcp://HOST:PORT with a port "
                                 "in 1..65535, e.g. tcp://127.0.0.1:8786")
        return kind
    hint = " (an address starts with tcp:// and ends with :PORT)" if re.fullmatch(r"[\w.:\[\]-]+", kind) else ""
    raise UserInputError(f"scheduler={clip(scheduler)} is not a scheduler{hint}; use inprocess, local or "
                         "tcp://HOST:PORT", param="scheduler")


def local_workers(workers: int | None) -> tuple[int, str]:
    """Worker processes a local cluster starts, and a note when fewer than asked.

    ``workers`` (default 2) is capped at the CPU cores this process may run on: CPU-bound tasks gain
    nothing from more processes than cores (a thousand workers on 2 cores took minutes to start and
    kept the load near 40), and ``--workers 10**6`` would never finish starting. The note says so;
    it is empty when nothing was capped or the default was trimmed silently on a 1-core machine.
    """
    import os

    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    asked = 2 if workers is None else int(workers)
    count = max(1, min(asked, cores))
    note = ""
    if workers is not None and count < asked:
        note = (f"--workers {clip(asked)} capped at {count}, the CPU cores available here (a local cluster gains "
                "nothing from more processes than cores; a larger cluster: --scheduler tcp://HOST:PORT)")
    return count, note


def summary(outcomes: Sequence[Outcome]) -> str:
    """``all N tasks completed`` or ``N of M tasks missing (failed: ..., cancelled: ...)``."""
    bad = [o for o in outcomes if not o.ok]
    if not bad:
        return f"all {len(outcomes)} tasks completed"
    failed = [o.key for o in bad if o.status == "failed"]
    cancelled = [o.key for o in bad if o.status == "cancelled"]
    parts = ([f"failed: {', '.join(failed)}"] if failed else []) + ([f"cancelled: {', '.join(cancelled)}"]
                                                                      if cancelled else [])
    return f"{len(bad)} of {len(outcomes)} tasks missing ({'; '.join(parts)})"


Progress = Callable[[int, int, str], None]


def run_tasks(tasks: Sequence[Task], *, scheduler: str | None = None, workers: int | None = None,
              progress: bool | Progress = True, retries: int = 1) -> list[Outcome]:
    """Run ``tasks`` and return one :class:`Outcome` per task, in task order.

    Args:
        tasks: the work; each task's value must not depend on where it runs.
        scheduler: None or ``"inprocess"`` (here, one after the other), ``"local"`` (a local cluster of
            ``workers`` processes, default 2), or ``"tcp://host:port"`` (an existing cluster).
        workers: worker processes of a local cluster; given alone, it implies ``"local"``.
        progress: True draws a bar on stderr that follows completions; a callable is called as
            ``progress(done, total, key)`` after each completion (and ``(0, total, "")`` first).
        retries: extra submissions of a task whose worker was lost (not of a task that raised).

    A task that raises is ``failed`` with its inputs and the rest still run; nothing is dropped.
    """
    tasks = list(tasks)
    kind = check_scheduler(scheduler, workers)
    if int(retries) != retries or retries < 0:
        raise UserInputError(f"retries {retries} must be a non-negative integer")
    for t in tasks:
        if not isinstance(t, Task):
            raise TypeError(f"run_tasks needs Task objects, got {type(t).__name__}")
    with _Bar(progress, len(tasks)) as tick:
        if kind == INPROCESS:
            return _run_inprocess(tasks, tick)
        return _run_dask(tasks, kind, workers, retries, tick)


class _Bar:
    """Progress as a callback: a rich bar on stderr, the caller's function, or nothing."""

    def __init__(self, progress: bool | Progress, total: int):
        self.progress, self.total, self.done = progress, total, 0
        self._bar: Any = None
        self._id: Any = None

    def __enter__(self) -> Callable[[str], None]:
        if callable(self.progress):
            self.progress(0, self.total, "")
        elif self.progress:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            console = Console(stderr=True)
            # drawn on a terminal only: off one, a transient bar still ends with a blank line on stderr
            self._bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                 TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                                 console=console, transient=True, disable=not console.is_terminal)
            self._bar.start()
            self._id = self._bar.add_task("tasks", total=self.total)
        return self.tick

    def tick(self, key: str) -> None:
        self.done += 1
        if callable(self.progress):
            self.progress(self.done, self.total, key)
        elif self._bar is not None:
            from rich.markup import escape

            self._bar.update(self._id, completed=self.done, description=f"done {escape(key)}")

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.stop()


def _failure(task: Task, exc: BaseException, attempts: int, tb: str = "") -> Outcome:
    line = f"{type(exc).__name__}: {exc}".strip()
    return Outcome(task.key, "failed", None, line, attempts, dict(task.kwargs), tb)


def _run_inprocess(tasks: list[Task], tick: Callable[[str], None]) -> list[Outcome]:
    out: list[Outcome] = []
    for task in tasks:
        try:
            out.append(Outcome(task.key, "ok", call(task), inputs=dict(task.kwargs)))
        except UserInputError:
            raise  # the person's mistake (a bad id or option): one line, not a failed task
        except Exception as exc:  # one broken task must not stop the sweep
            out.append(_failure(task, exc, 1, traceback.format_exc()))
        tick(task.key)
    return out


@contextlib.contextmanager
def session(scheduler: str | None, workers: int | None, tasks: Sequence[Task] = ()) -> Iterator[str | None]:
    """A scheduler string for many :func:`run_tasks` calls (a search's generations): a local cluster is
    started once here and its address handed out, instead of one cluster per call.

    Yields ``None`` for in-process, else a ``tcp://`` address (with a local cluster, ``workers`` is then
    already spent: pass ``workers=None`` to ``run_tasks``). ``tasks`` are samples of the work (they choose fork or spawn for the workers).
    """
    kind = check_scheduler(scheduler, workers)
    if kind != LOCAL:
        yield None if kind == INPROCESS else kind
        return
    client, cluster = _connect(kind, workers, tasks)
    try:
        yield cluster.scheduler_address
    finally:
        client.close()
        cluster.close()


def _connect(kind: str, workers: int | None, tasks: Sequence[Task] = ()):
    import logging

    import dask
    from distributed import Client, LocalCluster

    if kind == LOCAL:
        method = _start_method(tasks)
        if method == "fork":
            _fresh_streams_in_forked_children()
            # import the tasks' modules here, then fork the workers from this process: they start with
            # everything loaded (spawned workers would each import torch, sympy, ... again: seconds each)
            for fn in {t.fn.partition(":")[0] for t in tasks}:
                import_module(fn)
        with dask.config.set({"distributed.worker.multiprocessing-method": method}):
            cluster = LocalCluster(n_workers=local_workers(workers)[0], threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=logging.ERROR)
        try:
            return Client(cluster), cluster
        except BaseException:
            cluster.close()
            raise
    check_reachable(kind)
    try:
        return Client(kind, timeout="20s"), None
    except OSError as exc:
        raise UserInputError(f"--scheduler {kind}: cannot connect ({exc}); is a Dask scheduler running there?") \
            from None


#: Seconds to wait for a TCP connection to a ``--scheduler`` host before saying it cannot be reached.
CONNECT_TIMEOUT_S = 3.0


def check_reachable(address: str) -> None:
    """Refuse a ``tcp://HOST:PORT`` that does not accept a TCP connection within :data:`CONNECT_TIMEOUT_S`.

    Why before Dask: its client retries for its whole timeout (20 s) and then blames a timeout, even
    when the host name does not resolve or the port refuses at once.
    """
    import socket

    host, _, port = address[len("tcp://"):].rpartition(":")
    host = host.strip("[]")
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S):
            return
    except socket.gaierror:
        why = "the host name does not resolve"
    except ConnectionRefusedError:
        why = "nothing listens on that port (connection refused)"
    except TimeoutError:
        why = f"no answer within {CONNECT_TIMEOUT_S:g} s"
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
    raise UserInputError(f"--scheduler {address} cannot be reached: {why}; start one there with 'dask scheduler' "
                         "or check the address")


_STREAMS_HOOKED: list[bool] = []


def _fresh_streams_in_forked_children() -> None:
    """Give every process forked from here new ``sys.stdout``/``sys.stderr`` objects on fds 1 and 2 (and point the
    logging handlers that wrote to the old ones at them).

    Why: a fork copies the locks of the parent's stream buffers as they are; if another thread of the parent (the
    cluster's event loop, a progress bar) was writing at that moment, the child's first log line waits forever
    on a lock no thread will release (seen once: a Dask worker hung in a logging flush). A file handler's file is
    reopened by the child on its next record, appending. Registered once.
    """
    import os

    if not _STREAMS_HOOKED:
        os.register_at_fork(after_in_child=_new_std_streams)
        _STREAMS_HOOKED.append(True)


def _new_std_streams() -> None:
    import io
    import logging
    import sys

    old = {1: {id(sys.stdout), id(sys.__stdout__)}, 2: {id(sys.stderr), id(sys.__stderr__)}}
    fresh: dict[int, io.TextIOWrapper] = {}
    for fd, name in ((1, "stdout"), (2, "stderr")):
        try:
            fresh[fd] = io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding="utf-8",
                                         errors="backslashreplace", line_buffering=True)
        except OSError:  # no such descriptor in this process: nothing to replace
            continue
        setattr(sys, name, fresh[fd])
    loggers = [logging.getLogger(), *(lg for lg in logging.Logger.manager.loggerDict.values()
                                      if isinstance(lg, logging.Logger))]
    for handler in (h for lg in loggers for h in lg.handlers):
        if isinstance(handler, logging.FileHandler):
            # its file object's buffer lock was copied as the parent held it (a Dask worker hung in a FileHandler's
            # flush, seen once in the suite): reopened on its next record, appending (never truncating the file)
            handler.stream, handler.mode = None, "a"  # type: ignore[assignment]
        elif isinstance(handler, logging.StreamHandler):
            for fd, ids in old.items():
                if id(handler.stream) in ids and fd in fresh:
                    handler.stream = fresh[fd]  # not setStream: its flush of the old stream could wait too


def _start_method(tasks: Sequence[Task]) -> str:
    """``fork`` on Linux for CPU work (fast start); ``spawn`` where CUDA is in play or fork is unsafe."""
    import sys

    if sys.platform != "linux":
        return "spawn"
    if any(str(t.kwargs.get("device", "")).startswith("cuda") for t in tasks):
        return "spawn"  # a forked child cannot use CUDA once the parent may have touched it
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        return "spawn"
    return "fork"


def _run_dask(tasks: list[Task], kind: str, workers: int | None, retries: int,
              tick: Callable[[str], None]) -> list[Outcome]:
    from distributed import as_completed

    client, cluster = _connect(kind, workers, tasks)
    outcomes: list[Outcome | None] = [None] * len(tasks)
    attempts = [0] * len(tasks)
    where: dict[str, int] = {}
    futures: list[Any] = []

    def submit(i: int):
        attempts[i] += 1
        # pure=False: a resubmission is a new key, never the cached failure
        fut = client.submit(call, tasks[i], pure=False, key=f"convbound-task-{i}-{attempts[i]}",
                            priority=tasks[i].priority)
        where[fut.key] = i
        futures.append(fut)
        return fut

    try:
        # submitted highest priority first: an idle worker starts the first task it receives
        first = sorted(range(len(tasks)), key=lambda i: -tasks[i].priority)
        pending = as_completed([submit(i) for i in first])
        for fut in pending:
            i = where[fut.key]
            task = tasks[i]
            if fut.status == "finished":
                try:
                    outcomes[i] = Outcome(task.key, "ok", fut.result(), attempts=attempts[i], inputs=dict(task.kwargs))
                except Exception as exc:  # the value could not come back (e.g. the worker died meanwhile)
                    outcomes[i] = _failure(task, exc, attempts[i])
            else:
                err = fut.exception()
                if type(err).__name__ in _LOST and attempts[i] <= retries:
                    pending.add(submit(i))
                    continue
                tb = "".join(traceback.format_tb(fut.traceback())) if fut.traceback() is not None else ""
                outcomes[i] = _failure(task, err, attempts[i], tb)
            fut.release()
            tick(task.key)
    except KeyboardInterrupt:
        client.cancel(futures, force=True)
        raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return [o if o is not None else Outcome(t.key, "cancelled", inputs=dict(t.kwargs), error="not run")
            for o, t in zip(outcomes, tasks)]
