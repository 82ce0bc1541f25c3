"""docs/testing.md's examples run as written (its Python blocks, in order, in one namespace), so CI runs them."""

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "testing.md"


def test_testing_page_examples_run(capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    # assert_rate (exact and per seed), assert_bound_holds, assert_conforms, params_for, instances_for
    assert len(blocks) == 6
    text = "\n".join(blocks)
    for helper in ("assert_rate(", "assert_bound_holds(", "assert_conforms(", "params_for(", "instances_for("):
        assert helper in text, helper
    ns: dict = {}
    for code in blocks:
        exec(compile(code, str(DOC), "exec"), ns)  # each block asserts its own outcome
    out = capsys.readouterr().out
    assert "fails: slope" in out and "FAST.T1 holds" in out and "conforms" in out
    assert "{'M': 4, 'K': 2, 'R': 1, 'd': 1}" in out
