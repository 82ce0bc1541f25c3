"""A search record read with the minimal counterexample ``convbound falsify --shrink`` writes beside it.

**Setting**: ``convbound falsify ID --shrink --json`` prints the :class:`~verify.search.search_record.SearchRecord`
with one more key, ``shrunk`` (``verify.search.shrink.ShrinkRecord.to_dict()``: the original and the shrunk
point, the moves kept, the shrunk point's confirmation and its closed form). ``SearchRecord`` has no field for it,
so reading such a file as a ``SearchRecord`` drops it; a decision that must show the minimal instance first
reads the file as :class:`ShrunkSearchRecord`, the same record plus that key (empty when the search shrank
nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from verify.search.search_record import SearchRecord
from verify.verdict import VIOLATED, VIOLATED_UNLESS

__all__ = ["ShrunkSearchRecord", "minimal_point"]


@dataclass
class ShrunkSearchRecord(SearchRecord):
    """A :class:`SearchRecord` with the ``shrunk`` key its file may carry (``{}`` when it has none)."""

    shrunk: dict[str, Any] = field(default_factory=dict)


def minimal_point(rec: Any) -> tuple[dict[str, Any], float | None]:
    """The shrunk point of ``rec`` and the LHS/RHS confirmed there, when its shrink kept a violation (plain or
    conditional); ``({}, None)`` for a record without one (or a plain ``SearchRecord``)."""
    shrunk: Mapping[str, Any] = getattr(rec, "shrunk", None) or {}
    c = shrunk.get("confirmation") or {}
    if c.get("verdict") not in (VIOLATED, VIOLATED_UNLESS) or not shrunk.get("shrunk"):
        return {}, None
    ratio = c.get("ratio")
    return dict(shrunk["shrunk"]), float(ratio) if isinstance(ratio, (int, float)) else None
