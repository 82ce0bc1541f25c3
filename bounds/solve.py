"""Solve a result for one symbol: the largest step size its hypotheses allow, the smallest q,
the rounds R needed for a target accuracy, or the value that minimises the bound.

Method: the feasible set of the symbol (every hypothesis that involves it holds) is located on a
dense grid over the symbol's domain (log-spaced on unbounded domains) and each boundary is refined
with Brent's method on the binding margin, so caps such as eta <= 1/(8LK) come back to machine
precision. The bound's minimiser is refined with a bounded scalar minimisation.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp
from scipy import optimize

from bounds.core.errors import UserInputError, unknown
from bounds.evaluate import BOUNDARY_RTOL, _call, bind, check_hypothesis
from bounds.statement import Kind, Statement

MODES = ("max", "min", "argmin", "target")
GRID_POINTS = 6001
LOG_RANGE = (-15.0, 15.0)
OPEN_END_PROBE = 1e-300  # a point next to an excluded end 0: feasible there means "no smallest value"


@dataclass(frozen=True)
class SolveResult:
    """Outcome of :func:`solve`; ``value`` is None only when ``success`` is False."""

    key: str
    symbol: str
    mode: str
    value: float | None
    bound: float | None
    target: float | None
    success: bool
    message: str
    feasible: tuple[tuple[float, float], ...] = ()
    constraints: tuple[str, ...] = ()
    unverified: tuple[str, ...] = ()
    extras: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.key,
            "symbol": self.symbol,
            "mode": self.mode,
            "value": self.value,
            "bound": self.bound,
            "target": self.target,
            "success": self.success,
            "message": self.message,
            "feasible": [list(iv) for iv in self.feasible],
            "constraints": list(self.constraints),
            "unverified": list(self.unverified),
        }


def solve(result: Statement, symbol: str, values: Mapping[str, Any], *, target: float | None = None,
          mode: str | None = None) -> SolveResult:
    """Solve ``result`` for ``symbol`` with every other input fixed at ``values``.

    Modes: ``max``/``min`` (extremes allowed by the hypotheses), ``target`` (smallest value whose
    bound is <= target, within the hypotheses), ``argmin`` (value minimising the bound within the
    hypotheses). Default: ``target`` when a target is given, else the symbol's ``prefer``. A target
    given with ``max``/``min``/``argmin`` is a further constraint (bound <= target), never ignored.
    Answers stay inside the symbol's domain (an open end is never returned), and an answer where
    the bound or a hypothesis is infinite or undefined is never a success.
    """
    info = _solvable(result, symbol)
    mode = _checked_mode(result, info, symbol, values, target, mode)
    bound = bind(result, values)
    grid = _grid(info)
    margins, names, unverified = _constraints(result, bound, symbol, mode, target)
    feasible = _feasible_intervals(margins, grid, info.domain.is_integer)
    if not feasible:
        return SolveResult(result.key, symbol, mode, None, None, target, False,
                           f"no {symbol} in its domain satisfies {', '.join(names)}" + _undecided_note(margins, grid),
                           (), tuple(names), tuple(unverified))
    value = _pick(result, info, bound, symbol, mode, feasible, grid, names)
    if info.domain.is_integer:
        value = _integer(value, mode, margins)
    return _answer(_Asked(result, info, bound, symbol, mode, target), value, _Found(margins, feasible, names, unverified))


def _checked_mode(result: Statement, info: Any, symbol: str, values: Mapping[str, Any], target: float | None,
                  mode: str | None) -> str:
    """The mode to solve in, after refusing requests that cannot be answered."""
    if symbol in values:
        raise UserInputError(f"{symbol} is the unknown; do not also give {symbol}=...")
    mode = mode or ("target" if target is not None else info.prefer)
    if mode not in MODES:
        raise unknown("solve mode", mode, MODES)
    if mode == "target" and target is None:
        raise UserInputError("mode 'target' needs --target EPS (the accuracy the bound must reach)")
    if target is not None and not (math.isfinite(target) and target > 0):
        raise UserInputError(f"target={target} must be a positive finite number", param="target")
    if result.kind in (Kind.THRESHOLD, Kind.EQUALITY) and (mode in ("target", "argmin") or target is not None):
        raise UserInputError(f"{result.key} is a {result.kind.value}, not a bound: --target and --mode "
                             f"target/argmin do not apply; use --mode max or min without --target")
    return mode


def _constraints(result: Statement, bound: Mapping[str, Any], symbol: str, mode: str,
                 target: float | None) -> tuple[list[Margin], list[str], list[str]]:
    """The hypotheses (and the target) that constrain ``symbol``, as margins; and those left unverified."""
    margins: list[Margin] = []
    names, unverified = [], []
    for hyp in result.hypotheses:
        if symbol not in result.required_for(hyp):
            continue
        absent = [n for n in result.required_for(hyp) if n not in bound and n != symbol]
        if any(result.symbol_map[n].unrecovered for n in absent):
            unverified.append(hyp.name)
            continue
        if absent:
            raise UserInputError(f"{result.key} needs {', '.join(f'{n}=...' for n in sorted(absent))} to use "
                                 f"hypothesis '{hyp.name}'")
        strict = isinstance(hyp.relation, (sp.StrictLessThan, sp.StrictGreaterThan))
        margins.append(Margin(functools.partial(_margin_at, result, hyp, bound, symbol), strict,
                              functools.partial(_holds_at, result, hyp, bound, symbol)))
        names.append(hyp.name)
    if mode in ("target", "argmin") or target is not None:
        missing = sorted(n for n in result.required_for_terms() if n not in bound and n != symbol)
        if missing:
            raise UserInputError(f"{result.key} needs {', '.join(f'{m}=...' for m in missing)} to evaluate its bound")
    if target is not None:
        margins.append(Margin(lambda x: target - _rhs_at(result, bound, symbol, x), False,
                              lambda x: bool(_rhs_at(result, bound, symbol, x) <= target * (1 + BOUNDARY_RTOL))))
        names.append(f"bound <= {target:g}")
    if not margins and mode in ("max", "min"):
        raise UserInputError(f"no hypothesis of {result.key} constrains {symbol}; nothing to solve")
    unverified += [u.name for u in result.unencoded if symbol in getattr(u, "params", ())]
    return margins, names, unverified


def _pick(result: Statement, info: Any, bound: Mapping[str, Any], symbol: str, mode: str,
          feasible: list[tuple[float, float]], grid: np.ndarray, names: list[str]) -> float:
    """The mode's value in the feasible set; an unbounded or open end is refused, never returned."""
    lo_dom, hi_dom = info.domain.interval()
    low_open, _ = info.domain.open_ends()
    if mode == "max":
        value = feasible[-1][1]
        if value >= grid[-1] and hi_dom == math.inf:
            raise UserInputError(f"{symbol} is unbounded above under the hypotheses of {result.key}")
        return value
    if mode in ("min", "target"):
        value = feasible[0][0]
        if value <= grid[0] and lo_dom == -math.inf:
            raise UserInputError(f"{symbol} is unbounded below under the hypotheses of {result.key}")
        if value <= grid[0] and low_open:
            raise UserInputError(
                f"{symbol} has no smallest value under {', '.join(names)}: it may come arbitrarily close to "
                f"{lo_dom:g}, which its domain ({info.domain.describe}) excludes; ask --mode max, or fix another input")
        return value
    return _argmin(result, bound, symbol, feasible, grid, info.domain.is_integer)


