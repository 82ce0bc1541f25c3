"""Evaluate a result's right side (total and per term) and check its hypotheses.

Values may be scalars or numpy arrays (broadcast together) so a sweep over 10^6 grid points is one
vectorised call; expressions are compiled once per result with ``sympy.lambdify``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from bounds.core.errors import UserInputError, clip, unknown
from bounds.core.face import notebook_face, short
from bounds.result import Assumption, Hypothesis, ParticipationAssumption, Result
from bounds.symbols import Domain, SymbolInfo

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
            "holds": self.holds if self.holds is None or isinstance(self.holds, bool)
            else np.asarray(self.holds, dtype=object).tolist(),
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


def _value_text(value: Any) -> str:
    arr = np.asarray(value)
    return short(float(arr), 6) if arr.ndim == 0 else f"array of shape {arr.shape}"


def _state(c: ConditionCheck) -> str:
    if c.holds is None:
        return c.open or "open"
    if isinstance(c.holds, (bool, np.bool_)):
        return "holds" if c.holds else "fails"
    return "per entry (array)"


def _check_summary(r: CheckReport) -> str:
    given = f"; given: {', '.join(r.given)}" if r.given else ""
    needs = f"; needs: {', '.join(r.needs)}" if r.needs else ""
    return f"{r.key}: bound {_value_text(r.evaluation.value)}, {r.verdict}{given}{needs}"


def _check_rows(r: CheckReport) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = [(t, "term", _value_text(v), "") for t, v in r.evaluation.terms.items()]
    return rows + [(c.name, _state(c), "" if c.margin is None else _value_text(c.margin), c.reason)
                   for c in r.conditions]


notebook_face(_check_summary, rows=_check_rows, header=("name", "state", "value / margin", "reason"))(CheckReport)
notebook_face(lambda c: f"{c.name!r}: {_state(c)}",
              rows=lambda c: [("relation", c.relation), ("reason", c.reason)] if c.reason else [("relation", c.relation)]
              )(ConditionCheck)
notebook_face(lambda e: f"{e.key}: {_value_text(e.value)} ({', '.join(e.terms)})",
              rows=lambda e: [(k, _value_text(v)) for k, v in e.terms.items()])(Evaluation)


# Binding user values
def bind(result: Result, values: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Validate user values against the result's symbols and add the aggregates they determine.

    Accepts numbers, arrays, or strings (``"0.5"``, vectors ``"0.375,0.5"``, matrices ``"1,0;0,1"``);
    ``<name>2`` gives the square of a symbol declared ``squared_input``.
    """
    infos = result.symbol_map
    bound: dict[str, np.ndarray] = {}
    for key, raw in values.items():
        name, squared = _resolve(result, key)
        info = infos[name]
        arr = _as_array(key, raw, info)
        if squared:
            if np.any(arr < 0):
                raise UserInputError(f"{key}={_short(arr)} is a square and must be >= 0")
            arr = np.sqrt(arr)
        if name in bound:
            raise UserInputError(f"{name} given twice (as {name} and {name}2)")
        bound[name] = info.validate(arr)
    for agg in result.aggregates:
        if agg.name not in bound and all(i in bound for i in agg.inputs):
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # non-finite: see check
                bound[agg.name] = np.asarray(agg.fn(*(bound[i] for i in agg.inputs)), dtype=float)
    return bound


def _resolve(result: Result, key: str) -> tuple[str, bool]:
    infos = result.symbol_map
    if key in infos:
        return key, False
    if key.endswith("2") and key[:-1] in infos and infos[key[:-1]].squared_input:
        return key[:-1], True
    valid = list(infos) + [f"{n}2" for n, i in infos.items() if i.squared_input]
    raise unknown(f"symbol for {result.key}", key, valid)


def _as_array(key: str, raw: Any, info: SymbolInfo) -> np.ndarray:
    """A user's value as an array; programmatic arrays may carry leading batch axes (sweeps)."""
    if isinstance(raw, str):
        return _parse_text(key, raw, info.domain)
    try:
        return np.asarray(raw, dtype=float)
    except (TypeError, ValueError):
        raise UserInputError(f"{key}={clip(raw)} is not a number or an array with equal-length rows") from None


def _shape_hint(domain: Domain) -> str:
    if domain.is_matrix:
        return " matrix (rows separated by ';', for example 1,0;0,1)"
    if domain.is_vector:
        return " list (for example 0.375,0.5)"
    return " (for example 0.5)"


