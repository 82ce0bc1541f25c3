"""The one type for a published result: a :class:`bounds.statement.Statement` with its operations.

Setting: a result is ``LHS  <kind>  sum of named terms`` under named hypotheses, each a sympy
relation over the result's symbols (the data and its parts live in :mod:`bounds.statement`).
**Quantity**: ``evaluate`` (RHS total and per term), ``check`` (each hypothesis decided, and the conditions
that numbers cannot decide, listed with what would decide them, so no report says "all hypotheses hold" while
one of them was never looked at), ``solve``, ``latex``, ``text``, ``to_dict``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sympy as sp

from bounds.core.face import notebook_face
from bounds.statement import (
    DERIVED,
    PARTICIPATION_KINDS,
    Aggregate,
    Assumption,
    Citation,
    Hypothesis,
    Kind,
    ParticipationAssumption,
    Provenance,
    Statement,
    Status,
    Term,
    at_least,
    at_most,
)

__all__ = ["DERIVED", "PARTICIPATION_KINDS", "Aggregate", "Assumption", "Citation", "Hypothesis", "Kind",
           "ParticipationAssumption", "Provenance", "Result", "Statement", "Status", "Term", "at_least", "at_most",
           "build_all"]


def _result_summary(r: Result) -> str:
    conds = f", {len(r.unencoded)} condition{'s' if len(r.unencoded) != 1 else ''}" if r.unencoded else ""
    terms, hyps = len(r.terms), len(r.hypotheses)
    return (f"{r.key}: {r.title!r}, {r.kind.value}, {terms} term{'s' if terms != 1 else ''}, "
            f"{hyps} hypothes{'es' if hyps != 1 else 'is'}{conds}")


def _result_rows(r: Result) -> list[tuple[str, str, str]]:
    rows = [("term", t.name, sp.sstr(t.expr)) for t in r.terms]
    rows += [("hypothesis", h.name, sp.sstr(h.relation)) for h in r.hypotheses]
    rows += [("condition (not decidable from numbers)", u.name, u.statement) for u in r.unencoded]
    return rows + [("source", r.provenance.seed, f"{r.provenance.locator} {r.provenance.equation}".strip())]


@notebook_face(_result_summary, rows=_result_rows, header=("part", "name", "statement"), latex=lambda r: r.latex())
class Result(Statement):
    """A published result (its data: :class:`bounds.statement.Statement`) with the operations on it."""

    # Operations (implemented in bounds.evaluate / bounds.solve / bounds.render)
    def evaluate(self, values: Mapping[str, Any]):
        from bounds.evaluate import evaluate

        return evaluate(self, values)

    def check(self, values: Mapping[str, Any], decided: Mapping[str, tuple[bool | None, str]] | None = None):
        from bounds.evaluate import check

        return check(self, values, decided)

    def solve(self, symbol: str, values: Mapping[str, Any], *, target: float | None = None, mode: str | None = None):
        from bounds.solve import solve

        return solve(self, symbol, values, target=target, mode=mode)

    def latex(self) -> str:
        from bounds.render import latex

        return latex(self)

    def text(self) -> str:
        from bounds.render import text

        return text(self)

    def to_dict(self) -> dict[str, Any]:
        from bounds.render import result_to_dict

        return result_to_dict(self)


def build_all(builders: Sequence[Callable[[], Result | list[Result]]]) -> list[Result]:
    """Every result a paper module's ``builders()`` make, in order (a builder may make several)."""
    out: list[Result] = []
    for build in builders:
        made = build()
        out += made if isinstance(made, list) else [made]
    return out
