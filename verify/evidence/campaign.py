"""A campaign: for each result, gather the evidence the user's store lacks, cheapest decisive first, and keep it.

**Setting**: results (registry keys), the user's store (``verify.evidence.store``), a seed, a per-result
search budget and time limit, an executor (``verify.runtime.executor``: in-process or Dask).
**Algorithm** (:func:`run_campaign`): for each result, the pieces of ``verify.evidence.pieces.plan`` whose label
the store lacks at this seed (fresh formula hash, this scoring code) run in order; after each piece its
records are written in one transaction, so SIGINT or a crash loses at most the piece then running, and a
rerun skips every finished one. Gathering for a result stops once the user's store refutes it (refuted or
refuted unless: the one rule of ``verify.decision`` over the store's records alone, never the shipped
store: a campaign finds what it reports by itself) or once its pieces have used ``time_limit`` CPU seconds
(the pieces' own process time, so that what a campaign gathers does not depend on what else the machine
runs; the piece then running finishes, and the search gets what is left as its wall-clock limit). In-process the results run one after the other; on Dask each round sends the next
piece of every result still gathering, and the client writes what comes back (one writer per store).
**Interrupts**: a SIGINT is latched (:class:`_Latch`) as well as raised, and the latch is read at every piece
boundary, where the campaign raises KeyboardInterrupt itself after the finished pieces are written: an interrupt
raised where CPython drops exceptions (a finalizer or weakref callback, "Exception ignored in ...") still stops it.
A process that ignores SIGINT keeps ignoring it: a command started as a background job of a non-interactive shell
(``cmd &`` in a script) inherits SIG_IGN, and so do its children. That, not a dropped exception, was the cause found
for the interrupted campaigns that once finished with status 0 in about 1 test run in 5 (the tests ran as such a
job; their child campaign now answers SIGINT explicitly).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verify.evidence.pieces import Piece, pending, plan
from verify.evidence.store import Store, StoredRecord


@dataclass(frozen=True)
class CampaignOptions:
    """``seed`` (of every seeded piece), ``budget`` (search points per scenario), ``time_limit`` (CPU seconds
    of gathering per result), ``points`` (evaluations per orders ray), ``scheduler`` / ``workers`` (executor)."""

    seed: int = 0
    budget: int = 100
    time_limit: float = 120.0
    points: int = 6
    scheduler: str | None = None
    workers: int | None = None


@dataclass
class CampaignLog:
    """What a campaign did: pieces ``gathered``, ``skipped`` (already in the store), ``refused`` (one line each),
    ``failed`` (one line each), ``stopped`` (result -> why gathering stopped early), ``seconds`` (CPU seconds
    of the pieces) per result."""

    gathered: int = 0
    skipped: int = 0
    refused: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    stopped: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


Progress = Callable[[int, int, str], None]


def done_labels(store: Store, seed: int) -> set[str]:
    """Labels of the pieces the store has: fresh records of this scoring code, at ``seed`` (or unseeded)."""
    from verify.evidence.keys import code_version
    from verify.evidence.store import fresh_ones

    version = code_version()
    return {r.piece for r in fresh_ones(r for r in store.records()
                                        if r.code_version == version and r.piece and r.seed in (None, seed))}


def refuted_by(store: Store, key: str) -> str:
    """The user's store's outcome for ``key`` when it refutes it (refuted, refuted unless ...), else ""."""
    from bounds.registry import get
    from verify.decision import REFUTED, REFUTED_UNLESS, decision_of
    from verify.decision_sources import gather
    from verify.evidence.records import StoredEvidence, evidence_by_result

    ev = evidence_by_result(store.records(result_key=key)).get(key, StoredEvidence())
    d = decision_of(gather(get(key), [], [], ev))
    return d.outcome if d.word in (REFUTED, REFUTED_UNLESS) else ""


def run_campaign(keys: Sequence[str], store_path: Path, options: CampaignOptions,
                 progress: Progress | None = None) -> CampaignLog:
    """Gather and keep the missing evidence of ``keys`` (module docstring); KeyboardInterrupt propagates after
    every finished piece is written."""
    from verify.runtime.executor import check_scheduler, session

    log = CampaignLog()
    with _latched() as latch, Store(store_path) as store:
        done = done_labels(store, options.seed)
        todo = {}
        for key in keys:
            every = plan(key, budget=options.budget)
            todo[key] = pending(every, done)
            log.skipped += len(every) - len(todo[key])
        total = sum(len(p) for p in todo.values())
        tick = _ticker(progress, total, latch)
        if check_scheduler(options.scheduler, options.workers) == "inprocess":
            for key in keys:
                _one_result(store, key, todo[key], options, log, tick, done)
            return log
        with session(options.scheduler, options.workers) as where:
            _rounds(store, todo, options, log, tick, done, where)
    return log


class _Latch:
    """Whether a SIGINT arrived during the campaign (module docstring, **Interrupts**)."""

    hit: bool = False

    def check(self) -> None:
        if self.hit:
            raise KeyboardInterrupt


@contextmanager
def _latched() -> Iterator[_Latch]:
    """A SIGINT handler that latches and then raises as Python's default one does; the previous one is put back.
    Off the main thread (a caller's worker thread), signals are not ours to handle, and a process that ignores
    SIGINT (started in the background by a shell, ``nohup``) keeps ignoring it: the latch stays unset."""
    latch = _Latch()
    if threading.current_thread() is not threading.main_thread():
        yield latch
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.SIG_IGN:
        yield latch
        return

    def on_sigint(signum: int, frame: Any) -> None:
        latch.hit = True
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)
    try:
        yield latch
    finally:  # None: a handler not set from Python; Python's default one then
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)


def _ticker(progress: Progress | None, total: int, latch: _Latch) -> Callable[[str], None]:
    """Counts finished pieces for ``progress``; at each piece boundary, raises a latched interrupt."""
    count = [0]
    if progress is not None:
        progress(0, total, "")

    def tick(label: str) -> None:
        count[0] += 1
        if progress is not None:
            progress(count[0], total, label)
        latch.check()

    return tick


def _stop(store: Store, key: str, elapsed: float, options: CampaignOptions, log: CampaignLog) -> bool:
    """Gathering for ``key`` ends: the store refutes it, or its time is used (said in ``log.stopped``)."""
    outcome = refuted_by(store, key)
    if outcome:
        log.stopped[key] = f"{outcome} (gathering stops at a refutation)"
    elif elapsed >= options.time_limit:
        log.stopped[key] = f"time limit of {options.time_limit:g} CPU s per result used; rerun to continue"
    return bool(outcome) or elapsed >= options.time_limit


def _one_result(store: Store, key: str, pieces: list[Piece], options: CampaignOptions, log: CampaignLog,
                tick: Callable[[str], None], done: set[str]) -> None:
    from verify.runtime.executor import run_tasks

    spent = 0.0
    for i, piece in enumerate(pieces):
        if piece.label in done:  # gathered for another result in this campaign (a shared worst case)
            tick(piece.label)
            continue
        if _stop(store, key, spent, options, log):
            for p in pieces[i:]:
                tick(p.label)
            break
        outcome = run_tasks([_task(piece, options, options.time_limit - spent)], progress=False)[0]
        spent += _keep(store, piece, outcome, log, done)
        tick(piece.label)
    log.seconds[key] = round(spent, 2)


def _rounds(store: Store, todo: dict[str, list[Piece]], options: CampaignOptions, log: CampaignLog,
            tick: Callable[[str], None], done: set[str], where: Any) -> None:
    """On Dask: each round sends the next piece of every result still gathering; the client writes the records."""
    from verify.runtime.executor import run_tasks

    spent = {k: 0.0 for k in todo}
    queues = {k: list(v) for k, v in todo.items()}
    while any(queues.values()):
        batch: list[Piece] = []
        for key, queue in queues.items():
            while queue and queue[0].label in done:
                tick(queue.pop(0).label)
            if queue and _stop(store, key, spent[key], options, log):
                for p in queue:
                    tick(p.label)
                queue.clear()
            if queue:
                batch.append(queue.pop(0))
        if not batch:
            break
        outcomes = run_tasks([_task(p, options, options.time_limit - spent[p.key]) for p in batch], scheduler=where,
                             progress=False)
        for piece, outcome in zip(batch, outcomes, strict=True):
            spent[piece.key] += _keep(store, piece, outcome, log, done)
            tick(piece.label)
    for key, s in spent.items():
        log.seconds[key] = round(s, 2)


def _task(piece: Piece, options: CampaignOptions, remaining: float) -> Any:
    from bounds.plugins import files
    from verify.runtime.executor import Task

    kwargs = {"kind": piece.kind, "key": piece.key, "label": piece.label, "seed": options.seed,
              "args": dict(piece.args), "budget": options.budget, "time_limit": max(remaining, 1.0),
              "points": options.points}
    return Task("verify.evidence.pieces:run_piece", kwargs, key=piece.label, plugins=tuple(files()))


def _keep(store: Store, piece: Piece, outcome: Any, log: CampaignLog, done: set[str]) -> float:
    """Write a finished piece's records (one transaction) and remember its label; say a refused or failed one.
    Returns the CPU seconds the piece used (0 for a failed task: its worker's time is not known)."""
    if not outcome.ok:
        log.failed.append(f"{piece.label}: {outcome.error}")
        return 0.0
    if outcome.value["refused"]:
        log.refused.append(f"{piece.label}: {outcome.value['refused']}")
        return float(outcome.value["cpu_s"])
    store.add(StoredRecord(**{k: v for k, v in r.items() if k != "source"}) for r in outcome.value["records"])
    done.add(piece.label)
    log.gathered += 1
    return float(outcome.value["cpu_s"])
