"""Permissions of the files and folders we create: what the user's umask allows, like ``open()`` would.

``tempfile.mkstemp`` and ``mkdtemp`` create 0600 files and 0700 folders whatever the umask (they are
meant to be private); an output written through one and renamed into place would keep that mode, so a
report or a JSON file another user (or a web server) should read comes out unreadable to them.
"""

from __future__ import annotations

import os
import threading

_LOCK = threading.Lock()


def umask() -> int:
    """The process's umask (read by setting and restoring it; the lock keeps our own threads from racing)."""
    with _LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def created_mode(*, directory: bool = False) -> int:
    """The mode ``open()`` (0666) or ``mkdir()`` (0777) would give a new file or folder under the umask."""
    return (0o777 if directory else 0o666) & ~umask()
