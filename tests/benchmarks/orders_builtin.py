"""The orders table for every built-in result: run ``convbound orders ID --json`` per scenario, keep each record,
and regenerate the README's table from the records (issue 27 items 3 and 7).

``run`` runs, for each scenario of ``verify.scenarios.registry()`` (what ``orders all`` covers), the command
``python -m reports.cli.main orders ID --json --seed SEED`` in a fresh interpreter, one after another, and
writes ``OUT/ID.json`` (the command, seed, versions, UTC date, load averages before and after, wall and CPU
seconds, and the command's JSON) and ``OUT/ID.txt`` (the same rows as the command prints them without
``--json``, rendered from the JSON by the command's own line function, under a header with the same facts).
``table`` reads the records and prints the README's table; ``--readme`` writes it between the markers
``<!-- orders-builtin:start -->`` and ``<!-- orders-builtin:end -->`` of README.md.

    PYTHONPATH=. python tests/benchmarks/orders_builtin.py run [--only ID,...]
    PYTHONPATH=. python tests/benchmarks/orders_builtin.py table --readme
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "benchmarks" / "results" / "orders_builtin"
CLI = [sys.executable, "-m", "reports.cli.main"]
START, END = "<!-- orders-builtin:start -->", "<!-- orders-builtin:end -->"


def run_one(sid: str, out: Path, seed: int) -> dict:
    """One scenario's record (also written to ``out``)."""
    from reports.cli.cmd_orders import _line, summary_line
    from verify.search.orders import RayOrder
    from verify.suite import versions

    cmd = [*CLI, "orders", sid, "--json", "--seed", str(seed)]
    load0, cpu0, t0 = os.getloadavg(), resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=ROOT)
    wall, cpu1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    rec = {"id": sid, "command": f"convbound orders {sid} --json --seed {seed}", "seed": seed,
           "versions": versions(), "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
           "load_before": list(load0), "load_after": list(os.getloadavg()), "wall_s": round(wall, 1),
           "cpu_s": round(cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime, 1), "exit": proc.returncode,
           "stderr_tail": proc.stderr.strip().splitlines()[-3:]}
    rec["orders"] = json.loads(proc.stdout) if proc.returncode == 0 else None
    (out / f"{sid}.json").write_text(json.dumps(rec, indent=1, default=str) + "\n")
    head = [f"# {rec['command']}  (text rows rendered from its JSON by reports.cli.cmd_orders._line)",
            f"# seed {seed}; {rec['date']}; wall {rec['wall_s']} s, CPU {rec['cpu_s']} s; load averages "
            f"{' '.join(f'{x:.1f}' for x in load0)} before, {' '.join(f'{x:.1f}' for x in rec['load_after'])} after "
            "(a shared 2-core machine)", f"# versions: {json.dumps(rec['versions'])}"]
    if rec["orders"] is None:
        body = [f"exit {proc.returncode}: " + " | ".join(rec["stderr_tail"])]
    else:
        rows = [RayOrder(**r) for r in rec["orders"]["rows"]]
        body = [_line(r) for r in rows] + [summary_line(rows)]
    (out / f"{sid}.txt").write_text("\n".join(head + body) + "\n")
    return rec


def _reason(row: dict) -> tuple[str, str]:
    """A not-fitted row's reason as (group, detail): the groups the README's table counts."""
    why = row["why"]
    m = re.match(r"the ray spans ([0-9.e+-]+) decades", why)
    if m:
        return "ray shorter than 3 decades (axis: decades)", f"{row['ray'].split()[0]} {float(m.group(1)):.2g}"
    if not why.startswith("point "):  # a row refused as a whole (a lower result's rays are not classified)
        return why.split(":")[0] + " (not classified)", row["ray"].split()[0]
    m = re.match(r"point \d+ of the ray is (.*?) \((\S+) = [^)]*\)(, as is every point after it|; its .*)?$", why)
    what = m.group(1) if m else why
    if m and (m.group(3) or "").startswith("; its"):
        spans = re.search(r"span ([0-9.e+-]+) decades", why)
        return ("ray shorter than 3 decades once its leading unscored points are left out (axis: decades)",
                f"{row['ray'].split()[0]} {float(spans.group(1)) if spans else 0:.2g}")
    if what.startswith("cut by cost"):
        return "a point cut by cost (exact, past the per-point budget)", row["ray"].split()[0]
    return f"a point {what}", row["ray"].split()[0]


def _example(rows: list[dict]) -> str:
    hits = [r for r in rows if r["finding"] == "fails far along" and r["violation"].get("confirmation", {}).get("verdict")
            in ("violated", "violated unless")]
    if not hits:
        fails = [r for r in rows if r["finding"] == "fails far along"]
        if not fails:
            return "0"
        c = fails[0]["violation"].get("confirmation", {})
        return (f"{len(fails)} rows, none confirmed (first: {fails[0]['ray']} from {fails[0]['base_label']}: "
                f"{c.get('verdict')}; the LHS's fitted exponent against the RHS's limit exponent alone)")
    best = max(hits, key=lambda r: r["violation"]["confirmation"]["ratio"])
    v, c = best["violation"], best["violation"]["confirmation"]
    said = f"violated unless {', '.join(c.get('unless') or [])} fails" if c["verdict"] == "violated unless" else "violated"
    return (f"{len(hits)} rows confirmed; largest: {best['ray']} from {best['base_label']}, {v['axis']} = "
            f"{v['point'][v['axis']]:.3g}, LHS/RHS {c['ratio']:.3g} ({said})")


