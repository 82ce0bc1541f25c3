"""The package stack stays a stack: no package imports one below it.

Order (top imports nothing of ours): bounds -> rate_region -> quadratics -> verify -> reports.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STACK = ["bounds", "rate_region", "quadratics", "verify", "reports"]


def _imported_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", STACK)
def test_no_upward_imports(package):
    below = set(STACK[STACK.index(package) + 1 :])
    offenders = {
        str(path.relative_to(ROOT)): sorted(_imported_packages(path) & below)
        for path in (ROOT / package).rglob("*.py")
    }
    offenders = {k: v for k, v in offenders.items() if v}
    assert offenders == {}, f"{package} imports packages below it: {offenders}"


def test_bounds_is_free_of_numerics_of_simulation():
    for path in (ROOT / "bounds").rglob("*.py"):
        assert "torch" not in _imported_packages(path), path
