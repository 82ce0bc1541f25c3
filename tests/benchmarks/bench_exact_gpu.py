"""Does the GPU help exact moment evaluation (quadratics.exact)? Products of the moment matrix on CPU vs CUDA.

Run:  python tests/benchmarks/bench_exact_gpu.py [--out exact_gpu.json]

The exact path's cost is log2(R) products of its augmented moment matrix G (order n = 4 + D + D(D+1)/2 for
a state of D numbers) and of the entrywise rounding bound beside it (``Tracked``: three products per
product). Orders: 69 (FedAvg, d = 10), 193 (SCAFFOLD, M = 4, d = 3), 600 and 1,503 (the largest order the
exact path accepts). For each: G^(10^6) by repeated squaring with ``quadratics.exact.moments._mm`` on the
CPU (its CUDA branch off: what runs on a machine without a GPU) and with every product on CUDA (copies included), median of 3 after a warm-up;
the largest relative difference of the two values against the carried rounding bound. G is a random
orthogonal matrix times 0.99999 (its 10^6-th power is e^-10 times an orthogonal matrix: no underflow). A real evaluation (FedAvg, d = 10,
M = 16, R = 10^6) is timed on the CPU for scale. Without CUDA only the CPU column is filled.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root

from quadratics.exact import moments  # noqa: E402

ORDERS = tuple(int(x) for x in sys.argv[sys.argv.index('--orders') + 1].split(',')) if '--orders' in sys.argv else (69, 193, 600, 1503)
R = 10**6


def _cuda_mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (torch.from_numpy(np.ascontiguousarray(a)).cuda() @ torch.from_numpy(np.ascontiguousarray(b)).cuda()).cpu().numpy()


def _cpu_mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``moments._mm`` with its CUDA branch off (the path of a machine without a GPU)."""
    saved = moments.CUDA_MIN_ORDER
    moments.CUDA_MIN_ORDER = 10**9
    try:
        return _MM(a, b)
    finally:
        moments.CUDA_MIN_ORDER = saved


_MM = moments._mm


def _power(G: moments.Tracked, mm) -> tuple[moments.Tracked, float]:
    saved = moments._mm
    moments._mm = mm
    try:
        t0 = time.perf_counter()
        out = moments.matrix_power(G, R)
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        return out, time.perf_counter() - t0
    finally:
        moments._mm = saved


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--orders", default=None, help="comma-separated orders (default 69,193,600,1503)")
    args = ap.parse_args()
    cuda = torch.cuda.is_available()
    rng = np.random.default_rng(0)
    rows = []
    for n in ORDERS:
        q, _ = np.linalg.qr(rng.standard_normal((n, n)))
        G = moments.Tracked(0.99999 * q, np.full((n, n), 1e-16))  # 0.99999^(10^6) = e^-10: no underflow
        _power(G, _cpu_mm)
        cpu = [_power(G, _cpu_mm) for _ in range(3)]
        row = {"order": n, "cpu_s": statistics.median(t for _, t in cpu)}
        if cuda:
            _power(G, _cuda_mm)
            gpu = [_power(G, _cuda_mm) for _ in range(3)]
            row["cuda_s"] = statistics.median(t for _, t in gpu)
            a, b = cpu[0][0], gpu[0][0]
            diff = np.abs(a.val - b.val)
            row["max_abs_diff"] = float(diff.max())
            row["max_abs_value"] = float(np.abs(a.val).max())
            row["max_bound"] = float((a.err + b.err).max())
            row["diff_within_bound"] = bool(np.all(diff <= a.err + b.err))
            row["speedup"] = row["cpu_s"] / row["cuda_s"]
        rows.append(row)
        print(row, flush=True)
    from quadratics import fedavg, heterogeneous_quadratic, uniform
    from quadratics.exact import exact_moments

    prob = heterogeneous_quadratic(L=1.0, mu=0.1, d=10, M=16, zeta=1.0, sigma=1.0, D0=1.0, seed=0)
    alg, pat = fedavg(eta=0.01, K=5), uniform(M=16, S=4)
    exact_moments(prob, alg, pat, 10)
    t0 = time.perf_counter()
    exact_moments(prob, alg, pat, R)
    real = time.perf_counter() - t0
    out = {"rows": rows, "fedavg_d10_M16_R1e6_cpu_s": real, "cuda": cuda,
           "device": torch.cuda.get_device_name(0) if cuda else "none", "torch": torch.__version__,
           "numpy": np.__version__, "python": platform.python_version(), "threads": torch.get_num_threads()}
    print(json.dumps(out, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
