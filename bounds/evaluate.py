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

from bounds.errors import UserInputError, unknown
from bounds.result import Hypothesis, Result

# Relative tolerance below which a margin is reported as 'at the boundary' rather than violated:
# hypotheses like eta <= 1/(8LK) must accept the cap itself despite rounding.
BOUNDARY_RTOL = 1e-12


@dataclass(frozen=True)
class Evaluation:
    """The right side at given values: total and per named term (floats or arrays)."""

    key: str
    value: Any
    terms: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.key, "value": _out(self.value), "terms": {k: _out(v) for k, v in self.terms.items()}}


@dataclass(frozen=True)
class ConditionCheck:
    """One hypothesis at given values.

    ``holds`` is True/False, or None when it needs an unrecovered constant the user did not give
    (then ``reason`` says which). ``margin`` >= 0 means slack (rhs - lhs for <=, lhs - rhs for >=).
    """

    name: str
    relation: str
    holds: bool | None
    lhs: Any = None
    rhs: Any = None
    margin: Any = None
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "relation": self.relation,
            "holds": self.holds if self.holds is None or isinstance(self.holds, bool) else _out(self.holds),
            "lhs": _out(self.lhs),
            "rhs": _out(self.rhs),
            "margin": _out(self.margin),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class CheckReport:
    """Evaluation plus every hypothesis; ``holds`` is None when some are unverified and none fail."""

    key: str
    evaluation: Evaluation
    conditions: tuple[ConditionCheck, ...]
    holds: bool | None

    def to_dict(self) -> dict[str, Any]:
        out = self.evaluation.to_dict()
        out["conditions"] = [c.to_dict() for c in self.conditions]
        out["holds"] = self.holds
        return out


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
        arr = _as_array(key, raw, info.domain.is_vector)
        if squared:
            if np.any(arr < 0):
                raise UserInputError(f"{key}={_short(arr)} is a square and must be >= 0")
            arr = np.sqrt(arr)
        if name in bound:
            raise UserInputError(f"{name} given twice (as {name} and {name}2)")
        bound[name] = info.validate(arr)
    for agg in result.aggregates:
        if agg.name not in bound and all(i in bound for i in agg.inputs):
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


def _as_array(key: str, raw: Any, vector: bool) -> np.ndarray:
    if isinstance(raw, str):
        try:
            rows = [[float(x) for x in row.split(",") if x.strip()] for row in raw.split(";")]
        except ValueError:
            raise UserInputError(
                f"{key}={raw!r} is not a number" + (" list (for example 0.375,0.5)" if vector else " (for example 0.5)")
            ) from None
        arr = np.asarray(rows[0] if len(rows) == 1 else rows, dtype=float)
        if not vector and arr.size != 1:
            raise UserInputError(f"{key} is a scalar; got {raw!r}")
        return arr.reshape(()) if not vector else arr
    try:
        return np.asarray(raw, dtype=float)
    except (TypeError, ValueError):
        raise UserInputError(f"{key}={raw!r} is not a number") from None


def _short(arr: np.ndarray) -> str:
    return np.array2string(np.asarray(arr), threshold=4)


# Evaluation
def _compiled(result: Result, name: str, expr: sp.Expr):
    cache_key = f"fn:{name}"
    if cache_key not in result._cache:
        syms = sorted(expr.free_symbols, key=lambda s: s.name)
        fn = sp.lambdify(syms, expr, modules="numpy")
        result._cache[cache_key] = ([s.name for s in syms], fn)
    return result._cache[cache_key]


def _call(result: Result, name: str, expr: sp.Expr, bound: Mapping[str, np.ndarray]) -> np.ndarray:
    names, fn = _compiled(result, name, expr)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = fn(*(bound[n] for n in names))
    return np.asarray(out, dtype=float)


def _missing(result: Result, needed: frozenset[str], bound: Mapping[str, Any], what: str) -> None:
    missing = sorted(n for n in needed if n not in bound)
    if missing:
        required = sorted(n for n in needed if not result.symbol_map[n].unrecovered)
        raise UserInputError(
            f"{result.key} needs {', '.join(missing)} to {what}; required: {' '.join(f'{n}=...' for n in required)}"
        )


def evaluate(result: Result, values: Mapping[str, Any]) -> Evaluation:
    """Right side total and per term at ``values`` (vectorised over array inputs)."""
    bound = bind(result, values)
    _missing(result, result.required_for_terms(), bound, "evaluate its bound")
    terms = {t.name: _call(result, f"term:{t.name}", t.expr, bound) for t in result.terms}
    total = sum(terms.values()) if terms else np.float64(np.nan)
    return Evaluation(result.key, total, terms)


def evaluate_terms_fast(result: Result, **arrays: np.ndarray) -> np.ndarray:
    """Right side over large arrays, skipping validation (for sweeps already validated)."""
    return _call(result, "rhs", result.rhs, arrays)


def check_hypothesis(result: Result, hyp: Hypothesis, bound: Mapping[str, np.ndarray]) -> ConditionCheck:
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
            )
        _missing(result, needed, bound, f"check hypothesis '{hyp.name}'")
    lhs = _call(result, f"hyp:{hyp.name}:lhs", rel.lhs, bound)
    rhs = _call(result, f"hyp:{hyp.name}:rhs", rel.rhs, bound)
    if isinstance(rel, (sp.LessThan, sp.StrictLessThan)):
        margin = rhs - lhs
    elif isinstance(rel, (sp.GreaterThan, sp.StrictGreaterThan)):
        margin = lhs - rhs
    else:
        raise TypeError(f"hypothesis {hyp.name} of {result.key} must be an inequality, got {text}")
    scale = np.maximum(np.abs(lhs), np.abs(rhs))
    strict = isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))
    holds = margin > 0 if strict else margin >= -BOUNDARY_RTOL * scale
    holds = bool(holds) if np.ndim(holds) == 0 else holds
    return ConditionCheck(hyp.name, text, holds, lhs, rhs, margin)


def check(result: Result, values: Mapping[str, Any]) -> CheckReport:
    """Evaluate the bound and every hypothesis at ``values``."""
    bound = bind(result, values)
    evaluation = evaluate(result, values)
    conditions = tuple(check_hypothesis(result, h, bound) for h in result.hypotheses)
    return CheckReport(result.key, evaluation, conditions, overall(conditions))


def overall(conditions: tuple[ConditionCheck, ...]) -> bool | None:
    """False if any fails; None if none fails but some are unverified; True otherwise."""
    verdicts = [c.holds for c in conditions]
    if any(v is not None and not np.all(v) for v in verdicts):
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
