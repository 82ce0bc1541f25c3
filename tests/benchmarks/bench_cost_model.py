"""Benchmark (not a test): the search's cost model (``verify.search.cost.predicted_cost``) against measured CPU time.

Each case is one point of a built-in scenario: its family (``problem``), its dimension d (2 to 1,000) and, for
FAST.T2, its client count; it is built once, its predicted seconds and kind (exact, per-trial, simulated) read
before anything runs, then scored by ``verify.scenario.evaluate_point`` with the search's trials, and the CPU time
of that scoring (``time.process_time``: both cores' work, so a busy machine does not inflate it) is recorded.
The record says, per case, measured / predicted, and over all cases the share within a factor 2 and the largest
factors either way. A case predicted over ``--max-seconds`` is listed and not run (it would be cut by a search).

Run from the repository root (``PYTHONPATH`` chooses the tree measured)::

    PYTHONPATH=. python tests/benchmarks/bench_cost_model.py --out tests/benchmarks/results/cost_model.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time

TRIALS = 64  # falsify's default trials per point
DIMS = (2, 10, 100, 1000)
CASES: list[tuple[str, dict]] = (
    [("FAST.T1", {"problem": f, "d": d}) for f in ("quadratic", "quadratic-diagonal", "nonconvex") for d in DIMS]
    + [("FAST.T2", {"problem": f, "d": d, "M": M}) for f in ("quadratic", "quadratic-diagonal")
       for d in DIMS for M in (4, 16)]
    + [("F3AST.T3.5@explicit", {"problem": f, "d": d}) for f in ("quadratic", "logistic") for d in (2, 8)]
    + [("ASCAF.T1", {"problem": f}) for f in ("quadratic", "logistic")]
)


def run_case(sid: str, over: dict, max_seconds: float) -> dict:
    from bounds.core.errors import PointRefused
    from verify.scenario import evaluate_point
    from verify.scenarios import get
    from verify.search.cost import predicted_cost

    sc = get(sid)
    row: dict = {"scenario": sid, "point": over}
    try:
        point = sc.point(over)
        inst = sc.build(point)
    except PointRefused as exc:
        return {**row, "refused": str(exc)}
    kind, _, cost = predicted_cost(inst, TRIALS)
    row.update(kind=kind, predicted_s=cost.seconds)
    if cost.seconds > max_seconds:
        return {**row, "skipped": f"predicted {cost.seconds:.3g} s > --max-seconds {max_seconds:g}"}
    t0 = time.process_time()
    est = evaluate_point(sc, point, trials=TRIALS, seed=0, instance=inst)
    row["measured_cpu_s"] = time.process_time() - t0
    row["method"] = (est.exact or {}).get("method", "monte carlo")
    row["factor"] = row["measured_cpu_s"] / cost.seconds if cost.seconds > 0 else math.inf
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--max-seconds", type=float, default=20.0)
    args = ap.parse_args(argv)
    from verify.suite import versions

    run_case("FAST.T2", {}, args.max_seconds)  # imports and first compilations, paid once and not measured
    rows = []
    for sid, over in CASES:
        rows.append(run_case(sid, over, args.max_seconds))
        r = rows[-1]
        print(f"{sid:22} {json.dumps(over):60} {r.get('kind', '-'):10} pred {r.get('predicted_s', math.nan):9.3g} s "
              f"cpu {r.get('measured_cpu_s', math.nan):9.3g} s  x{r.get('factor', math.nan):.3g}", file=sys.stderr)
    done = [r for r in rows if "factor" in r]
    within = [r for r in done if 0.5 <= r["factor"] <= 2.0]
    summary = {"cases": len(rows), "measured": len(done), "within_factor_2": len(within),
               "share_within_factor_2": len(within) / len(done) if done else None,
               "largest_factor": max((r["factor"] for r in done), default=None),
               "smallest_factor": min((r["factor"] for r in done), default=None),
               "factor_rule": "measured CPU seconds / predicted seconds; within a factor 2: 0.5 <= factor <= 2"}
    doc = {"benchmark": "cost model vs measured CPU time", "trials": TRIALS, "seed": 0, "summary": summary,
           "rows": rows, "versions": versions(), "machine": {"cpus": os.cpu_count(), "load": os.getloadavg(),
                                                             "python": platform.python_version()},
           "command": "PYTHONPATH=. python tests/benchmarks/bench_cost_model.py"}
    print(json.dumps(summary, indent=1))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(doc, fh, indent=1, default=str)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
