"""Start-up time and peak memory of `convbound --help`, `list`, `show`, `check` beside `python -c "import sympy"`.

Run: ``PYTHONPATH=. python tests/benchmarks/bench_startup.py [--repeats 7]`` from the repository root.
Each command runs ``repeats`` times in a fresh interpreter, the commands taking turns; the table
gives the median and the range of the wall time, the median CPU time (user + system, less
sensitive than wall time to other jobs on a shared machine) and the peak resident memory (``resource.getrusage(RUSAGE_CHILDREN)``,
read in a wrapper process whose only child is the command, so each figure is that command's own).
The goal (issue 10): within 1.3x of ``import sympy`` and under 150 MB.
"""

from __future__ import annotations

import argparse
import json
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
}

_WRAPPER = """
import json, resource, subprocess, sys, time
t0 = time.perf_counter()
subprocess.run(json.loads(sys.argv[1]), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
dt = time.perf_counter() - t0
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"s": dt, "cpu": use.ru_utime + use.ru_stime, "kb": use.ru_maxrss}))
"""


def measure(argv: list[str]) -> tuple[float, float, int]:
    out = subprocess.run([sys.executable, "-c", _WRAPPER, json.dumps(argv)], capture_output=True, text=True, check=True)
    row = json.loads(out.stdout)
    return row["s"], row["cpu"], row["kb"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    measure(COMMANDS['python -c "import sympy"'])  # warm the file cache once
    # round-robin (every command once per round), so that a change of load on a shared machine
    # falls on all commands alike rather than on whichever ran during it
    runs: dict[str, list[tuple[float, float, int]]] = {name: [] for name in COMMANDS}
    for _ in range(args.repeats):
        for name, argv in COMMANDS.items():
            runs[name].append(measure(argv))
    rows = {}
    for name, rs in runs.items():
        times = [r[0] for r in rs]
        rows[name] = (statistics.median(times), min(times), max(times), statistics.median(r[1] for r in rs),
                      max(r[2] for r in rs) / 1024)
    base, base_cpu = rows['python -c "import sympy"'][0], rows['python -c "import sympy"'][3]
    print(f"{'command':32s} {'median s':>9s} {'range s':>13s} {'x sympy':>8s} {'CPU s':>6s} {'x sympy':>8s} "
          f"{'peak MB':>8s}   ({args.repeats} runs each, interleaved)")
    for name, (med, lo, hi, cpu, mb) in rows.items():
        print(f"{name:32s} {med:9.3f} {lo:6.3f}-{hi:<6.3f} {med / base:8.2f} {cpu:6.3f} {cpu / base_cpu:8.2f} {mb:8.1f}")

if __name__ == "__main__":
    main()
