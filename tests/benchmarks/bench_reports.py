"""Rendering speed of a report and wall time of ``convbound report --quick``.

pytest-benchmark: ``python -m pytest tests/benchmarks/bench_reports.py --benchmark-enable``.
Plain script (end-to-end, writes to a temporary directory): ``python tests/benchmarks/bench_reports.py``;
with ``--record`` it also writes ``tests/benchmarks/results/report_quick.json``: the whole ``--quick``
report's wall time (with the load average and cores beside it), its sections, verdicts, record kinds, the
number of images in index.html and of pages in report.pdf. Why a record: the test suite's end-to-end test
(``tests/reports/test_report_e2e.py``) builds the quick report of one result (``--only FAST.T2``, about a
fifth of the time); a fast test there checks this record of the whole one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reports"))
from report_fixtures import fixture_doc  # noqa: E402


def test_render_fixture_html_and_pdf(benchmark, tmp_path):
    from reports.build import write_report

    counter = iter(range(10**6))
    benchmark.pedantic(lambda: write_report(fixture_doc(), tmp_path / f"r{next(counter)}"), rounds=3, iterations=1)


RECORD = Path(__file__).resolve().parent / "results" / "report_quick.json"


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", action="store_true", help=f"write {RECORD.relative_to(RECORD.parents[3])}")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rep"
        load_before = os.getloadavg()
        t0, cpu0 = time.perf_counter(), _children_cpu()
        subprocess.run([sys.executable, "-m", "reports.cli.main", "report", "--quick", "--out", str(out), "--force"],
                       check=True)
        seconds, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
        print(f"convbound report --quick: {seconds:.1f} s wall, {cpu:.1f} s CPU")
        if args.record:
            record = quick_record(out, (seconds, cpu), load_before)
            RECORD.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
            print(json.dumps({k: v for k, v in record.items() if k != "verdicts"}, indent=2))


def _children_cpu() -> float:
    """User + system CPU seconds of the finished child processes (the report's own process)."""
    import resource

    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def quick_record(out: Path, seconds: tuple[float, float], load_before: tuple[float, ...]) -> dict:
    """What the end-to-end test asserts of a quick report, measured on the whole one in ``out``.

    ``seconds``: (wall, CPU) of the run. Why CPU too: on a shared machine the wall time measures the other
    jobs as well; the CPU time of the report's process is what the report itself costs.
    """
    import platform
    import re

    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    pages = subprocess.run(["pdfinfo", str(out / "report.pdf")], capture_output=True, text=True, check=True).stdout
    root = Path(__file__).resolve().parents[2]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=root).stdout.strip()
    return {
        "what": "convbound report --quick, whole (every result and check group), one run",
        "command": "python tests/benchmarks/bench_reports.py --record",
        "seconds": round(seconds[0], 1),
        "cpu_seconds": round(seconds[1], 1),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "cores": os.cpu_count(),
        "timings_s": doc["timings_s"],
        "sections_failed": doc["sections_failed"],
        "sections_present": sorted(k for k in ("results", "region", "large_n", "sampler", "participation")
                                   if doc[k]),
        "results": len(doc["results"]),
        "worst_cases": [{"source": w["source"], "status": w["record"]["certificate"]["status"]}
                        for w in doc["worst_cases"]],
        "kinds": sorted({v["kind"] for v in doc["verifications"]}),
        "controls": sum(bool(v["control"]) for v in doc["verifications"]),
        "verdicts": {v["id"]: v["verdict"] for v in doc["verifications"]},
        "html_images": len(re.findall(r"<img\b", (out / "index.html").read_text(encoding="utf-8"))),
        "pdf_pages": int(re.search(r"^Pages:\s+(\d+)", pages, re.M).group(1)),
        "seed": doc["seed"],
        "commit": commit,
        "versions": {"python": platform.python_version(), **doc["environment"]["packages"]},
    }


if __name__ == "__main__":
    main()
