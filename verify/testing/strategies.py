"""Hypothesis strategies of parameter sets that satisfy every hypothesis of an encoded result.

**Setting**: a result of ``bounds`` with scalar (and vector) symbols and named hypotheses.
**Quantity**: ``params_for(key)``, a strategy of dicts accepted by ``bounds.get(key).check(...)``
whose ``holds`` is True, or None only when a hypothesis needs an unrecovered constant.
**Method**: free symbols are drawn from their domains (log-uniform on positive reals, small integers,
probabilities); the symbols the hypotheses constrain are then placed inside their feasible sets,
counts first, step sizes (``prefer="max"``) next, thresholds (``prefer="min"``) last, each drawn inside
the feasible intervals that ``bounds.solve`` locates given the values already drawn; a final filter
rejects the rare draw that a later placement made infeasible. Paper-specific couplings that are
not hypotheses of the encoded result (mu <= L, one common N for vectors) are applied first.

Use in your own property tests::

    from hypothesis import given
    from verify.testing.strategies import params_for

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
    if d is Domain.VECTOR_NONNEGATIVE:  # 0 is in the domain: draw it on purpose, not only by chance
        return st.lists(st.just(0.0) | _log_uniform(*POSITIVE_RANGE), min_size=N, max_size=N)
    if d is Domain.VECTOR_REAL:
        return st.lists(st.floats(-5.0, 5.0), min_size=N, max_size=N)
    raise NotImplementedError(f"no free strategy for domain {d}")


def _constrained(result) -> list[str]:
    """Scalar symbols a hypothesis bounds directly, in placement order."""
    names: list[str] = []
    for hyp in result.hypotheses:
        # a symbol standing alone on one side (eta <= cap, R >= bound, q >= threshold) is the one to place
        sides = [s for s in (hyp.relation.lhs, hyp.relation.rhs) if getattr(s, "is_Symbol", False)]
        for n in sorted(s.name for s in sides if s.name in result.symbol_map):
            info = result.symbol_map[n]
            if not info.unrecovered and not info.domain.is_vector and n not in names and n not in _PROBLEM_CONSTANTS:
                names.append(n)
    # counts first (they fix the caps), then step sizes, then thresholds that depend on the steps
    def rank(n: str) -> int:
        info = result.symbol_map[n]
        return 0 if info.domain.is_integer else {"max": 1, "argmin": 2, "min": 3}.get(info.prefer, 2)

    return sorted(names, key=rank)


# Constants of the problem instance: drawn freely (then coupled), never solved for
_PROBLEM_CONSTANTS = frozenset({"L", "mu"})


def _place(draw, result, values: dict[str, Any], name: str) -> Any:
    """Draw ``name`` inside its feasible set given ``values`` (the other symbols)."""
    others = {k: v for k, v in values.items() if k != name}
    info = result.symbol_map[name]
    try:
        sol = result.solve(name, others, mode=info.prefer if info.prefer in ("max", "min") else "max")
    except UserInputError:
        return values[name]           # nothing checkable constrains it: keep the free draw
    except RuntimeError:              # root refinement failed: grow an integer until the hypotheses hold
        return _grow(result, values, name) if info.domain.is_integer else None
    if not sol.success or not sol.feasible:
        return None
    lo, hi = sol.feasible[draw(st.integers(0, len(sol.feasible) - 1))]
    if lo <= 0 and info.domain in (Domain.POSITIVE, Domain.OPEN_PROBABILITY):
        lo = hi * 1e-3
    if info.domain.is_integer:
        lo_i, hi_i = math.ceil(lo - 1e-9), math.floor(hi + 1e-9)
        if hi_i < lo_i:
            return None
        return draw(st.integers(lo_i, min(hi_i, max(lo_i * 10, lo_i + 20))))
    if not math.isfinite(hi):
        hi = max(lo, 1.0) * 100
    if lo > 0 and hi / lo > 1.0 + 1e-6:
        # stay a hair inside the closed caps so rounding cannot push a draw outside
        return draw(_log_uniform(lo * (1 + 1e-9), hi * (1 - 1e-9)))
    if lo <= 0 and hi > 1e-300:
        return draw(st.floats(0.0, 1.0)) * hi * (1 - 1e-9)
    return hi


def _grow(result, values: dict[str, Any], name: str) -> Any:
    trial = dict(values)
    for k in range(64):
        trial[name] = 2**k
        if result.check(trial).holds is not False:
            return 2**k
    return None


def _couple(result, values: dict[str, Any]) -> None:
    """Assumption couplings that are not encoded hypotheses: mu <= L (strong convexity vs smoothness)."""
    if "mu" in values and "L" in values and values["mu"] > values["L"]:
        values["mu"], values["L"] = values["L"], values["mu"]


@st.composite
def _params(draw, key: str, overrides: Mapping[str, st.SearchStrategy] | None = None) -> dict[str, Any]:
    result = get(key)
    N = draw(st.integers(*VECTOR_LENGTH))
    overrides = dict(_OVERRIDES.get(result.id, {}), **(overrides or {}))
    forced = set(overrides) - set(_OVERRIDES.get(result.id, {}))
    values: dict[str, Any] = {}
    needed = result.required_for_terms()
    for info in result.symbols:
        if info.unrecovered and info.name not in needed:
            continue  # left out so hypotheses that need it report 'unverified', as the sources allow
        values[info.name] = draw(overrides[info.name] if info.name in overrides else _free(info, N))
    _couple(result, values)
    for name in _constrained(result):
        if name in forced or (name in overrides and result.id in _INHERENT):
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
    if "mu" in values and "L" in values and values["mu"] > values["L"]:
        return False
    return get(key).check(values).holds is not False


def params_for(key: str, **overrides: st.SearchStrategy) -> st.SearchStrategy[dict[str, Any]]:
    """Strategy of parameter dicts for result ``key`` (``ID`` or ``ID@variant``) satisfying its hypotheses.

    Keyword overrides replace the strategy of a symbol (e.g. ``q=st.just(1.0)``); the hypotheses
    are still enforced by the final filter. Unknown keys raise ``UserInputError``.
    """
    result = get(key)
    if result.id in _BUILDERS and not overrides:
        return _BUILDERS[result.id]().filter(lambda v: _valid(result.key, v))
    for name in overrides:
        if name not in result.symbol_map:
            from bounds.core.errors import unknown

            raise unknown(f"symbol of {result.key}", name, list(result.symbol_map))
    return _params(result.key, overrides).filter(lambda v: _valid(result.key, v))


@st.composite
def _selection_law(draw) -> dict[str, Any]:
    """A random selection law over subsets of N clients: rates r = E X and covariance Sigma of X (F3AST LB.4)."""
    N = draw(st.integers(2, 4))
    d = draw(st.integers(1, 3))
    subsets = np.array([[(s >> i) & 1 for i in range(N)] for s in range(2**N)], dtype=float)
    w = np.asarray(draw(st.lists(st.floats(0.0, 1.0), min_size=2**N, max_size=2**N)))
    w[-1] += 0.05  # the full set has positive mass, so every rate is positive
    law = w / w.sum()
    r = law @ subsets
    Sigma = (subsets * law[:, None]).T @ subsets - np.outer(r, r)
    p = np.asarray(draw(st.lists(st.floats(0.05, 1.0), min_size=N, max_size=N)))
    v = np.asarray(draw(st.lists(st.floats(-2.0, 2.0), min_size=N * d, max_size=N * d))).reshape(N, d)
    return {"p": (p / p.sum()).tolist(), "r": r.tolist(), "v": v.tolist(), "Sigma": Sigma.tolist(),
            "eta": draw(_log_uniform(1e-3, 1.0))}


# Results whose hypotheses hold for every draw of the overridden symbols (no placement needed)
_INHERENT = frozenset({"F3AST.T3.5"})

# Whole-result builders (vector/matrix inputs with structure the generic draw cannot know)
_BUILDERS: dict[str, Any] = {"F3AST.LB.5": _selection_law}

# Per-result free ranges where the generic ones would make hypotheses nearly impossible
_OVERRIDES: dict[str, dict[str, st.SearchStrategy]] = {
    # T3.5's step-size conditions hold for every L >= mu by the choice gamma = max(8L/mu, E): no search needed
    "F3AST.T3.5": {"L": _log_uniform(*POSITIVE_RANGE), "mu": _log_uniform(*POSITIVE_RANGE),
                   "E": st.integers(*INTEGER_RANGE)},
    # T2's q-threshold is satisfiable only for small sigma_G^2 relative to mu K eta_c (spec typo #2)
    "FAST.T2": {"sigma_G": _log_uniform(1e-4, 1e-1), "m": st.integers(1, 10), "n": st.integers(1, 10)},
}
