"""Published convergence results of partial-participation FL as executable sympy objects.

Results by key (``get``, ``all_results``, ``ids``, ``variants``); a result's parts (``Result``, ``Term``,
``Hypothesis``, ``SymbolInfo``/``Domain``/``sym``, ``Provenance``, ``Kind``, ``Status``, ``Aggregate``);
what a result assumes but its inputs cannot decide (``ParticipationAssumption`` of a kind in
``PARTICIPATION_KINDS``, ``Assumption``);
user mistakes (``UserInputError``). Plugins: :mod:`bounds.plugins`; results as TOML: :mod:`bounds.tomlresult`.

>>> from bounds import get
>>> res = get("FAST.T1")
>>> round(float(res.evaluate(res.example_values).value), 7)
0.1770625

The names below load on first use (PEP 562), so ``import bounds.core.errors`` (what every layer and
the CLI's error handling need) does not load sympy and the registry of results.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from bounds.core import moved as _moved

_moved.install()  # names removed in 0.2.0 fail with a message naming their new place

_WHERE = {
    "UserInputError": "bounds.core.errors",
    "all_results": "bounds.registry", "get": "bounds.registry", "ids": "bounds.registry",
    "variants": "bounds.registry", "register": "bounds.registry",
    "PARTICIPATION_KINDS": "bounds.result", "Assumption": "bounds.result",
    "ParticipationAssumption": "bounds.result",
    "Aggregate": "bounds.result", "Hypothesis": "bounds.result", "Kind": "bounds.result",
    "Provenance": "bounds.result", "Result": "bounds.result", "Status": "bounds.result", "Term": "bounds.result",
    "Domain": "bounds.symbols", "SymbolInfo": "bounds.symbols", "sym": "bounds.symbols",
}

__all__ = [
    "PARTICIPATION_KINDS", "Aggregate", "Assumption", "Domain", "Hypothesis", "Kind", "ParticipationAssumption",
    "Provenance", "Result", "Status", "SymbolInfo", "Term",
    "UserInputError", "all_results", "get", "ids", "register", "sym", "variants",
]

if TYPE_CHECKING:
    from bounds.core.errors import UserInputError
    from bounds.registry import all_results, get, ids, register, variants
    from bounds.result import (
        PARTICIPATION_KINDS,
        Aggregate,
        Assumption,
        Hypothesis,
        Kind,
        ParticipationAssumption,
        Provenance,
        Result,
        Status,
        Term,
    )
    from bounds.symbols import Domain, SymbolInfo, sym


def __dir__() -> list[str]:
    # the lazily loaded names too, so tab completion and dir(bounds) show get, register, Result, ...
    return sorted(set(globals()) | set(_WHERE))


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'bounds' has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name]), name)
    globals()[name] = value
    return value
