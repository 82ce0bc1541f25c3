"""Evaluate a result's right side (total and per term) and check its hypotheses.

Values may be scalars or numpy arrays (broadcast together) so a sweep over 10^6 grid points is one
vectorised call; expressions are compiled once per result with ``sympy.lambdify``. Inputs that are one
Python number per scalar symbol are evaluated first with Python floats and the ``math`` module
(:mod:`bounds.floats`: `check` then imports no numpy); any value that leaves float64's range or is not
finite there sends them to the numpy path, so such values are reported exactly as for arrays.
Scalar results are then Python floats and bools rather than 0-d arrays.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import sympy as sp

from bounds.binding import bind, bind_floats
from bounds.core.errors import UserInputError
from bounds.core.face import notebook_face
from bounds.evaluation_face import check_rows, check_summary, state, value_text
from bounds.floats import call_floats, checked_math
from bounds.statement import Assumption, Hypothesis, ParticipationAssumption, Statement

if TYPE_CHECKING:
    import numpy as np

__all__ = ["BOUNDARY_RTOL", "CHECK_VERDICTS", "OPEN_KINDS", "CheckReport", "ConditionCheck", "Evaluation", "bind",
           "check", "check_hypothesis", "check_unencoded", "evaluate", "evaluate_terms_fast", "overall", "verdict_of"]

# Relative tolerance below which a margin is reported as 'at the boundary' rather than violated:
# hypotheses like eta <= 1/(8LK) must accept the cap itself despite rounding.
BOUNDARY_RTOL = 1e-12


@dataclass(frozen=True)
class Evaluation:
    """The right side at given values: total and per named term (floats or arrays)."""

    key: str
    value: Any
    terms: Mapping[str, Any]
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.key, "value": _out(self.value), "terms": {k: _out(v) for k, v in self.terms.items()},
                "notes": list(self.notes)}


@dataclass(frozen=True)
class ConditionCheck:
    """One hypothesis at given values.

    ``holds`` is True/False, or None when it cannot be decided: it needs an unrecovered constant the
    user did not give, a side is infinite or nan at these values, or it is a hypothesis the inputs
    cannot express (participation, availability); ``reason`` then says which and ``open`` names the
    kind (see :data:`OPEN_KINDS`). ``margin`` >= 0 means slack (rhs - lhs for <=, lhs - rhs for >=);
    nan where undecided. ``needs``: the constants an ``open == "constants"`` check lacks.
    """

    name: str
    relation: str
    holds: bool | np.ndarray | None  # arrays: an object array of True/False/None
    lhs: Any = None
    rhs: Any = None
    margin: Any = None
    reason: str = ""
    open: str = ""
    needs: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "relation": self.relation,
            "holds": self.holds if self.holds is None or isinstance(self.holds, bool) else _object_list(self.holds),
            "lhs": _out(self.lhs),
            "rhs": _out(self.rhs),
            "margin": _out(self.margin),
            "reason": self.reason,
            "open": self.open or None,
            "needs": list(self.needs),
        }



#: Why a condition is open (``ConditionCheck.open``): a *condition* is a hypothesis no number can decide
#: (a participation process, an availability property: it is given or audited, never computed);
#: *constants*: it needs constants the sources do not give (supply them to decide it); *values*: a side
#: is infinite or nan at these values.
OPEN_KINDS = {"condition": "a hypothesis no number can decide (participation, availability): given, not checked",
              "constants": "needs constants the sources do not give",
              "values": "a side is infinite or undefined at these values"}

#: ``CheckReport.verdict`` values, in order of strength.
CHECK_VERDICTS = ("holds", "holds given conditions", "unverified", "fails")


@dataclass(frozen=True)
class CheckReport:
    """Evaluation plus every hypothesis; ``holds`` is None when some are open and none fail.

    ``verdict`` separates the open cases: ``holds given conditions`` when every open hypothesis is a
    condition no number can decide (``given`` names them), ``unverified`` when one needs constants
    (``needs`` names them) or is undefined at these values. ``holds`` stays None for both: a
    condition is never taken as true by default.
    """

    key: str
    evaluation: Evaluation
    conditions: tuple[ConditionCheck, ...]
    holds: bool | None
    notes: tuple[str, ...] = ()

    @property
    def given(self) -> tuple[str, ...]:
        """Names of the open conditions (hypotheses no number can decide)."""
        return tuple(c.name for c in self.conditions if c.open == "condition" and _is_open(c.holds))

    @property
    def needs(self) -> tuple[str, ...]:
        """The constants the open hypotheses need, sorted."""
        return tuple(sorted({n for c in self.conditions if _is_open(c.holds) for n in c.needs}))

    @property
    def verdict(self) -> str:
        """One of :data:`CHECK_VERDICTS`."""
        return verdict_of(self.conditions)

    def to_dict(self) -> dict[str, Any]:
        out = self.evaluation.to_dict()
        out["conditions"] = [c.to_dict() for c in self.conditions]
        out["holds"] = self.holds
        out["verdict"] = self.verdict
        out["given"] = list(self.given)
        out["needs"] = list(self.needs)
        out["notes"] = list(self.notes)
        return out



def _is_open(holds: Any) -> bool:
    return any(v is None for v in _verdicts(holds))


def verdict_of(conditions: tuple[ConditionCheck, ...] | list[ConditionCheck]) -> str:
    """``fails`` if any fails; ``holds`` if all hold; ``holds given conditions`` if every open one is a
    condition no number can decide; ``unverified`` otherwise (needs constants, or undefined here)."""
    holds = overall(tuple(conditions))
    if holds is not None:
        return "holds" if holds else "fails"
    if all(c.open == "condition" for c in conditions if _is_open(c.holds)):
        return "holds given conditions"
    return "unverified"


def _object_list(holds: Any) -> list[Any]:
    import numpy as np

    return np.asarray(holds, dtype=object).tolist()


notebook_face(check_summary, rows=check_rows, header=("name", "state", "value / margin", "reason"))(CheckReport)
notebook_face(lambda c: f"{c.name!r}: {state(c)}",
              rows=lambda c: [("relation", c.relation), ("reason", c.reason)] if c.reason else [("relation", c.relation)]
              )(ConditionCheck)
notebook_face(lambda e: f"{e.key}: {value_text(e.value)} ({', '.join(e.terms)})",
              rows=lambda e: [(k, value_text(v)) for k, v in e.terms.items()])(Evaluation)


# Evaluation
def _compiled(result: Statement, expr: sp.Expr):
    # Keyed by the expression: equal expressions share one function, different ones never do.
    if expr not in result._cache:
        import numpy as np

        syms = sorted(expr.free_symbols, key=lambda s: s.name)
        # The numpy module itself, not the name "numpy": the same NumPy printer and the same numpy
        # functions, without sympy's `from numpy import *` (which loads numpy.f2py, testing, ma, ...:
        # about 0.3 s of every `check`). tests/bounds/test_registry_index.py compares the two.
        fn = sp.lambdify(syms, expr, modules=np)
        result._cache[expr] = ([s.name for s in syms], fn)
    return result._cache[expr]


def _floats(result: Statement, exprs: tuple[sp.Expr, ...], bound: dict[str, float]) -> list[float] | None:
    """Every expression of ``exprs`` at Python floats (:func:`bounds.floats.call_floats`), or None.

    One function per tuple, compiled once per result with module ``math`` (the same printer's
    arithmetic as the numpy path) and no docstring: half the cost of one lambdify per expression.
    """
    key = ("floats", exprs)  # a tuple: never equal to an expression, the numpy functions' keys
    if key not in result._cache:
        syms = sorted(set().union(*(e.free_symbols for e in exprs)), key=lambda s: s.name)
        # one name with two sets of assumptions (a term's L positive, a hypothesis's L real) is two
        # arguments bound to the same value: dummies give them distinct names in the code
        twice = len({s.name for s in syms}) < len(syms)
        fn = sp.lambdify(syms, list(exprs), modules=[checked_math(), "math"], docstring_limit=0, dummify=twice)
        result._cache[key] = ([s.name for s in syms], fn)
    names, fn = result._cache[key]
    return call_floats(names, fn, bound)


def _call(result: Statement, expr: sp.Expr, bound: Mapping[str, np.ndarray]) -> np.ndarray:
    import numpy as np

    names, fn = _compiled(result, expr)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = fn(*(bound[n] for n in names))
    return np.asarray(out, dtype=float)


def _call_checked(result: Statement, expr: sp.Expr, bound: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Value and a mask of entries that a float64 overflow inside the expression may have falsified.

    An intermediate can overflow while the result stays finite (x / inf = 0): such a value is not
    to be trusted. Where an overflow happened, the expression is re-evaluated in extended precision
    (numpy longdouble, wider range on x86) and entries that disagree are marked; where longdouble
    is no wider than float64, every entry is marked.
    """
    import numpy as np

    names, fn = _compiled(result, expr)
    args = [bound[n] for n in names]
    try:
        with np.errstate(over="raise", divide="ignore", invalid="ignore", under="ignore"):
            out = np.asarray(fn(*args), dtype=float)
        return out, np.zeros(out.shape, dtype=bool)
    except (FloatingPointError, OverflowError):
        pass
    with np.errstate(all="ignore"):
        out = np.asarray(fn(*args), dtype=float)
        if np.finfo(np.longdouble).max <= np.finfo(np.float64).max:
            return out, np.ones(out.shape, dtype=bool)
        try:
            wide = np.asarray(fn(*(np.asarray(a, dtype=np.longdouble) for a in args)), dtype=np.longdouble)
        except (OverflowError, TypeError):
            return out, np.ones(out.shape, dtype=bool)
        close = np.isclose(out.astype(np.longdouble), wide, rtol=1e-9, atol=0.0) | (np.isnan(out) & np.isnan(wide))
    return out, np.broadcast_to(np.isfinite(out) & ~close, out.shape)


