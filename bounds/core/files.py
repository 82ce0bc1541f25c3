"""Reading a user's input file: only a regular file, checked before a library opens it.

``open()`` on a FIFO blocks until a writer appears (for ever, in practice), a directory or a device is
never a data file, and ``/dev/zero`` never ends; each is refused in one line naming what the path is.
Symbolic links are followed: a link to a regular file is read. (The ``rel`` branch grows this module
into the one reader of users' files; ``regular_file`` keeps this signature there.)
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from bounds.core.errors import UserInputError


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


def regular_file(path: str | os.PathLike[str], what: str, valid: str) -> Path:
    """``Path(path)`` after checking that it names an existing, readable regular file.

    The file is opened without blocking (a FIFO's open then returns at once) and checked with ``fstat``;
    ``what`` names it in the message ("log file"), ``valid`` says what would be accepted.
    """
    text = os.fspath(path)
    if not text.strip():
        raise UserInputError(f"{what}: the path is empty; give {valid}")
    try:
        fd = os.open(text, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise UserInputError(f"{what} {text} does not exist; give {valid}") from None
    except IsADirectoryError:
        raise UserInputError(f"{what} {text} is a directory; give {valid}") from None
    except (OSError, ValueError) as exc:  # permission, a name too long, a loop of links, a NUL byte
        raise UserInputError(f"{what} {text!r} cannot be opened ({getattr(exc, 'strerror', None) or exc}); "
                             f"give {valid}") from None
    try:
        mode = os.fstat(fd).st_mode
    finally:
        os.close(fd)
    if not stat.S_ISREG(mode):
        raise UserInputError(f"{what} {text} is {describe_kind(mode)}, not a regular file; give {valid}")
    return Path(text)
