"""In-process `convbound` runs for plugin tests; each test starts with no plugin files loaded."""

import json

import pytest

from bounds import plugins
from reports.cli.main import main


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
