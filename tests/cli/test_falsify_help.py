"""`falsify --help` names every registered optimiser (its list is spelled out to keep `--help` light)."""

from __future__ import annotations

import re

from click.testing import CliRunner

from reports.cli.main import cli
from verify.search.optimisers import OPTIMISERS


def test_help_names_every_registered_optimiser():
    out = CliRunner().invoke(cli, ["falsify", "--help"], terminal_width=400).output
    listed = set(re.findall(r"[a-z]+(?:-[a-z]+)?", out.split("--optimiser", 1)[1].split("--terms", 1)[0]))
    missing = [name for name in OPTIMISERS if name not in listed]
    assert not missing, f"--optimiser's help lacks {missing}"
