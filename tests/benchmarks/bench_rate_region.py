"""Benchmarks for rate_region (not timed tests; run explicitly):

    python -m pytest tests/benchmarks/bench_rate_region.py --benchmark-enable
    python tests/benchmarks/bench_rate_region.py          # plain timings

Targets (issue 3): r* for N = 10,000 independently available clients with k = 100 in < 5 s;
CVXPY over explicit configurations for N = 12 in < 30 s.
"""

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
