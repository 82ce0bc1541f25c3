"""Limits on a user's code and on the check's sizes: time per round and per import, counts before allocation.

**Why**: conformance runs code it did not write. A round that sleeps, loops, exits or raises anything
(``SystemExit`` and other ``BaseException`` included) must end the check with one line that says what happened,
never a hang, a traceback or another exit status; a count that cannot fit is refused before any work.

* Time: :func:`time_limit` arms a real-time timer (``SIGALRM``) around one call of the user's code; when it fires,
  :class:`TimeUp` (a ``BaseException``, so that a user's ``except Exception`` does not swallow it) is raised inside
  that code. Python code (a sleep, a loop) is interrupted at once; a single long call into C (one huge matrix
  product) only when it returns. Signals reach the main thread only: called from another thread, the check runs
  without a time limit (said in :data:`NO_TIMER`).
* Sizes: :func:`check_sizes` refuses rounds above :data:`MAX_ROUNDS`, trials above :data:`MAX_TRIALS`, and a check
  whose per-trial records would hold more than :data:`MEMORY_BYTES`.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

from bounds.core.errors import SizeRefused, UserInputError

ROUND_SECONDS = 60.0  # default limit on one call of a user's round (function: one trial; torch: all trials)
IMPORT_SECONDS = 60.0  # default limit on importing a user's module (the CLI's FILE.py:NAME)
MAX_SECONDS = 3600.0
MAX_ROUNDS = 1000  # rounds per scenario: the exact reference and the user's code both run every round
MAX_TRIALS = 1_000_000
MEMORY_BYTES = 1 << 30  # the per-trial records of one scenario (float64) and their working copies
NO_TIMER = "not the main thread: a user's code runs without a time limit"


class TimeUp(BaseException):
    """Raised inside a user's code when its time limit is over (a BaseException: ``except Exception`` in the
    user's code does not catch it)."""

    def __init__(self, seconds: float):
        super().__init__(f"ran past the time limit of {seconds:g} s")
        self.seconds = seconds


def check_seconds(name: str, seconds: float) -> float:
    """UserInputError unless ``seconds`` is a limit in (0, MAX_SECONDS]."""
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        raise UserInputError(f"{name}={seconds!r} must be a number of seconds in (0, {MAX_SECONDS:g}]",
                             param=name) from None
    if not 0 < value <= MAX_SECONDS:
        raise UserInputError(f"{name}={seconds!r} must be a number of seconds in (0, {MAX_SECONDS:g}]", param=name)
    return value


def timer_available() -> bool:
    """True where :func:`time_limit` can interrupt (the main thread of a platform with SIGALRM)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Run the body with a limit of ``seconds`` (raises :class:`TimeUp` inside it when over); no limit where
    :func:`timer_available` is False. The caller's handler and timer are restored afterwards."""
    if not timer_available():
        yield
        return

    def _fire(signum: int, frame: object) -> None:
        raise TimeUp(seconds)

    old = signal.signal(signal.SIGALRM, _fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def check_sizes(trials: int, rounds: int, d: int = 2, quantities: int = 5) -> None:
    """Refuse (one line) counts that cannot fit, before any work: rounds in [1, MAX_ROUNDS], trials in
    [20, MAX_TRIALS], and (rounds + 1) x trials x (quantities + d) float64 values, twice (records and a working
    copy), at most MEMORY_BYTES."""
    if int(rounds) != rounds or not 1 <= rounds <= MAX_ROUNDS:
        raise UserInputError(f"rounds={rounds} must be an integer in [1, {MAX_ROUNDS}] (rounds per scenario)",
                             param="rounds")
    if int(trials) != trials or not 20 <= trials <= MAX_TRIALS:
        raise UserInputError(f"trials={trials} must be an integer in [20, {MAX_TRIALS:,}] (the test's normal "
                             f"approximation needs a sample)", param="trials")
    need = 2 * 8 * (int(rounds) + 1) * int(trials) * (quantities + d)
    if need > MEMORY_BYTES:
        raise SizeRefused(f"trials={trials} x rounds={rounds} would hold about {need / 2**30:.1f} GiB of per-trial "
                          f"records (> {MEMORY_BYTES / 2**30:g} GiB); lower trials or rounds", param="trials")


def describe_failure(what: str, e: BaseException) -> str:
    """One line for a user's code that failed: a time limit, an exit, or an exception with its (flattened,
    clipped) text; a text that cannot be read is said so."""
    if isinstance(e, TimeUp):
        return f"{what} {e.args[0]}"
    if isinstance(e, SystemExit):
        return f"{what} called exit ({e.code!r}); a round must return the new model"
    try:
        text = " ".join(str(e).split())[:160]
    except BaseException:  # noqa: BLE001 (a user's exception whose __str__ fails)
        text = "(its message could not be read)"
    return f"{what} raised {type(e).__name__}: {text}"
