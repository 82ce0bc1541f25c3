"""docs/workflow.ipynb runs from top to bottom (nbclient, a fresh kernel) and shows what it says it shows.

The notebook encodes a wrong bound (a 1/n^2 rate for gradient descent), checks it (holds given the
full-participation condition), searches a simulation's instances (a violation is confirmed: gradient
descent on a quadratic of small curvature is slower than 1/n^2) and looks at the worst instance.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbclient = pytest.importorskip("nbclient", reason="nbclient and ipykernel are in the 'test' extra")
nbformat = pytest.importorskip("nbformat")

ROOT = Path(__file__).resolve().parents[1]


def _text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        parts.append(out.get("text", ""))
        parts.append(str(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def test_the_workflow_notebook_runs_and_finds_the_violation(tmp_path, monkeypatch):
    # the kernel imports this checkout, whichever copy of the package is installed
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    nb = nbformat.read(ROOT / "docs" / "workflow.ipynb", as_version=4)
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert len(code) == 4
    errors = [o for c in code for o in c.outputs if o.get("output_type") == "error"]
    assert not errors
    assert _text(code[0]).strip().startswith("Result(NB.GD:")
    assert "holds given conditions | given: ('participation (full)',)" in _text(code[1])
    assert "violation confirmed" in _text(code[2])
    worst = _text(code[3])
    assert "'participation (full)': (True, 'met by construction" in worst and "hypotheses True" in worst
    ratio = float(worst.split("LHS/RHS = ")[1].split()[0])
    assert ratio > 1
    assert all("text/html" in o.get("data", {}) for c in code for o in c.outputs
               if o.get("output_type") == "execute_result")
