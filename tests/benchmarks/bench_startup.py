"""Start-up time and peak memory of `convbound --help`, `list`, `show`, `check` beside `python -c "import sympy"`.

Run: ``PYTHONPATH=. python tests/benchmarks/bench_startup.py [--repeats 7]`` from the repository root.
Each command runs ``repeats`` times in a fresh interpreter; the table gives the median and the
range of the wall time and the peak resident memory (``resource.getrusage(RUSAGE_CHILDREN)``,
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
print(json.dumps({"s": dt, "kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def measure(argv: list[str]) -> tuple[float, int]:
    out = subprocess.run([sys.executable, "-c", _WRAPPER, json.dumps(argv)], capture_output=True, text=True, check=True)
    row = json.loads(out.stdout)
    return row["s"], row["kb"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    measure(COMMANDS['python -c "import sympy"'])  # warm the file cache once
    rows = {}
    for name, argv in COMMANDS.items():
        runs = [measure(argv) for _ in range(args.repeats)]
        times, mem = [r[0] for r in runs], [r[1] for r in runs]
        rows[name] = (statistics.median(times), min(times), max(times), max(mem) / 1024)
    base = rows['python -c "import sympy"'][0]
    print(f"{'command':32s} {'median s':>9s} {'range s':>13s} {'x sympy':>8s} {'peak MB':>8s}   ({args.repeats} runs each)")
    for name, (med, lo, hi, mb) in rows.items():
        print(f"{name:32s} {med:9.3f} {lo:6.3f}-{hi:<6.3f} {med / base:8.2f} {mb:8.1f}")


if __name__ == "__main__":
    main()
