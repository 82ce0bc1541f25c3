"""The package stack stays a stack: no package imports one below it, and verify.pep has no import circle.

Order (top imports nothing of ours): bounds -> rate_region -> quadratics -> verify -> reports.
Inside them: ``bounds.core`` (errors, strict JSON, seeds, statistics) is the ground floor and imports
nothing of ours but itself; ``verify`` holds evidence, with its executor (``verify.runtime``) and the
tooling for users' tests (``verify.testing``) as subpackages that evidence never imports; the log audit
is participation in practice (``rate_region.audit``).
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


def _ours(path: Path) -> set[str]:
    """Dotted modules of ours that ``path`` imports (absolute imports only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    mods: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods.update(a.name for a in node.names if a.name.split(".")[0] in STACK)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in STACK:
                mods.add(node.module)
    return mods


def test_ground_floor_imports_nothing_of_ours():
    offenders = {
        str(p.relative_to(ROOT)): sorted(m for m in _ours(p) if not m.startswith("bounds.core"))
        for p in (ROOT / "bounds" / "core").rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_evidence_does_not_import_test_tooling_or_the_audit():
    offenders = {}
    for p in (ROOT / "verify").rglob("*.py"):
        rel = p.relative_to(ROOT)
        if rel.parts[1] == "testing":
            continue
        bad = sorted(m for m in _ours(p) if m.startswith(("verify.testing", "rate_region.audit")))
        if bad:
            offenders[str(rel)] = bad
    assert offenders == {}


def test_verify_holds_evidence_only():
    """The log audit, the executor and the test tooling live where their names say; the old names are gone
    (0.2.0 removed the shims; ``bounds.core.moved`` says where each went, ``tests/test_moved_names.py``)."""
    for old in ("audit", "certificates", "executor.py", "strategies.py", "pytest_plugin.py"):
        assert not (ROOT / "verify" / old).exists(), f"verify/{old} was removed in 0.2.0"
    for old in ("errors.py", "jsonable.py"):
        assert not (ROOT / "bounds" / old).exists(), f"bounds/{old} was removed in 0.2.0 (now in bounds/core/)"


def test_no_module_is_a_deprecation_shim():
    """0.2.0 removed every module that only re-exported another with a DeprecationWarning."""
    def is_shim(text: str) -> bool:  # warns and re-exports (the 0.1 shims did both)
        return "DeprecationWarning" in text and ("import *" in text or "moved to" in text or "deprecated" in text)

    shims = [str(p.relative_to(ROOT)) for pkg in STACK for p in (ROOT / pkg).rglob("*.py")
             if is_shim(p.read_text(encoding="utf-8"))]
    assert shims == []


def _pep_import_graph() -> dict[str, set[str]]:
    """verify.pep's modules and the verify.pep modules each imports, at module level or inside functions."""
    folder = ROOT / "verify" / "pep"
    mods = {("verify.pep" if p.stem == "__init__" else f"verify.pep.{p.stem}"): p for p in folder.glob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            graph[m] |= {t for t in targets if t in mods and t != m}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle of ``graph`` (a list of modules, the first repeated last), or [] when it has none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(v: str) -> list[str]:
        state[v] = 1
        path.append(v)
        for w in sorted(graph[v]):
            if state.get(w) == 1:
                return path[path.index(w):] + [w]
            if w not in state and (found := visit(w)):
                return found
        state[v] = 2
        path.pop()
        return []

    for v in sorted(graph):
        if v not in state and (found := visit(v)):
            return found
    return []


def test_verify_pep_imports_form_no_circle():
    # types and settings below, solvers above them, sweeps, coverage and brackets on top: function-level imports
    # count too, so a circle cannot hide inside a function
    graph = _pep_import_graph()
    assert {"verify.pep.core", "verify.pep.sweep", "verify.pep.banded"} <= set(graph)
    assert "verify.pep.fixed_point" in graph["verify.pep.banded"]  # the walk sees imports (the bracket's)
    assert _cycle(graph) == []
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]  # and the search finds one
