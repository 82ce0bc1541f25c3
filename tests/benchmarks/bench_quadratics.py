"""Throughput of the batched engine (client local steps per second), against a plain per-client loop.

Run:  python -m pytest tests/benchmarks/bench_quadratics.py --benchmark-enable
or:   python tests/benchmarks/bench_quadratics.py   (prints the figures used in the README)

Cases: (a) the 4-D lower-bound objective, FedAvg, final configuration (cyclic P=480, 2 groups,
S=1, K=10), 256 trials in one batch, against :func:`numpy_reference_lb`, a straightforward numpy
loop over trials, rounds, participating clients and local steps running the same algorithm
(interleaved repetitions; the speed-up is reported on wall-clock time and on this thread's CPU
time, which other processes on a shared machine disturb less);
(b) heterogeneous quadratics d=1000, M=100, uniform S=10, K=10, 64 trials;
(c) the distinct-curvature families (diagonal and rotated Hessians, logistic regression) at d=100,
M=20, uniform S=10, K=10, 64 trials in one batch, against :func:`numpy_reference_family`, a plain
numpy loop over trials, rounds, sampled clients and local steps (the same step, same noise law).
Every ratio: median over interleaved repetitions, wall-clock and CPU time (``time.process_time``).
"""

from __future__ import annotations

import time

import numpy as np

from quadratics import cyclic, fedavg, heterogeneous_quadratic, lower_bound_objective, simulate, uniform
from quadratics.curvature import diagonal_quadratic, rotated_quadratic
from quadratics.logistic import logistic_regression


def numpy_reference_lb(problem, eta: float, K: int, rounds: int, trials: int, seed: int = 0) -> tuple[np.ndarray, int]:
    """FedAvg on the LB objective under LB.PART cyclic participation, one client step at a time."""
    rng = np.random.default_rng(seed)
    P, groups, S, M = 480, 2, 1, problem.M
    mu, H, a_even, lamb, c, zeta, sigma = (problem.mu, problem.H, problem.a_even, problem.lamb, problem.c,
                                      problem.zeta, problem.sigma)
    x2s = problem.x_star[1]
    xs = np.zeros((trials, problem.d))
    steps = 0
    for t in range(trials):
        x = problem.x0.copy()
        for r in range(rounds):
            group = (r % P) // (P // groups)
            members = np.arange(group, M, groups)
            chosen = rng.choice(members, S, replace=False)
            new = np.zeros(problem.d)
            for i in chosen:
                y = x.copy()
                for _ in range(K):
                    g = np.array([mu * (y[0] - c), H * (y[1] - x2s), H / 4 * (y[2] + max(y[2], 0.0)),
                                  (a_even if i % 2 == 0 else lamb) / 2 * y[3] + (zeta if i % 2 == 0 else -zeta)])
                    g[2] += sigma * rng.standard_normal()
                    y = y - eta * g
                    steps += 1
                new += y / S
            x = new
        xs[t] = x
    return xs, steps


def lb_engine(trials: int = 256, rounds: int = 500, threads: int | None = 1) -> float:
    return _lb_engine_timed(trials, rounds, threads)[0]


def _lb_engine_timed(trials: int = 256, rounds: int = 500, threads: int | None = 1) -> tuple[float, float]:
    """(steps per wall second, steps per CPU second of this thread) of one engine run."""
    c0 = time.process_time()
    sim = simulate(lower_bound_objective(), fedavg(1e-5, 10), cyclic(2, 1, 480, 2), trials, rounds, seed=0,
                   device="cpu", threads=threads)
    return sim.steps_per_second, sim.steps / (time.process_time() - c0)


def lb_reference(trials: int = 8, rounds: int = 100) -> float:
    return _lb_reference_timed(trials, rounds)[0]


def _lb_reference_timed(trials: int = 8, rounds: int = 100) -> tuple[float, float]:
    pb = lower_bound_objective()
    t0, c0 = time.perf_counter(), time.process_time()
    _, steps = numpy_reference_lb(pb, 1e-5, 10, rounds, trials)
    return steps / (time.perf_counter() - t0), steps / (time.process_time() - c0)


def quad_engine(trials: int = 64, rounds: int = 5, threads: int | None = 1) -> float:
    sim = simulate(heterogeneous_quadratic(d=1000, M=100), fedavg(0.1, 10), uniform(100, 10), trials, rounds,
                   seed=0, device="cpu", threads=threads)
    return sim.steps_per_second


FAMILY = dict(d=100, M=20)
FAMILIES = {"diagonal": lambda: diagonal_quadratic(**FAMILY), "rotated": lambda: rotated_quadratic(**FAMILY),
            "logistic": lambda: logistic_regression(n=50, **FAMILY)}