def _missing(result: Statement, needed: frozenset[str], bound: Mapping[str, Any], what: str) -> None:
    missing = sorted(n for n in needed if n not in bound)
    if missing:
        required = sorted(n for n in needed if not result.symbol_map[n].unrecovered)
        raise UserInputError(
            f"{result.key} needs {', '.join(missing)} to {what}; required: {' '.join(f'{n}=...' for n in required)}"
        )


def evaluate(result: Statement, values: Mapping[str, Any]) -> Evaluation:
    """Right side total and per term at ``values`` (vectorised over array inputs)."""
    floats = bind_floats(result, values)
    found = None if floats is None else _evaluate_floats(result, floats)
    return found[0] if found is not None else _evaluate_bound(result, bind(result, values))


def _evaluate_floats(result: Statement, bound: dict[str, float], more: tuple[sp.Expr, ...] = ()
                     ) -> tuple[Evaluation, list[float]] | None:
    """:func:`_evaluate_bound` at Python floats, and the values of ``more`` expressions (compiled with the
    terms into one function); None where a value leaves float64's range or is not finite, or there is no
    term (the numpy path reports those)."""
    _missing(result, result.required_for_terms(), bound, "evaluate its bound")
    if not result.terms:
        return None
    values = _floats(result, (*(t.expr for t in result.terms), *more), bound)
    if values is None or not math.isfinite(total := sum(values[:len(result.terms)])):
        return None
    terms = dict(zip((t.name for t in result.terms), values))
    return Evaluation(result.key, total, terms), values[len(result.terms):]


