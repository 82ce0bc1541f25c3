"""Wall time of the verification suite in-process against a 2-worker local Dask cluster (issue 13).

Run:  python tests/benchmarks/bench_executor.py [--full] [--reps N] [--workers 2] [--out FILE.json]
      python tests/benchmarks/bench_executor.py --equal 6     # 6 equal tasks: the machinery alone

Each measurement is one whole command in a fresh interpreter, ``python -m reports.cli.main verify all
[--quick] --json --device cpu [--workers N]``: start-up, the cluster's start and shutdown, the workers'
imports and the suite all count. Runs alternate (in-process, cluster, in-process, ...) so both see the
same machine load; the JSON outputs of the two ways must hold the same numbers (``elapsed_s`` aside),
or the benchmark says so and exits 1. Goal: at least 1.6x faster on 2 workers on a 2-core machine.
The suite's speed-up is capped by its longest group (ASCAF.T1, about 45% of the full suite's work):
``--equal N`` separates the executor's overhead from that imbalance by running N copies of one
group (ASCAF.T1 --quick) in one process, in-process and then on the cluster (cluster start counted).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(args: list[str]) -> tuple[float, list[dict]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "reports.cli.main", *args], capture_output=True, text=True,
                         cwd=ROOT, env=env)
    wall = time.perf_counter() - t0
    if out.returncode not in (0, 1):  # 1 = some verdict not as expected: still a complete run
        raise SystemExit(f"verify failed (exit {out.returncode}): {out.stderr[-2000:]}")
    return wall, json.loads(out.stdout)


def numbers(doc: list[dict]) -> list[dict]:
    return [{k: v for k, v in rec.items() if k != "elapsed_s"} for rec in doc]


def equal_tasks(n: int, workers: int) -> None:
    sys.path.insert(0, str(ROOT))
    from verify.runtime.executor import Task, run_tasks

    tasks = [Task("verify.suite:run_group", {"check_id": "ASCAF.T1", "quick": True, "device": "cpu"}, f"copy{i}")
             for i in range(n)]
    run_tasks(tasks[:1], progress=False)  # imports, so that both ways start warm
    t0 = time.perf_counter()
    a = run_tasks(tasks, progress=False)
    t1 = time.perf_counter()
    b = run_tasks(tasks, workers=workers, progress=False)
    t2 = time.perf_counter()
    same = [numbers([v.to_dict() for v in o.value]) for o in a] == [numbers([v.to_dict() for v in o.value]) for o in b]
    print(f"{n} x ASCAF.T1 --quick: in-process {t1 - t0:.1f} s, {workers} workers {t2 - t1:.1f} s (cluster start "
          f"included), {(t1 - t0) / (t2 - t1):.2f}x; load average {os.getloadavg()[0]:.1f}; same values: {same}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="the full suite (default: --quick)")
    ap.add_argument("--reps", type=int, default=3, help="alternating repetitions of each way")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=None, help="write the timings as JSON here")
    ap.add_argument("--equal", type=int, default=0, metavar="N", help="only the N-equal-tasks measurement")
    a = ap.parse_args(argv)
    if a.equal:
        equal_tasks(a.equal, a.workers)
        return 0
    base = ["verify", "all", "--json", "--device", "cpu"] + ([] if a.full else ["--quick"])
    inproc, cluster, same = [], [], True
    for rep in range(a.reps):
        t1, d1 = run(base)
        t2, d2 = run(base + ["--workers", str(a.workers)])
        inproc.append(t1)
        cluster.append(t2)
        same &= numbers(d1) == numbers(d2)
        print(f"rep {rep}: in-process {t1:.1f} s, {a.workers} workers {t2:.1f} s, ratio {t1 / t2:.2f}x, "
              f"{len(d1)} records, same numbers: {numbers(d1) == numbers(d2)}", flush=True)
    best_in, best_cl = min(inproc), min(cluster)
    med = sorted(i / c for i, c in zip(inproc, cluster))[len(inproc) // 2]
    load = os.getloadavg()
    print(f"verify all {'(full)' if a.full else '--quick'}: in-process best {best_in:.1f} s, {a.workers}-worker local "
          f"cluster best {best_cl:.1f} s; speed-up best/best {best_in / best_cl:.2f}x, median of paired ratios "
          f"{med:.2f}x ({a.reps} reps, {os.cpu_count()} cores, load average {load[0]:.1f}); identical numbers: {same}")
    if a.out:
        Path(a.out).write_text(json.dumps({"suite": "full" if a.full else "quick", "workers": a.workers,
                                           "in_process_s": inproc, "cluster_s": cluster, "identical_numbers": same,
                                           "cpu_count": os.cpu_count(), "load_average": load}, indent=2))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
