"""Solve time and peak memory of the finite-R worst case against K x R (gradient evaluations per client).

Run: python tests/benchmarks/bench_pep.py [--max-kr 30] [--pepit] [--json OUT]
  or python -m pytest tests/benchmarks/bench_pep.py -s   (K x R up to 10)
Each size is solved in a fresh subprocess (so its peak RSS is its own): deterministic local GD, full
participation, M = 2 (exact for any M), L = 1, mu = 0.1, zeta = 0.5, eta = 0.1, Clarabel through cvxpy,
with the exact recheck of the certificate (verify.pep.solve). ``--pepit`` also times PEPit's formulation
of the same PEP (verify.pep.pepit_backend). Prints K, R, K x R, the Gram size, the seconds, the peak
RSS, the estimate (verify.pep.size) and the statuses, then the fitted growth exponent of time against
K x R and the extrapolation to K x R = 1,000. Measured figures: README.md, worst-case section.

Measured 2026-11-24 on the shared 2-core machine (other sessions busy; record in
tests/benchmarks/results/pep_direct.json), swap-symmetric solve with the exact recheck:
K x R = 10: 0.24 s; 20: 1.3 s; 30: 7.4 s; 40: 92 s; 50: 276 s (peak RSS 0.53 GB); growth exponent 4.5
(K x R >= 10), extrapolated to K x R = 1,000: 2e8 s. Certified up to 30 and at 45; approximate at 35, 40
and 50 (the proved bound lies 1e-6 to 1e-5 above the primal value after the retry). Before the swap
symmetry (same machine, 2026-11-24): 9 s at 10, 35 s at 20, 130 s at 30; PEPit's own formulation:
3.2 s at 10, 32 s at 20 (approximate above 6: PEPit's float proof check). The 60 s goal at K x R = 1,000
is not reached: the Gram matrix has 2 K R + 2 rows and an interior-point method factors its dense PSD
block; the per-round certificate (verify.pep.lyapunov) bounds every R in 0.3-0.5 s instead.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys

# (K, R): K x R gradient evaluations per client, two clients
SIZES = [(1, 2), (2, 2), (3, 2), (5, 2), (4, 4), (5, 4), (5, 5), (6, 5), (7, 5), (8, 5), (9, 5), (10, 5)]

_CHILD = """
import json, resource, sys, time, warnings
warnings.simplefilter("ignore")
import cvxpy, clarabel, numpy  # imports are not the solve's time
from verify.pep import Setting, solve
K, R, backend = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
if backend == "pepit":
    import PEPit
s = Setting("local_gd", L=1.0, mu=0.1, zeta=0.5, eta=0.1, K=K, R=R, M=2)
t0 = time.perf_counter()
if backend == "pepit":
    from verify.pep.pepit_backend import solve_pepit
    value, status, cert = solve_pepit(s)
    gram, certificate = cert.get("gram_size"), cert.get("status")
else:
    wc = solve(s, with_coverage=False, max_seconds=1e9)
    value, status, gram, certificate = wc.value, wc.solver_status, wc.size["gram_rows"], wc.certificate["status"]
wall = time.perf_counter() - t0
print(json.dumps({"K": K, "R": R, "kr": K * R, "backend": backend, "seconds": wall, "gram": gram, "value": value,
                  "status": status, "certificate": certificate,
                  "peak_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""


def measure(sizes, backend: str = "direct", timeout: float = 900.0) -> list[dict]:
    from verify.pep import Setting, estimate

    rows = []
    for K, R in sizes:
        out = subprocess.run([sys.executable, "-c", _CHILD, str(K), str(R), backend], capture_output=True,
                             text=True, timeout=timeout, check=True)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        est = estimate(Setting("local_gd", 1.0, 0.1, 0.5, 0.1, K=K, R=R, M=2))
        row.update(estimate_seconds=est.seconds, estimate_gb=est.gb)
        rows.append(row)
        print(f"{backend:6s} K={K:2d} R={R:2d} KxR={K * R:4d} gram={row['gram']} time={row['seconds']:8.2f} s "
              f"peak={row['peak_gb']:.2f} GB  estimate {est.seconds:8.2f} s {est.gb:.2f} GB  "
              f"{row['status']}/{row['certificate']}  value={row['value']}", flush=True)
    return rows


def slope(rows: list[dict], key: str = "seconds", start: int = 10) -> float:
    """Least-squares exponent of ``key`` against K x R over rows with K x R >= ``start`` (fixed costs below)."""
    pts = [(math.log(r["kr"]), math.log(r[key])) for r in rows if r["kr"] >= start and r[key] > 0]
    if len(pts) < 2:
        return float("nan")
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)


def extrapolate(rows: list[dict], kr: int = 1000) -> float:
    """Seconds at ``kr`` from the largest measured size and the fitted exponent."""
    last = max(rows, key=lambda r: r["kr"])
    return last["seconds"] * (kr / last["kr"]) ** slope(rows)


def test_pep_solve_time_grows_with_size():
    rows = measure([s for s in SIZES if s[0] * s[1] <= 10])
    print(f"time exponent (K x R >= 4): {slope(rows, start=4):.2f}")
    assert all(r["certificate"] in ("certified", "approximate") for r in rows)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-kr", type=int, default=30)
    ap.add_argument("--pepit", action="store_true")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    rows = measure([s for s in SIZES if s[0] * s[1] <= args.max_kr])
    print(f"direct: time exponent against K x R (>= 10): {slope(rows):.2f}; memory exponent: "
          f"{slope(rows, 'peak_gb'):.2f}; extrapolated to K x R = 1000: {extrapolate(rows):.3g} s")
    if args.pepit:
        prow = measure([s for s in SIZES if s[0] * s[1] <= args.max_kr], backend="pepit")
        print(f"pepit: time exponent (>= 10): {slope(prow):.2f}; extrapolated to 1000: {extrapolate(prow):.3g} s")
        rows += prow
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)
