"""The per-round certificate against the finite-R worst case at R = 4 (moved out of the test suite in 0.2.0).

Setting: local GD, L = 1, mu = 0.1, zeta = 0.1, eta = 0.001, K = 5, M = 2, uniform 1 of 2 participation;
R = 4 is 15 branch nodes and 150 gradient evaluations, about 190 s and 1.9 GB on a 2-core machine, too
slow for the test suite (tests/verify/test_pep_lyapunov.py runs R = 1..5 of smaller settings and, from the
record this script writes, checks the R = 4 comparison again in well under a second).
Quantity: the finite-R worst case E||x_R - x*||^2 / ||x_0 - x*||^2 (verify.pep.solve, certified upper bound
``value`` and attained ``primal_value``) and the per-round bound rho^R + c (1 - rho^R) / (1 - rho)
(verify.pep.lyapunov.horizon_bound) at R = 4.
Statement checked: horizon_bound >= primal_value - 1e-8 (and, when certified, >= value).

Run: python tests/benchmarks/bench_pep_lyapunov_r4.py [--out tests/benchmarks/results/pep_lyapunov_r4.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import time
from dataclasses import replace
from pathlib import Path

RESULT = Path(__file__).resolve().parent / "results" / "pep_lyapunov_r4.json"
SETTING = dict(method="local_gd", L=1.0, mu=0.1, zeta=0.1, eta=0.001, K=5, R=1, M=2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=RESULT)
    ap.add_argument("--R", type=int, default=4)
    args = ap.parse_args()

    import clarabel
    import cvxpy
    import numpy as np

    from verify.pep import Law, Setting, solve
    from verify.pep.lyapunov import certificate, horizon_bound

    s = Setting(**SETTING, law=Law("uniform", m=1))
    lines = certificate(s)
    t0 = time.perf_counter()
    finite = solve(replace(s, R=args.R), with_coverage=False, max_seconds=1e9)
    seconds = time.perf_counter() - t0
    bound = horizon_bound(lines, 1.0, args.R)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).parent).stdout.strip()
    record = {
        "what": "per-round certificate vs finite-R worst case, local GD, uniform 1 of 2 (verify.pep)",
        "setting": {**SETTING, "R": args.R, "law": {"kind": "uniform", "m": 1}},
        "per_round": [{"D": ln.D, "rho": ln.rho, "c": ln.c, "certified": ln.certified} for ln in lines],
        "horizon_bound": bound,
        "finite": {"value": finite.value, "primal_value": finite.primal_value,
                   "certificate_status": finite.certificate.get("status"), "solver": finite.solver,
                   "solver_status": finite.solver_status, "symmetry": finite.symmetry},
        "holds": bound >= finite.primal_value - 1e-8,
        "seconds": round(seconds, 1),
        "commit": commit,
        "versions": {"python": platform.python_version(), "numpy": np.__version__, "cvxpy": cvxpy.__version__,
                     "clarabel": getattr(clarabel, "__version__", "?")},
        "command": f"python tests/benchmarks/bench_pep_lyapunov_r4.py --R {args.R}",
    }
    args.out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
