"""Benchmark (not a test): falsify's optimisers compared at equal budgets and seeds, and its speed.

Run: ``PYTHONPATH=. python tests/benchmarks/bench_falsify.py [--budget 200] [--seeds 0,1,2]
[--scenarios FAST.T2@corrected,FAST.T1,F3AST.T3.5@explicit] [--optimisers ...] [--out bench.json]``.
For each (scenario, optimiser, seed): best first-estimate ratio, confirmed ratio and verdict,
evaluations, wall time and evaluations per second, printed as a table and saved as JSON.
The machine is shared: wall times are upper bounds of an idle machine's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
import warnings

from verify.scenarios import get
from verify.search.falsify import search
from verify.search.optimisers import OPTIMISERS


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=int, default=200)
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--scenarios", default="FAST.T2@corrected,FAST.T1,F3AST.T3.5@explicit")
    ap.add_argument("--optimisers", default=",".join(o for o in OPTIMISERS))
    ap.add_argument("--trials", type=int, default=64)
    ap.add_argument("--out", default="bench_falsify.json")
    a = ap.parse_args()
    warnings.filterwarnings("ignore")
    rows = []
    for sid in a.scenarios.split(","):
        for opt in a.optimisers.split(","):
            for seed in (int(s) for s in a.seeds.split(",")):
                t0 = time.perf_counter()
                rec = search(get(sid), budget=a.budget, seed=seed, trials=a.trials, optimiser=opt)
                wall = time.perf_counter() - t0
                c = rec.confirmation
                row = {"scenario": sid, "optimiser": opt, "seed": seed, "evaluations": rec.evaluations,
                       "admissible": rec.admissible, "best_ratio": rec.best["estimate"]["ratio"],
                       "confirmed_ratio": c.get("ratio"), "ratio_ci": c.get("ratio_ci"), "verdict": c["verdict"],
                       "wall_s": wall, "search_s": rec.elapsed_s, "evals_per_s": rec.evaluations / wall}
                rows.append(row)
                print(f"{sid:26s} {opt:16s} seed {seed}: best {row['best_ratio']:.4g} confirmed "
                      f"{row['confirmed_ratio']:.4g} {row['verdict']:10s} {wall:7.1f} s "
                      f"{row['evals_per_s']:.1f} eval/s", flush=True)
    meta = {"budget": a.budget, "trials": a.trials, "cpu_count": os.cpu_count(), "machine": platform.platform(),
            "note": "shared machine (other jobs running): wall times are upper bounds"}
    with open(a.out, "w") as fh:
        json.dump({"meta": meta, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
