"""Hypothesis strategies of parameter sets that satisfy every hypothesis of an encoded result.

**Setting**: a result of ``bounds`` with scalar (and vector) symbols and named hypotheses.
**Quantity**: ``params_for(key)``, a strategy of dicts accepted by ``bounds.get(key).check(...)``
whose ``holds`` is True, or None only when a hypothesis needs an unrecovered constant.
**Method**: free symbols are drawn from their domains (log-uniform on positive reals, small integers,
probabilities); the symbols the hypotheses constrain are then placed inside their feasible sets,
step sizes (``prefer="max"``) first, thresholds and counts (``prefer="min"``) next, each drawn inside
the feasible intervals that ``bounds.solve`` locates given the values already drawn; a final filter
rejects the rare draw that a later placement made infeasible. Paper-specific couplings that are
not hypotheses of the encoded result (mu <= L, one common N for vectors) are applied first.

Use in your own property tests::

    from hypothesis import given
    from verify.strategies import params_for

    @given(params_for("FAST.T1"))
    def test_mine(values): ...
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from hypothesis import strategies as st

from bounds import Domain, UserInputError, get

# Ranges of free draws (named so tests and users can read them)
POSITIVE_RANGE = (1e-2, 1e2)
INTEGER_RANGE = (1, 20)
VECTOR_LENGTH = (2, 6)


def _log_uniform(lo: float, hi: float) -> st.SearchStrategy[float]:
    return st.floats(math.log(lo), math.log(hi)).map(math.exp)


def _free(info, N: int) -> st.SearchStrategy[Any]:
    d = info.domain
    if d in (Domain.POSITIVE, Domain.NONNEGATIVE):
        return _log_uniform(*POSITIVE_RANGE)
    if d is Domain.REAL:
        return st.floats(-10.0, 10.0)
    if d in (Domain.PROBABILITY, Domain.OPEN_PROBABILITY):
        return st.floats(0.05, 1.0)
    if d.is_integer:
        return st.integers(*INTEGER_RANGE)
    if d is Domain.VECTOR_PROBABILITY:
        # weights p on the simplex
        return st.lists(st.floats(0.05, 1.0), min_size=N, max_size=N).map(lambda w: list(np.asarray(w) / sum(w)))
    if d in (Domain.VECTOR_RATE,):
        return st.lists(st.floats(0.05, 1.0), min_size=N, max_size=N)
    if d is Domain.VECTOR_POSITIVE:
        return st.lists(_log_uniform(*POSITIVE_RANGE), min_size=N, max_size=N)
    if d is Domain.VECTOR_REAL:
        return st.lists(st.floats(-5.0, 5.0), min_size=N, max_size=N)
    raise NotImplementedError(f"no free strategy for domain {d}")


def _constrained(result) -> list[str]:
    """Scalar symbols the hypotheses constrain, step sizes (prefer=max) first, then the rest."""
    names: list[str] = []
    for hyp in result.hypotheses:
        for n in sorted(result.required_for(hyp)):
            info = result.symbol_map[n]
            if not info.unrecovered and not info.domain.is_vector and n not in names:
                names.append(n)
    order = {"max": 0, "argmin": 1, "min": 2}
    return sorted(names, key=lambda n: order.get(result.symbol_map[n].prefer, 1))


def _place(draw, result, values: dict[str, Any], name: str) -> Any:
    """Draw ``name`` inside its feasible set given ``values`` (the other symbols)."""
    others = {k: v for k, v in values.items() if k != name}
    try:
        sol = result.solve(name, others, mode=result.symbol_map[name].prefer
                           if result.symbol_map[name].prefer in ("max", "min") else "max")
    except UserInputError:
        return values[name]           # nothing checkable constrains it: keep the free draw
    if not sol.success or not sol.feasible:
        return None
    lo, hi = sol.feasible[draw(st.integers(0, len(sol.feasible) - 1))]
    info = result.symbol_map[name]
    if info.domain.is_integer:
        lo_i, hi_i = math.ceil(lo - 1e-9), math.floor(hi + 1e-9)
        if hi_i < lo_i:
            return None
        return draw(st.integers(lo_i, min(hi_i, max(lo_i * 10, lo_i + 20))))
    if not math.isfinite(hi):
        hi = max(lo, 1.0) * 100
    if lo > 0 and hi / lo > 1.0 + 1e-12:
        # stay a hair inside the closed caps so rounding cannot push a draw outside
        return draw(_log_uniform(lo * (1 + 1e-9), hi * (1 - 1e-9)))
    return draw(st.floats(lo, hi)) if hi > lo else lo


def _couple(result, values: dict[str, Any]) -> None:
    """Assumption couplings that are not encoded hypotheses: mu <= L (strong convexity vs smoothness)."""
    if "mu" in values and "L" in values and values["mu"] > values["L"]:
        values["mu"], values["L"] = values["L"], values["mu"]


@st.composite
def _params(draw, key: str, overrides: Mapping[str, st.SearchStrategy] | None = None) -> dict[str, Any]:
    result = get(key)
    N = draw(st.integers(*VECTOR_LENGTH))
    overrides = dict(_OVERRIDES.get(result.id, {}), **(overrides or {}))
    values: dict[str, Any] = {}
    for info in result.symbols:
        if info.unrecovered:
            continue
        values[info.name] = draw(overrides[info.name] if info.name in overrides else _free(info, N))
    _couple(result, values)
    for name in _constrained(result):
        if name in overrides:
            continue
        placed = _place(draw, result, values, name)
        if placed is None:
            values["__reject__"] = True
            break
        values[name] = placed
    return values


def _valid(key: str, values: Mapping[str, Any]) -> bool:
    if values.get("__reject__"):
        return False
    return get(key).check(values).holds is not False


def params_for(key: str, **overrides: st.SearchStrategy) -> st.SearchStrategy[dict[str, Any]]:
    """Strategy of parameter dicts for result ``key`` (``ID`` or ``ID@variant``) satisfying its hypotheses.

    Keyword overrides replace the strategy of a symbol (e.g. ``q=st.just(1.0)``); the hypotheses
    are still enforced by the final filter. Unknown keys raise ``UserInputError``.
    """
    result = get(key)
    for name in overrides:
        if name not in result.symbol_map:
            from bounds.errors import unknown

            raise unknown(f"symbol of {result.key}", name, list(result.symbol_map))
    return _params(result.key, overrides).filter(lambda v: _valid(result.key, v))


# Per-result free ranges where the generic ones would make hypotheses nearly impossible
_OVERRIDES: dict[str, dict[str, st.SearchStrategy]] = {
    # T2's q-threshold is satisfiable only for small sigma_G^2 relative to mu K eta_c (spec typo #2)
    "FAST.T2": {"sigma_G": _log_uniform(1e-4, 1e-1), "m": st.integers(1, 10), "n": st.integers(1, 10)},
}
