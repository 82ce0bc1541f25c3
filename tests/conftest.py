"""Project-wide test settings: a derandomised hypothesis profile so CI runs are repeatable, and the
``convbound`` fixture that runs the command line in-process (exit status, stdout, stderr).

Hypothesis keeps its files (example database, caches) in a directory of the system's temporary
area, never in the source tree or in whatever directory pytest was started from.
"""

import json
import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.database import DirectoryBasedExampleDatabase

_HOME = os.path.join(tempfile.gettempdir(), "convbound-hypothesis")
set_hypothesis_home_dir(_HOME)

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,  # derandomised: nothing to replay, nothing to store
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=30,
                          database=DirectoryBasedExampleDatabase(os.path.join(_HOME, "examples")))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    """An xdist worker's temporary folders as short as a plain run's.

    xdist puts each worker's ``tmp_path`` under ``<basetemp>/popen-gwN/``; the ten extra characters push
    the paths of some tests past the 80 characters after which our one-line errors clip a path's middle,
    and those tests check that the error names the whole path. So each worker gets its own short base
    (``/tmp/cb-gwN-XXXX``), made here and removed when the worker ends.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and not getattr(config, "_cb_basetemp", None):
        config._cb_basetemp = tempfile.mkdtemp(prefix=f"cb-{worker}-")
        config.option.basetemp = config._cb_basetemp


def pytest_unconfigure(config):
    if getattr(config, "_cb_basetemp", None):
        shutil.rmtree(config._cb_basetemp, ignore_errors=True)


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch):
    """Every test starts as a pipe does: no $COLUMNS (rich reads it as the terminal's width, and tables are then
    folded or stacked); a test of a narrow terminal sets it itself. Why: shells and CI runners differ here."""
    monkeypatch.delenv("COLUMNS", raising=False)


class Run:
    """One in-process ``convbound`` run: ``code`` (exit status), ``out``, ``err``; ``json()`` parses out."""

    def __init__(self, code, out, err):
        self.code, self.out, self.err = code, out, err

    def json(self):
        return json.loads(self.out)

    def __iter__(self):  # code, out, err = convbound(...)
        return iter((self.code, self.out, self.err))


@pytest.fixture
def convbound(capsys):
    """``convbound(*argv) -> Run``: the entry point called in this process, as a user would type it."""
    from reports.cli.main import main

    def run(*argv):
        try:
            main(list(argv))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        cap = capsys.readouterr()
        return Run(code, cap.out, cap.err)

    return run
