"""Planted falsification benchmark: how often, how fast a search finds each planted error (issue 19 item 5).

Protocol (ARCH-COMP style): for each planted-wrong bound of ``planted.py`` and its correct counterpart
(``PLANT.correct``; ``PLANT.drift-correct`` for the ``PLANT.drift-*`` entries), run ``verify.search.falsify.search`` from seeds 0..S-1 with a budget of at most 300
evaluations, stopping at the first confirmed violation (``stop_at_violation``: an apparent violation
is re-run on ``--confirm-trials`` fresh trials, or recomputed where the exact path scores it, and claimed
only when its interval's low end exceeds the RHS). Per planted error: the falsification rate over the seeds, the median evaluations and wall
time to the first confirmed violation (over the seeds that found one); for the counterpart, false
alarms (confirmed violations of a correct bound: must be 0). A conditional violation (``violated unless``:
the exceedance rests on an assumed or undecided hypothesis) is counted in its own column, never as found.

    PYTHONPATH=. python tests/benchmarks/planted/run.py --optimiser stratified --seeds 10 --budget 300 \\
        --out tests/benchmarks/planted/results-stratified.json

Ranking searchers (issue 27): ``--file regime.py --optimisers rays,stratified,random`` runs every searcher
on every error of that file from the same seeds in one command and prints one table, a column group per
searcher (``--file`` names a plugin file in this folder; default planted.py).

    PYTHONPATH=. python tests/benchmarks/planted/run.py --file regime.py --optimisers rays,stratified,random \
        --seeds 10 --budget 300 --out tests/benchmarks/planted/results-regime.json

Each search uses one thread (``evaluate_point`` threads=1); wall times are per search, as measured on
the machine named in the output (its CPU count and load). ``--ids`` runs a subset (comma-separated).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run_one(sid: str, seed: int, args: argparse.Namespace, optimiser: str | None = None) -> dict:
    from verify.scenarios import get
    from verify.search.falsify import search

    t0 = time.perf_counter()
    rec = search(get(sid), budget=args.budget, seed=seed, trials=args.trials, confirm_trials=args.confirm_trials,
                 optimiser=optimiser or args.optimiser, population=args.population, stop_at_violation=True)
    wall = time.perf_counter() - t0
    from verify.verdict import VIOLATED, VIOLATED_UNLESS

    # a conditional violation (it rests on an assumed hypothesis) is counted apart from a plain one
    hit = rec.confirmation.get("verdict") == VIOLATED
    shrunk = None
    if hit and not args.no_shrink:  # every confirmed violation carries its minimal counterexample (verify.search.shrink)
        from verify.search.shrink import shrink

        t1 = time.perf_counter()
        sr = shrink(get(sid), rec.best["point"], trials=args.trials, confirm_trials=args.confirm_trials, seed=seed)
        shrunk = {**sr.to_dict(), "wall_s": time.perf_counter() - t1}
    return {"id": sid, "optimiser": optimiser or args.optimiser, "seed": seed, "found": hit,
            "conditional": rec.confirmation.get("verdict") == VIOLATED_UNLESS, "evaluations": rec.evaluations,
            "first_violation": rec.first_violation, "wall_s": wall, "claims_tried": rec.claims_tried,
            "verdict": rec.confirmation.get("verdict"), "ratio": rec.confirmation.get("ratio"),
            "point": rec.best.get("point"), "best_evaluation": rec.best.get("evaluation"),
            "outside_domain": rec.outside_domain, "shrunk": shrunk}


def found_at(run: dict) -> int:
    """The evaluation of the first confirmed violation: the stop's, else (confirmed only by the final
    confirmation of the best point) the best point's."""
    return int((run.get("first_violation") or {}).get("evaluation") or run["best_evaluation"])


def table(runs: list[dict], planted: dict) -> str:
    rows = ["| planted error | what is wrong | found (seeds) | conditional only (seeds) | median evaluations to first |"
            " median wall s to first | median wall s per search |", "|---|---|---|---|---|---|---|"]
    for sid, (what, _, _) in planted.items():
        mine = [r for r in runs if r["id"] == sid]
        if not mine:
            continue
        hits = [r for r in mine if r["found"]]
        evals = statistics.median(found_at(r) for r in hits) if hits else None
        walls = statistics.median(r["wall_s"] for r in hits) if hits else None
        label = f"{len(hits)}/{len(mine)}" + (" false alarms" if sid.endswith("correct") else "")
        conditional = sum(bool(r.get("conditional")) for r in mine)
        rows.append(f"| {sid} | {what} | {label} | {conditional}/{len(mine)} | {'-' if evals is None else f'{evals:g}'} | "
                    f"{'-' if walls is None else f'{walls:.1f}'} | {statistics.median(r['wall_s'] for r in mine):.1f} |")
    return "\n".join(rows)


