"""docs/conformance.md: the worked example runs as written, the benchmark table is the rendering of the committed
record, the bug-class table is the declared mapping, and the CLI's names and limits are the library's."""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "conformance.md"


def _between(text: str, tag: str) -> str:
    m = re.search(rf"<!-- {tag} -->\n(.*?)<!-- /{tag} -->", text, flags=re.S)
    assert m, f"docs/conformance.md has no {tag} block"
    return m.group(1)


def test_conformance_page_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) == 3  # conforming FedAvg, the data-size bug, Flower's FedAvg
    ns: dict = {}
    for code in blocks:
        exec(compile(code, str(DOC), "exec"), ns)  # each block asserts its own outcome
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("conforms:") and out[1].startswith("departs:") and out[2].startswith("conforms:")
    assert "likely bug:" in out[1]


def test_benchmark_table_is_the_rendering_of_the_record():
    sys.path.insert(0, str(ROOT / "tests" / "benchmarks"))
    try:
        import conformance_table as ct
    finally:
        sys.path.pop(0)
    assert ct.records(), "no committed conformance benchmark record"
    rows, reports = ct.load(ct.records())
    assert _between(DOC.read_text(encoding="utf-8"), "conformance-table") == ct.render(rows, reports)
    mutants = [r for r in rows if r["mutant"]]
    assert len({r["name"] for r in mutants}) >= 45 and all(r["report"] in reports for r in mutants)
    assert {r["form"] for r in mutants} == {"function", "torch", "flower"}
    # the benchmark's goals, on the record: >= 95% of (mutant, seed) pairs caught, no false alarm, and Flower's own
    # strategies among the correct implementations for every server algorithm claimed
    correct = [r for r in rows if not r["mutant"]]
    assert sum(r["status"] == "departs" for r in mutants) >= 0.95 * len(mutants)
    assert correct and all(r["status"] == "conforms" for r in correct)
    flower = {r["algorithm"] for r in correct if r["form"] == "flower"}
    assert {"fedavg", "fedavgm", "fedadam", "fedyogi", "fedadagrad", "fedprox"} <= flower


def test_bug_class_table_is_the_declared_mapping():
    from verify.conformance.diagnose import BUG_CLASSES, RULES

    table = _between(DOC.read_text(encoding="utf-8"), "bug-classes")
    named = re.findall(r"^\| `([a-z-]+)` \|", table, flags=re.M)
    assert named == [r.bug_class for r in RULES] and set(named) == set(BUG_CLASSES)


def test_cli_names_and_limits_are_the_librarys():
    from reports.cli import cmd_conform
    from verify.conformance import ALGORITHMS, LAWS
    from verify.conformance.limits import IMPORT_SECONDS, ROUND_SECONDS

    assert cmd_conform.ALGORITHM_NAMES == ALGORITHMS and cmd_conform.LAW_NAMES == LAWS
    assert cmd_conform.SECONDS == ROUND_SECONDS == IMPORT_SECONDS


def test_numbers_the_page_quotes_are_the_codes():
    from verify.conformance import claims as c
    from verify.conformance.check import REFERENCE_TRIALS
    from verify.conformance.limits import MAX_ROUNDS, MAX_TRIALS, MEMORY_BYTES

    text = " ".join(DOC.read_text(encoding="utf-8").split())
    quoted = [f"{REFERENCE_TRIALS:,}-trial simulation", f"eta_g = {c.ETA_G_SCENARIO:g} (a server step",
              f"eta_g = {c.ETA_G_MOMENTUM:g} and beta = {c.BETA:g} (FedAvgM)",
              f"eta_g = {c.ETA_G_ADAPTIVE:g}, beta_1 = {c.BETA_1:g}, beta_2 = {c.BETA_2:g}, tau = {c.TAU:g}",
              f"`--rounds` at most {MAX_ROUNDS}", f"between 20 and {MAX_TRIALS:,}",
              f"within {MEMORY_BYTES // 2**30} GiB"]
    assert [q for q in quoted if q not in text] == []
