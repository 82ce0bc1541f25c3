"""Binding a user's values to a result's symbols: parsing typed text, domains, squares, aggregates.

Two binders share the parsing and the domain rules: :func:`bind` (numpy arrays; any shape, sweeps,
vectors, matrices) and :func:`bind_floats` (Python floats, for inputs that are one number per scalar
symbol: `convbound check` starts without importing numpy). :func:`bind_floats` refuses nothing: where
a value would be refused, or needs arrays, it returns None and :func:`bind` gives the answer (and the
message) it always gave.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bounds.core.errors import UserInputError, clip, unknown
from bounds.symbols import Domain, SymbolInfo

if TYPE_CHECKING:
    import numpy as np

    from bounds.statement import Statement

#: A number typed by a user, as parsed: one number, a vector (one row) or a matrix (rows).
Parsed = float | list[float] | list[list[float]]


def bind(result: Statement, values: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Validate user values against the result's symbols and add the aggregates they determine.

    Accepts numbers, arrays, or strings (``"0.5"``, vectors ``"0.375,0.5"``, matrices ``"1,0;0,1"``);
    ``<name>2`` gives the square of a symbol declared ``squared_input``.
    """
    import numpy as np

    infos = result.symbol_map
    bound: dict[str, np.ndarray] = {}
    for key, raw in values.items():
        name, squared = resolve(result, key)
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


def bind_floats(result: Statement, values: Mapping[str, Any]) -> dict[str, float] | None:
    """The values as Python floats when each is one number (text, int or float, not a numpy value) for a
    scalar symbol, inside its domain, and no aggregate is to be computed; None otherwise (use :func:`bind`).

    An unknown key is refused here as :func:`bind` refuses it (the same message).
    """
    infos = result.symbol_map
    bound: dict[str, float] = {}
    for key, raw in values.items():
        name, squared = resolve(result, key)
        domain = infos[name].domain
        if domain.is_vector or name in bound:
            return None
        if isinstance(raw, str):
            x = _parse_text(key, raw, domain)
        elif type(raw) is float or (type(raw) is int and abs(raw) < 2**1023):  # not bool, numpy or a huge int
            x = float(raw)
        else:
            return None
        if not isinstance(x, float) or (squared and not x >= 0):
            return None
        x = math.sqrt(x) if squared else x
        if not domain.admits(x):
            return None
        bound[name] = x
    if any(agg.name not in bound and all(i in bound for i in agg.inputs) for agg in result.aggregates):
        return None
    return bound


def resolve(result: Statement, key: str) -> tuple[str, bool]:
    """The symbol a user's key names, and whether it gives its square (``sigma2`` for sigma)."""
    infos = result.symbol_map
    if key in infos:
        return key, False
    if key.endswith("2") and key[:-1] in infos and infos[key[:-1]].squared_input:
        return key[:-1], True
    valid = list(infos) + [f"{n}2" for n, i in infos.items() if i.squared_input]
    raise unknown(f"symbol for {result.key}", key, valid)


def _as_array(key: str, raw: Any, info: SymbolInfo) -> np.ndarray:
    """A user's value as an array; programmatic arrays may carry leading batch axes (sweeps)."""
    import numpy as np

    if isinstance(raw, str):
        return np.asarray(_parse_text(key, raw, info.domain), dtype=float)
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


def _parse_text(key: str, raw: str, domain: Domain) -> Parsed:
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
        return nums
    if len(nums) > 1:
        what = "a vector" if domain.is_vector else "a scalar"
        raise UserInputError(f"{key} is {what}; got a matrix {clip(raw)} (give a{_shape_hint(domain).removeprefix(' ')})")
    if domain.is_vector:
        return nums[0]
    if len(nums[0]) != 1:
        raise UserInputError(f"{key} is a scalar; got {clip(raw)} (give one number, for example {key}=0.5)")
    return nums[0][0]


def _short(arr: np.ndarray) -> str:
    import numpy as np

    return np.array2string(np.asarray(arr), threshold=4)
