"""Solve time and peak memory of the PEP of deterministic local GD against its size n = K * M * R.

Run: python tests/benchmarks/bench_pep.py [--max-n 50] [--json OUT]
  or python -m pytest tests/benchmarks/bench_pep.py -s   (sizes up to n = 24)
Each size is solved in a fresh subprocess (Clarabel through cvxpy), so its peak RSS is its own.
Prints n, K, M, R, the Gram size, the solve seconds, the peak RSS and the model's estimate
(verify.pep.estimate_cost), then the fitted exponent of time against n.

Measured 2026-11-23 on the shared 2-core development machine (8 sessions busy; seconds are wall time of
build + compile + Clarabel; local GD, L=1, mu=0.1, zeta=0.5, eta=0.1, M=2):
n=4: 1.4 s, 8: 1.3 s, 12: 3.3 s, 16: 3.3 s, 20: 6.4 s, 24: 5.3 s, 30: 11.7 s, 40: 24.3 s, 50: 44.1 s,
60: 87.7 s (peak RSS 0.40 GB up to n=20, 0.56 GB at 40, 1.06 GB at 60). Fitted exponent (n >= 12): 2.1
overall, ~3 between 30 and 60. Certificates: certified up to n=12, approximate (proof error 1e-6..1e-4,
duality gap ~1e-8) above; Clarabel reports optimal_inaccurate from n=16.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys

# (K, M, R): n = K*M*R gradient evaluations
SIZES = [(1, 2, 2), (2, 2, 2), (3, 2, 2), (2, 2, 4), (5, 2, 2), (3, 2, 4), (5, 2, 3), (5, 2, 4), (5, 2, 5),
         (10, 2, 3), (10, 2, 4), (10, 2, 5)]

_CHILD = """
import json, resource, sys, time
from verify.pep import Setting, solve
K, M, R = map(int, sys.argv[1:4])
s = Setting("local_gd", L=1.0, mu=0.1, zeta=0.5, eta=0.1, K=K, R=R, M=M)
t0 = time.perf_counter()
wc = solve(s, with_coverage=False, max_seconds=1e9)
wall = time.perf_counter() - t0
print(json.dumps({"K": K, "M": M, "R": R, "n": K * M * R, "seconds": wc.solve_seconds, "wall": wall,
                  "gram": wc.certificate.get("gram_size"), "value": wc.value, "status": wc.solver_status,
                  "certificate": wc.certificate.get("status"),
                  "peak_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""


def measure(sizes, timeout: float = 900.0) -> list[dict]:
    from verify.pep import Setting, estimate_cost

    rows = []
    for K, M, R in sizes:
        out = subprocess.run([sys.executable, "-c", _CHILD, str(K), str(M), str(R)], capture_output=True, text=True,
                             timeout=timeout, check=True)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        est_s, est_gb = estimate_cost(Setting("local_gd", 1.0, 0.1, 0.5, 0.1, K=K, R=R, M=M))
        row.update(estimate_seconds=est_s, estimate_gb=est_gb)
        rows.append(row)
        print(f"n={row['n']:4d} K={K:3d} M={M} R={R:2d} gram={row['gram']:4d} solve={row['seconds']:8.2f} s "
              f"peak={row['peak_gb']:.2f} GB  estimate {est_s:8.2f} s {est_gb:.2f} GB  "
              f"{row['status']}/{row['certificate']}", flush=True)
    return rows


def slope(rows: list[dict], key: str = "seconds") -> float:
    """Least-squares exponent of ``key`` against n over the rows with n >= 12 (below, fixed costs dominate)."""
    pts = [(math.log(r["n"]), math.log(r[key])) for r in rows if r["n"] >= 12 and r[key] > 0]
    if len(pts) < 2:
        return float("nan")
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)


def test_pep_solve_time_grows_with_size():
    rows = measure([s for s in SIZES if s[0] * s[1] * s[2] <= 24])
    print(f"time exponent (n >= 12): {slope(rows):.2f}")
    assert all(r["certificate"] in ("certified", "approximate") for r in rows)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-n", type=int, default=50)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    rows = measure([s for s in SIZES if s[0] * s[1] * s[2] <= args.max_n])
    print(f"time exponent (n >= 12): {slope(rows):.2f}; memory exponent: {slope(rows, 'peak_gb'):.2f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)
