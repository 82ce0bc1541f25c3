"""Benchmark of the non-convex worst case (verify.pep.nonconvex): wall time, peak memory and bracket width.

Run: ``PYTHONPATH=$PWD python tests/benchmarks/bench_pep_nonconvex.py [full|laws|all]`` (not collected by pytest:
each size runs in a fresh subprocess so that its peak resident memory is its own). Prints one line per size
and the machine's load (``uptime``): the machine is shared, so the figures move with it.
* full: local GD, full participation, M = 2, K = 10, R = 10 and 100 (K x R = 100, 1,000 gradient evaluations per
  client), dissimilarity at the models (hetero rounds), window 1; upper end: the certified sparse bound; lower end:
  the closed-form instance (proved, verify.pep.nonconvex_bracket).
* laws: uniform 1 of 2 (the branch tree, dense), K = 1, R = 1..4: the growth of time and Gram rows in R.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time

CHILD = r"""
import json, resource, sys, time
from verify.pep import Law
from verify.pep.nonconvex import NCSetting
from verify.pep.nonconvex_core import solve_nc
a = json.loads(sys.argv[1])
law = Law("uniform", m=1) if a.pop("law", None) else None
window = a.pop("window", None)
t = time.perf_counter()
w = solve_nc(NCSetting(law=law, **a), window=window, max_seconds=1e9)
print(json.dumps({"seconds": time.perf_counter() - t, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "value": w.value, "certified": w.certified, "lower": w.certificate.get("lower_bound"),
                  "gram_rows": w.size.get("gram_rows"), "largest_clique": w.size.get("largest_clique"),
                  "estimated_seconds": w.size.get("estimated_seconds")}))
"""


def run(args: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(args)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def full() -> None:
    for K, R in ((10, 10), (10, 100)):
        for measure in ("avg_grad_sq", "min_grad_sq"):
            print("load:", load())
            r = run(dict(method="local_gd", L=1.0, zeta=0.3, eta=0.1, K=K, R=R, M=2, measure=measure,
                         hetero="rounds", window=1))
            width = (r["value"] - r["lower"]) / r["value"] if r["value"] else math.nan
            print(f"full K={K} R={R} KxR={K * R} {measure}: {r['seconds']:.1f} s, peak {r['peak_mb']:.0f} MB, "
                  f"d={r['gram_rows']}, cliques <= {r['largest_clique']}, certified={r['certified']}, bracket "
                  f"[{r['lower']:.6g}, {r['value']:.6g}] (relative width {width:.3g}); estimate "
                  f"{r['estimated_seconds']:.3g} s", flush=True)


def laws() -> None:
    rows = []
    for R in range(1, 5):
        print("load:", load())
        r = run(dict(method="local_gd", L=1.0, zeta=0.3, eta=0.5, K=1, R=R, M=2, measure="avg_grad_sq", law=True))
        rows.append((R, r["seconds"], r["gram_rows"]))
        print(f"uniform 1 of 2, K=1, R={R}: {r['seconds']:.2f} s, peak {r['peak_mb']:.0f} MB, d={r['gram_rows']}, "
              f"certified={r['certified']}, value {r['value']:.6g}; estimate {r['estimated_seconds']:.3g} s", flush=True)
    (_, t0, d0), (r1, t1, d1) = rows[-2], rows[-1]
    print(f"growth per round at R={r1}: time x{t1 / t0:.2f}, Gram rows x{d1 / d0:.2f}; time ~ d^"
          f"{math.log(t1 / t0) / math.log(d1 / d0):.2f}")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    t = time.time()
    if what in ("full", "all"):
        full()
    if what in ("laws", "all"):
        laws()
    print(f"total {time.time() - t:.0f} s")
