"""How our records look in a notebook: a one-line ``repr`` (under 200 characters), an HTML table and,
where a record is a formula, LaTeX.

Dataclass reprs print every field: a published result's ran to 4,690 characters, a simulation's
repr carried its samples. :func:`notebook_face` replaces them with a summary the class declares
(the fields that tell one record from another), keeps the full content in ``to_dict()``, and adds
``_repr_html_`` (summary plus a table of the rows the class declares) for Jupyter.

>>> from dataclasses import dataclass
>>> @notebook_face(lambda r: f"{r.id}: {r.verdict}", rows=lambda r: [("verdict", r.verdict)])
... @dataclass
... class Rec:
...     id: str
...     verdict: str
>>> Rec("A.T1", "holds")
Rec(A.T1: holds)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

REPR_WIDTH = 199  # a repr is at most this many characters
T = TypeVar("T", bound=type)


def clip(text: str, width: int = REPR_WIDTH) -> str:
    """``text`` on one line, cut to ``width`` characters with '...' where it was cut."""
    one = " ".join(str(text).split())
    return one if len(one) <= width else one[: width - 3] + "..."


def short(x: Any, digits: int = 4) -> str:
    """A number (or short value) for a summary: 4 significant digits."""
    if isinstance(x, bool) or x is None:
        return str(x)
    if isinstance(x, (int, float)):
        return f"{x:.{digits}g}"
    try:
        return f"{float(x):.{digits}g}"
    except (TypeError, ValueError):
        return clip(str(x), 40)


def html_table(title: str, summary: str, rows: Iterable[tuple[Any, ...]] = (), header: tuple[str, ...] = (),
               latex: str = "") -> str:
    """A small self-contained HTML block: bold title, summary line, optional display formula and table."""
    import html  # here: only a notebook's HTML view needs it, and `check` pays for every import (issue 30)

    esc = html.escape
    parts = [f"<div><b>{esc(title)}</b> {esc(summary)}"]
    if latex:
        parts.append(f"<div>$${esc(latex)}$$</div>")
    rows = list(rows)
    if rows:
        parts.append("<table>")
        if header:
            parts.append("<tr>" + "".join(f"<th style='text-align:left'>{esc(h)}</th>" for h in header) + "</tr>")
        for row in rows:
            parts.append("<tr>" + "".join(f"<td style='text-align:left'>{esc(str(c))}</td>" for c in row) + "</tr>")
        parts.append("</table>")
    parts.append("</div>")
    return "".join(parts)


def notebook_face(summary: Callable[[Any], str], *, rows: Callable[[Any], Iterable[tuple[Any, ...]]] | None = None,
                  header: tuple[str, ...] = (), latex: Callable[[Any], str] | None = None) -> Callable[[T], T]:
    """Class decorator (put it above ``@dataclass``): ``repr`` = ``Name(summary)`` clipped to 199 characters,
    ``_repr_html_`` = summary and ``rows`` as a table, ``_repr_latex_`` = ``$$latex$$`` when given."""

    def apply(cls: T) -> T:
        name = cls.__name__

        def __repr__(self: Any) -> str:
            return clip(f"{name}({summary(self)})")

        def _repr_html_(self: Any) -> str:
            return html_table(name, summary(self), rows(self) if rows else (), header,
                              latex(self) if latex else "")

        cls.__repr__ = __repr__  # type: ignore[method-assign,assignment]
        cls._repr_html_ = _repr_html_  # type: ignore[attr-defined]
        if latex is not None:
            def _repr_latex_(self: Any) -> str:
                return f"$${latex(self)}$$"

            cls._repr_latex_ = _repr_latex_  # type: ignore[attr-defined]
        return cls

    return apply