@dataclass(frozen=True)
class _Asked:
    """What :func:`solve` was asked: the result with its other inputs bound, the unknown, the mode, the target."""

    result: Statement
    info: Any
    bound: Mapping[str, Any]
    symbol: str
    mode: str
    target: float | None


@dataclass(frozen=True)
class _Found:
    """What :func:`solve` found about the unknown: its constraints (margins, their names, the hypotheses not used)
    and the intervals where they all hold."""

    margins: list[Margin]
    feasible: list[tuple[float, float]]
    names: list[str]
    unverified: list[str]


def _answer(asked: _Asked, value: float, found: _Found) -> SolveResult:
    """``value`` as a SolveResult: a success only inside the domain, every margin met and a finite bound."""
    result, info, bound, symbol, mode, target = (asked.result, asked.info, asked.bound, asked.symbol, asked.mode,
                                                 asked.target)
    margins, feasible, names, unverified = found.margins, found.feasible, found.names, found.unverified
    rhs = None
    if result.required_for_terms() <= set(bound) | {symbol}:
        rhs = float(_rhs_at(result, bound, symbol, value))
    message = {"max": f"largest {symbol} allowed by {', '.join(names)}",
               "min": f"smallest {symbol} allowed by {', '.join(names)}",
               "target": f"smallest {symbol} with bound <= {target} within the hypotheses",
               "argmin": f"{symbol} minimising the bound within {', '.join(names) or 'its domain'}"}[mode]
    if mode in ("max", "min") and any(m.strict and abs(float(m.fn(np.asarray(value)))) <= 1e-12 * max(1.0, abs(value))
                                      for m in margins):
        message += " (a strict condition binds: the supremum/infimum itself is excluded; this is the nearest float)"
    if unverified:
        message += f" (unverified, not used: {', '.join(unverified)})"
    intervals = tuple((float(a), float(b)) for a, b in feasible)

    def failed(why: str) -> SolveResult:
        return SolveResult(result.key, symbol, mode, None, None, target, False, why, intervals, tuple(names),
                           tuple(unverified))

    if not all(m.accept(float(value)) for m in margins):  # e.g. rounding to an integer left the set
        return failed(f"no {symbol} found that satisfies {', '.join(names)} (nearest candidate {value:g} does not)")
    if not (math.isfinite(value) and bool(np.all(info.domain.contains(np.asarray(value))))):
        return failed(f"the {mode} {symbol} = {value:g} lies outside its domain ({info.domain.describe})")
    if rhs is not None and not math.isfinite(rhs):
        return failed(f"{message}, but the bound there is {'undefined (nan)' if math.isnan(rhs) else 'infinite'} "
                      f"at {symbol} = {value:.10g}: it says nothing there")
    return SolveResult(result.key, symbol, mode, float(value), rhs, target, True, message,
                       intervals, tuple(names), tuple(unverified))


