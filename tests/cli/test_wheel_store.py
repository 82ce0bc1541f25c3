"""A wheel installed in a fresh virtual environment decides as the checkout does (its shipped store inside)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bounds", "rate_region", "quadratics", "verify", "reports")
KEYS = ("FAST.T1", "FAST.T2@corrected")


@pytest.mark.slow
def test_a_wheel_in_a_fresh_venv_decides_as_the_checkout(tmp_path):
    from verify.decision_sources import DecideOptions, decide_results

    src = tmp_path / "src"  # a copy, so the build's own folders land outside the checkout
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for pkg in PACKAGES:
        shutil.copytree(ROOT / pkg, src / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.tmp"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path / "dist"), str(src)], check=True, timeout=300)
    (wheel,) = (tmp_path / "dist").glob("convbound-*.whl")
    venv = tmp_path / "venv"
    # no pip of its own (ensurepip is most of a venv's making): this interpreter's pip installs into it
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True,
                   timeout=300)
    py = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index", "-q",
                    str(wheel)], check=True, timeout=300)
    away = tmp_path / "elsewhere"
    away.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["CONVBOUND_STORE"] = str(tmp_path / "empty.sqlite")
    where = subprocess.run([str(py), "-c", "import verify.evidence.store as s; print(s.SHIPPED)"], cwd=away, env=env,
                           capture_output=True, text=True, check=True, timeout=120).stdout.strip()
    assert where.startswith(str(venv)) and Path(where).is_file()  # the wheel's own copy, not the checkout's
    run = subprocess.run([str(venv / "bin" / "convbound"), "decide", *KEYS[:1], "--json", "--no-live-pep"], cwd=away,
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    got = {d["id"]: d["outcome"] for d in json.loads(run.stdout)}
    run = subprocess.run([str(venv / "bin" / "convbound"), "decide", KEYS[1], "--json", "--no-live-pep"], cwd=away,
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    got.update({d["id"]: d["outcome"] for d in json.loads(run.stdout)})
    here = {d.id: d.outcome for d in decide_results(list(KEYS), DecideOptions(live_pep=False))}
    assert got == here and here["FAST.T2@corrected"] == "refuted"
