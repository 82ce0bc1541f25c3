"""Python floats that raise where float64 arithmetic leaves its range: the numpy-free scalar path.

**Setting**: `convbound check ID KEY=VALUE...` with one finite number per scalar symbol
(:func:`bounds.binding.bind_floats`). Importing numpy is a fifth of such a command's start-up (issue 30).
**Quantity**: the result's expressions, compiled by the same ``sympy.lambdify`` as the numpy path
(module ``math`` instead of ``numpy``), called with :class:`Checked` floats.
**Statement**: :func:`call_floats` returns values only when no operation left float64's range and
every value is finite; otherwise None, and :mod:`bounds.evaluate` takes its numpy path, which
reports non-finite values and overflows (re-evaluating in long double) as it always did. Python
float arithmetic overflows to inf without a word where numpy raises under
``errstate(over="raise")``; an inf absorbed later (x / inf = 0) would give a finite, wrong value,
so :class:`Checked` arithmetic raises OverflowError instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any


class Checked(float):
    """A float whose arithmetic and ``math`` functions raise instead of giving a non-finite value.

    Every operation with a Checked operand returns a Checked (Python calls a subclass's reflected
    method first, so ``2.0 * x`` is checked too); a non-finite result raises OverflowError; a
    complex one (a negative base to a fractional power, nan in numpy) raises ValueError.
    """

    __slots__ = ()


def _finite(out: Any) -> Any:
    if type(out) is complex:
        raise ValueError("a negative base to a fractional power (complex)")
    if isinstance(out, float):
        if not math.isfinite(out):
            raise OverflowError("float64 range left, or undefined")
        return Checked(out)
    return out  # ints (math.floor) and bools stay exact


def _binary(op: Callable[[float, Any], Any]) -> Callable[[float, Any], Any]:
    def apply(a: float, b: Any) -> Any:
        out = op(a, b)
        return out if out is NotImplemented else _finite(out)
    return apply


def _unary(op: Callable[[float], Any]) -> Callable[[float], Any]:
    return lambda a: _finite(op(a))


for _name in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv", "rfloordiv",
              "mod", "rmod", "pow", "rpow"):
    setattr(Checked, f"__{_name}__", _binary(getattr(float, f"__{_name}__")))
for _name in ("neg", "pos", "abs"):
    setattr(Checked, f"__{_name}__", _unary(getattr(float, f"__{_name}__")))


def _function(fn: Callable[..., Any]) -> Callable[..., Any]:
    return lambda *args: _finite(fn(*args))


@cache
def checked_math() -> dict[str, Any]:
    """The ``math`` module's functions returning Checked floats (first in lambdify's modules)."""
    return {name: _function(fn) for name, fn in vars(math).items() if callable(fn) and not name.startswith("_")}


def call_floats(names: Sequence[str], fn: Callable[..., Any], bound: dict[str, float]) -> list[float] | None:
    """``fn`` (a lambdified list of expressions of the symbols ``names``) at ``bound``, as plain floats; None
    if any operation leaves float64's range or a value is undefined (the caller's numpy path decides and
    reports those values)."""
    try:
        return [float(_finite(v)) for v in fn(*(Checked(bound[n]) for n in names))]
    except (ArithmeticError, ValueError):
        return None
