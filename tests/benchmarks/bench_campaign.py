"""`convbound campaign ID --seed s` from an empty store: what it decides, and its CPU time, wall time and peak memory.

Run: ``PYTHONPATH=. python tests/benchmarks/bench_campaign.py --ids FAST.T1 --seeds 0 1 2 --out FILE.json`` from
the repository root (``--ids all`` records every result's decision). Each (ID, seed) runs in a fresh interpreter under ``/usr/bin/time -v`` with its own empty
store (``--no-shipped``: the decision comes from what the campaign gathered itself), then the store is read:
the pieces gathered with their CPU seconds, and the decision. The record keeps the load before and after
(``os.getloadavg``), the command, the seed and the versions. The acceptance it checks: from an empty store,
``campaign FAST.T1`` finds Theorem 1's conditional refutation by itself at every seed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def _time_v(err: str) -> dict[str, float]:
    """User, system and wall seconds and peak resident kB from ``/usr/bin/time -v``'s report."""
    def num(pattern: str) -> float:
        m = re.search(pattern, err)
        return float(m.group(1)) if m else float("nan")

    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", err)
    parts = [float(p) for p in wall.group(1).split(":")] if wall else []
    seconds = sum(p * 60 ** i for i, p in enumerate(reversed(parts))) if parts else float("nan")
    return {"user_s": num(r"User time \(seconds\): ([\d.]+)"), "system_s": num(r"System time \(seconds\): ([\d.]+)"),
            "wall_s": seconds, "peak_rss_kb": num(r"Maximum resident set size \(kbytes\): (\d+)")}


def run_one(key: str, seed: int, store: Path) -> dict:
    from verify.evidence.store import Store

    cmd = ["convbound", "campaign", key, "--seed", str(seed), "--no-shipped", "--json"]
    env = {**os.environ, "CONVBOUND_STORE": str(store), "PYTHONPATH": os.getcwd()}
    load_before = os.getloadavg()
    run = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "reports.cli.main", *cmd[1:]], env=env,
                         capture_output=True, text=True)
    out = {"id": key, "seed": seed, "command": " ".join(cmd), "exit": run.returncode, **_time_v(run.stderr),
           "load_before": load_before, "load_after": os.getloadavg()}
    with Store(store) as s:
        out["pieces"] = [{"piece": r.piece, "kind": r.kind, "cpu_s": r.body.get("cpu_s"),
                          "wall_s": r.body.get("seconds")} for r in s.records()]
    decisions = json.loads(run.stdout) if run.returncode == 0 else []
    out["decision"] = decisions[0]["outcome"] if len(decisions) == 1 else None
    out["why"] = decisions[0]["why"] if len(decisions) == 1 else ("" if decisions else run.stderr[-2000:])
    if len(decisions) > 1:  # `all`: every result's decision, and what an open one lacks
        out["decisions"] = [{"id": d["id"], "outcome": d["outcome"], "missing": d.get("missing", [])}
                            for d in decisions]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ids", nargs="+", default=["FAST.T1"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    from verify.suite import versions

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for key in args.ids:
            for seed in args.seeds:
                rows.append(run_one(key, seed, Path(tmp) / f"{key}-{seed}.sqlite"))
                print(json.dumps({k: rows[-1][k] for k in ("id", "seed", "decision", "user_s", "wall_s")}), flush=True)
    record = {"kind": "benchmark", "what": "campaign from an empty store", "versions": versions(), "runs": rows}
    if args.out:
        Path(args.out).write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
