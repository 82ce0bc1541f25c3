"""Shared paths and a subprocess runner for the plugin tests (imported by bare name, like tests/quadratics)."""

import os
import subprocess
import sys
from pathlib import Path

from bounds import plugins

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"


def run_cli(args, *, extra_path=(), cwd=None, env=None, timeout=300):
    """`python -m reports.cli.main ARGS` in a subprocess with this checkout (and extra_path) importable."""
    full = dict(os.environ)
    full.pop(plugins.ENV_VAR, None)
    full.update(env or {})
    full["PYTHONPATH"] = os.pathsep.join([str(ROOT), *map(str, extra_path)])
    return subprocess.run([sys.executable, "-m", "reports.cli.main", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=full, timeout=timeout)
