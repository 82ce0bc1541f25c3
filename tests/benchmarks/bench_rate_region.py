"""Benchmarks for rate_region (not timed tests; run explicitly):

    python -m pytest tests/benchmarks/bench_rate_region.py --benchmark-enable
    python tests/benchmarks/bench_rate_region.py          # plain timings

    python tests/benchmarks/bench_rate_region.py --million   # issue 13: N = 10^6, whole process

Targets (issue 3): r* for N = 10,000 independently available clients with k = 100 in < 5 s;
CVXPY over explicit configurations for N = 12 in < 30 s. Issue 13: exact r* and H* for N = 10^6
heterogeneous clients (a_k uniform on [0.05, 0.95], Dirichlet(1) weights, k = 1000) in < 10 s and
< 2 GB for the whole process (interpreter start, imports, model, solve, certificate), measured by
running it in a child process and reading its wall time and peak resident memory.
"""

import json
import subprocess
import sys
import time

import numpy as np

from rate_region.availability import Independent
from rate_region.models import named_model
from rate_region.optimum import min_variance_rates


def large_independent(n=10_000, k=100, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.lognormal(0.0, 0.5, n)
    q /= q.max()  # Home-devices law (F3AST Appendix C-B)
    p = rng.dirichlet(np.ones(n))  # unequal weights so the chain has many blocks
    return Independent.build(q, k, p)


def small_explicit(n=12, k=3, seed=0):
    rng = np.random.default_rng(seed)
    return Independent.build(rng.uniform(0.1, 0.9, n), k, rng.dirichlet(np.ones(n)))


def million(n=1_000_000, k=1000, seed=0, alpha=1.0):
    rng = np.random.default_rng(seed)
    return Independent.build(rng.uniform(0.05, 0.95, n), k, rng.dirichlet(np.full(n, alpha)))


MILLION_CHILD = """
import json, sys, time
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
from tests.benchmarks.bench_rate_region import million
from rate_region.optimum import min_variance_rates
model = million(alpha={alpha})
t1 = time.perf_counter()
opt = min_variance_rates(model)
t2 = time.perf_counter()
print(json.dumps({{"model_s": t1 - t0, "solve_s": t2 - t1, "H": opt.H, "blocks": len(opt.blocks),
                  "method": opt.method, "kkt": opt.kkt}}))
"""


def run_million(alpha=1.0) -> dict:
    """N = 10^6 in a fresh interpreter: wall time and peak RSS of the whole process (Linux /usr/bin/time
    is not assumed; resource.getrusage of the child is)."""
    import os
    import resource

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", MILLION_CHILD.format(root=root, alpha=alpha)], capture_output=True,
                         text=True, check=True, cwd=root)
    wall = time.perf_counter() - t
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res.update(wall_s=wall, peak_rss_mb=peak_kb / 1024, peak_rss_note="" if peak_kb > before else "max over children")
    return res


def test_polymatroid_N1e6_k1000_whole_process():
    res = run_million()
    print(res)
    assert res["kkt"]["relative_gap"] < 1e-9


def test_polymatroid_N10000_k100(benchmark):
    model = large_independent()
    opt = benchmark.pedantic(min_variance_rates, args=(model,), rounds=3, iterations=1)
    assert opt.success and opt.kkt["max_rank_violation"] < 1e-8


def test_cvxpy_N12_explicit(benchmark):
    model = small_explicit()
    opt = benchmark.pedantic(min_variance_rates, args=(model,), kwargs={"method": "cvxpy"}, rounds=1, iterations=1)
    assert opt.success
    ref = min_variance_rates(model)
    assert abs(opt.H - ref.H) <= 1e-6 * ref.H


def test_sampler_home_devices(benchmark):
    from rate_region.sampler import simulate_sampler

    model = named_model("home-devices")
    run = benchmark.pedantic(simulate_sampler, args=(model,), kwargs=dict(beta=1e-3, rounds=5000, runs=8),
                             rounds=1, iterations=1)
    assert run.final_r.shape == (8, 100)


if __name__ == "__main__":
    if "--million" in sys.argv:
        for alpha in (1.0, 0.01):
            res = run_million(alpha)
            kkt = res.pop("kkt")
            print(f"N=10^6 k=1000 Dirichlet({alpha:g}): whole process {res['wall_s']:.2f} s, peak RSS "
                  f"{res['peak_rss_mb']:.0f} MB (model {res['model_s']:.2f} s, solve+certificate {res['solve_s']:.2f} s), "
                  f"H*={res['H']:.12g}, {res['blocks']} blocks, relative duality gap {kkt['relative_gap']:.2e}, "
                  f"max rank violation {kkt['max_rank_violation']:.2e}")
        sys.exit(0)
    for label, fn in [
        ("polymatroid N=10,000 k=100", lambda: min_variance_rates(large_independent())),
        ("polymatroid N=10,000 k=100 (objective p)", lambda: min_variance_rates(large_independent(), objective="p")),
        ("cvxpy explicit N=12 k=3 (4096 configurations)", lambda: min_variance_rates(small_explicit(), method="cvxpy")),
        ("enumeration N=12 k=3", lambda: min_variance_rates(small_explicit(), method="enumeration")),
    ]:
        t = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t
        print(f"{label}: {dt:.3f} s  H={out.H:.10g}  method={out.method}  blocks={len(out.blocks)}  {out.message}")
    a = min_variance_rates(small_explicit(), method="cvxpy")
    b = min_variance_rates(small_explicit())
    print(f"N=12: |H_cvx - H_poly|/H = {abs(a.H - b.H) / b.H:.2e}, "
          f"max |r_cvx - r_poly| / max r = {np.max(np.abs(a.r_star - b.r_star)) / b.r_star.max():.2e}")
