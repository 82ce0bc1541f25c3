"""Exact moments against the number of clients: state-x methods at M up to 1,000, d = 10, K = 64, R = 10^6.

Run:  python tests/benchmarks/bench_exact_clients.py [--out PATH]   (prints the README table; writes JSON)

Cases: FedAvg, FedProx (mu = 0.1), FAST (FedAvg base, snapshot pattern with q = 1: uniform m of M every round)
and Amplified FedAvg (gamma = 1.5, P = 4) on the shared-Hessian quadratic family (d = 10, zeta = sigma = 1) and
FedAvg on the rotated family, uniform m = M/4 of M, eta = 0.01, K = 64 local steps, R = 10^6 rounds. Wall time of
one exact evaluation from fresh objects (declaration, law, moment matrices, 10^6 rounds by repeated squaring),
median of 3, and the rounding bound relative to the value. Goal: M = 1,000 under 1 s.
Cross-check: at M = 1,000 (FedAvg, R = 20) the exact E||x_R - x*||^2 against a 256-trial simulation's 99%
interval (a different code path: the engine's batched local SGD).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from quadratics import (
    amplified_fedavg,
    fast,
    fast_mixture,
    fedavg,
    fedprox,
    heterogeneous_quadratic,
    rotated_quadratic,
    simulate,
    uniform,
)
from quadratics.exact import exact_moments

OUT = Path(__file__).resolve().parent / "results" / "exact_clients.json"
ETA, K, D, R = 0.01, 64, 10, 10**6
METHODS = {
    "FedAvg": lambda M: (fedavg(eta=ETA, K=K), uniform(M=M, S=M // 4)),
    "FedProx": lambda M: (fedprox(eta=ETA, K=K, mu_prox=0.1), uniform(M=M, S=M // 4)),
    "FAST (q = 1)": lambda M: (fast(eta=ETA, K=K), fast_mixture(M=M, m=M // 4, n=M // 4, q=1.0)),
    "Amplified FedAvg": lambda M: (amplified_fedavg(eta=ETA, K=K, gamma=1.5, P=4), uniform(M=M, S=M // 4)),
}


def time_case(method: str, family: str, M: int, repeat: int = 3) -> dict:
    make = heterogeneous_quadratic if family == "quadratic" else rotated_quadratic
    pb = make(L=1.0, mu=0.1, d=D, M=M, zeta=1.0, sigma=1.0, D0=1.0, seed=0)
    walls, cpus, ex = [], [], None
    for _ in range(repeat):
        alg, pat = METHODS[method](M)  # fresh objects: nothing cached between repeats
        t, c = time.perf_counter(), time.process_time()
        ex = exact_moments(pb, alg, pat, R)
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    assert ex is not None
    return {"method": method, "family": family, "M": M, "d": D, "K": K, "rounds": R,
            "median_s": statistics.median(walls), "max_s": max(walls), "cpu_s": statistics.median(cpus), "dist_sq": ex.final["dist_sq"],
            "rel_bound": ex.final_err["dist_sq"] / ex.final["dist_sq"], "order": ex.order}


def cross_check(M: int = 1000, rounds: int = 20, trials: int = 256, d: int = D) -> dict:
    """The exact E||x_R - x*||^2 of FedAvg at M clients, dimension d, against a simulation's 99% interval."""
    from quadratics.summary import t_interval

    pb = heterogeneous_quadratic(L=1.0, mu=0.1, d=d, M=M, zeta=1.0, sigma=1.0, D0=1.0, seed=0)
    alg, pat = METHODS["FedAvg"](M)
    ex = exact_moments(pb, alg, pat, rounds)
    t = time.perf_counter()
    sim = simulate(pb, alg, pat, trials=trials, rounds=rounds, seed=0, device="cpu")
    mean, lo, hi, _ = t_interval(np.asarray(sim.metrics["dist_sq"][rounds], float), 0.99)
    return {"M": M, "d": d, "rounds": rounds, "trials": trials, "seed": 0, "exact": ex.final["dist_sq"],
            "mc_mean": float(mean), "mc_ci99": [float(lo), float(hi)], "inside": bool(lo <= ex.final["dist_sq"] <= hi),
            "mc_s": time.perf_counter() - t}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--sizes", default="16,64,256,1000")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = [time_case(m, "quadratic", M) for M in sizes for m in METHODS]
    rows += [time_case("FedAvg", "quadratic-rotated", M) for M in sizes]
    load = os.getloadavg()[0]
    print(f"exact moments, d = {D}, K = {K}, R = 10^6, uniform M/4 of M (torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads, {os.cpu_count()} cores, load average {load:.1f} at the start; "
          "CPU s = the process's own CPU time, wall s inflated by the load):")
    for r in rows:
        print(f"  {r['method']:17s} {r['family']:17s} M = {r['M']:5d}: wall median {r['median_s']:.3f} s "
              f"(max {r['max_s']:.3f} s), CPU {r['cpu_s']:.3f} s, E||x_R - x*||^2 = {r['dist_sq']:.6g}, rounding bound {r['rel_bound']:.1e} rel.")
    check = cross_check()
    print(f"cross-check M = {check['M']}, R = {check['rounds']}: exact {check['exact']:.6g}, Monte Carlo "
          f"{check['mc_mean']:.6g} (99% CI {check['mc_ci99'][0]:.6g}..{check['mc_ci99'][1]:.6g}, {check['trials']} "
          f"trials): {'inside' if check['inside'] else 'OUTSIDE'}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"rows": rows, "cross_check": check, "load_average": load,
                                          "cores": os.cpu_count()}, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