@dataclass(frozen=True)
class Margin:
    """One constraint as a function of the unknown; ``strict`` ones need a margin > 0, not >= 0."""

    fn: Callable[[Any], np.ndarray]
    strict: bool
    accept: Callable[[float], bool]  # the final word on an answer, with check's own boundary tolerance

    def ok(self, x) -> np.ndarray:
        v = np.asarray(self.fn(x), dtype=float)
        # nan (a side infinite or undefined) is never feasible: it cannot be decided
        return np.where(np.isnan(v), False, v > 0 if self.strict else v >= 0)

    def value(self, x) -> float:
        """The margin as a continuous-enough function for root finding (infeasible -> <= -1 when undecided)."""
        v = float(np.asarray(self.fn(np.asarray(x)), dtype=float))
        if not math.isfinite(v):  # np.nan_to_num(v, nan=-1.0) on a float, without its array overhead (17 us)
            v = -1.0 if math.isnan(v) else math.copysign(sys.float_info.max, v)
        return v if not self.strict or v > 0 else min(v, -1e-300)


def _undecided_note(margins: list[Margin], grid: np.ndarray) -> str:
    undecided = np.zeros(grid.shape, dtype=bool)
    for m in margins:
        undecided |= np.isnan(np.asarray(m.fn(grid), dtype=float) * np.ones(grid.shape))
    if undecided.all():
        return " (a condition is infinite or undefined everywhere: a zero denominator at these values)"
    return ""


def _solvable(result: Statement, symbol: str):
    scalars = [s.name for s in result.symbols if not s.domain.is_vector]
    if symbol not in scalars:
        raise unknown(f"scalar symbol of {result.key}", symbol, scalars)
    return result.symbol_map[symbol]


def _grid(info) -> np.ndarray:
    """Search points inside the symbol's domain: open ends excluded, a point next to each."""
    lo, hi = info.domain.interval()
    low_open, _ = info.domain.open_ends()
    pos = np.logspace(*LOG_RANGE, GRID_POINTS)
    if (lo, hi) == (0.0, 1.0):
        grid = np.unique(np.concatenate([np.linspace(0.0, 1.0, GRID_POINTS), pos[pos < 1.0], [OPEN_END_PROBE]]))
        return grid[grid > 0] if low_open else grid
    if info.domain.is_integer:
        return np.unique(np.concatenate([np.arange(lo, 1000.0), np.ceil(pos[pos >= lo])]))
    if lo == -math.inf:
        return np.concatenate([-pos[::-1], [0.0], pos])
    near = np.concatenate([[OPEN_END_PROBE], pos])
    return near if low_open else np.concatenate([[0.0], near])


def _with(bound, symbol, x):
    probe = dict(bound)
    probe[symbol] = np.asarray(x, dtype=float)
    return probe


