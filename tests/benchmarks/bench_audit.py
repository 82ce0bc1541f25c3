"""Benchmark of `convbound audit` on a 10^7-row log (issue 14; not a timed test; run explicitly):

    python tests/benchmarks/bench_audit.py [rounds] [clients]     # default 100,000 x 100 = 10^7 rows
    python -m pytest tests/benchmarks/bench_audit.py --benchmark-enable

Goal: under 60 s and under 2 GB peak resident memory for 10^7 rows. The audit runs in a child process
(the real command line), so its peak RSS is the child's alone (``ru_maxrss`` of RUSAGE_CHILDREN).
The log: smartphone-like periodic availability (24 phases), 10 of 100 clients per round chosen
uniformly among the available, written (not timed) as Parquet and as CSV.
"""

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def make_log(directory: Path, rounds: int = 100_000, clients: int = 100, seed: int = 0) -> dict[str, Path]:
    from rate_region.audit.synthetic import periodic_availability, topk_among
    from rate_region.logs import write_log

    rng = np.random.default_rng(seed)
    q = rng.uniform(0.4, 1.0, clients)
    f = 0.4 * np.sin(2 * np.pi * np.arange(1, 25) / 24) + 0.5
    A = periodic_availability(q, f, rounds, seed)
    S = topk_among(A, 10, rng)
    return {fmt: write_log(directory / f"log.{fmt}", A, S) for fmt in ("parquet", "csv")}


def run_audit(path: Path, *args: str) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MiB of the child, exit code) of `convbound audit PATH --json`."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    code = ("import resource, sys, time; from reports.cli.main import main\n"
            "t = time.perf_counter()\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    rc = e.code or 0\n"
            "sys.stderr.write(f'WALL {time.perf_counter() - t}\\n')\n"
            "sys.stderr.write(f'RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n')\n")
    t0 = time.perf_counter()
    argv = ["audit", str(path), "--json"] if not args else list(args)
    out = subprocess.run([sys.executable, "-c", code, *argv], env=env, capture_output=True, text=True, cwd=ROOT)
    total = time.perf_counter() - t0
    rss_kib = int(next(x for x in out.stderr.splitlines() if x.startswith("RSS")).split()[1])
    return total, rss_kib / 1024, out.returncode


def test_audit_10M_rows(benchmark, tmp_path):
    logs = make_log(tmp_path)
    wall, rss, rc = benchmark.pedantic(run_audit, args=(logs["parquet"],), rounds=1, iterations=1)
    assert rc == 0
    print(f"parquet: {wall:.1f} s, peak {rss:.0f} MiB")


if __name__ == "__main__":
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    clients = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        logs = make_log(Path(d), rounds, clients)
        print(f"{rounds * clients:,} rows written in {time.perf_counter() - t:.1f} s "
              f"(parquet {logs['parquet'].stat().st_size / 2**20:.0f} MiB, csv {logs['csv'].stat().st_size / 2**20:.0f} MiB)")
        for fmt, path in logs.items():
            wall, rss, rc = run_audit(path)
            print(f"{fmt:8s} audit: {wall:6.1f} s wall (incl. interpreter start), peak RSS {rss:6.0f} MiB, exit {rc}")
    wall, rss, rc = run_audit(Path("."), "audit", "--help")
    print(f"baseline `convbound audit --help` (start-up only): {wall:6.1f} s wall, peak RSS {rss:6.0f} MiB")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} (shared machine)")
    _ = resource  # imported for the child-process measurement description above