def _parse_text(key: str, raw: str, domain: Domain) -> np.ndarray:
    """Numbers typed by a user: ``0.5``, a vector ``0.375,0.5`` or a matrix ``1,0;0,1`` (strict shapes)."""
    rows = [row.split(",") for row in raw.split(";")]
    if any(not x.strip() for row in rows for x in row):
        raise UserInputError(f"{key}={clip(raw)} has an empty entry; give a number{_shape_hint(domain)}")
    try:
        nums = [[float(x) for x in row] for row in rows]
    except ValueError:
        raise UserInputError(f"{key}={clip(raw)} is not a number{_shape_hint(domain)}") from None
    if len({len(row) for row in nums}) > 1:
        raise UserInputError(f"{key}={clip(raw)} is ragged: rows have {', '.join(str(len(r)) for r in nums)} "
                             f"entries; give a{_shape_hint(domain).removeprefix(' ')} with equal rows")
    if domain.is_matrix:
        return np.asarray(nums, dtype=float)
    if len(nums) > 1:
        what = "a vector" if domain.is_vector else "a scalar"
        raise UserInputError(f"{key} is {what}; got a matrix {clip(raw)} (give a{_shape_hint(domain).removeprefix(' ')})")
    if domain.is_vector:
        return np.asarray(nums[0], dtype=float)
    if len(nums[0]) != 1:
        raise UserInputError(f"{key} is a scalar; got {clip(raw)} (give one number, for example {key}=0.5)")
    return np.asarray(nums[0][0], dtype=float)


def _short(arr: np.ndarray) -> str:
    return np.array2string(np.asarray(arr), threshold=4)


# Evaluation
def _compiled(result: Result, expr: sp.Expr):
    # Keyed by the expression: equal expressions share one function, different ones never do.
    if expr not in result._cache:
        syms = sorted(expr.free_symbols, key=lambda s: s.name)
        # The numpy module itself, not the name "numpy": the same NumPy printer and the same numpy
        # functions, without sympy's `from numpy import *` (which loads numpy.f2py, testing, ma, ...:
        # about 0.3 s of every `check`). tests/bounds/test_registry_index.py compares the two.
        fn = sp.lambdify(syms, expr, modules=np)
        result._cache[expr] = ([s.name for s in syms], fn)
    return result._cache[expr]


def _call(result: Result, expr: sp.Expr, bound: Mapping[str, np.ndarray]) -> np.ndarray:
    names, fn = _compiled(result, expr)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = fn(*(bound[n] for n in names))
    return np.asarray(out, dtype=float)