def _evaluate_bound(result: Statement, bound: Mapping[str, np.ndarray]) -> Evaluation:
    import numpy as np

    _missing(result, result.required_for_terms(), bound, "evaluate its bound")
    checked = {t.name: _call_checked(result, t.expr, bound) for t in result.terms}
    terms = {name: value for name, (value, _) in checked.items()}
    with np.errstate(invalid="ignore", over="ignore"):
        total = sum(terms.values()) if terms else np.float64(np.nan)
    suspect = [name for name, (_, bad) in checked.items() if np.any(bad)]
    notes = (f"a float overflow inside term(s) {', '.join(suspect)} may have falsified the bound's value at these "
             "values (float64 range exceeded)",) if suspect else ()
    return Evaluation(result.key, total, terms, notes)


def evaluate_terms_fast(result: Statement, **arrays: np.ndarray) -> np.ndarray:
    """Right side over large arrays, skipping validation (for sweeps already validated)."""
    return _call(result, result.rhs, arrays)


def _undecided_reason(lhs: np.ndarray, rhs: np.ndarray, overflowed: np.ndarray) -> str:
    """Why a condition is not decided: which side is infinite or nan, or a float overflow inside."""
    import numpy as np

    parts = []
    for side, v in (("left", lhs), ("right", rhs)):
        bad = np.asarray(v)[~np.isfinite(v)]
        if bad.size:
            what = "undefined (nan)" if np.isnan(bad).any() else ("infinite (" + ", ".join(
                sorted({"+inf" if b > 0 else "-inf" for b in bad.ravel()})) + ")")
            parts.append(f"its {side} side is {what}")
    if np.any(overflowed):
        parts.append("a float overflow inside a side makes its value untrustworthy")
    return f"unverified: {' and '.join(parts)} at these values (a zero denominator or an overflow): cannot be decided"


