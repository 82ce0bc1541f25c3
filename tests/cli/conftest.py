"""Run the `convbound` entry point in-process and capture exit status and output."""

import json

import pytest

from reports.cli.main import main


class Run:
    def __init__(self, code, out, err):
        self.code, self.out, self.err = code, out, err

    def json(self):
        return json.loads(self.out)


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