def _loose(rows: list[dict]) -> str:
    loose = [r for r in rows if r["finding"] == "loose"]
    if not loose:
        return "0"
    seen: dict[str, str] = {}
    for r in loose:
        seen.setdefault(r["ray"], f"{r['ray']}: LHS exponent {r['lhs_fit']['slope']:.3g} vs RHS {r['rhs_fit']['slope']:.3g}")
    return f"{len(loose)}: " + "; ".join(seen.values())


def _details(ds: list[str]) -> str:
    """Details of one reason group: the axes, each with the range of its decades where the reason gives them."""
    spans: dict[str, list[float]] = {}
    for d in ds:
        axis, _, x = d.partition(" ")
        spans.setdefault(axis, []).extend([float(x)] if x else [])
    return ", ".join(a if not v else f"{a} {min(v):.2g}" + (f"-{max(v):.2g}" if max(v) > min(v) else "")
                     for a, v in sorted(spans.items()))


def _not_fitted(rows: list[dict]) -> str:
    groups: dict[str, list[str]] = {}
    for r in rows:
        if r["finding"] == "not fitted":
            g, d = _reason(r)
            groups.setdefault(g, []).append(d)
    if not groups:
        return "0"
    parts = [f"{g}: {len(ds)} ({_details(ds)})" for g, ds in groups.items()]
    return f"{sum(len(v) for v in groups.values())}: " + "; ".join(parts)


def markdown(paths: list[Path]) -> str:
    """The README's table: one line per built-in scenario from its record."""
    recs = [json.loads(p.read_text()) for p in paths]
    from verify.scenarios import registry

    order = {s: i for i, s in enumerate(registry())}
    recs.sort(key=lambda r: order.get(r["id"], len(order)))
    head = ["result (scenario)", "rays (rows)", "fitted rows", "fails far along (confirmed point)",
            "loose (fitted exponents)", "not fitted (reasons: rows)", "wall / CPU s (load)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for rec in recs:
        timing = f"{rec['wall_s']:g} / {rec['cpu_s']:g} ({rec['load_before'][0]:.1f})"
        if rec["orders"] is None:
            lines.append(f"| {rec['id']} | exit {rec['exit']}: {' '.join(rec['stderr_tail'])} |" + " - |" * 4
                         + f" {timing} |")
            continue
        rows = rec["orders"]["rows"]
        fitted = sum(r["finding"] != "not fitted" for r in rows)
        cells = [rec["id"], f"{len({r['ray'] for r in rows})} ({len(rows)})", str(fitted), _example(rows),
                 _loose(rows), _not_fitted(rows), timing]
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    dates = sorted(r["date"] for r in recs)
    seeds = sorted({r["seed"] for r in recs})
    v = recs[0]["versions"] if recs else {}
    lines += ["", f"Seed {', '.join(map(str, seeds))}; records dated {dates[0] if dates else '-'} to "
              f"{dates[-1] if dates else '-'}; versions {json.dumps(v)}; total {sum(r['wall_s'] for r in recs):.0f} s "
              f"wall, {sum(r['cpu_s'] for r in recs):.0f} s CPU."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run", help="run orders on each built-in scenario and write the records")
    r.add_argument("--only", default="", help="comma-separated scenario ids (default: every built-in)")
    r.add_argument("--seed", type=int, default=0)
    t = sub.add_parser("table", help="print the README table from the records")
    t.add_argument("--readme", action="store_true", help="write it between the markers of README.md")
    for p in (r, t):
        p.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    out = Path(args.out)
    if args.what == "run":
        from verify.scenarios import registry

        out.mkdir(parents=True, exist_ok=True)
        for sid in [s for s in args.only.split(",") if s] or list(registry()):
            rec = run_one(sid, out, args.seed)
            print(f"{sid}: exit {rec['exit']}, {rec['wall_s']} s wall, {rec['cpu_s']} s CPU, load "
                  f"{rec['load_before'][0]:.1f}", file=sys.stderr, flush=True)
        return 0
    text = markdown(sorted(out.glob("*.json")))
    if args.readme:
        readme = ROOT / "README.md"
        doc = readme.read_text()
        if START not in doc or END not in doc:
            print(f"README.md has no {START} ... {END} block", file=sys.stderr)
            return 2
        readme.write_text(re.sub(re.escape(START) + ".*?" + re.escape(END), lambda _: f"{START}\n{text}{END}", doc,
                                 flags=re.S))
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
