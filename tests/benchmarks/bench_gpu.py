"""The engine on CUDA against the CPU and a plain per-client numpy loop (issue 13), with torch's
determinism settings recorded.

Run:  python tests/benchmarks/bench_gpu.py --out gpu.json [--quick]

Cases: (a) the 4-D lower-bound objective, FedAvg (K=10), cyclic participation (P=480, 2 groups, S=1),
at several trial batch sizes; (b) heterogeneous quadratics d=1000, M=100, uniform S=10, K=10.
Each case runs on the CPU (1 thread and torch's default) and, when CUDA is present, on the GPU
(after a warm-up run; the engine returns numpy arrays, so every timing includes the copies back).
The plain loop is ``numpy_reference_lb`` of ``bench_quadratics.py`` (one client step at a time).
Reproducibility checks: the same seed twice on CUDA gives bitwise the same iterates; on a noise-free
problem (sigma = 0: the GPU's random stream differs from the CPU's by design) CUDA and CPU agree to a
relative 1e-10. Without CUDA the CPU part runs and the JSON says CUDA is absent.
Writes the JSON to ``--out`` and prints a table; under a few minutes on an H100 host.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_quadratics beside this file
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root


def settings() -> dict:
    """torch's determinism and precision switches, the devices and the versions."""
    import torch

    out = {
        "torch": torch.__version__, "numpy": np.__version__, "python": platform.python_version(),
        "cpu": platform.processor() or platform.machine(), "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
        "deterministic_warn_only": torch.is_deterministic_algorithms_warn_only_enabled(),
        "cudnn_deterministic": torch.backends.cudnn.deterministic,
        "cudnn_benchmark": torch.backends.cudnn.benchmark,
        "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
        "cuda_matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "CUBLAS_WORKSPACE_CONFIG": os.environ.get("CUBLAS_WORKSPACE_CONFIG"),
        "cuda_available": torch.cuda.is_available(),
        "engine_dtype": "float64",
    }
    if torch.cuda.is_available():
        out.update(cuda=torch.version.cuda, device=torch.cuda.get_device_name(0),
                   cudnn=torch.backends.cudnn.version(), device_count=torch.cuda.device_count())
    else:
        out["device"] = "none: CUDA is absent (CPU part only)"
    return out


def cases(quick: bool, cuda: bool) -> list[dict]:
    from quadratics import cyclic, fedavg, heterogeneous_quadratic, lower_bound_objective, uniform

    lb_trials = [256, 4096] + ([32768] if cuda and not quick else [])
    out = [dict(name=f"LB FedAvg K=10, cyclic P=480, {t} trials", make=lambda: (
        lower_bound_objective(), fedavg(1e-5, 10), cyclic(2, 1, 480, 2)), trials=t, rounds=100 if quick else 500,
        cpu=t <= 4096) for t in lb_trials]
    out += [dict(name=f"quadratic d=1000 M=100 S=10 K=10, {t} trials", make=lambda: (
        heterogeneous_quadratic(d=1000, M=100), fedavg(0.1, 10), uniform(100, 10)), trials=t,
        rounds=5 if quick else 20, cpu=t <= 64) for t in ([64, 512] if cuda else [64])]
    return out


def timed(make, trials: int, rounds: int, device: str, threads: int | None, seed: int = 0):
    from quadratics import simulate

    problem, algorithm, pattern = make()
    t0 = time.perf_counter()
    sim = simulate(problem, algorithm, pattern, trials, rounds, seed=seed, device=device, threads=threads)
    wall = time.perf_counter() - t0
    return sim, sim.steps / wall


def plain_loop(quick: bool) -> float:
    from bench_quadratics import numpy_reference_lb

    from quadratics import lower_bound_objective

    trials, rounds = (4, 50) if quick else (8, 100)
    t0 = time.perf_counter()
    _, steps = numpy_reference_lb(lower_bound_objective(), 1e-5, 10, rounds, trials)
    return steps / (time.perf_counter() - t0)


def reproducibility() -> dict:
    """Same seed twice on CUDA: bitwise equal; noise-free problem: CUDA vs CPU within 1e-10 relative."""
    from quadratics import fedavg, heterogeneous_quadratic, simulate, uniform

    def run(device, sigma, seed=3):
        pb = heterogeneous_quadratic(L=1.0, mu=0.5, d=8, M=10, zeta=0.5, sigma=sigma, D0=1.0, seed=1)
        return simulate(pb, fedavg(0.05, 5), uniform(10, 3), 64, 50, seed=seed, device=device, threads=1)

    a, b = run("cuda", 1.0), run("cuda", 1.0)
    c, g = run("cpu", 0.0), run("cuda", 0.0)
    rel = float(np.max(np.abs(c.final_x - g.final_x)) / max(1e-300, float(np.max(np.abs(c.final_x)))))
    return {"cuda_same_seed_bitwise_equal": bool(np.array_equal(a.final_x, b.final_x)),
            "cuda_vs_cpu_noise_free_max_rel_diff": rel, "cuda_vs_cpu_within_1e-10": rel <= 1e-10}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="JSON file to write")
    ap.add_argument("--quick", action="store_true", help="smaller runs (a smoke test)")
    args = ap.parse_args(argv)
    import torch

    info = settings()
    cuda = torch.cuda.is_available()
    rows = []
    loop = plain_loop(args.quick)
    for case in cases(args.quick, cuda):
        row = {"case": case["name"], "trials": case["trials"], "rounds": case["rounds"]}
        if case["cpu"]:
            row["cpu_1_thread"] = timed(case["make"], case["trials"], case["rounds"], "cpu", 1)[1]
            row["cpu_default_threads"] = timed(case["make"], case["trials"], case["rounds"], "cpu", None)[1]
        if cuda:
            timed(case["make"], min(case["trials"], 64), 2, "cuda", None)  # warm-up: context, kernels
            row["cuda"] = max(timed(case["make"], case["trials"], case["rounds"], "cuda", None)[1] for _ in range(2))
            if "cpu_1_thread" in row:
                row["cuda_over_cpu_1_thread"] = row["cuda"] / row["cpu_1_thread"]
        if case["name"].startswith("LB"):
            row["plain_numpy_loop"] = loop
            best = max(v for k, v in row.items() if k in ("cpu_1_thread", "cpu_default_threads", "cuda"))
            row["best_over_plain_loop"] = best / loop
        rows.append(row)
    doc = {"settings": info, "unit": "client local steps per second (wall clock)", "quick": args.quick,
           "cases": rows, "reproducibility": reproducibility() if cuda else "CUDA absent: not run"}
    Path(args.out).write_text(json.dumps(doc, indent=2), encoding="utf-8")

    print(f"device: {info['device']}; torch {info['torch']}; deterministic algorithms "
          f"{info['deterministic_algorithms']}, cudnn deterministic {info['cudnn_deterministic']}, "
          f"TF32 matmul {info['cuda_matmul_allow_tf32']} (engine runs float64)")
    cols = ["cpu_1_thread", "cpu_default_threads", "cuda", "plain_numpy_loop"]
    print(f"{'case':52s}" + "".join(f"{c:>22s}" for c in cols))
    for r in rows:
        print(f"{r['case']:52s}" + "".join(f"{r[c]:>22,.0f}" if c in r else f"{'-':>22s}" for c in cols))
    print(f"reproducibility: {doc['reproducibility']}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