def _unevaluated(result: Statement, hyp: Hypothesis, bound: Mapping[str, Any]) -> ConditionCheck | None:
    """The open check of a hypothesis that needs constants the sources do not give and the user did not;
    None when every symbol it needs is given. A missing required symbol is refused."""
    needed = result.required_for(hyp)
    absent = sorted(n for n in needed if n not in bound)
    unrec = [n for n in absent if result.symbol_map[n].unrecovered]
    if unrec:
        return ConditionCheck(
            hyp.name, _relation_text(hyp.relation), None,
            reason=f"unverified: needs {', '.join(unrec)}, constants the sources do not give (supply them to check)",
            open="constants", needs=tuple(unrec),
        )
    _missing(result, needed, bound, f"check hypothesis '{hyp.name}'")
    return None


def _direction(result: Statement, hyp: Hypothesis) -> tuple[bool, bool]:
    """Whether the left side is the one that must be smaller, and whether the inequality is strict."""
    rel = hyp.relation
    if not isinstance(rel, (sp.LessThan, sp.StrictLessThan, sp.GreaterThan, sp.StrictGreaterThan)):
        raise TypeError(f"hypothesis {hyp.name} of {result.key} must be an inequality, got {sp.sstr(rel)}")
    return isinstance(rel, (sp.LessThan, sp.StrictLessThan)), isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))


def _decided(margin: Any, scale: Any, strict: bool) -> Any:
    """The rule, for floats and arrays alike: slack > 0 when strict, else >= -BOUNDARY_RTOL * scale."""
    return margin > 0 if strict else margin >= -BOUNDARY_RTOL * scale


@lru_cache(maxsize=4096)
def _relation_text(relation: sp.Rel) -> str:
    """A hypothesis as text, printed once per relation. Why: sympy's printer costs more than the check itself,
    and a search or ``solve`` checks the same few hypotheses tens of thousands of times (26 of the 33 CPU s of
    solving F3AST.T3.5 at its extremes)."""
    return sp.sstr(relation)


def check_hypothesis(result: Statement, hyp: Hypothesis, bound: Mapping[str, np.ndarray]) -> ConditionCheck:
    """One encoded hypothesis: True/False where both sides are finite, None (with a reason) otherwise.

    A side that is infinite or nan (a zero denominator, an overflow) never yields True: comparing
    -inf with -inf would make an undecidable condition look satisfied. Array inputs give an object
    array of True/False/None.
    """
    import numpy as np

    text = _relation_text(hyp.relation)
    opened = _unevaluated(result, hyp, bound)
    if opened is not None:
        return opened
    lhs, lhs_bad = _call_checked(result, hyp.relation.lhs, bound)
    rhs, rhs_bad = _call_checked(result, hyp.relation.rhs, bound)
    less, strict = _direction(result, hyp)
    small, large = (lhs, rhs) if less else (rhs, lhs)
    overflowed = lhs_bad | rhs_bad
    finite = np.isfinite(lhs) & np.isfinite(rhs) & ~overflowed
    with np.errstate(invalid="ignore", over="ignore"):
        margin = np.where(finite, large - small, np.nan)
        decided = _decided(margin, np.maximum(np.abs(lhs), np.abs(rhs)), strict)
    if np.ndim(finite) == 0:
        if not finite:
            return ConditionCheck(hyp.name, text, None, lhs, rhs, margin, _undecided_reason(lhs, rhs, overflowed),
                                  open="values")
        return ConditionCheck(hyp.name, text, bool(decided), lhs, rhs, margin)
    holds = np.full(np.shape(finite), None, dtype=object)
    holds[finite] = [bool(v) for v in np.broadcast_to(decided, np.shape(finite))[finite]]
    reason = "" if finite.all() else _undecided_reason(lhs, rhs, overflowed) + " (at the entries marked None)"
    return ConditionCheck(hyp.name, text, holds, lhs, rhs, margin, reason, open="" if finite.all() else "values")


