"""The ``corners`` optimiser: covering arrays of the space's corners, one per RHS-term stratum, then stratified.

**Setting**: a :class:`verify.scenario.Scenario` space; its *corner factors* are the searched axes (numeric with
low < high, and categorical ones with several choices; the problem's random ``draw`` seed is not a corner
factor and stays at its default). A numeric factor's levels are its two ends; a categorical one's, its choices.
**Quantity**: the *pool*: every combination of the levels, or :data:`POOL` of them drawn by the search's seed
where there are more, with its RHS terms read at each row's corner (``bounds``: no simulation). A row the
arrays choose is projected onto the hypotheses when it is proposed (where ``bounds`` decides them False at
the corner, the first continuous axis that alone at its default value makes it admissible, else all of them,
is moved toward the default point by bisection on the fraction of the log-distance, :data:`BISECT` halvings,
and the admissible end of the bracket is kept; none: the row is passed over). The *stratum* of term t: the pool
rows where t is at least :data:`DOMINANT` of the RHS at the corner; one plain stratum: the whole pool.
**Algorithm**: first :data:`WARMUP` draws of the wrapped optimiser (``stratified``: easy errors go there); then
each stratum's strength-s covering array (:func:`verify.covering.covering_rows`: every s-tuple of corner
levels that occurs in the stratum occurs in a row), the strata taking turns row by row (a row already
proposed is not proposed again), every :data:`INTERLEAVE`-th point a draw of the wrapped optimiser; then the
wrapped optimiser alone. The strength s is the largest of :data:`STRENGTHS` whose arrays' rows number at
most the budget left after the warm-up; none: the smallest. Rows the budget does not reach are not proposed
(the array's guarantee then holds for the rows proposed only; the greedy order puts most tuples first).
Why interleave: errors that live inside the box rather than at a corner (REGIME.drift-2x: d = 2, a step
inside its range) are found by the stratified draws, and without them a corner stage of 150 rows delayed
the 160th stratified draw past a budget of 300 (measured, seed 0).
Why: an error that lives in a regime is violated where the bound is exact and the wrong term dominates, a
corner of several axes at once (REGIME.noise-mu-32: R = 1, K = 1, d = 10, mu/L = 1e-3, step at its cap, sigma
at its top: 8 of the 512 binary corners, and (1/6)^6 of the edge-weighted draws of ``random``). In the term's
stratum the term's own axes are already at their ends, so a 4-way array over the rest reaches the corner
in every seed, where a random draw reaches it by luck. Measured on the 512 corners of REGIME.correct's space
(``tests/benchmarks/planted/corner_lattice.py --arrays``): strength 4 has a row violating each mu-order and
horizon-cut error at 60k in 5 of 5 seeds, strength 3 in 4 of 5.
**Statement**: corners only propose points; every point is scored and every claimed violation confirmed by
falsify's usual path. It proves nothing about the points between corners. Same seed, same points.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bounds.core.errors import UserInputError
from verify.covering import all_rows, covering_rows
from verify.scenario import Param, Scenario

__all__ = ["CornerArrays", "corner_factors"]

WARMUP = 24          # draws of the wrapped optimiser before the corners (where the easy errors are found)
POOL = 512           # pool rows at most (all combinations where there are no more)
DOMINANT = 0.5       # a row is in term t's stratum where t is at least this share of the RHS
STRENGTHS = (4, 3, 2)  # tried in this order: the strongest whose rows fit in the budget after the warm-up
INTERLEAVE = 2       # every 2nd point of the corner stage is a draw of the wrapped optimiser
BISECT = 6           # halvings toward the default point that project a corner onto the hypotheses
SKIP = ("draw",)     # axes that are a problem's random seed, not a scale: held at the default


def corner_factors(space: Sequence[Param]) -> list[tuple[Param, list[Any]]]:
    """The corner factors of ``space`` and their levels (module docstring)."""
    out: list[tuple[Param, list[Any]]] = []
    for p in space:
        if p.name in SKIP:
            continue
        if p.choices is not None:
            if len(p.choices) > 1:
                out.append((p, list(p.choices)))
        elif p.low < p.high:
            out.append((p, [int(p.low), int(p.high)] if p.integer else [float(p.low), float(p.high)]))
    return out


class CornerArrays:
    """The ``corners`` optimiser (module docstring); ``last_strata`` names each point's source."""

    def __init__(self, scenario: Scenario, inner: Any, *, seed: int, budget: int, strength: int | None = None):
        """``inner``: the stratified optimiser (``verify.optimisers`` builds both); ``strength``: the covering
        arrays' strength (default: the largest of STRENGTHS that fits; 1 to 6)."""
        if strength is not None and (not isinstance(strength, int) or isinstance(strength, bool)
                                     or not 1 <= strength <= 6):
            raise UserInputError(f"corner strength {strength!r}: an integer from 1 to 6 (t-way covering arrays)")
        import bounds

        self.scenario, self.inner = scenario, inner
        scenario.register_result()
        self.result = bounds.get(scenario.result)
        self.default = scenario.point()
        self.factors = corner_factors(scenario.space)
        self.rng = np.random.default_rng([int(seed), 0xC0])  # the corner stream, apart from the inner one's
        self.projected: dict[int, dict[str, Any] | None] = {}  # pool row -> its admissible point (None: none)
        pool, self.points, shares = self._pool()
        terms = [t for t in (getattr(inner, "strata", None) or []) if t != "random"]
        self.strength, self.rows = self._arrays(pool, shares, terms, budget, strength)
        self.count = 0
        self.last_strata: list[str] = []
        self.asked: list[bool] = []  # per asked point: whether the wrapped optimiser proposed it

    @property
    def strata(self) -> Any:
        return getattr(self.inner, "strata", None)

    # -- the pool -----------------------------------------------------------------------------------------
    def _pool(self) -> tuple[np.ndarray, list[dict[str, Any]], list[dict[str, float]]]:
        """Pool rows (level indices), their corner points and their RHS shares there (rows that cannot be built
        are left out); whether a corner meets the hypotheses is kept for :meth:`_proposal`."""
        levels = [len(v) for _, v in self.factors]
        n = math.prod(levels)
        rows = all_rows(levels) if n <= POOL else np.stack(
            [self.rng.integers(0, k, POOL) for k in levels], axis=1) if levels else np.zeros((1, 0), np.int64)
        keep: list[int] = []
        points: list[dict[str, Any]] = []
        shares: list[dict[str, float]] = []
        for i, row in enumerate(rows):
            pt = {**self.default, **{p.name: v[int(j)] for (p, v), j in zip(self.factors, row)}}
            got = self._probe(pt)
            if got is not None:
                if got[0] is not False:
                    self.projected[len(points)] = pt
                keep.append(i)
                points.append(pt)
                shares.append(got[1])
        return rows[keep], points, shares

    def _proposal(self, i: int) -> dict[str, Any] | None:
        """Pool row i's point projected onto the hypotheses (None: no admissible point toward the default);
        projected when first proposed, since only the rows the arrays choose are ever needed."""
        if i not in self.projected:
            self.projected[i] = self._project(self.points[i])
        return self.projected[i]

    def _probe(self, point: Mapping[str, Any]) -> tuple[bool | None, dict[str, float]] | None:
        """(hypotheses decided, each term's share of the RHS) at ``point``; None where it cannot be built."""
        from verify.scenario import decide_hypotheses

        try:
            inst = self.scenario.build(self.scenario.point(point))
            checked = decide_hypotheses(self.scenario, inst, dict(inst.values))
            vals = {k: abs(float(v)) for k, v in checked.report.evaluation.terms.items()}
        except Exception:  # a point the builder or the result refuses: not a corner (the box said nothing of it)
            return None
        total = sum(vals.values())
        share = {k: v / total for k, v in vals.items()} if math.isfinite(total) and total > 0 else {}
        return checked.hypotheses, share

    def _project(self, corner: dict[str, Any]) -> dict[str, Any] | None:
        """The admissible point nearest ``corner`` (where the hypotheses are False) toward the default point: the
        first continuous axis that alone, at its default, makes the corner admissible (else all of them together)
        is moved back by bisection on the fraction of the way (BISECT halvings)."""
        moved = [p for p, _ in self.factors if p.choices is None and not p.integer and corner[p.name] != self.default[p.name]]
        sets = [[p] for p in moved] + ([moved] if len(moved) > 1 else [])
        axes = next((a for a in sets if (self._probe(self._toward(corner, a, 1.0)) or (False,))[0] is not False), None)
        if axes is None:
            return None
        lo, hi = 0.0, 1.0  # fraction of the way from the corner (0) to the default (1); hi is admissible
        for _ in range(BISECT):
            mid = (lo + hi) / 2
            g = self._probe(self._toward(corner, axes, mid))
            if g is not None and g[0] is not False:
                hi = mid
            else:
                lo = mid
        return self._toward(corner, axes, hi)

    def _toward(self, corner: Mapping[str, Any], axes: Sequence[Param], f: float) -> dict[str, Any]:
        out = dict(corner)
        for p in axes:
            a, b = float(corner[p.name]), float(self.default[p.name])
            x = math.exp(math.log(a) + f * (math.log(b) - math.log(a))) if p.log and a > 0 and b > 0 else a + f * (b - a)
            out[p.name] = min(float(p.high), max(float(p.low), x))  # exp(log(.)) may land an ulp outside the axis
        return out

    # -- the arrays ---------------------------------------------------------------------------------------
    def _arrays(self, pool: np.ndarray, shares: list[dict[str, float]], terms: list[str], budget: int,
                strength: int | None) -> tuple[int, list[tuple[str, int]]]:
        """(strength used, the corner stage's rows as (stratum, pool index), strata taking turns)."""
        levels = [len(v) for _, v in self.factors]
        strata = [(t, np.array([i for i, s in enumerate(shares) if s.get(t, 0.0) >= DOMINANT], dtype=np.int64))
                  for t in terms] + [("plain", np.arange(len(shares), dtype=np.int64))]
        room = max(0, int(budget) - WARMUP)
        order: list[tuple[str, int]] = []
        for s in ((strength,) if strength is not None else STRENGTHS):
            seed_rng = np.random.default_rng(self.rng.integers(2**63))
            lists = [(t, [int(idx[c]) for c in covering_rows(pool[idx], levels, s, seed_rng)]) for t, idx in strata
                     if len(idx)]
            order, seen = [], set()
            for k in range(max((len(c) for _, c in lists), default=0)):
                for t, chosen in lists:
                    if k < len(chosen) and chosen[k] not in seen:
                        seen.add(chosen[k])
                        order.append((t, chosen[k]))
            if strength is not None or len(order) <= room:
                return s, order
        return s, order[:room]

    # -- ask/tell -----------------------------------------------------------------------------------------
    def ask(self, n: int) -> list[dict[str, Any]]:
        out, self.last_strata, self.asked = [], [], []
        for _ in range(n):
            self.count += 1
            pt = None
            while pt is None and self.count > WARMUP and self.rows and (self.count - WARMUP) % INTERLEAVE != 0:
                stratum, i = self.rows.pop(0)
                pt = self._proposal(i)  # a row with no admissible point is passed over
            if pt is not None:
                out.append(dict(pt))
                self.last_strata.append(f"corner {self.strength}-way, {stratum}")
                self.asked.append(False)
                continue
            out.extend(self.inner.ask(1))
            self.last_strata.extend(getattr(self.inner, "last_strata", ["inner"]))
            self.asked.append(True)
        return out

    def tell(self, points: Sequence[Mapping[str, Any]], scores: Sequence[float]) -> None:
        mine = [(p, s) for p, s, inner in zip(points, scores, self.asked) if inner]
        if mine:  # the wrapped optimiser hears of its own points only
            self.inner.tell([p for p, _ in mine], [s for _, s in mine])
