"""Published convergence results of partial-participation FL as executable sympy objects.

>>> from bounds import get
>>> get("FAST.T1").check({...})  # doctest: +SKIP
"""

from bounds.errors import UserInputError
from bounds.registry import all_results, get, ids, variants
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

__all__ = [
    "PARTICIPATION_KINDS", "Aggregate", "Assumption", "Domain", "Hypothesis", "Kind", "ParticipationAssumption",
    "Provenance", "Result", "Status", "SymbolInfo", "Term",
    "UserInputError", "all_results", "get", "ids", "sym", "variants",
]
