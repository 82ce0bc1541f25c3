"""The benchmark pages of the user guide are what the generator writes from the records, and the numbers the
reference pages quote are the records'."""

import json

from doc_blocks import ROOT
from test_readme import PROVENANCE

from docs.benchmarks import generate

RESULTS = ROOT / "tests" / "benchmarks" / "results"


def test_committed_pages_are_the_generated_ones():
    want = generate.pages()
    have = {p.name: p.read_text(encoding="utf-8") for p in generate.PAGES.glob("*.md")}
    stale = sorted(n for n in want.keys() | have.keys() if want.get(n) != have.get(n))
    assert not stale, f"run python -m docs.benchmarks.generate; stale: {stale}"


def test_every_record_has_a_page_in_the_index():
    records = sorted(p.stem for p in RESULTS.glob("*.json"))
    index = (generate.PAGES / "index.md").read_text(encoding="utf-8")
    assert records and all(f"\n{name}\n" in index for name in records)
    assert index.index("readme_commands") < index.index("report_quick")  # the page a user meets first


def test_the_commands_table_quotes_the_record():
    """Each row of the README commands' page carries the record's CPU and wall seconds (read here directly)."""
    record = json.loads((RESULTS / "readme_commands.json").read_text(encoding="utf-8"))
    page = (generate.PAGES / "readme_commands.md").read_text(encoding="utf-8")
    for row in record["rows"]:
        line = next(ln for ln in page.splitlines() if ln.startswith(f"| {row['command']} |"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert float(cells[2]) == float(f"{row['cpu_s']:.4g}") and float(cells[3]) == float(f"{row['wall_s']:.4g}")
        assert cells[6] == ("-" if row["meets"] is None else ("yes" if row["meets"] else "no"))


def test_pages_carry_no_development_provenance():
    cleaned = generate.clean_text("rerun on a1edb9a (2026-11-27, load 3.2 to 4.1), issue 38 item 4")
    assert not PROVENANCE.search(cleaned), cleaned
    assert generate.clean_text("ratio 0.9934 | 12 s") == "ratio 0.9934 \\| 12 s"  # a bar would split the cell
    assert generate.cell(0.123456) == "0.1235" and generate.cell(True) == "yes" and generate.cell(None) == "-"
    fields = dict(generate.scalars({"commit": "abc1234", "load_average": [1, 2], "cores": 2, "a": {"date": "x"}}))
    assert fields == {"cores": 2}
