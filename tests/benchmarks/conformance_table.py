"""Render the conformance benchmark's record (``bench_conformance.py --out``) as the table of docs/conformance.md.

Run: ``python tests/benchmarks/conformance_table.py [RECORD.json ...]`` (default: the committed records,
``tests/benchmarks/results/conformance_reports_*.json``; several records are merged: rows keyed by implementation
and seed). ``tests/test_docs_conformance.py`` checks that the docs' table is this rendering of the committed
records (:func:`records`).
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def records() -> list[Path]:
    """The committed records the docs table is rendered from (one per benchmark run)."""
    return sorted(RESULTS.glob("conformance_reports_*.json"))


def load(paths: list[Path]) -> tuple[list[dict], dict]:
    """Rows of all records (later records replace earlier rows of the same implementation and seed) and the
    report classes."""
    rows: dict[tuple[str, int], dict] = {}
    reports: dict = {}
    for p in paths:
        data = json.loads(Path(p).read_text(encoding="utf-8"))
        reports.update(data.get("reports", {}))
        for r in data["rows"]:
            rows[(r["name"], r["seed"])] = r
    return list(rows.values()), reports


def render(rows: list[dict], reports: dict) -> str:
    """The summary lines and the per-implementation table (markdown)."""
    mutants = [r for r in rows if r["mutant"]]
    correct = [r for r in rows if not r["mutant"]]
    caught = sum(r["status"] == "departs" for r in mutants)
    alarms = sum(r["status"] == "departs" for r in correct)
    def cpu(rs: list[dict]) -> str:
        xs = [r["cpu_seconds"] for r in rs]
        return f"{statistics.median(xs):.1f}, {max(xs):.1f}" if xs else "-"

    names = list(dict.fromkeys(r["name"] for r in mutants + correct))
    lines = [
        f"- mutants: {len({r['name'] for r in mutants})} in {len({r['report'] for r in mutants})} report classes; "
        f"caught in {caught} of {len(mutants)} (mutant, seed) pairs"
        + (f" ({100 * caught / len(mutants):.1f}%)" if mutants else ""),
        f"- correct implementations: {len({r['name'] for r in correct})}; false alarms in {alarms} of {len(correct)} "
        "checks",
        f"- CPU seconds per check (median, max): all {cpu(rows)}; mutants (stopping at the first departing "
        f"scenario) {cpu(mutants)}; correct implementations (every scenario) {cpu(correct)}",
        "",
        "| implementation | form | claim | report class (where reported) | seeds | caught / conform | likely class "
        "named | smallest first \\|z\\| (threshold) | CPU s (median) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for n in names:
        rs = sorted((r for r in rows if r["name"] == n), key=lambda r: r["seed"])
        r0, hit = rs[0], sum(r["status"] == "departs" for r in rs)
        seeds = ",".join(str(r["seed"]) for r in rs) if len(rs) < 4 else f"{rs[0]['seed']}-{rs[-1]['seed']}"
        if r0["mutant"]:
            what, where = reports.get(r0["report"], (r0["bug"], ""))
            cls = f"{what} ({where})" if where else what
            word = f"{hit} / {len(rs)} caught"
        else:
            cls, word = "correct", f"{len(rs) - hit} / {len(rs)} conform"
        likely = ", ".join(sorted({r["likely"] for r in rs if r.get("likely")})) or "-"
        zs = [abs(r["first"]["z"]) for r in rs if r["first"]]
        zcol = f"{min(zs):.1f} ({r0['threshold_z']:.2f})" if zs else f"- ({r0['threshold_z']:.2f})"
        lines.append(f"| {n} | {r0['form']} | {r0['algorithm']} / {r0['law']} | {cls} | {seeds} | {word} | {likely} | "
                     f"{zcol} | {statistics.median(r['cpu_seconds'] for r in rs):.1f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    paths = [Path(p) for p in sys.argv[1:]] or records()
    sys.stdout.write(render(*load(paths)))


if __name__ == "__main__":
    main()
