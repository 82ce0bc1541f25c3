"""Fast start: `convbound --help`, `list`, `show`, `check`, `solve` load none of the heavy libraries.

Checked in a fresh interpreter (subprocess) by reading ``sys.modules`` after the command ran, so
nothing imported by the test session itself can hide an import. No timing here: the times are the
benchmark's business (tests/benchmarks/bench_startup.py).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "cvxpy", "matplotlib", "scipy.stats", "dask", "optuna", "PEPit", "pyarrow", "polars", "jinja2",
         "reportlab")
T1 = ["L=1", "K=5", "m=10", "n=5", "q=0.5", "sigma2=1", "sigma_G2=0.25", "zeta=1", "R=1000", "eta_c=0.005"]

_PROBE = """
import json, sys
from reports.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
heavy = %r
print(json.dumps({"code": code, "loaded": [m for m in heavy if m in sys.modules],
                  "commands": sorted(m for m in sys.modules if m.startswith("reports.cli.cmd_")),
                  "metadata": "importlib.metadata" in sys.modules, "numpy": "numpy" in sys.modules}),
      file=sys.stderr)
"""


def _loaded(argv):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", _PROBE % (HEAVY,), *argv], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300)
    return json.loads(proc.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("argv", [
    ["--help"], ["list"], ["list", "--json"], ["show", "FAST.T1"], ["check", "FAST.T1", *T1],
    ["solve", "FAST.T1", "--for", "eta_c", *T1[:-1]], ["region", "--help"], ["verify", "--help"],
])
def test_light_commands_load_no_heavy_library(argv):
    out = _loaded(argv)
    assert out["code"] in (0, None)
    assert out["loaded"] == []


def _commands():
    from reports.cli.main import _register_all, cli

    _register_all()
    return sorted(cli.commands)


def test_no_help_loads_a_heavy_library():
    # every command's --help in one fresh interpreter: the listing in `simulate --help` used to load torch
    probe = (f"import json, sys\nfrom reports.cli.main import main\nheavy = {HEAVY!r}\nout = {{}}\n"
             f"for name in {_commands()!r}:\n    try:\n        main([name, '--help'])\n    except SystemExit:\n        pass\n"
             "    out[name] = [m for m in heavy if m in sys.modules]\n"
             "print(json.dumps(out), file=sys.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, timeout=300)
    loaded = json.loads(proc.stderr.strip().splitlines()[-1])
    assert set(loaded) == set(_commands()) and "simulate" in loaded
    assert {name: mods for name, mods in loaded.items() if mods} == {}


def test_the_probe_sees_a_heavy_import():
    # the same probe on a command that needs torch must report it, or the tests above prove nothing
    out = _loaded(["simulate", "--problem", "quadratic", "--trials", "2", "--rounds", "1", "d=2", "M=2"])
    assert out["code"] in (0, None) and "torch" in out["loaded"]


def test_check_and_show_import_only_their_command_module_and_no_distribution_metadata():
    # commands register on first lookup; where no installed distribution declares a convbound entry point,
    # importlib.metadata (email, every distribution's metadata) is never read
    from importlib import metadata

    declared = any(metadata.entry_points(group=f"convbound.{kind}")
                   for kind in ("results", "algorithms", "problems", "scenarios"))
    for argv in (["check", "FAST.T1", *T1], ["show", "FAST.T1"]):
        out = _loaded(argv)
        assert out["code"] in (0, None)
        assert out["commands"] == ["reports.cli.cmd_bounds"], argv
        assert out["metadata"] is declared, argv
        # numpy is loaded now: show and check print the result's decision first, read from the saved searches
        # (verify.verdict's words); the evaluation itself stays on Python floats (the test below)


_EVAL_PROBE = """
import json, sys
from reports.cli.common import parse_assignments
from bounds.registry import get
get("FAST.T1").check(parse_assignments(sys.argv[1:]))
print(json.dumps({"numpy": "numpy" in sys.modules}), file=sys.stderr)
"""


def _evaluation_loads_numpy(argv) -> bool:
    proc = subprocess.run([sys.executable, "-c", _EVAL_PROBE, *argv], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, timeout=300)
    return json.loads(proc.stderr.strip().splitlines()[-1])["numpy"]


def test_check_evaluates_with_python_floats_and_numpy_only_where_its_values_need_it():
    # one number per symbol evaluates with Python floats (bounds.floats); an overflow inside a term (K*R >
    # float64's max) is reported by the numpy path, which re-evaluates in long double: the same probe must then
    # see numpy, or the first half proves nothing
    assert _evaluation_loads_numpy(T1) is False
    at_overflow = [*T1[:-2], "K=100000", "R=1e305", "eta_c=1"]
    at_overflow.remove("K=5")
    assert _evaluation_loads_numpy(at_overflow) is True


def test_help_still_lists_every_command_and_an_unknown_one_is_one_line():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "reports.cli.main", "--help"], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300)
    assert proc.returncode == 0
    listed = {line.split()[0] for line in proc.stdout.split("Commands:")[1].splitlines() if line.strip()}
    assert listed == set(_commands()) and {"check", "show", "simulate", "worst-case"} <= listed
    out = _loaded(["chekc", "FAST.T1"])
    assert out["code"] == 2


def test_only_the_program_leaves_its_objects_to_the_os_at_exit():
    # main() as the program (no argv: console script, python -m) freezes what is alive, so the exit skips full
    # collections; main(argv) from a caller whose process lives on (tests, notebooks) must freeze nothing
    probe = ("import gc, sys\nfrom reports.cli.main import main\nsys.argv = ['convbound', '--version']\n"
             "for args in ([['--version']], []):\n    try:\n        main(*args)\n    except SystemExit:\n        pass\n"
             "    print(gc.get_freeze_count(), file=sys.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, timeout=300)
    after_call, after_program = (int(n) for n in proc.stderr.split())
    assert after_call == 0 and after_program > 1000
