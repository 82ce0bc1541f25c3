"""In-process `convbound` runs for plugin tests; each test starts with no plugin files loaded."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bounds import plugins
from reports.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"


class Run:
    def __init__(self, code, out, err):
        self.code, self.out, self.err = code, out, err

    def json(self):
        return json.loads(self.out)


@pytest.fixture(autouse=True)
def _no_plugins(monkeypatch):
    monkeypatch.delenv(plugins.ENV_VAR, raising=False)
    plugins.clear_files()
    yield
    plugins.clear_files()


@pytest.fixture
def convbound(capsys):
    def run(*argv):
        try:
            main(list(argv))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        cap = capsys.readouterr()
        return Run(code, cap.out, cap.err)

    return run


def run_cli(args, *, extra_path=(), cwd=None, env=None, timeout=300):
    """`python -m reports.cli.main ARGS` in a subprocess with this checkout (and extra_path) importable."""
    full = dict(os.environ, **(env or {}))
    full.pop(plugins.ENV_VAR, None) if plugins.ENV_VAR not in (env or {}) else None
    full["PYTHONPATH"] = os.pathsep.join([str(ROOT), *map(str, extra_path)])
    return subprocess.run([sys.executable, "-m", "reports.cli.main", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=full, timeout=timeout)
