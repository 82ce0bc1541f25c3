"""Exact moments against the dimension: the coordinate-by-coordinate path (quadratics.exact.diagonal) at d = 1,000.

Run:  python tests/benchmarks/bench_exact_dimension.py [--out PATH]   (prints the README line; writes JSON)

Cases: FedAvg and FAST (FedAvg base, snapshot pattern with q = 1: uniform m of M every round) on the shared-Hessian
quadratic family (zeta = sigma = 1), uniform m = M/4 of M (the structured law: one pairwise inclusion probability),
eta = 0.01, K = 64 local steps, R = 10^6 rounds, d = 1,000 with M = 16 and M = 1,000. Wall and CPU time of one
exact evaluation from fresh objects (declaration, the check of the declared diagonal round against the engine's
round, law, d per-coordinate moment matrices, 10^6 rounds by repeated squaring), median of 3, the rounding bound
relative to the value, and the order per coordinate. For scale: the dense path's order at d = 1,000 would be
500,501 (its limit is 600, d <= 33). Goal: well under a few seconds.
Cross-check: at d = 1,000, M = 16 (FedAvg, R = 20) the exact E||x_R - x*||^2 against a 256-trial simulation's 99%
interval (a different code path: the engine's batched local SGD).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np
import torch
from bench_exact_clients import METHODS as CLIENTS_METHODS
from bench_exact_clients import K, cross_check  # this folder, on sys.path as a script

from quadratics import heterogeneous_quadratic
from quadratics.exact import exact_moments

OUT = Path(__file__).resolve().parent / "results" / "exact_dimension.json"
D, R = 1000, 10**6
# the same cases and cross-check as the clients benchmark (run as a script, this folder is on sys.path)
METHODS = {m: CLIENTS_METHODS[m] for m in ("FedAvg", "FAST (q = 1)")}


def time_case(method: str, M: int, repeat: int = 3) -> dict:
    walls, cpus, ex = [], [], None
    for _ in range(repeat):
        # fresh objects: nothing cached between repeats (the problem's build is not timed)
        pb = heterogeneous_quadratic(L=1.0, mu=0.1, d=D, M=M, zeta=1.0, sigma=1.0, D0=1.0, seed=0)
        alg, pat = METHODS[method](M)
        t, c = time.perf_counter(), time.process_time()
        ex = exact_moments(pb, alg, pat, R)
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    assert ex is not None
    return {"method": method, "M": M, "d": D, "K": K, "rounds": R, "median_s": statistics.median(walls),
            "max_s": max(walls), "cpu_s": statistics.median(cpus), "dist_sq": ex.final["dist_sq"],
            "rel_bound": ex.final_err["dist_sq"] / ex.final["dist_sq"], "order": ex.order, "law": ex.law}


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True,
                              cwd=Path(__file__).resolve().parent).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--clients", default="16,1000")
    args = ap.parse_args()
    load = os.getloadavg()
    rows = [time_case(m, int(M)) for M in args.clients.split(",") for m in METHODS]
    print(f"exact moments by coordinate, d = {D}, K = {K}, R = 10^6, uniform M/4 of M (torch {torch.__version__}, "
          f"numpy {np.__version__}, {os.cpu_count()} cores, load average {load[0]:.1f} at the start, "
          f"{os.getloadavg()[0]:.1f} at the end; CPU s = the process's own CPU time):")
    for r in rows:
        print(f"  {r['method']:13s} M = {r['M']:5d}: wall median {r['median_s']:.3f} s (max {r['max_s']:.3f} s), "
              f"CPU {r['cpu_s']:.3f} s, order {r['order']} per coordinate, E||x_R - x*||^2 = {r['dist_sq']:.6g}, "
              f"rounding bound {r['rel_bound']:.1e} rel.")
    check = cross_check(M=16, d=D)
    print(f"cross-check d = {check['d']}, M = {check['M']}, R = {check['rounds']}: exact {check['exact']:.6g}, Monte "
          f"Carlo {check['mc_mean']:.6g} (99% CI {check['mc_ci99'][0]:.6g}..{check['mc_ci99'][1]:.6g}, "
          f"{check['trials']} trials): {'inside' if check['inside'] else 'OUTSIDE'}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({
        "rows": rows, "cross_check": check, "load_average_start": load, "load_average_end": os.getloadavg(),
        "cores": os.cpu_count(), "commit": _commit(),
        "versions": {"python": platform.python_version(), "numpy": np.__version__, "torch": torch.__version__},
        "command": "python tests/benchmarks/bench_exact_dimension.py"}, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
