"""Helpers shared by the command modules: KEY=VALUE parsing, names, seeds, markup escaping, JSON output,
and atomic writes that replace only regular files.

Light on purpose (click, the standard library, ``bounds.core.errors``): every command module imports it
at start-up.
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import click

from bounds.core.errors import UserInputError
from bounds.core.filemode import created_mode
from reports.jsonable import strict_json


def parse_assignments(items: Iterable[str]) -> dict[str, str]:
    """Split ``KEY=VALUE`` words into a dict of raw strings (values are parsed by their owner)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise UserInputError(f"expected KEY=VALUE, got {item!r} (for example L=1 or eta_c=0.005)")
        if key in out:
            raise UserInputError(f"{key} given twice ({out[key]!r} and {value!r})")
        out[key] = value
    return out


def parse_number(key: str, text: str) -> float:
    """A finite float from user text, with a message that names the key when it is not one."""
    try:
        value = float(text)
    except ValueError:
        raise UserInputError(f"{key}={text!r} is not a number (for example {key}=0.5 or {key}=1e-3)") from None
    if not math.isfinite(value):
        raise UserInputError(f"{key}={text} is not allowed; give a finite number")
    return value


# Seeds: numpy's SeedSequence takes any non-negative integer, torch's generator a signed 64-bit one;
# the range both accept (and that JSON readers keep exactly enough to replay) is 0 <= seed < 2^63.
SEED_MAX = 2**63 - 1
SEED = click.IntRange(0, SEED_MAX)


def seed_option(*names: str, help: str = "Seed (0 <= seed < 2^63).") -> Callable[[Any], Any]:
    """A ``--seed``-style option that refuses negative seeds and seeds beyond 2^63 - 1 (exit 2)."""
    return click.option(*(names or ("--seed",)), type=SEED, default=0, show_default=True, help=help)


class _Finite(click.ParamType):
    """A float option that must be finite (click's FLOAT takes 'nan' and 'inf')."""

    name = "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float) and math.isfinite(value):
            return value
        try:
            x = float(value)
        except (TypeError, ValueError):
            self.fail(f"{short_text(value)!r} is not a number", param, ctx)
        if not math.isfinite(x):
            self.fail(f"{value} is not allowed; give a finite number", param, ctx)
        return x


FINITE = _Finite()

# counts (trials, rounds, runs, clients): at least 1; absurd sizes are refused by bounds.core.limits
COUNT = click.IntRange(min=1)
# a count that indexes arrays or tensors (rounds, trials of one batch): at most a signed 64-bit integer
INDEX_COUNT = click.IntRange(min=1, max=SEED_MAX)


def check_device(text: str) -> str:
    """``auto``, ``cpu``, ``cuda`` or ``cuda:N``, with the GPU present: checked before any work is done."""
    import re

    if not re.fullmatch(r"auto|cpu|cuda(:\d{1,3})?", text):
        raise UserInputError(f"--device {short_text(text)!r} is not a device; use auto, cpu, cuda or cuda:N")
    if text.startswith("cuda"):
        import torch  # only when a GPU is asked for

        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        index = int(text.partition(":")[2] or 0)
        if index >= count:
            raise UserInputError(f"--device {text}: " + (f"only {count} CUDA GPU(s) here (cuda:0..cuda:{count - 1})"
                                                         if count else "no CUDA GPU is available; use cpu or auto"))
    return text


def canonical_name(kind: str, word: str, names: Iterable[str]) -> str:
    """The registered name that ``word`` means, with hyphens and underscores taken as the same letter.

    ``amplified-fedavg`` and ``lower_bound`` find ``amplified_fedavg`` and ``lower-bound``; an
    unknown word is left as it is, for the registry's own 'unknown ... did you mean' message.
    """
    names = list(names)
    if word in names:
        return word
    folded = {n.replace("-", "_").lower(): n for n in names}
    return folded.get(word.replace("-", "_").lower(), word)


def esc(value: Any) -> str:
    """``value`` as text that rich prints literally: ``[x]^4`` or ``E[w^i]`` is not taken for markup.

    Every string that comes from data or from the user (IDs, titles, conditions, messages) goes
    through this before it is placed in a rich markup string or a table cell.
    """
    from rich.markup import escape

    return escape(str(value))


def parse_float_list(key: str, text: str) -> list[float]:
    """Comma-separated floats, e.g. ``0.3,0.5``."""
    parts = [p for p in text.split(",") if p.strip()]
    if not parts:
        raise UserInputError(f"{key} needs comma-separated numbers, e.g. 0.3,0.5")
    return [parse_number(key, p) for p in parts]


def dumps(obj: Any) -> str:
    """Strict JSON (no NaN/Infinity tokens): non-finite floats become null or "inf" (``reports.jsonable``)."""
    return strict_json(obj, indent=2)


