"""Render the falsify report section (Markdown) from saved search records.

Run: ``PYTHONPATH=. python tests/benchmarks/falsify_report.py [DIR]`` (default
``tests/benchmarks/falsify_runs``): reads every ``ID.OPTIMISER.json`` record there, takes the
hand-picked ratios from ``verify ... --quick`` (seed 0), writes ``DIR/REPORT.md`` next to the trace PNGs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from reports.falsify_section import falsify_sections, render_markdown
from verify.suite import run_suite


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/benchmarks/falsify_runs")
    found = [(p, json.loads(p.read_text())) for p in sorted(root.glob("*.json"))]
    found = [(p, d) for p, d in found if isinstance(d, dict) and "confirmation" in d]  # search records only
    files, records = [p for p, _ in found], [d for _, d in found]
    shipped = [v.to_dict() for v in run_suite(sorted({r["id"].split("@")[0] for r in records}), quick=True)]
    secs = falsify_sections(records, shipped)
    figs = {}
    for p, s in zip(files, secs):
        png = p.with_suffix(".png")
        if png.exists():
            s["id"] = f"{s['id']} ({s['optimiser']})"
            figs[s["id"]] = png.name
    (root / "REPORT.md").write_text(render_markdown(secs, figs) + "\n")


if __name__ == "__main__":
    main()
