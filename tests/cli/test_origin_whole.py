"""A plugin file's path is printed whole by `check` and `show`, however long (a reader copies it)."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from reports.cli.main import cli

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "gd_drori_teboulle.py"


def test_a_long_plugin_path_is_not_folded(tmp_path):
    deep = tmp_path / ("d" * 90)
    deep.mkdir()
    plugin = deep / EXAMPLE.name
    shutil.copy(EXAMPLE, plugin)
    for argv in (["check", "DT14.T3.1", "L=1", "gamma=1", "n=10", "D2=1"], ["show", "DT14.T3.1"]):
        got = CliRunner().invoke(cli, ["--plugin", str(plugin), *argv])
        assert got.exit_code == 0, got.output
        assert f"origin: file {plugin}" in [line.strip() for line in got.output.splitlines()], got.output