def _margin_at(result, hyp, bound, symbol, x):
    return np.asarray(check_hypothesis(result, hyp, _with(bound, symbol, x)).margin, dtype=float)


def _holds_at(result, hyp, bound, symbol, x) -> bool:
    return check_hypothesis(result, hyp, _with(bound, symbol, x)).holds is True


def _rhs_at(result, bound, symbol, x):
    return _call(result, result.rhs, _with(bound, symbol, x))


def _ok(margins: list[Margin], x) -> np.ndarray:
    ok = np.ones(np.shape(x), dtype=bool)
    for m in margins:
        ok &= m.ok(x)
    return ok


def _feasible_intervals(margins, grid, integer: bool) -> list[tuple[float, float]]:
    ok = _ok(margins, grid)
    if not ok.any():
        return []
    edges = np.flatnonzero(np.diff(ok.astype(int)))
    starts = [0] if ok[0] else []
    ends: list[int] = []
    for e in edges.tolist():
        (ends if ok[e] else starts).append(e if ok[e] else e + 1)
    if ok[-1]:
        ends.append(len(grid) - 1)
    intervals = []
    for s, e in zip(starts, ends):
        lo = grid[s] if s == 0 else _refine(margins, grid[s - 1], grid[s], integer)
        hi = grid[e] if e == len(grid) - 1 else _refine(margins, grid[e + 1], grid[e], integer)
        intervals.append((lo, hi))
    return intervals


def _refine(margins: list[Margin], bad: float, good: float, integer: bool) -> float:
    """Boundary between an infeasible and a feasible point, on the feasible side."""
    def h(x):
        return min(m.value(x) for m in margins)

    def feasible(x) -> bool:
        return bool(_ok(margins, np.asarray(float(x))))

    if integer:
        while abs(good - bad) > 1:
            mid = math.floor((good + bad) / 2)
            if feasible(mid):
                good = float(mid)
            else:
                bad = float(mid)
        return good

    if h(bad) >= 0:
        return good
    try:
        root = optimize.brentq(h, min(bad, good), max(bad, good), xtol=1e-300, rtol=4 * np.finfo(float).eps,
                               maxiter=500)
    except RuntimeError:  # no convergence (a margin jumps, e.g. at a float overflow): bisect instead
        root = _bisect(feasible, bad, good)
    # Keep the answer feasible: step toward the good side if rounding left it just outside
    for _ in range(8):
        if feasible(root) or (h(root) >= -1e-12 * max(1.0, abs(root)) and not any(m.strict for m in margins)):
            return root
        root = np.nextafter(root, good)
    return good


def _bisect(feasible: Callable[[float], bool], bad: float, good: float, steps: int = 2100) -> float:
    """Feasible end of [bad, good] to float resolution, by halving (a loop over steps, not points)."""
    for _ in range(steps):
        mid = bad / 2 + good / 2
        if mid in (bad, good):
            break
        if feasible(mid):
            good = mid
        else:
            bad = mid
    return good


def _argmin(result, bound, symbol, feasible, grid, integer) -> float:
    candidates = []
    for lo, hi in feasible:
        pts = grid[(grid >= lo) & (grid <= hi)]
        pts = np.unique(np.concatenate([[lo, hi], pts]))
        vals = np.nan_to_num(_rhs_at(result, bound, symbol, pts) * np.ones_like(pts), nan=np.inf)
        i = int(np.argmin(vals))
        a, b = pts[max(i - 1, 0)], pts[min(i + 1, len(pts) - 1)]
        if not integer and b > a:
            logspace = a > 0
            f = (lambda t: float(_rhs_at(result, bound, symbol, math.exp(t)))) if logspace else \
                (lambda t: float(_rhs_at(result, bound, symbol, t)))
            res = optimize.minimize_scalar(f, bounds=(math.log(a), math.log(b)) if logspace else (a, b),
                                           method="bounded", options={"xatol": 1e-12})
            x = math.exp(res.x) if logspace else res.x
            if f(res.x) <= vals[i]:
                candidates.append((f(res.x), x))
                continue
        candidates.append((vals[i], pts[i]))
    return min(candidates)[1]


def _integer(value: float, mode: str, margins) -> float:
    options = [math.floor(value), math.ceil(value)]
    if mode == "max":
        options.reverse()
    for v in options:
        if v >= 0 and (not margins or bool(_ok(margins, np.asarray(float(v))))):
            return float(v)
    return float(options[-1])
