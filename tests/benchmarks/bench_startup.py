"""Start-up time and peak memory of `convbound --help`, `list`, `show`, `check` beside `python -c "import sympy"`.

Run: ``PYTHONPATH=. python tests/benchmarks/bench_startup.py [--repeats 7]`` from the repository root.
Each command runs ``repeats`` times in a fresh interpreter, the commands taking turns; the table
gives the median and the range of the wall time, the median CPU time (user + system, less
sensitive than wall time to other jobs on a shared machine) and the peak resident memory (``resource.getrusage(RUSAGE_CHILDREN)``,
read in a wrapper process whose only child is the command, so each figure is that command's own).
The goal (issues 10 and 30): within 1.3x of ``import sympy`` and under 150 MB.

Bytecode: the commands run with ``PYTHONDONTWRITEBYTECODE`` removed from their environment, after one
warm-up run of each, so our modules load from ``__pycache__`` as they do for a user (sympy's own come
compiled from pip); with the variable set, every run compiled about 30 of our modules from source.
The row ``floor: sympy click rich sympy.tensor`` imports only what `check` cannot do without (it
evaluates one number per symbol with Python floats, so numpy is not among them, and prints with rich):
sympy's ``Add`` imports ``sympy.tensor.tensor`` the first time it adds two terms. Its ratio is the least
`check` could reach without other changes.

Exit: the CLI, run as a program, freezes its objects before it exits (``reports.cli.main``), so the
interpreter's final collections skip them; ``python -c "import sympy"`` pays those collections (about a
quarter of its time). The row ``import sympy; gc.freeze()`` exits the same way as the CLI, and the column
``x frozen`` gives each command's median wall time over that row's: the like-for-like comparison of what
the commands add to importing sympy. The row ``check FAST.T1 ..., exit collecting`` runs the same command
through ``main(argv)``, which does not freeze: `check` as it was before the freeze.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

T1 = ["L=1", "K=5", "m=10", "n=5", "q=0.5", "sigma2=1", "sigma_G2=0.25", "zeta=1", "R=1000", "eta_c=0.005"]
CLI = [sys.executable, "-m", "reports.cli.main"]
COMMANDS = {
    'python -c "import sympy"': [sys.executable, "-c", "import sympy"],
    "convbound --help": [*CLI, "--help"],
    "convbound list": [*CLI, "list"],
    "convbound show FAST.T1": [*CLI, "show", "FAST.T1"],
    "convbound check FAST.T1 ...": [*CLI, "check", "FAST.T1", *T1],
    "floor: sympy click rich sympy.tensor": [
        sys.executable, "-c", "import sympy, click, rich.console, rich.table, sympy.tensor.tensor"],
    "import sympy; gc.freeze()": [sys.executable, "-c", "import sympy, gc; gc.freeze()"],
    # main(argv) is how a caller whose process lives on runs a command: it leaves the collections to the exit
    "check FAST.T1 ..., exit collecting": [
        sys.executable, "-c", "import sys; from reports.cli.main import main; main(sys.argv[1:])", "check", "FAST.T1",
        *T1],
}
#: The children's environment: bytecode written and read, as for a user.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

_WRAPPER = """
import json, resource, subprocess, sys, time
t0 = time.perf_counter()
subprocess.run(json.loads(sys.argv[1]), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
dt = time.perf_counter() - t0
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"s": dt, "cpu": use.ru_utime + use.ru_stime, "kb": use.ru_maxrss}))
"""


def measure(argv: list[str], tree: str | None = None) -> tuple[float, float, int]:
    """Wall s, CPU s and peak kB of one run; ``tree``: run it from that checkout (its PYTHONPATH and folder)."""
    env = ENV if tree is None else {**ENV, "PYTHONPATH": tree}
    out = subprocess.run([sys.executable, "-c", _WRAPPER, json.dumps(argv)], capture_output=True, text=True, check=True,
                         env=env, cwd=tree)
    row = json.loads(out.stdout)
    return row["s"], row["cpu"], row["kb"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--baseline", metavar="DIR", default=None,
                    help="also time show and check from another checkout, interleaved with the rest (e.g. "
                         "'git archive main | tar -x -C DIR'): a before/after comparison under the same load")
    args = ap.parse_args()
    commands = {name: (argv, None) for name, argv in COMMANDS.items()}
    if args.baseline:
        tree = os.path.abspath(args.baseline)
        for name in ("convbound show FAST.T1", "convbound check FAST.T1 ..."):
            commands[f"{name.removeprefix('convbound ')} (baseline)"] = (COMMANDS[name], tree)
    for argv, tree in commands.values():  # warm the file cache and write our modules' bytecode once
        measure(argv, tree)
    load_before = os.getloadavg()
    # round-robin (every command once per round), so that a change of load on a shared machine
    # falls on all commands alike rather than on whichever ran during it
    runs: dict[str, list[tuple[float, float, int]]] = {name: [] for name in commands}
    for _ in range(args.repeats):
        for name, (argv, tree) in commands.items():
            runs[name].append(measure(argv, tree))
    rows = {}
    for name, rs in runs.items():
        times = [r[0] for r in rs]
        rows[name] = (statistics.median(times), min(times), max(times), statistics.median(r[1] for r in rs),
                      max(r[2] for r in rs) / 1024)
    base, base_cpu = rows['python -c "import sympy"'][0], rows['python -c "import sympy"'][3]
    frozen = rows["import sympy; gc.freeze()"][0]
    print(f"{'command':44s} {'median s':>9s} {'range s':>13s} {'x sympy':>8s} {'x frozen':>8s} {'CPU s':>6s} "
          f"{'x sympy':>8s} {'peak MB':>8s}   ({args.repeats} runs each, interleaved)")
    for name, (med, lo, hi, cpu, mb) in rows.items():
        print(f"{name:44s} {med:9.3f} {lo:6.3f}-{hi:<6.3f} {med / base:8.2f} {med / frozen:8.2f} {cpu:6.3f} "
              f"{cpu / base_cpu:8.2f} {mb:8.1f}")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = " (with uncommitted changes)" if subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                                             capture_output=True, text=True).stdout.strip() else ""
    print(f"load average (1 min) {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after; commit {commit or '?'}"
          f"{dirty}; Python {sys.version.split()[0]}" + (f"; baseline: {args.baseline}" if args.baseline else ""))

if __name__ == "__main__":
    main()
