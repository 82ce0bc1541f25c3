"""The package stack stays a stack: no package imports one below it.

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


def _is_shim(path: Path) -> bool:
    """A moved module's old name (kept one release with a DeprecationWarning)."""
    return "DeprecationWarning" in path.read_text(encoding="utf-8") and "moved to" in path.read_text(encoding="utf-8")


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
        if rel.parts[1] == "testing" or _is_shim(p):
            continue
        bad = sorted(m for m in _ours(p) if m.startswith(("verify.testing", "rate_region.audit")))
        if bad:
            offenders[str(rel)] = bad
    assert offenders == {}


def test_verify_holds_evidence_only():
    """The log audit, the executor and the test tooling live where their names say (old names are shims)."""
    for old in ("audit", "executor.py", "strategies.py", "pytest_plugin.py"):
        for p in [ROOT / "verify" / old] if old.endswith(".py") else (ROOT / "verify" / old).rglob("*.py"):
            assert _is_shim(p), f"{p.relative_to(ROOT)} should be a deprecation shim, not code"
