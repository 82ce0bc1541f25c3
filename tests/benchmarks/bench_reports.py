"""Rendering speed of a report and wall time of ``convbound report --quick``.

pytest-benchmark: ``python -m pytest tests/benchmarks/bench_reports.py --benchmark-enable``.
Plain script (end-to-end, writes to a temporary directory): ``python tests/benchmarks/bench_reports.py``.
"""

from __future__ import annotations

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


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for args in (["--quick"],):
            t0 = time.perf_counter()
            subprocess.run(["convbound", "report", *args, "--out", str(Path(tmp) / "rep"), "--force"], check=True)
            print(f"convbound report {' '.join(args)}: {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
