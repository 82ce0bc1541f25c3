"""Benchmark (not a test): the wall time of one regime-benchmark search, and where it goes (issue 27 item 6).

Each case ``ID:optimiser:seed`` is one search of ``tests/benchmarks/planted/regime.py`` with the planted
benchmark's protocol (``planted/run.py``: budget 300, 16 trials, 256 confirmation trials, population 8, stop
at the first confirmed violation, no shrinking), timed without a profiler after a warm-up search (imports
paid once, as in ``run.py``, which runs every search in one process). ``--profile`` runs each case again
under cProfile and splits its time (inclusive times, so a part contains its sub-parts; profiling slows
Python-heavy code, so the split is in shares of the profiled time):

* setup: the search's start (the optimiser's construction: ``stratified`` probes 64 points);
* proposals: the optimiser's ask/tell, of which family builds and RHS evaluations (``stratified`` scores 16
  candidates per aimed point by their RHS terms' shares);
* scoring: ``evaluate_points``, of which family builds;
* confirmation: re-runs of claimed and best points, of which Monte Carlo cross-checks;
* exact LHS, Monte Carlo simulation, hypothesis checks, per-round exact curves: every call, in scoring and in
  confirmation alike (a profile names a function's callers, not theirs);
* lambdify: sympy compiling expressions (anywhere).

Run from the repository root (``PYTHONPATH`` chooses the tree measured, so the same script times another
checkout of the code)::

    PYTHONPATH=. python tests/benchmarks/bench_search_cost.py --profile --out search-cost.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import pstats
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = ("REGIME.correct:stratified:0", "REGIME.correct:random:0", "REGIME.drift-correct:stratified:0",
         "REGIME.drift-correct:random:0", "REGIME.drift-correct:rays:0")
PROTOCOL = {"budget": 300, "trials": 16, "confirm_trials": 256, "population": 8, "stop_at_violation": True}


def one_search(case: str, budget: int) -> dict:
    """One search of ``case`` (``ID:optimiser:seed``): its wall time and outcome."""
    from verify.scenarios import get
    from verify.search.falsify import search

    sid, opt, seed = case.split(":")
    t0, c0 = time.perf_counter(), time.process_time()
    rec = search(get(sid), **{**PROTOCOL, "budget": budget}, seed=int(seed), optimiser=opt)
    # CPU seconds of this process (all its threads): on a shared machine, about what an idle core would take
    return {"case": case, "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
            "evaluations": rec.evaluations,
            "verdict": rec.confirmation.get("verdict"), "ratio": rec.confirmation.get("ratio"),
            "fidelity": rec.fidelity.get("counts")}


def _inclusive(stats: dict, file_end: str, name: str, caller: tuple[str, str] | None = None) -> float:
    """Inclusive seconds of the functions ``name`` in files ending ``file_end`` (only calls from ``caller``)."""
    total = 0.0
    for (file, _, func), (_, _, _, cum, callers) in stats.items():
        if func != name or not file.endswith(file_end):
            continue
        if caller is None:
            total += cum
        else:
            total += sum(v[3] for (cf, _, cfn), v in callers.items() if cf.endswith(caller[0]) and cfn == caller[1])
    return total


def split(prof_path: str) -> dict[str, float]:
    """The profiled search's seconds by part (module docstring); ``profiled_s`` is the whole."""
    st = pstats.Stats(prof_path).stats  # type: ignore[attr-defined]
    whole = _inclusive(st, "verify/search/falsify.py", "search")
    scoring = _inclusive(st, "verify/search/falsify.py", "evaluate_points")
    builds = ("docs/examples/fedavg_local_sgd.py", "docs/examples/fedavg_drift.py")
    return {
        "profiled_s": whole,
        "setup": _inclusive(st, "verify/search/falsify.py", "__init__"),
        "proposals": _inclusive(st, "verify/search/falsify.py", "generation") - scoring,
        "proposals: family builds": sum(_inclusive(st, b, "build", ("verify/search/optimisers.py", "shares")) for b in builds),
        "proposals: RHS evaluations": _inclusive(st, "bounds/evaluate.py", "evaluate", ("verify/search/optimisers.py", "shares")),
        "scoring": scoring,
        "scoring: family builds": sum(_inclusive(st, b, "build", (f, n)) for b in builds for f, n in (
            ("verify/search/falsify.py", "_summary"), ("verify/search/cost.py", "instance_fidelity"), ("verify/scenario.py", "evaluate_point"))),
        # these four count every call, the confirmations' too (a profile does not say who called the caller)
        "exact LHS": _inclusive(st, "verify/exact_score.py", "exact_lhs"),
        "Monte Carlo simulation": _inclusive(st, "quadratics/engine.py", "simulate"),
        "hypothesis checks": _inclusive(st, "verify/scenario.py", "decide_hypotheses"),
        "per-round exact curves": _inclusive(st, "verify/exact_score.py", "exact_series"),
        "confirmation": _inclusive(st, "verify/search/confirmation.py", "confirm"),
        "confirmation: Monte Carlo cross-check": _inclusive(st, "verify/search/confirmation.py", "cross_check"),
        "lambdify": _inclusive(st, "sympy/utilities/lambdify.py", "lambdify"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated ID:optimiser:seed")
    ap.add_argument("--budget", type=int, default=300)
    ap.add_argument("--profile", action="store_true", help="also split each case's time under cProfile")
    ap.add_argument("--label", default="", help="a name for the code measured (e.g. its commit)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    from bounds import plugins
    from verify.suite import versions

    plugins.add_files([str(HERE / "planted" / "regime.py")])
    one_search(args.cases.split(",")[0], 2)  # warm-up: imports and the plugin's compiled terms, not timed
    rows = []
    for case in args.cases.split(","):
        load = os.getloadavg()
        row = {**one_search(case, args.budget), "load_before": load, "load_after": os.getloadavg()}
        if args.profile:
            import cProfile

            path = f"/tmp/bench_search_cost_{os.getpid()}.prof"
            cProfile.runctx("one_search(case, args.budget)", globals(), {"case": case, "args": args}, path)
            row["split_s"] = split(path)
            os.unlink(path)
        rows.append(row)
        print(f"{case}: {row['wall_s']:.1f} s ({row['cpu_s']:.1f} s CPU), {row['evaluations']} evaluations, {row['verdict']} (load "
              f"{load[0]:.1f})", file=sys.stderr, flush=True)
        for part, sec in row.get("split_s", {}).items():
            print(f"    {part:40s} {sec:8.2f} s", file=sys.stderr, flush=True)
    doc = {"label": args.label, "protocol": {**PROTOCOL, "budget": args.budget}, "rows": rows,
           "machine": {"cpus": os.cpu_count(), "platform": platform.platform()}, "versions": versions(),
           "code": str(Path(sys.modules["verify"].__file__ or "").parent.parent)}
    if args.out:
        Path(args.out).write_text(json.dumps(doc, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
