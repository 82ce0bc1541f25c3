"""What makes a stored record fresh: the hashes of a result's formula and hypotheses, and of the scoring code.

**Quantity**:

- ``formula_hash(res)``: sha256 of the RHS (``sympy.srepr``, each term named) and of every hypothesis (name and
  relation as ``srepr``), participation assumption and other assumption; a record whose formula hash differs
  from the result's current one is *stale* and ``decide`` ignores it (the evidence was about another statement);
- ``hypotheses_hash(res)``: the same over the hypotheses alone (a record says which of the two moved);
- ``code_version()``: sha256 of the source of the code that turns a point into a score and a verdict
  (``verify/scenario.py``, ``verify/exact_score.py``, ``quadratics/exact/*.py``,
  ``verify/search/confirmation.py``, ``verify/verdict.py``), not the package version: the package version moves
  on every release whatever changed, while these files are what a score depends on. A record scored by another
  code version is still used (the scoring code is refactored often without changing a value, and its tests pin
  the values), but ``decide`` names the version it came from, and a campaign gathers it again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

#: Source files whose content is the scoring code's version (relative to the repository or site-packages root).
SCORING_SOURCES = ("verify/scenario.py", "verify/exact_score.py", "verify/search/confirmation.py",
                   "verify/verdict.py", "quadratics/exact")


def _srepr(x: Any) -> str:
    import sympy as sp

    return sp.srepr(x) if isinstance(x, sp.Basic) else repr(x)


def hypotheses_text(res: Any) -> str:
    """Every hypothesis and assumption of ``res`` in one canonical string (name and relation)."""
    parts = [f"H {h.name}: {_srepr(h.relation)}" for h in res.hypotheses]
    parts += [f"P {p!r}" for p in getattr(res, "participation", ()) or ()]
    parts += [f"A {a!r}" for a in getattr(res, "assumptions", ()) or ()]
    return "\n".join(parts)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


def hypotheses_hash(res: Any) -> str:
    return _sha(hypotheses_text(res))


def formula_hash(res: Any) -> str:
    rhs = "\n".join(f"T {t.name}: {_srepr(t.expr)}" for t in res.terms)
    return _sha(f"{res.key}\n{res.kind}\n{rhs}\n{hypotheses_text(res)}")


@lru_cache(maxsize=1)
def code_version() -> str:
    """sha256 (24 hex) of the scoring sources (module docstring), files in sorted order with their paths."""
    root = Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    for rel in SCORING_SOURCES:
        p = root / rel
        files = sorted(p.rglob("*.py")) if p.is_dir() else [p]
        for f in files:
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes() if f.is_file() else b"(absent)")
    return h.hexdigest()[:24]


def current(key: str) -> tuple[str, str]:
    """``(formula_hash, hypotheses_hash)`` of the registered result ``key`` now."""
    from bounds.registry import get

    res = get(key)
    return formula_hash(res), hypotheses_hash(res)


def resolved(name: str) -> str | None:
    """The registered key ``name`` denotes: itself, or, for a bare result id, its default variant's key (a record
    written under the id a scenario names its result by); None when it names no registered result."""
    from bounds.registry import all_results, get, known

    if known(name):
        return name
    return get(name).key if name in {r.id for r in all_results()} else None


def stored_names(keys: Iterable[str]) -> set[str]:
    """The names a record about any of ``keys`` can be stored under: each key, and the bare id of a key that is
    its result's default variant (the inverse of :func:`resolved`)."""
    from bounds.registry import get

    names = set(keys)
    names |= {get(k).id for k in keys if get(get(k).id).key == k}
    return names


def registered(key: str) -> bool:
    """``key`` names a result registered now (a plugin's result is one only while its plugin is loaded)."""
    from bounds.registry import known

    return known(key)