def ranking(runs: list[dict], planted: dict, optimisers: list[str]) -> str:
    """One row per planted error, per searcher: seeds found, median evaluations and wall s to the first."""
    head = "| planted error | what is wrong | " + " | ".join(
        f"{o}: found | {o}: median evaluations | {o}: median wall s" for o in optimisers) + " |"
    rows = [head, "|---|---|" + "---|---|---|" * len(optimisers)]
    for sid, (what, _, _) in planted.items():
        cells = []
        for o in optimisers:
            mine = [r for r in runs if r["id"] == sid and r.get("optimiser", o) == o]
            if not mine:
                cells += ["-", "-", "-"]
                continue
            hits = [r for r in mine if r["found"]]
            label = f"{len(hits)}/{len(mine)}" + (" false alarms" if sid.endswith("correct") else "")
            cells += [label, f"{statistics.median(found_at(r) for r in hits):g}" if hits else "-",
                      f"{statistics.median(r['wall_s'] for r in hits):.2f}" if hits else
                      f"({statistics.median(r['wall_s'] for r in mine):.1f} all)"]
        if any(c != "-" for c in cells):
            rows.append(f"| {sid} | {what} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--optimiser", default="stratified")
    ap.add_argument("--optimisers", default=None, help="comma-separated searchers to rank (overrides --optimiser)")
    ap.add_argument("--file", default="planted.py", help="plugin file of planted errors in this folder")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--budget", type=int, default=300)
    ap.add_argument("--trials", type=int, default=16)
    ap.add_argument("--confirm-trials", type=int, default=256)
    ap.add_argument("--population", type=int, default=8)
    ap.add_argument("--no-shrink", action="store_true", help="do not shrink confirmed violations")
    ap.add_argument("--ids", default=None, help="comma-separated subset of the planted ids")
    ap.add_argument("--out", default=None, help="write every run (JSON)")
    ap.add_argument("--table", default=None, metavar="JSON", help="print the table of results files (comma-separated: merged) and exit")
    args = ap.parse_args(argv)
    if args.table:
        from bounds import plugins

        docs = [json.loads(Path(f).read_text()) for f in args.table.split(",")]  # several: their runs merged
        planted = plugins.load_file(str(HERE / docs[0]["protocol"].get("file", "planted.py"))).PLANTED
        # the same (error, searcher, seed) in two files is one run (deterministic): kept once
        runs = list({(r["id"], r.get("optimiser"), r["seed"]): r for d in docs for r in d["runs"]}.values())
        opts = list(dict.fromkeys(r["optimiser"] for r in runs if "optimiser" in r))
        print(ranking(runs, planted, opts) if opts else table(runs, planted))
        return 0
    if not 1 <= args.budget <= 300:
        ap.error(f"--budget {args.budget}: the protocol allows 1..300 evaluations")
    from bounds import plugins

    if not (HERE / args.file).is_file():
        ap.error(f"--file {args.file}: no such file in {HERE}; valid: planted.py, regime.py")
    plugins.add_files([str(HERE / args.file)])
    planted = plugins.load_file(str(HERE / args.file)).PLANTED
    optimisers = [o.strip() for o in (args.optimisers or args.optimiser).split(",") if o.strip()]
    ids = [i.strip() for i in args.ids.split(",")] if args.ids else list(planted)
    bad = [i for i in ids if i not in planted]
    if bad:
        ap.error(f"--ids {','.join(bad)}: valid: {', '.join(planted)}")
    runs = []
    t0 = time.perf_counter()
    for sid in ids:
        for opt in optimisers:
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                r = run_one(sid, seed, args, opt)
                runs.append(r)
                if args.out:  # after every run: an interrupted benchmark keeps what it measured
                    write(args, runs, t0)
                print(f"{sid} {opt} seed {seed}: {'FOUND' if r['found'] else 'not found'} after {r['evaluations']} "
                      f"evaluations, {r['wall_s']:.1f} s (ratio {r['ratio']})", file=sys.stderr, flush=True)
    if args.out:
        write(args, runs, t0)
    print(ranking(runs, planted, optimisers) if args.optimisers else table(runs, planted))
    return 0


def write(args: argparse.Namespace, runs: list[dict], t0: float) -> None:
    from verify.suite import versions

    doc = {"protocol": vars(args), "seeds": list(range(args.first_seed, args.first_seed + args.seeds)),
           "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                       "load": os.getloadavg() if hasattr(os, "getloadavg") else None},
           "versions": versions(), "total_s": time.perf_counter() - t0, "runs": runs}
    Path(args.out).write_text(json.dumps(doc, indent=1, default=str) + "\n")


if __name__ == "__main__":
    sys.exit(main())
