"""Reading a user's input file: only a regular file, checked before anything opens it.

``open()`` on a FIFO blocks until a writer appears (for ever, in practice), a directory or a device is
never a data file, and ``/dev/zero`` never ends; each is refused in one line naming what the path is.
Symbolic links are followed: a link to a regular file is read.
"""

from __future__ import annotations

import os
import stat

from bounds.core.errors import UserInputError


def regular_file(path: str | os.PathLike[str], what: str) -> os.stat_result:
    """The status of ``path``, or ``UserInputError`` unless it is an existing regular file.

    ``what`` names the file in the message ("log file", "model file").
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UserInputError(f"{what} {os.fspath(path)} does not exist") from None
    except (OSError, ValueError) as exc:  # ValueError: an embedded NUL byte
        raise UserInputError(f"cannot read {what} {os.fspath(path)!r}: {getattr(exc, 'strerror', None) or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        mode = st.st_mode
        kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "not a regular file")
        raise UserInputError(f"{what} {os.fspath(path)} is {kind}; give a regular file")
    return st