def numpy_reference_family(problem, eta: float, K: int, S: int, rounds: int, trials: int,
                           seed: int = 0) -> tuple[np.ndarray, int]:
    """FedAvg under uniform S-of-M sampling, one client step at a time with the problem's numpy data."""
    rng = np.random.default_rng(seed)
    M, d, std = problem.M, problem.d, problem.noise_std
    if hasattr(problem, "A"):
        A, nab = problem.A, -np.einsum("mde,me->md", problem.A, problem.b)
        lam = np.einsum("mdd->md", A) if problem.diagonal else None

        def grad(i, y):
            return (lam[i] * y if lam is not None else A[i] @ y) + nab[i]
    else:
        Z, lam_r = problem.Z, problem.lam

        def grad(i, y):
            s = 1.0 / (1.0 + np.exp(Z[i] @ y))
            return -(Z[i].T @ s) / Z.shape[1] + lam_r * y
    xs = np.zeros((trials, d))
    steps = 0
    for t in range(trials):
        x = problem.x0.copy()
        for _ in range(rounds):
            new = np.zeros(d)
            for i in rng.choice(M, S, replace=False):
                y = x.copy()
                for _ in range(K):
                    y = y - eta * (grad(i, y) + std * rng.standard_normal(d))
                    steps += 1
                new += y / S
            x = new
        xs[t] = x
    return xs, steps


def family_engine_timed(name: str, trials: int = 64, rounds: int = 10) -> tuple[float, float]:
    pb = FAMILIES[name]()
    c0 = time.process_time()
    sim = simulate(pb, fedavg(0.05, 10), uniform(FAMILY["M"], 10), trials, rounds, seed=0, device="cpu", threads=1)
    return sim.steps_per_second, sim.steps / (time.process_time() - c0)


def family_reference_timed(name: str, trials: int = 2, rounds: int = 5) -> tuple[float, float]:
    pb = FAMILIES[name]()
    t0, c0 = time.perf_counter(), time.process_time()
    _, steps = numpy_reference_family(pb, 0.05, 10, 10, rounds, trials)
    return steps / (time.perf_counter() - t0), steps / (time.process_time() - c0)


def test_bench_families(benchmark):
    sps = benchmark.pedantic(lambda: family_engine_timed("rotated")[0], rounds=1, iterations=1)
    benchmark.extra_info["steps_per_second"] = sps
    assert sps > 0


def test_bench_lb_engine(benchmark):
    sps = benchmark.pedantic(lb_engine, rounds=1, iterations=1)
    benchmark.extra_info["steps_per_second"] = sps
    assert sps > 0


def test_bench_lb_numpy_reference(benchmark):
    sps = benchmark.pedantic(lb_reference, rounds=1, iterations=1)
    benchmark.extra_info["steps_per_second"] = sps
    assert sps > 0


def test_bench_quadratic_engine(benchmark):
    sps = benchmark.pedantic(quad_engine, rounds=1, iterations=1)
    benchmark.extra_info["steps_per_second"] = sps
    assert sps > 0


REPS = 9

if __name__ == "__main__":
    import torch

    print(f"torch {torch.__version__}, default threads {torch.get_num_threads()}")
    wall, cpu = [], []
    for rep in range(REPS):  # interleaved, so both sides see the same machine load
        (eng, eng_cpu), (ref, ref_cpu) = _lb_engine_timed(), _lb_reference_timed()
        wall.append(eng / ref)
        cpu.append(eng_cpu / ref_cpu)
        print(f"  rep {rep}: engine {eng:,.0f} steps/s ({eng_cpu:,.0f} per CPU s), numpy loop {ref:,.0f} steps/s "
              f"({ref_cpu:,.0f} per CPU s), ratio {eng / ref:.1f}x wall, {eng_cpu / ref_cpu:.1f}x CPU time")
    for name, r in (("wall-clock", wall), ("CPU-time", cpu)):
        print(f"LB objective, FedAvg, 256 trials in one batch (1 thread), {name} speed-up: median "
              f"{np.median(r):.1f}x (min {min(r):.1f}x, max {max(r):.1f}x, {REPS} interleaved reps)")
    print(f"LB objective, 256 trials, torch default threads: {lb_engine(threads=None):,.0f} steps/s")
    for name in FAMILIES:
        wall, cpu, eng_w, ref_w = [], [], [], []
        for _ in range(5):  # interleaved
            (eng, eng_cpu), (ref, ref_cpu) = family_engine_timed(name), family_reference_timed(name)
            wall.append(eng / ref)
            cpu.append(eng_cpu / ref_cpu)
            eng_w.append(eng)
            ref_w.append(ref)
        print(f"{name} d=100 M=20 S=10 K=10, 64 trials (1 thread): engine median {np.median(eng_w):,.0f} client "
              f"steps/s, numpy loop {np.median(ref_w):,.0f}; speed-up median {np.median(wall):.1f}x wall "
              f"(min {min(wall):.1f}x, max {max(wall):.1f}x), {np.median(cpu):.1f}x CPU time, 5 interleaved reps")
    print(f"quadratic d=1000 M=100 S=10 K=10, 64 trials, 1 thread: {max(quad_engine() for _ in range(2)):,.0f} steps/s")
    print(f"quadratic d=1000 M=100 S=10 K=10, 64 trials, default threads: "
          f"{max(quad_engine(threads=None) for _ in range(2)):,.0f} steps/s")