def _call_checked(result: Result, expr: sp.Expr, bound: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Value and a mask of entries that a float64 overflow inside the expression may have falsified.

    An intermediate can overflow while the result stays finite (x / inf = 0): such a value is not
    to be trusted. Where an overflow happened, the expression is re-evaluated in extended precision
    (numpy longdouble, wider range on x86) and entries that disagree are marked; where longdouble
    is no wider than float64, every entry is marked.
    """
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


def _missing(result: Result, needed: frozenset[str], bound: Mapping[str, Any], what: str) -> None:
    missing = sorted(n for n in needed if n not in bound)
    if missing:
        required = sorted(n for n in needed if not result.symbol_map[n].unrecovered)
        raise UserInputError(
            f"{result.key} needs {', '.join(missing)} to {what}; required: {' '.join(f'{n}=...' for n in required)}"
        )


def evaluate(result: Result, values: Mapping[str, Any]) -> Evaluation:
    """Right side total and per term at ``values`` (vectorised over array inputs)."""
    return _evaluate_bound(result, bind(result, values))


def _evaluate_bound(result: Result, bound: Mapping[str, np.ndarray]) -> Evaluation:
    _missing(result, result.required_for_terms(), bound, "evaluate its bound")
    checked = {t.name: _call_checked(result, t.expr, bound) for t in result.terms}
    terms = {name: value for name, (value, _) in checked.items()}
    with np.errstate(invalid="ignore", over="ignore"):
        total = sum(terms.values()) if terms else np.float64(np.nan)
    suspect = [name for name, (_, bad) in checked.items() if np.any(bad)]
    notes = (f"a float overflow inside term(s) {', '.join(suspect)} may have falsified the bound's value at these "
             "values (float64 range exceeded)",) if suspect else ()
    return Evaluation(result.key, total, terms, notes)


def evaluate_terms_fast(result: Result, **arrays: np.ndarray) -> np.ndarray:
    """Right side over large arrays, skipping validation (for sweeps already validated)."""
    return _call(result, result.rhs, arrays)


def _undecided_reason(lhs: np.ndarray, rhs: np.ndarray, overflowed: np.ndarray) -> str:
    """Why a condition is not decided: which side is infinite or nan, or a float overflow inside."""
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


def check_hypothesis(result: Result, hyp: Hypothesis, bound: Mapping[str, np.ndarray]) -> ConditionCheck:
    """One encoded hypothesis: True/False where both sides are finite, None (with a reason) otherwise.

    A side that is infinite or nan (a zero denominator, an overflow) never yields True: comparing
    -inf with -inf would make an undecidable condition look satisfied. Array inputs give an object
    array of True/False/None.
    """
    rel = hyp.relation
    text = sp.sstr(rel)
    needed = result.required_for(hyp)
    absent = sorted(n for n in needed if n not in bound)
    if absent:
        unrec = [n for n in absent if result.symbol_map[n].unrecovered]
        if unrec:
            return ConditionCheck(
                hyp.name, text, None,
                reason=f"unverified: needs {', '.join(unrec)}, constants the sources do not give (supply them to check)",
                open="constants", needs=tuple(unrec),
            )
        _missing(result, needed, bound, f"check hypothesis '{hyp.name}'")
    lhs, lhs_bad = _call_checked(result, rel.lhs, bound)
    rhs, rhs_bad = _call_checked(result, rel.rhs, bound)
    if isinstance(rel, (sp.LessThan, sp.StrictLessThan)):
        small, large = lhs, rhs
    elif isinstance(rel, (sp.GreaterThan, sp.StrictGreaterThan)):
        small, large = rhs, lhs
    else:
        raise TypeError(f"hypothesis {hyp.name} of {result.key} must be an inequality, got {text}")
    overflowed = lhs_bad | rhs_bad
    finite = np.isfinite(lhs) & np.isfinite(rhs) & ~overflowed
    with np.errstate(invalid="ignore", over="ignore"):
        margin = np.where(finite, large - small, np.nan)
        scale = np.maximum(np.abs(lhs), np.abs(rhs))
        strict = isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))
        decided = margin > 0 if strict else margin >= -BOUNDARY_RTOL * scale
    if np.ndim(finite) == 0:
        if not finite:
            return ConditionCheck(hyp.name, text, None, lhs, rhs, margin, _undecided_reason(lhs, rhs, overflowed),
                                  open="values")
        return ConditionCheck(hyp.name, text, bool(decided), lhs, rhs, margin)
    holds = np.full(np.shape(finite), None, dtype=object)
    holds[finite] = [bool(v) for v in np.broadcast_to(decided, np.shape(finite))[finite]]
    reason = "" if finite.all() else _undecided_reason(lhs, rhs, overflowed) + " (at the entries marked None)"
    return ConditionCheck(hyp.name, text, holds, lhs, rhs, margin, reason, open="" if finite.all() else "values")


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


def check(result: Result, values: Mapping[str, Any], decided: Decisions | None = None) -> CheckReport:
    """Evaluate the bound and every hypothesis at ``values``.

    ``decided`` supplies verdicts for hypotheses listed in ``result.unencoded`` (keyed by their
    ``name``), from a layer that can decide them; an unknown name is refused.
    """
    names = {u.name for u in result.unencoded}
    unknown_names = sorted(set(decided or {}) - names)
    if unknown_names:
        raise UserInputError(f"{result.key} has no undecidable hypothesis named {unknown_names[0]!r}; "
                             f"valid: {', '.join(sorted(names)) or 'none'}")
    bound = bind(result, values)
    evaluation = _evaluate_bound(result, bound)
    conditions = tuple(check_hypothesis(result, h, bound) for h in result.hypotheses)
    conditions += tuple(check_unencoded(u, decided) for u in result.unencoded)
    return CheckReport(result.key, evaluation, conditions, overall(conditions), _notes(evaluation))


def _notes(evaluation: Evaluation) -> tuple[str, ...]:
    value = np.asarray(evaluation.value, dtype=float)
    if np.all(np.isfinite(value)):
        return evaluation.notes
    what = "undefined (nan)" if np.isnan(value).any() else "infinite"
    return evaluation.notes + (f"the bound is {what} at these values (a zero denominator or an overflow): it says "
                               "nothing here",)


def _verdicts(holds: Any) -> list[bool | None]:
    if holds is None or isinstance(holds, (bool, np.bool_)):
        return [None if holds is None else bool(holds)]
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
    if x is None:
        return None
    arr = np.asarray(x)
    if arr.ndim == 0:
        return bool(arr) if arr.dtype == bool else float(arr)
    return arr.tolist()
