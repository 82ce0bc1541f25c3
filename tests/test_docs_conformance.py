"""docs/conformance.md's worked example runs as written (its Python blocks, in order, in one namespace)."""

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "conformance.md"


def test_conformance_page_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) == 3  # conforming FedAvg, the data-size bug, Flower's FedAvg
    ns: dict = {}
    for code in blocks:
        exec(compile(code, str(DOC), "exec"), ns)  # each block asserts its own outcome
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("conforms:") and out[1].startswith("departs:") and out[2].startswith("conforms:")
