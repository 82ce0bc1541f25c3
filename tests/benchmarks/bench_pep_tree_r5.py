"""The per-round certificate against the finite-R worst case at R = 5 under uniform 1 of 2 (mu < L): the tree PEP.

Setting: local GD, L = 1, mu = 0.1, zeta = 0.1, eta = 0.001, K = 5, M = 2, uniform 1 of 2 (that of
bench_pep_lyapunov_r4.py). R = 5 is 31 branch nodes and 310 gradient evaluations; the dense PEP
(verify.pep.solve) is estimated by verify.pep.size at 8.17 hours and 57.6 GB there, so the tree route
(verify.pep.tree: interpolation only along root-to-leaf paths, one PSD cone per path clique) solves it.
Quantity: the tree PEP's proved upper bound ``bound`` on E||x_R - x*||^2 (exact rational recheck) and its
attained ``primal``; the per-round bound (verify.pep.lyapunov.horizon_bound). Since worst case <= tree value
<= horizon_bound (verify.pep.tree's docstring), ``holds_proved``: horizon_bound >= bound proves the per-round
bound above the finite worst case at this R; ``holds``: horizon_bound >= primal - 1e-8, the R = 4 record's
check. Every R runs in a fresh process so that its peak memory (ru_maxrss) is its own. At R = 4 the record
also gives the dense record's numbers (results/pep_lyapunov_r4.json) for the agreement.

Run: python tests/benchmarks/bench_pep_tree_r5.py [--R 3 4 5] [--out tests/benchmarks/results/pep_tree_r5.json]
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
from dataclasses import replace
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
RESULT = RESULTS / "pep_tree_r5.json"
DENSE_R4 = RESULTS / "pep_lyapunov_r4.json"
SETTING: dict[str, Any] = dict(method="local_gd", L=1.0, mu=0.1, zeta=0.1, eta=0.001, K=5, R=1, M=2)


def one(R: int) -> dict:
    """Solve the tree PEP at ``R`` in this process: sizes, seconds, peak memory, the comparison."""
    from verify.pep import Law, Setting
    from verify.pep.lyapunov import certificate, horizon_bound
    from verify.pep.size import estimate
    from verify.pep.tree import solve_tree

    s = Setting(**SETTING, law=Law("uniform", m=1))
    lines = certificate(s)
    bound = horizon_bound(lines, 1.0, R)
    load = os.getloadavg()
    t0 = time.perf_counter()
    tree = solve_tree(replace(s, R=R), max_seconds=1e9)
    wall = time.perf_counter() - t0
    dense = estimate(replace(s, R=R))
    return {"R": R, "horizon_bound": bound, "tree": tree,
            "holds_proved": tree["bound"] is not None and bound >= tree["bound"],
            "holds": tree["primal"] is not None and bound >= tree["primal"] - 1e-8,
            "wall_seconds": round(wall, 1), "cpu_seconds": round(time.process_time(), 1),
            "peak_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 3),
            "load_average_before": [round(x, 2) for x in load],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
            "dense_estimate": {"gram_rows": dense.gram_rows, "inequalities": dense.constraints,
                               "seconds": dense.seconds, "gb": dense.gb, "source": "verify.pep.size.estimate"},
            "per_round": [{"D": ln.D, "rho": ln.rho, "c": ln.c, "certified": ln.certified} for ln in lines]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--R", type=int, nargs="+", default=[3, 4, 5])
    ap.add_argument("--out", type=Path, default=RESULT)
    ap.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)  # a child process: one R, JSON out
    args = ap.parse_args()
    if args.one is not None:
        print(json.dumps(one(args.one), default=str))
        return

    import clarabel
    import numpy as np
    import scipy

    rows = []
    for R in args.R:
        run = subprocess.run([sys.executable, __file__, "--one", str(R)], capture_output=True, text=True, check=True)
        rows.append(json.loads(run.stdout.strip().splitlines()[-1]))
        print(json.dumps({k: rows[-1][k] for k in ("R", "horizon_bound", "holds_proved", "holds", "wall_seconds",
                                                   "peak_gb")}), flush=True)
    dense = json.loads(DENSE_R4.read_text(encoding="utf-8"))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).parent).stdout.strip()
    record = {
        "what": "per-round certificate vs the finite-R worst case by the tree PEP (verify.pep.tree), local GD, "
                "uniform 1 of 2",
        "setting": {**SETTING, "law": {"kind": "uniform", "m": 1}},
        "rows": rows,
        "dense_r4": {"value": dense["finite"]["value"], "primal_value": dense["finite"]["primal_value"],
                     "source": "tests/benchmarks/results/pep_lyapunov_r4.json"},
        "commit": commit,
        "versions": {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
                     "clarabel": getattr(clarabel, "__version__", "?")},
        "machine": f"{os.cpu_count()} CPUs, shared with other jobs (load averages per row)",
        "command": "python tests/benchmarks/bench_pep_tree_r5.py --R " + " ".join(map(str, args.R)),
    }
    args.out.write_text(json.dumps(record, indent=2, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
