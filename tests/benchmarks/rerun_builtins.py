"""Rerun ``convbound falsify`` on every built-in scenario and record what it finds (issue 27 item 7).

Protocol: for each scenario of ``verify.scenarios.registry()`` (in its order), one search with the
default optimiser from seed 0 and ``--budget`` evaluations (no time limit by default: a wall-clock limit
would make what is searched depend on the machine's load, and the same seed must give the same numbers),
its best point confirmed (exactly where the point is exactly scored, else on 4,096 fresh trials) and a
confirmed violation shrunk to a minimal counterexample (``verify.search.shrink``). Scenarios run one after
another, each in a fresh interpreter, as a user would run them.

Writes, per scenario, ``OUT/ID.json`` (the search record, with ``shrunk`` where a violation was
confirmed) and ``OUT/ID.instance.json`` (the replayable confirmation instance: ``convbound verify
--instance FILE``), and ``OUT/summary.json`` plus ``OUT/SUMMARY.md`` (one row per scenario: verdict,
best ratio, exact / simulated / cut shares, evaluations, wall time, seed, versions, load).

    PYTHONPATH=. python tests/benchmarks/rerun_builtins.py --budget 100 --out tests/benchmarks/falsify_runs/rerun
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

CLI = [sys.executable, "-m", "reports.cli.main"]


def scenario_ids() -> list[str]:
    from verify.scenarios import registry

    return list(registry())


def run_one(sid: str, out: Path, budget: int, seconds: float | None, seed: int) -> dict:
    rec, inst = out / f"{sid}.json", out / f"{sid}.instance.json"
    cmd = [*CLI, "falsify", sid, "--budget", str(budget), "--seed", str(seed),
           "--out", str(rec), "--instance-out", str(inst), "--force"]
    cmd += ["--time", str(seconds)] if seconds else []
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    row = {"id": sid, "exit": proc.returncode, "wall_s": round(wall, 1), "load": os.getloadavg()[0]}
    if proc.returncode != 0 or not rec.exists():
        row["error"] = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return row
    doc = json.loads(rec.read_text())
    conf = doc.get("confirmation") or {}
    row.update(verdict=conf.get("verdict"), ratio=conf.get("ratio"), lhs=conf.get("lhs"), rhs=conf.get("rhs"),
               unless=conf.get("unless") or [], evaluations=doc.get("evaluations"),
               admissible=doc.get("admissible"), fidelity=doc.get("fidelity"), finding=doc.get("finding"),
               shrunk=bool(doc.get("shrunk")), seed=doc.get("seed"), versions=doc.get("versions"))
    return row


def _cell(v: object) -> str:
    return f"{v:.4g}" if isinstance(v, float) else ("-" if v is None else str(v))


def markdown(rows: list[dict], args: argparse.Namespace) -> str:
    head = ["scenario", "verdict at the best point", "ratio LHS/RHS", "exact / simulated / cut",
            "evaluations (admissible)", "shrunk", "wall s (load)"]
    limit = f", at most {args.time:g} s per search" if args.time else ""
    lines = [f"Seed {args.seed}, default optimiser, budget {args.budget}{limit}; command: `PYTHONPATH=. python "
             f"tests/benchmarks/rerun_builtins.py --budget {args.budget}"
             + (f" --time {args.time:g}" if args.time else "") + f" --out {args.out}`.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['id']} | error (exit {r['exit']}): {r['error']} |" + " - |" * (len(head) - 2))
            continue
        f = r.get("fidelity") or {}
        share = f"{f.get('exact', 0):.0%} / {f.get('simulated', 0):.0%} / {f.get('cut', 0):.0%}" if f else "-"
        verdict = (r["verdict"] or "no admissible point found") + (f" ({', '.join(r['unless'])})" if r["unless"] else "")
        lines.append(f"| {r['id']} | {verdict} | {_cell(r['ratio'])} | {share} | {r['evaluations']} "
                     f"({r['admissible']}) | {'yes' if r['shrunk'] else '-'} | {r['wall_s']} ({r['load']:.1f}) |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=100)
    ap.add_argument("--time", type=float, default=None, help="seconds per search (default: none; see above)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="tests/benchmarks/falsify_runs/rerun")
    ap.add_argument("--only", default="", help="comma-separated scenario IDs (default: all)")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ids = [s for s in args.only.split(",") if s] or scenario_ids()
    rows = []
    for sid in ids:
        rows.append(run_one(sid, out, args.budget, args.time, args.seed))
        print(json.dumps({k: rows[-1].get(k) for k in ("id", "verdict", "ratio", "wall_s", "error")}), flush=True)
        (out / "summary.json").write_text(json.dumps(rows, indent=1, default=str))
    (out / "SUMMARY.md").write_text(markdown(rows, args))


if __name__ == "__main__":
    main()
