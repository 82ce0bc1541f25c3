"""Published convergence results of partial-participation FL as executable sympy objects.

Results by key (``get``, ``all_results``, ``ids``, ``variants``); a result's parts (``Result``, ``Term``,
``Hypothesis``, ``SymbolInfo``/``Domain``/``sym``, ``Provenance``, ``Kind``, ``Status``, ``Aggregate``);
user mistakes (``UserInputError``). Plugins: :mod:`bounds.plugins`; results as TOML: :mod:`bounds.tomlresult`.

>>> from bounds import get
>>> res = get("FAST.T1")
>>> round(float(res.evaluate(res.example_values).value), 7)
0.1770625
"""

from bounds.errors import UserInputError
from bounds.registry import all_results, get, ids, variants
from bounds.result import Aggregate, Hypothesis, Kind, Provenance, Result, Status, Term
from bounds.symbols import Domain, SymbolInfo, sym

__all__ = [
    "Aggregate", "Domain", "Hypothesis", "Kind", "Provenance", "Result", "Status", "SymbolInfo", "Term",
    "UserInputError", "all_results", "get", "ids", "sym", "variants",
]
