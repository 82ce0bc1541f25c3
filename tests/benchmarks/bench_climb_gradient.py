"""What one gradient of log(LHS/RHS) costs (verify.search.climb) beside one exact evaluation, as the horizon grows.

At points of the planted benchmark's base scenario (docs/examples/fedavg_local_sgd.py: FedAvg, shared-Hessian
quadratic, uniform m of M), for d in {2, 10}, M = 16, K = 8 and R in {10, 10^3, 10^6}: the wall time of
``evaluate_point`` (the exact numpy recursion with its rounding bound, hypotheses, RHS), of the differentiable
recursion's forward and backward pass alone, and of ``log_ratio_gradient`` whole (the autograd pass plus two
builds and declarations per continuous axis for the central differences of the declarations and of the RHS).
Each figure is the median of ``--repeat`` runs, one thread.

    PYTHONPATH=. python tests/benchmarks/bench_climb_gradient.py --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _median(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error(f"--repeat {args.repeat}: give a count >= 1")
    import torch

    torch.set_num_threads(1)
    from bounds import plugins
    from quadratics.exact.differentiable import declared_inputs, moment_lhs
    from verify.measures import declared_measure
    from verify.scenario import evaluate_point
    from verify.scenarios import get
    from verify.search.climb import log_ratio_gradient
    from verify.suite import versions

    plugins.add_files([str(ROOT / "docs" / "examples" / "fedavg_local_sgd.py")])
    sc = get("USER.FEDAVG")
    rows = []
    for d in (2, 10):
        for R in (10, 1000, 10**6):
            pt = {"M": 16, "m_frac": 0.3, "K": 8, "R": R, "eta_frac": 0.01, "d": d, "mu_frac": 0.2, "sigma": 0.5,
                  "zeta": 0.5}
            inst = sc.build(sc.point(pt))
            spec = declared_measure(inst.measure)

            def autograd_pass(inst=inst, spec=spec, R=R):
                inp = declared_inputs(inst.problem, inst.algorithm, inst.pattern, spec.form(inst.problem))
                inp.requires_grad_()
                torch.autograd.grad(torch.log(moment_lhs(inp, R, 1, "final")), inp.leaves(), allow_unused=True)

            row = {"d": d, "R": R, "M": 16, "K": 8,
                   "exact_evaluation_s": _median(lambda pt=pt: evaluate_point(sc, pt, trials=2, seed=0), args.repeat),
                   "autograd_pass_s": _median(autograd_pass, args.repeat),
                   "gradient_s": _median(lambda pt=pt: log_ratio_gradient(sc, pt), args.repeat)}
            rows.append(row)
            print(json.dumps(row), flush=True)
    doc = {"rows": rows, "repeat": args.repeat, "versions": versions(), "cpus": os.cpu_count(),
           "load": os.getloadavg()}
    if args.out:
        Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
