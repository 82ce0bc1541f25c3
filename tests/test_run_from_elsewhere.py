"""`pytest` started from another directory imports the packages, not tests/<name> namespace packages."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_pytest_from_another_directory_imports_the_real_packages(tmp_path):
    # tests/quadratics, tests/bounds, ... share the packages' names: this test file imports quadratics
    # through a plugin example, which failed with "unknown location" before pyproject's pythonpath
    target = ROOT / "tests" / "plugins" / "test_examples.py"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(target),
                          "-k", "test_gd_certificate_lhs_is_exact_gradient_descent"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "1 passed" in run.stdout, run.stdout
