"""Reading users' input files: only regular files, never more than a stated size, one-line errors.

**Why**: ``open()`` on a FIFO waits for a writer forever (``verify --instance``, ``report --include``
hung), on a directory or a device it fails with an ``OSError`` of its own wording, and ``/dev/zero``
or a 10 GB log would be read whole. Every command that reads a file the user named goes through
:func:`read_bytes` / :func:`read_text` (or :func:`regular_file` where a library opens the path
itself), so the rules are the same everywhere:

* the path is opened with ``O_NONBLOCK`` (opening a FIFO then returns at once) and the open file is
  checked with ``fstat``: anything but a regular file (a FIFO, a directory, a device, a socket) is
  refused, and so is a path that changed between a check and the open (there is no check before);
* a symbolic link to a regular file is read (a link is how users point at a file);
* a file larger than ``limit`` bytes is refused before it is read, with its size and the limit;
* every refusal is a :class:`~bounds.core.errors.UserInputError`: one line naming the option, the
  path, what is wrong and what would be valid.

Standard library only (the ground floor imports nothing of ours but ``bounds.core``).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from bounds.core.errors import UserInputError

__all__ = ["DEFAULT_LIMIT", "describe_kind", "parse_toml", "read_bytes", "read_json", "read_text", "regular_file", "short_path"]

#: Largest input file read by default (bytes): records, instance files and results are kilobytes.
DEFAULT_LIMIT = 64 * 2**20


def short_path(path: object, limit: int = 120) -> str:
    """``path`` as text, its middle cut when it is longer than ``limit`` characters."""
    text = str(path)
    return text if len(text) <= limit else f"{text[:60]}...({len(text)} characters)...{text[-40:]}"


def describe_kind(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words (for refusals)."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _open(path: str | os.PathLike[str], what: str, valid: str) -> tuple[int, os.stat_result]:
    """An open descriptor of the regular file at ``path`` and its ``fstat``; refuses everything else."""
    text = os.fspath(path) if isinstance(path, (str, os.PathLike)) else path
    if not isinstance(text, str) or not text.strip():
        raise UserInputError(f"{what}: the path is empty; give {valid}")
    if "\0" in text:
        raise UserInputError(f"{what} {short_path(text)!r}: a path cannot hold a NUL character; give {valid}")
    shown = short_path(text)
    try:
        fd = os.open(text, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise UserInputError(f"{what} {shown} does not exist; give {valid}") from None
    except IsADirectoryError:
        raise UserInputError(f"{what} {shown} is a directory; give {valid}") from None
    except OSError as exc:  # permission, a name too long, a loop of links, a device that cannot be opened
        raise UserInputError(f"{what} {shown} cannot be opened ({exc.strerror or exc}); give {valid}") from None
    try:
        info = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise UserInputError(f"{what} {shown} cannot be read ({exc.strerror or exc}); give {valid}") from None
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise UserInputError(f"{what} {shown} is {describe_kind(info.st_mode)}, not a regular file; give {valid}")
    return fd, info


def regular_file(path: str | os.PathLike[str], what: str, valid: str) -> Path:
    """``Path(path)`` after checking that it names a readable regular file (for libraries that open it).

    The check opens the file without blocking and closes it again: a FIFO, a directory or a device
    is refused here, before a library's own ``open`` would wait or fail in its own words.
    """
    fd, _ = _open(path, what, valid)
    os.close(fd)
    return Path(path)


def read_bytes(path: str | os.PathLike[str], what: str, valid: str, *, limit: int = DEFAULT_LIMIT) -> bytes:
    """The content of the regular file ``path`` (at most ``limit`` bytes, else refused before reading).

    Args:
        what: how the user named it, e.g. ``"--include"`` or ``"instance file"``.
        valid: what would be accepted, e.g. ``"a JSON file written by 'convbound falsify --json'"``.
        limit: the largest size read; the refusal gives the size and the limit.
    """
    fd, info = _open(path, what, valid)
    try:
        if info.st_size > limit:
            raise UserInputError(f"{what} {short_path(path)} is {_size(info.st_size)}, over the {_size(limit)} "
                                 f"this reads; give {valid}")
        os.set_blocking(fd, True)
        chunks, total = [], 0
        while True:  # a file that grows while it is read stops at the limit too
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise UserInputError(f"{what} {short_path(path)} grew past the {_size(limit)} this reads; give {valid}")
        return b"".join(chunks)
    except OSError as exc:
        raise UserInputError(f"{what} {short_path(path)} cannot be read ({exc.strerror or exc}); give {valid}") from None
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike[str], what: str, valid: str, *, limit: int = DEFAULT_LIMIT) -> str:
    """:func:`read_bytes` decoded as UTF-8 (binary junk is refused in one line)."""
    data = read_bytes(path, what, valid, limit=limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserInputError(f"{what} {short_path(path)} is not UTF-8 text (byte {exc.start}); give {valid}") from None


def read_json(path: str | os.PathLike[str], what: str, valid: str, *, limit: int = DEFAULT_LIMIT,
              not_json: str = "is not a readable JSON file") -> Any:
    """:func:`read_text` parsed as JSON; text that is not JSON is refused in one line (``not_json``: the
    words of the refusal after the path, kept per command because users and tests know them)."""
    import json  # here: `check` and `show` import this module (plugin files) and read no JSON (issue 30)

    text = read_text(path, what, valid, limit=limit)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UserInputError(f"{what} {short_path(path)} {not_json} ({why}); give {valid}") from None


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """``text`` parsed as TOML; malformed text is one line naming ``source``, the line and the parser's reason."""
    import re
    import tomllib

    try:
        return tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError, or an integer of more than 4,300 digits
        why = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        m = re.search(r"line (\d+)", why)
        at = f" at line {m.group(1)}" if m else ""
        raise UserInputError(f"{source} is not valid TOML{at}: {why}") from None


def _size(n: float) -> str:
    """Bytes in words, exact below a gigabyte (a file just over a limit must not read as equal to it)."""
    return f"{n / 1e9:.3g} GB" if n >= 1e9 else f"{int(n):,} bytes"