def echo_json(obj: Any) -> None:
    click.echo(dumps(obj))


def atomic_write_text(path: str | os.PathLike[str], text: str, *, force: bool = False) -> Path:
    """Write ``text`` (UTF-8) atomically; see :func:`atomic_write_bytes`."""
    return atomic_write_bytes(path, text.encode("utf-8"), force=force)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, *, force: bool = False) -> Path:
    """Write ``data`` to ``path`` via a temporary file in the same directory and a rename.

    An existing path is replaced only with ``force`` and only when it is a regular file (never a
    device such as /dev/full, a FIFO, a symbolic link or a directory); a missing parent directory,
    a directory we may not write to, a name too long, a full disk: each is a ``UserInputError``
    (exit 2, one line), since output that was not written is an error, never a silent success.
    The temporary file is removed on any failure, an interrupt and SIGTERM included.
    """
    target = Path(path)
    check_output_path(target, force=force)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name[:200]}.", suffix=".tmp")
    except OSError as exc:
        raise UserInputError(f"cannot write {short_text(target)}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            os.fchmod(fh.fileno(), created_mode())  # mkstemp's 0600 would outlive the rename
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise UserInputError(f"cannot write {short_text(target)}: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def check_output_paths(force: bool, named: dict[str, Any]) -> None:
    """:func:`check_output_path` for each named output (flag -> path or None), and refuse two naming one file.

    Why: each output is written after the work; two flags on one path used to be found only when the
    second write met the first's file, after minutes of work.
    """
    seen: dict[str, str] = {}
    for flag, path in named.items():
        if path is None:
            continue
        check_output_path(path, force=force)
        key = os.path.realpath(os.fspath(path))
        if key in seen:
            raise UserInputError(f"{seen[key]} and {flag} name the same file {short_text(path)}; give each output "
                                 "its own path")
        seen[key] = flag


def check_output_path(path: str | os.PathLike[str], *, force: bool = False) -> Path:
    """Refuse, before any work, an output file path that cannot or must not be written.

    Refused: an existing path without ``force``; with ``force``, anything but a regular file
    (a symbolic link, a device, a FIFO, a directory); a missing parent directory; a parent that is
    not writable; a file name longer than the file system allows.
    """
    if not os.fspath(path).strip():  # Path("") is "." (the working directory): an empty --out is a mistake
        raise UserInputError("an output path is empty; give a file name (e.g. --out record.json)")
    target = Path(path)
    if os.path.lexists(target):
        # what is not a regular file is said so first: "pass --force" would be advice that cannot work
        if target.is_symlink() or not target.is_file():
            kind = "a symbolic link" if target.is_symlink() else ("a directory" if target.is_dir() else
                                                                  "not a regular file (a device or a FIFO)")
            raise UserInputError(f"{short_text(target)} is {kind}; only a regular file is written or replaced "
                                 "(--force included): choose another path")
        if not force:
            raise UserInputError(f"{short_text(target)} exists; pass --force to overwrite it")
    parent = target.parent
    if not parent.is_dir():
        raise UserInputError(f"directory {short_text(parent)} does not exist; create it or choose another path")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UserInputError(f"directory {short_text(parent)} is not writable; choose another path")
    try:
        limit = os.pathconf(parent, "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    if len(os.fsencode(target.name)) > limit:
        raise UserInputError(f"file name {short_text(target.name)} is longer than {limit} bytes; choose a shorter one")
    return target


def short_text(path: Any, limit: int = 120) -> str:
    text = str(path)
    return text if len(text) <= limit else f"{text[:60]}...({len(text)} characters)...{text[-40:]}"


def progress_bar(*columns: Any) -> Any:
    """A transient rich progress bar on stderr, drawn only on a terminal.

    Why: off a terminal (a pipe, a file, a test) a transient bar still ends with a newline, so an
    error raised during the run came out as a blank line and then the message; the contract is
    exactly one line on stderr.
    """
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    return Progress(*columns, console=console, transient=True, disable=not console.is_terminal)


def check_workers(scheduler: str | None, workers: int | None) -> Callable[[], None]:
    """Validate ``--scheduler``/``--workers`` now (``verify.runtime.executor.check_scheduler``); returns
    ``announce()``, to call when the work starts, which says on stderr when ``--workers`` is capped at the
    cores (the cluster starts ``local_workers(workers)`` processes, never more than asked for).

    Why two steps: a refusal found after this check must stay the only line on stderr.
    """
    from verify.runtime.executor import check_reachable, check_scheduler, local_workers

    kind = check_scheduler(scheduler, workers)
    if kind.startswith("tcp://"):
        check_reachable(kind)  # a host that cannot be reached is named now, not after a 20 s Dask timeout
    note = local_workers(workers)[1] if kind == "local" else ""

    def announce() -> None:
        if note:
            click.echo(f"convbound: note: {note}", err=True)

    return announce


def store_option(help: str) -> Callable[[Any], Any]:
    """``--store PATH``: the user's evidence store (``verify.evidence.store``; default ``$CONVBOUND_STORE``, else the
    per-user default path)."""
    return click.option("--store", default=None, metavar="PATH", help=help)


def write_store_options(fn):
    """``--store PATH`` / ``--no-store`` of a command that produces evidence: its records are written to the store
    when ``--store`` is given or ``$CONVBOUND_STORE`` is set (never with ``--no-store``)."""
    fn = click.option("--no-store", is_flag=True, help="Write no record to the evidence store.")(fn)
    return click.option("--store", default=None, metavar="PATH",
                        help="Write this run's evidence records to the store at PATH (default: $CONVBOUND_STORE "
                             "when set; else nothing is written).")(fn)


def save_evidence(path: Any, make: Callable[[], Iterable[Any]]) -> None:
    """Write the records ``make()`` builds to the store at ``path`` (``verify.evidence.store.writing_path``; None:
    nothing is built or written) in one transaction, and say so on stderr."""
    if path is None:
        return
    from verify.evidence.store import write

    records = list(make())
    added = write(path, records)
    click.echo(f"convbound: {added} new evidence record(s) of {len(records)} written to {path}", err=True)


def scheduler_options(fn):
    """``--scheduler`` and ``--workers`` (where independent tasks run; see ``verify.runtime.executor``)."""
    fn = click.option("--workers", type=COUNT, default=None, metavar="N",
                      help="Worker processes of a local Dask cluster (implies --scheduler local); at most the "
                           "CPU cores available (more are capped, with a note).")(fn)
    fn = click.option("--scheduler", default=None, metavar="WHERE",
                      help="inprocess (default), local (a Dask cluster of --workers processes, default 2) "
                           "or tcp://HOST:PORT (a running Dask scheduler).")(fn)
    return fn


# Width given to tables when the output is not a terminal: wide enough that no column of ours is ever folded,
# so a pipe, a file or a CI log gets every cell whole (rich would otherwise draw 80 columns).
PIPE_WIDTH = 100_000


def console(stderr: bool = False, **kw: Any) -> Any:
    """A rich console (the terminal's width) that does no work a reader cannot see: ``:name:`` codes are not
    turned into emoji (what we print is data: a name with colons is printed as written) and numbers are not
    highlighted where no colour is written (a pipe, a file: the same bytes). About 5 ms of `check` (issue 30)."""
    from rich.console import Console

    con = Console(stderr=stderr, emoji=False, highlight=False, **kw)
    return con if con.color_system is None else Console(stderr=stderr, emoji=False, **kw)


def out_console(stderr: bool = False) -> Any:
    """The console for tables: the terminal's width on a terminal (or $COLUMNS when set), where long text folds
    and IDs stay whole (:func:`id_column`); unlimited width when piped, so no cell is folded or cut."""
    con = console(stderr)
    if con.is_terminal or "COLUMNS" in os.environ:
        return con
    return console(stderr, width=PIPE_WIDTH)


def id_column(header: str, ids: Iterable[str]) -> Any:
    """A column of IDs that is never folded, split or cut: as wide as its longest ID."""
    from rich.table import Column

    return Column(header, no_wrap=True, min_width=max((len(i) for i in ids), default=len(header)))


def text_column(header: str, **kw: Any) -> Any:
    """A column of prose that folds onto more lines when the terminal is narrow instead of ending in '…'."""
    from rich.table import Column

    return Column(header, overflow="fold", **kw)


@contextlib.contextmanager
def drawing_notes() -> Iterator[None]:
    """Numpy/matplotlib warnings raised while a figure is built and drawn become one note on stderr.

    Why: a log axis spanning values near float64's limits makes matplotlib's scale code overflow
    (``RuntimeWarning: overflow encountered in exp``), which printed a library warning with its source
    line; the figure is still written, and the note says what may be missing from it.
    """
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    if caught:
        kinds = sorted({str(w.message).split(" encountered")[0] for w in caught})
        click.echo(f"convbound: note: the figure's values reach float64's limits ({'; '.join(kinds)} while drawing "
                   "its axes); it was written, but ticks or points beyond that range may be missing", err=True)


def figure_bytes(fig: Any, fmt: str, **savefig: Any) -> bytes:
    """``fig`` saved as ``fmt`` bytes (``savefig`` keywords passed on), its drawing warnings as one note."""
    import io

    buf = io.BytesIO()
    with drawing_notes():
        fig.savefig(buf, format=fmt, **savefig)
    return buf.getvalue()
