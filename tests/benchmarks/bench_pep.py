"""Solve time and peak memory of the finite-R worst case against K x R (gradient evaluations per client).

Run: python tests/benchmarks/bench_pep.py [--max-kr 30] [--pepit] [--json OUT]
     python tests/benchmarks/bench_pep.py --banded [--window 1] [--max-kr 1000] [--gap] [--limits] [--json OUT]
  or python -m pytest tests/benchmarks/bench_pep.py -s   (K x R up to 10)
``--banded``: the windowed chordal route (verify.pep.banded) on the same setting, K = 5 and R = 2 .. 200
(K x R = 10 .. 1,000): wall time of build + solve + exact recheck, the lower bound's time apart, peak RSS,
the certified upper bound and the quadratic lower bound; ``--gap`` also solves the full PEP for K x R <= 30
and prints the banded value's relative excess over it for windows 0..3.
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


# K = 5 and R from 2 to 200: K x R = 10, 20, 50, 100, 200, 500, 1000
BAND_SIZES = [(5, 2), (5, 4), (5, 10), (5, 20), (5, 40), (5, 100), (5, 200)]
GAP_SIZES = [(1, 4), (2, 2), (2, 5), (5, 2), (1, 20), (5, 4), (5, 6)]

_BAND_CHILD = """
import json, resource, sys, time, warnings
warnings.simplefilter("ignore")
import clarabel, numpy, scipy  # imports are not the solve's time
from verify.pep import Setting
from verify.pep.banded import solve_banded
K, R, w = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
s = Setting("local_gd", L=1.0, mu=0.1, zeta=0.5, eta=0.1, K=K, R=R, M=2)
t0 = time.perf_counter()
wc = solve_banded(s, window=w, max_seconds=1e9)
wall = time.perf_counter() - t0
c = wc.certificate
print(json.dumps({"K": K, "R": R, "kr": K * R, "backend": "banded", "window": w, "seconds": wc.solve_seconds,
                  "wall_with_lower_bound": wall, "lower_bound_seconds": c.get("lower_bound_seconds"),
                  "gram": wc.size["gram_rows"], "cliques": wc.size["cliques"], "value": wc.value,
                  "primal_value": wc.primal_value, "gap_to_primal": c.get("gap_to_primal"),
                  "trace_weight": c.get("trace_weight"), "lower_bound": c.get("lower_bound"),
                  "lower_bound_instance": c.get("lower_bound_instance"), "status": wc.solver_status,
                  "fixed_point_lower_bound": c.get("fixed_point_lower_bound"), "fixed_point": c.get("fixed_point"),
                  "certificate": c["status"], "exactness": wc.exactness,
                  "peak_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""


def measure_banded(sizes, window: int = 1, timeout: float = 900.0) -> list[dict]:
    from verify.pep import Setting
    from verify.pep.size import banded_estimate

    rows = []
    for K, R in sizes:
        out = subprocess.run([sys.executable, "-c", _BAND_CHILD, str(K), str(R), str(window)], capture_output=True,
                             text=True, timeout=timeout, check=True)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        est = banded_estimate(Setting("local_gd", 1.0, 0.1, 0.5, 0.1, K=K, R=R, M=2), window)
        row.update(estimate_seconds=est.seconds, estimate_gb=est.gb)
        rows.append(row)
        print(f"banded w={window} K={K:2d} R={R:3d} KxR={K * R:5d} gram={row['gram']} cones={row['cliques']} "
              f"time={row['seconds']:7.2f} s (lower bound {row['lower_bound_seconds']:.2f} s) "
              f"peak={row['peak_gb']:.2f} GB estimate {est.seconds:6.2f} s  {row['certificate']}  "
              f"[{row['lower_bound']:.8g}, {row['value']:.8g}] (fixed point >= {row['fixed_point_lower_bound']})", flush=True)
    return rows


def gap_table(sizes, windows=(0, 1, 2, 3)) -> list[dict]:
    """The banded value's relative excess over the full PEP's certified value (both verify.pep, same process)."""
    import warnings

    from verify.pep import Setting, solve
    from verify.pep.banded import solve_banded

    warnings.simplefilter("ignore")
    out = []
    for K, R in sizes:
        s = Setting("local_gd", L=1.0, mu=0.1, zeta=0.5, eta=0.1, K=K, R=R, M=2)
        full = solve(s, with_coverage=False, max_seconds=1e9)
        row = {"K": K, "R": R, "kr": K * R, "full": full.value, "full_primal": full.primal_value,
               "full_certificate": full.certificate["status"]}
        for w in windows:
            b = solve_banded(s, window=w, max_seconds=1e9, lower=w == windows[-1])
            row[f"w{w}"] = b.value
            row[f"w{w}_excess"] = (b.value - full.value) / full.value
            row[f"w{w}_certificate"] = b.certificate["status"]
            if "lower_bound" in b.certificate:
                row["lower_bound"] = b.certificate["lower_bound"]
        out.append(row)
        print(f"gap K={K} R={R} full={full.value:.9f} ({row['full_certificate']}) " + " ".join(
            f"w{w}:{row[f'w{w}_excess']:+.1e}" for w in windows) + f" lower={row.get('lower_bound', float('nan')):.9f}",
            flush=True)
    return out


def machine() -> dict:
    import os
    import platform
    from importlib.metadata import version

    return {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count(),
            "affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
            **{pkg: version(pkg) for pkg in ("numpy", "scipy", "clarabel", "cvxpy")},
            "seeds": "deterministic SDP; lower bound seed 0 (verify.pep.lower)"}


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
    ap.add_argument("--banded", action="store_true")
    ap.add_argument("--window", type=int, default=1)
    ap.add_argument("--gap", action="store_true")
    ap.add_argument("--limits", action="store_true", help="--banded: also K = 1, R = 1000 (windows 0, 1) and K = 10, "
                                                          "R = 100 (window 1), where the route is slower or loose")
    args = ap.parse_args()
    if args.banded:
        import datetime

        brows = measure_banded([s for s in BAND_SIZES if s[0] * s[1] <= args.max_kr], args.window)
        print(f"banded: time exponent against K x R (>= 20): {slope(brows, start=20):.2f}; memory exponent: "
              f"{slope(brows, 'peak_gb', start=20):.2f}")
        record = {"benchmark": "bench_pep.py --banded", "date": datetime.datetime.now(datetime.UTC)
                  .isoformat(timespec="seconds"), "machine": machine(), "window": args.window,
                  "setting": "local_gd, full participation, M=2, L=1, mu=0.1, zeta=0.5, eta=0.1, dist_sq",
                  "time_exponent": slope(brows, start=20), "memory_exponent": slope(brows, "peak_gb", start=20),
                  "rows": brows, "gap": gap_table(GAP_SIZES) if args.gap else [],
                  "limits": (measure_banded([(1, 1000)], 0) + measure_banded([(1, 1000), (10, 100)], 1))
                  if args.limits else []}
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(record, fh, indent=2)
        sys.exit(0)
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
