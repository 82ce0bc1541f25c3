"""Benchmark (not a test): does the default search find FAST Theorem 1's conditional refutation by itself?

Runs the command a user would, ``convbound falsify FAST.T1 --budget 300 --seed S --json`` (every other option at
its default: the ``corners`` optimiser, the scenario's problem families, no hint), for each seed, each in a
fresh process, and records per seed: the confirmed verdict and ratio, the share of points cut by cost (proposed
but not scored), and the CPU seconds of the process (``resource.getrusage`` of the child: user + system) beside
its wall time and the load average before and after, since the machine may be shared.

Run from the repository root::

    PYTHONPATH=. python tests/benchmarks/bench_fast_t1_seeds.py --seeds 0-9 \
        --out tests/benchmarks/results/fast_t1_seeds.json [--store evidence.sqlite]

``--store`` also writes each search into an evidence store (``falsify --store``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path


def _seeds(text: str) -> list[int]:
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(s) for s in text.split(",")]


def _run(seed: int, budget: int, store: str | None) -> dict:
    argv = [sys.executable, "-m", "reports.cli.main", "falsify", "FAST.T1", "--budget", str(budget),
            "--seed", str(seed), "--json"] + (["--store", store] if store else ["--no-store"])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    run = subprocess.run(argv, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    row = {"seed": seed, "command": " ".join(["convbound", *argv[3:]]), "exit": run.returncode,
           "cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "load_before": [round(x, 2) for x in load_before],
           "load_after": [round(x, 2) for x in os.getloadavg()]}
    if run.returncode not in (0, 1):
        row["error"] = run.stderr.strip().splitlines()[-1:] or ["(no message)"]
        return row
    rec = json.loads(run.stdout)
    conf = rec.get("confirmation") or {}
    fid = rec.get("fidelity") or {}
    row.update({"verdict": conf.get("verdict"), "ratio": conf.get("ratio"), "evaluations": rec.get("evaluations"),
                "fidelity": fid.get("counts"), "cut_share": fid.get("cut"),
                "refuted": str(conf.get("verdict", "")).startswith("violated")})
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0-9")
    ap.add_argument("--budget", type=int, default=300)
    ap.add_argument("--store", default=None)
    ap.add_argument("--out", default="fast_t1_seeds.json")
    a = ap.parse_args()
    rows = []
    for seed in _seeds(a.seeds):
        row = _run(seed, a.budget, a.store)
        rows.append(row)
        print(f"seed {seed}: {row.get('verdict')} ratio {row.get('ratio')} cut {row.get('cut_share')} "
              f"cpu {row['cpu_s']} s wall {row['wall_s']} s load {row['load_before'][0]}", flush=True)
        Path(a.out).write_text(json.dumps(_doc(a, rows), indent=1))


def _doc(a: argparse.Namespace, rows: list[dict]) -> dict:
    from importlib.metadata import version

    found = sum(1 for r in rows if r.get("refuted"))
    return {"benchmark": "default search on FAST.T1, one process per seed",
            "budget": a.budget, "seeds": [r["seed"] for r in rows],
            "summary": {"refuted": found, "of": len(rows), "max_cpu_s": max(r["cpu_s"] for r in rows),
                        "max_cut_share": max((r.get("cut_share") or 0.0) for r in rows)},
            "rows": rows, "cores": os.cpu_count(), "machine": platform.platform(),
            "versions": {"convbound": version("convbound"), "python": platform.python_version()}}


if __name__ == "__main__":
    main()
