"""Benchmark (not a test): the search's cost model (``verify.search.cost.predicted_cost``) against measured CPU time.

Each case is one point of a built-in scenario: its family (``problem``), its dimension d (2 to 1,000), and for some
its client count M or local steps; it is built once, its predicted seconds and kind (exact, per-trial, simulated) read
before anything runs, then scored by ``verify.scenario.evaluate_point`` with the search's trials (threads=1, as a
search scores), and the CPU time of that scoring (``time.process_time``: both cores' work, so a busy machine does not
inflate it much) is recorded: the median of ``--repeats`` (3) scorings, after one unmeasured scoring of the first case
of each (scenario, family) (imports, first compilations: paid once by a search, not per point). Each repeat scores a
freshly built instance with FAST's per-trial laws forgotten, as a search scores a new point: the exact path remembers
plans by the objects' identity and per-trial laws by (constants, trials, seed), so repeating one instance measured a
warm cache a search never has (FAST.T2's per-trial cases at M = 16 read 5-8x below their first scoring). The record
says, per case, measured / predicted, and over the measured cases the share within a factor 2 and the largest factors
either way; the machine's load (``os.getloadavg``) before and after. A case predicted over ``--max-seconds`` is
listed and not run (it would be cut by a search); a size its family refuses to build is listed and not counted.

Run from the repository root (``PYTHONPATH`` chooses the tree measured)::

    PYTHONPATH=. python tests/benchmarks/bench_cost_model.py --out tests/benchmarks/results/cost_model.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time

TRIALS = 64  # falsify's default trials per point
DIMS = (2, 10, 100, 1000)
BUILT = (2, 10, 32, 100, 1000)  # the distinct-Hessian families are built up to d = 32: 100 and 1,000 listed, refused
CASES: list[tuple[str, dict]] = (
    [("FAST.T1", {"problem": "quadratic", "d": d}) for d in DIMS]  # exact
    + [("FAST.T1", {"problem": "quadratic-diagonal", "d": d}) for d in BUILT]  # simulated, tabulated steps
    + [("FAST.T1", {"problem": "nonconvex", "d": d}) for d in DIMS]  # simulated, tabulated steps with a sin
    + [("FAST.T1", {"problem": "nonconvex", "d": 10, "M": 100})]  # 50 active clients of 100
    + [("FAST.T1", {"problem": "logistic", "d": d}) for d in (2, 32)]  # simulated, the general step (bound.grad)
    + [("FAST.T1", {"problem": "quadratic-rotated", "d": 32})]  # the general step, dense Hessians
    + [("FAST.T2", {"problem": "quadratic", "d": d, "M": M}) for d in DIMS for M in (4, 16)]  # per-trial exact
    + [("FAST.T2", {"problem": "quadratic-diagonal", "d": d, "M": M}) for d in BUILT for M in (4, 16)]
    + [("F3AST.T3.5@explicit", {"problem": f, "d": d}) for f in ("quadratic", "logistic") for d in (2, 8)]
    + [("ASCAF.T1", {"problem": f}) for f in ("quadratic", "logistic")]
    + [("ASCAF.T1", {"problem": "quadratic", "pattern": "cyclic", "I": 4})]
)


def run_case(sid: str, over: dict, max_seconds: float, repeats: int = 3, warm: bool = True) -> dict:
    """One case's row: predicted (kind, seconds) and, unless refused or over ``max_seconds``, the median CPU seconds
    of ``repeats`` scorings (after one unmeasured scoring when ``warm`` is False)."""
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
    row.update(kind=kind, predicted_s=cost.seconds, sizes=cost.what)
    if cost.seconds > max_seconds:
        return {**row, "skipped": f"predicted {cost.seconds:.3g} s > --max-seconds {max_seconds:g}"}
    if not warm:
        evaluate_point(sc, point, trials=TRIALS, seed=0, instance=inst, threads=1)
    from quadratics.exact.laws import _per_trial_laws_kept

    times, est = [], None
    for _ in range(repeats):
        # as a search meets a new point: fresh objects (the exact path's plans are remembered by the objects'
        # identity) and no per-trial laws kept from the last scoring (kept by constants, trials and seed)
        fresh = sc.build(point)
        _per_trial_laws_kept.cache_clear()
        t0 = time.process_time()
        est = evaluate_point(sc, point, trials=TRIALS, seed=0, instance=fresh, threads=1)
        times.append(time.process_time() - t0)
    row["cpu_s_repeats"] = times
    row["measured_cpu_s"] = statistics.median(times)
    row["method"] = (getattr(est, "exact", None) or {}).get("method", "monte carlo")
    row["factor"] = row["measured_cpu_s"] / cost.seconds if cost.seconds > 0 else math.inf
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--max-seconds", type=float, default=20.0)
    ap.add_argument("--repeats", type=int, default=3, help="scorings per case; the median is recorded")
    args = ap.parse_args(argv)
    from verify.suite import versions

    load_before = os.getloadavg()
    rows, warmed = [], set()
    for sid, over in CASES:
        family = (sid, over.get("problem"))
        rows.append(run_case(sid, over, args.max_seconds, args.repeats, warm=family in warmed))
        r = rows[-1]
        if "measured_cpu_s" in r:
            warmed.add(family)
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
           "rows": rows, "versions": versions(), "repeats": args.repeats,
           "machine": {"cpus": os.cpu_count(), "load_before": load_before, "load": os.getloadavg(),
                       "python": platform.python_version()},
           "command": "PYTHONPATH=. python tests/benchmarks/bench_cost_model.py "
                      + " ".join(argv if argv is not None else sys.argv[1:])}
    print(json.dumps(summary, indent=1))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(doc, fh, indent=1, default=str)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
