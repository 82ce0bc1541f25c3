"""The packages type-check: mypy with the project's configuration (``[tool.mypy]`` in pyproject.toml) reports
no error.

Why a test rather than a separate step of the README's test command: run here, mypy (about 10 s of one core
from a fresh clone) overlaps with the other xdist worker instead of running before the whole suite starts.
"""

import gc
import sys
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_reports_no_error(monkeypatch):
    # mypy finds the configured packages, and writes its cache (.mypy_cache), relative to the working directory
    monkeypatch.chdir(ROOT)
    # mypy raises the recursion limit and the garbage collector's threshold for its own run; the tests that run
    # after this one in the same process get them back as they were
    threshold, limit = gc.get_threshold(), sys.getrecursionlimit()
    try:
        out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml")])
    finally:
        gc.set_threshold(*threshold)
        sys.setrecursionlimit(limit)
    assert status == 0, out + err
