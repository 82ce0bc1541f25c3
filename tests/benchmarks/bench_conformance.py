"""Benchmark (not a test): the conformance check against the mutants of ``conformance_mutants.py``.

Run: ``PYTHONPATH=. python tests/benchmarks/bench_conformance.py [--seeds 0-9] [--set new] [--out results.json]``;
``--table A.json B.json ...`` merges saved runs and prints the README table.
Per mutant and seed: caught (status "departs") or not, the first departure, trials and wall time; the same for
the correct implementations (a "departs" there is a false alarm). Goal: >= 19 of 20 caught from every seed,
no false alarm, each check < 60 s on 2 cores. The machine is shared: wall times are upper bounds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

from conformance_mutants import _NEW, CORRECT, MUTANTS, REPORTS  # noqa: E402

from verify.conformance import conform  # noqa: E402
from verify.suite import versions  # noqa: E402


def _seeds(text: str) -> list[int]:
    if "-" in text:
        a, b = text.split("-")
        return list(range(int(a), int(b) + 1))
    return [int(s) for s in text.split(",")]


def _cases(which: str) -> list[tuple]:
    """(name, form, algorithm, law, implementation, bug, report class, mutant?) of the chosen set: "new"
    (issue 41's mutants), "old" (last release's), "mutants" (both), "correct", "all"."""
    new = {n for n, *_ in _NEW}
    out = []
    if which in ("new", "old", "mutants", "all"):
        out += [(m.name, m.form, m.algorithm, m.law, m.impl, m.bug, m.report, True) for m in MUTANTS
                if which in ("mutants", "all") or (m.name in new) == (which == "new")]
    if which in ("correct", "all"):
        out += [(n, f, a, law, impl, "correct", "", False) for n, f, a, law, impl in CORRECT]
    return out


def run(seeds: list[int], out: str, only: str | None, which: str = "all") -> None:
    rows = []
    load_start = os.getloadavg()
    for seed in seeds:
        for name, form, alg, law, impl, bug, report, mutant in _cases(which):
            if only and only not in name:
                continue
            t0, c0 = time.perf_counter(), time.process_time()
            # a mutant stops at its first departing scenario (the verdict cannot change: "time needed")
            r = conform(impl, algorithm=alg, law=law, form=form, seed=seed, name=name, stop_early=mutant)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            first = None if r.first is None else {"scenario": r.first.scenario, "round": r.first.round,
                                                  "quantity": r.first.quantity, "z": r.first.z}
            rows.append({"name": name, "form": form, "algorithm": alg, "law": law, "bug": bug, "report": report,
                         "mutant": mutant, "seed": seed, "status": r.status, "departures": r.departures,
                         "tests": r.tests, "trials": r.trials, "scenarios_run": len(r.scenarios),
                         "not_run": len(r.not_run), "threshold_z": r.threshold_z, "alpha": r.alpha, "first": first,
                         "likely": None if r.likely is None else r.likely.bug_class,
                         "reference": sorted({s.reference for s in r.scenarios}),
                         "wall_seconds": wall, "cpu_seconds": cpu})
            print(f"seed {seed} {name:32s} {r.status:9s} cpu {cpu:5.1f}s", flush=True)
            with open(out, "w") as fh:
                json.dump({"rows": rows, "set": which, "seeds": seeds, "versions": versions(),
                           "machine": platform.node(), "cpus": os.cpu_count(), "load_start": load_start,
                           "load_end": os.getloadavg(), "reports": REPORTS}, fh, indent=1)


def table(paths: list[str]) -> None:
    rows = [r for p in paths for r in json.load(open(p))["rows"]]
    names = list(dict.fromkeys(r["name"] for r in rows))
    seeds = sorted({r["seed"] for r in rows})
    print("| implementation | form | claim | bug | caught / seeds | trials per scenario | scenarios run (max) "
          "| smallest first \\|z\\| (threshold) | wall s (median, max) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in names:
        rs = [r for r in rows if r["name"] == n]
        walls = sorted(r["wall_seconds"] for r in rs)
        hit = sum(r["status"] == "departs" for r in rs)
        word = f"{hit} / {len(rs)}" if rs[0]["mutant"] else f"{len(rs) - hit} / {len(rs)} conform"
        runs = max(r.get("scenarios_run", 0) for r in rs)
        zs = [abs(r["first"]["z"]) for r in rs if r["first"]]
        zcol = f"{min(zs):.1f} ({rs[0]['threshold_z']:.2f})" if zs else f"- ({rs[0]['threshold_z']:.2f})"
        print(f"| {n} | {rs[0]['form']} | {rs[0]['algorithm']} / {rs[0]['law']} | {rs[0]['bug']} | {word} | "
              f"{rs[0]['trials']} | {runs or 'all'} | {zcol} | {walls[len(walls) // 2]:.1f}, {walls[-1]:.1f} |")
    for s in seeds:
        m = [r for r in rows if r["seed"] == s and r["mutant"]]
        c = [r for r in rows if r["seed"] == s and not r["mutant"]]
        print(f"seed {s}: {sum(r['status'] == 'departs' for r in m)} / {len(m)} mutants caught, "
              f"{sum(r['status'] == 'departs' for r in c)} / {len(c)} false alarms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0-9")
    ap.add_argument("--out", default="conformance_bench.json")
    ap.add_argument("--only", default=None, help="run only the implementations whose name contains this")
    ap.add_argument("--set", default="all", choices=("new", "old", "mutants", "correct", "all"),
                    help="which implementations: issue 41's mutants, last release's, both, the correct ones, all")
    ap.add_argument("--table", nargs="*", default=None, help="print the README table of saved runs")
    a = ap.parse_args()
    if a.table:
        table(a.table)
    else:
        run(_seeds(a.seeds), a.out, a.only, a.set)


if __name__ == "__main__":
    main()