def _check_floats(result: Statement, bound: dict[str, float], decided: Decisions | None) -> CheckReport | None:
    """:func:`check` at Python floats; None where a value leaves float64's range or is not finite."""
    _missing(result, result.required_for_terms(), bound, "evaluate its bound")  # refused before any hypothesis
    pending = [(h, _unevaluated(result, h, bound)) for h in result.hypotheses]
    found = _evaluate_floats(result, bound, tuple(side for h, opened in pending if opened is None
                                                  for side in (h.relation.lhs, h.relation.rhs)))
    if found is None:
        return None
    evaluation, sides = found
    at = iter(sides)
    conditions = tuple(opened if opened is not None else _decide_floats(result, h, next(at), next(at))
                       for h, opened in pending)
    conditions += tuple(check_unencoded(u, decided) for u in result.unencoded)
    return CheckReport(result.key, evaluation, conditions, overall(conditions), _notes(evaluation))


def _decide_floats(result: Statement, hyp: Hypothesis, lhs: float, rhs: float) -> ConditionCheck:
    less, strict = _direction(result, hyp)
    margin = rhs - lhs if less else lhs - rhs
    holds = bool(_decided(margin, max(abs(lhs), abs(rhs)), strict))
    return ConditionCheck(hyp.name, _relation_text(hyp.relation), holds, lhs, rhs, margin)


# Decisions made outside bounds for hypotheses it cannot compute: condition name -> (holds, evidence)
Decisions = Mapping[str, tuple[bool | None, str]]


def check_unencoded(item: ParticipationAssumption | Assumption, decided: Decisions | None = None) -> ConditionCheck:
    """A hypothesis the inputs cannot decide: not checked (with what would decide it), unless a
    layer that can decide it (the CLI with an availability model, an audit of a log) did."""
    if decided and item.name in decided:
        holds, evidence = decided[item.name]
        return ConditionCheck(item.name, item.statement, holds, reason=evidence,
                              open="condition" if holds is None else "")
    return ConditionCheck(item.name, item.statement, None, reason=f"condition, not checked: {item.needs}",
                          open="condition")


def check(result: Statement, values: Mapping[str, Any], decided: Decisions | None = None) -> CheckReport:
    """Evaluate the bound and every hypothesis at ``values``.

    ``decided`` supplies verdicts for hypotheses listed in ``result.unencoded`` (keyed by their
    ``name``), from a layer that can decide them; an unknown name is refused.
    """
    names = {u.name for u in result.unencoded}
    unknown_names = sorted(set(decided or {}) - names)
    if unknown_names:
        raise UserInputError(f"{result.key} has no undecidable hypothesis named {unknown_names[0]!r}; "
                             f"valid: {', '.join(sorted(names)) or 'none'}")
    floats = bind_floats(result, values)
    found = None if floats is None else _check_floats(result, floats, decided)
    if found is not None:
        return found
    bound = bind(result, values)
    evaluation = _evaluate_bound(result, bound)
    conditions = tuple(check_hypothesis(result, h, bound) for h in result.hypotheses)
    conditions += tuple(check_unencoded(u, decided) for u in result.unencoded)
    return CheckReport(result.key, evaluation, conditions, overall(conditions), _notes(evaluation))


def _notes(evaluation: Evaluation) -> tuple[str, ...]:
    if isinstance(evaluation.value, float) and math.isfinite(evaluation.value):
        return evaluation.notes
    import numpy as np

    value = np.asarray(evaluation.value, dtype=float)
    if np.all(np.isfinite(value)):
        return evaluation.notes
    what = "undefined (nan)" if np.isnan(value).any() else "infinite"
    return evaluation.notes + (f"the bound is {what} at these values (a zero denominator or an overflow): it says "
                               "nothing here",)


def _verdicts(holds: Any) -> list[bool | None]:
    if holds is None or isinstance(holds, bool):
        return [holds]
    import numpy as np

    if isinstance(holds, np.bool_):
        return [bool(holds)]
    return [None if v is None else bool(v) for v in np.asarray(holds, dtype=object).ravel()]


def overall(conditions: tuple[ConditionCheck, ...]) -> bool | None:
    """False if any fails; None if none fails but some are unverified; True only if every one holds."""
    verdicts = [v for c in conditions for v in _verdicts(c.holds)]
    if any(v is False for v in verdicts):
        return False
    if any(v is None for v in verdicts):
        return None
    return True


def _out(x: Any) -> Any:
    if x is None or isinstance(x, bool):
        return x
    if isinstance(x, (int, float)):
        return float(x)
    import numpy as np

    arr = np.asarray(x)
    if arr.ndim == 0:
        return bool(arr) if arr.dtype == bool else float(arr)
    return arr.tolist()
