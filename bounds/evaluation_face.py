"""How an evaluation and a hypothesis check read in a notebook: the text of their notebook faces.

**Quantity**: a value as 6 significant digits (an array by its shape), a condition's state (holds, fails,
open with its kind, per entry), a check's one-line summary and its rows (terms, then conditions).
Plain functions of the objects' fields; :mod:`bounds.evaluate` registers them (``notebook_face``).
"""

from __future__ import annotations

from typing import Any

from bounds.core.face import short

__all__ = ["check_rows", "check_summary", "state", "value_text"]


def value_text(value: Any) -> str:
    if isinstance(value, float):
        return short(value, 6)
    import numpy as np

    arr = np.asarray(value)
    return short(float(arr), 6) if arr.ndim == 0 else f"array of shape {arr.shape}"


def state(c: Any) -> str:
    if c.holds is None:
        return c.open or "open"
    if isinstance(c.holds, bool) or type(c.holds).__name__ == "bool_":  # numpy's bool, without importing numpy
        return "holds" if c.holds else "fails"
    return "per entry (array)"


def check_summary(r: Any) -> str:
    given = f"; given: {', '.join(r.given)}" if r.given else ""
    needs = f"; needs: {', '.join(r.needs)}" if r.needs else ""
    return f"{r.key}: bound {value_text(r.evaluation.value)}, {r.verdict}{given}{needs}"


def check_rows(r: Any) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = [(t, "term", value_text(v), "") for t, v in r.evaluation.terms.items()]
    return rows + [(c.name, state(c), "" if c.margin is None else value_text(c.margin), c.reason)
                   for c in r.conditions]
