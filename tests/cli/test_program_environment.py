"""The program's own process settings: numpy's BLAS threads (``reports.cli.main.one_blas_thread``)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from reports.cli.main import BLAS_THREAD_VARIABLES, one_blas_thread


def test_one_blas_thread_where_the_user_chose_none():
    env: dict[str, str] = {"PATH": "/bin"}
    one_blas_thread(env)
    assert env == {"PATH": "/bin", "OPENBLAS_NUM_THREADS": "1"}


@pytest.mark.parametrize("name", BLAS_THREAD_VARIABLES)
def test_a_users_choice_is_kept(name):
    env = {name: "4"}
    one_blas_thread(env)
    assert env == {name: "4"}


_PROGRAM = """
import os, sys
sys.argv = ["convbound", "--version"]
from reports.cli.main import main
try:
    main()
except SystemExit:
    pass
print(os.environ.get("OPENBLAS_NUM_THREADS"), "numpy" in sys.modules)
"""


def test_the_program_sets_it_before_numpy_loads_and_a_caller_keeps_its_environment():
    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_VARIABLES}
    run = subprocess.run([sys.executable, "-c", _PROGRAM], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[-2:] == ["1", "False"]  # set, and numpy (hence OpenBLAS) not yet loaded
    called = _PROGRAM.replace("main()", "main(['--version'])")  # a caller's run: its environment untouched
    run = subprocess.run([sys.executable, "-c", called], env=env, capture_output=True, text=True, timeout=120)
    assert run.stdout.split()[-2:] == ["None", "False"], run.stderr
