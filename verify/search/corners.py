"""The ``corners`` optimiser: covering arrays of the space's corners, one per RHS-term stratum, then stratified.

**Setting**: a :class:`verify.scenario.Scenario` space; its *corner factors* are the searched axes (numeric with
low < high, and categorical ones with several choices; the problem's random ``draw`` seed is not a corner
factor and stays at its default). A continuous factor's levels are its two ends; an integer one's, its two
ends and low + 1 (the smallest size with structure: d = 2 is the first dimension with mu < L, M = 3 the first
with 1 < m < M, K = 2 the first with local drift); a categorical one's, its choices.
**Quantity**: the *pool*: the *ends* (every factor at an end or a choice; low + 1 is the climb's) in every
combination, or, where there are more, as many as :data:`POOL` and :data:`POOL_PER_EVALUATION` per evaluation
of the budget allow (each pool row costs one instance build), drawn by the search's seed; each row's RHS terms
are read at its corner (``bounds``: no simulation). A corner is projected onto the hypotheses when it is
proposed (where ``bounds`` decides them False at the corner, the first continuous axis that alone at its
default value makes it admissible, else all of them, is moved toward the default point by bisection on the
fraction of the log-distance, :data:`BISECT` halvings, and the admissible end of the bracket is kept; none:
the corner is passed over). The *stratum* of term t: the pool rows where t is at least :data:`DOMINANT` of the
RHS at the corner; one plain stratum: the whole pool.
**Algorithm**: first :data:`WARMUP` draws of the wrapped optimiser (``stratified``: easy errors go there); then
each stratum's strength-s covering array (:func:`verify.search.covering.covering_rows`: every s-tuple of corner
levels that occurs in the stratum occurs in a row), the strata taking turns row by row (a row already
proposed is not proposed again), every :data:`INTERLEAVE`-th point a draw of the wrapped optimiser, and of
the others every :data:`CLIMB`-th a move of the *lattice climb*: each stratum keeps its best-scored corner so
far and proposes that corner's neighbours (one factor at another level, low + 1 included) in a seeded order,
starting again from a better corner when one is scored; the strata's climbs take turns. After the rows,
the climb goes on in the corner slots until no neighbour is left, then the wrapped optimiser alone. The strength s is the largest of :data:`STRENGTHS` whose arrays' rows number at
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
Why climb: errors that need a near-low size together with many ends (REGIME.drift-cut-1k: d = 2, M = 2 or
3, K >= 2, R, step, mu, mix and sigma at ends) are in no array of the ends; the climb walks there from the
stratum's best corner while the ratio rises (measured: tests/benchmarks/planted, README "The whole benchmark").
**Statement**: corners only propose points; every point is scored and every claimed violation confirmed by
falsify's usual path. It proves nothing about the points between corners. Same seed, same points.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bounds.core.errors import PointRefused, UserInputError
from bounds.core.seeds import key, rng
from verify.scenario import Param, Scenario
from verify.search.covering import all_rows, covering_rows
from verify.search.proposal import Proposal, Stratum
from verify.search.stratified import Stratified

__all__ = ["CornerArrays", "corner_factors"]

WARMUP = 24          # draws of the wrapped optimiser before the corners (where the easy errors are found)
POOL = 512           # pool rows at most (all combinations where there are no more)
POOL_PER_EVALUATION = 2  # and at most this many per evaluation of the budget (a pool row costs a build)
DOMINANT = 0.5       # a row is in term t's stratum where t is at least this share of the RHS
STRENGTHS = (4, 3, 2)  # tried in this order: the strongest whose rows fit in the budget after the warm-up
INTERLEAVE = 2       # every 2nd point of the corner stage is a draw of the wrapped optimiser
CLIMB = 3            # of the others, every 3rd a move of the lattice climb (while it has one), the rest array rows
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
            ends = sorted({int(p.low), int(p.low) + 1, int(p.high)}) if p.integer else None
            out.append((p, ends if ends is not None else [float(p.low), float(p.high)]))
    return out


class CornerArrays:
    """The ``corners`` optimiser (module docstring); each proposal's stratum names its source."""

    def __init__(self, scenario: Scenario, inner: Stratified, *, seed: int, budget: int, strength: int | None = None,
                 deadline: float | None = None):
        """``inner``: the stratified optimiser (``verify.search.optimisers`` builds both); ``strength``: the covering
        arrays' strength (default: the largest of STRENGTHS that fits; 1 to 6); ``deadline``
        (``time.perf_counter()`` seconds): the pool's probes stop there, keeping at least one corner (``--time``
        covers the set-up too)."""
        if strength is not None and (not isinstance(strength, int) or isinstance(strength, bool)
                                     or not 1 <= strength <= 6):
            raise UserInputError(f"corner strength {strength!r}: an integer from 1 to 6 (t-way covering arrays)")
        import bounds

        self.scenario, self.inner = scenario, inner
        scenario.register_result()
        self.result = bounds.get(scenario.result)
        self.default = scenario.point()
        self.factors = corner_factors(scenario.space)
        self.rng = rng(int(seed), "search", key("corners optimiser"))  # the search stream, apart from the inner one's
        # corner (level indices) -> its admissible point (None: none); a pool corner whose hypotheses are False
        # waits in ``unprojected`` until proposed (only the corners proposed are ever projected)
        self.admissible: dict[tuple[int, ...], dict[str, Any] | None] = {}
        self.unprojected: dict[tuple[int, ...], dict[str, Any]] = {}
        pool, self.points, shares = self._pool(min(POOL, POOL_PER_EVALUATION * max(1, int(budget))), deadline)
        self.strength, self.rows = self._arrays(pool, shares, list(inner.terms), budget, strength)
        self.pool = pool
        self.count = 0
        self.asked: list[tuple[int, ...] | None] = []  # per asked point: its corner's levels (None: the inner's)
        self.proposed: set[tuple[int, ...]] = set()  # corners proposed so far (rows and climb moves)
        self.origin: dict[tuple[int, ...], str] = {}  # corner -> the stratum whose row or climb proposed it
        self.best: dict[str, tuple[float, tuple[int, ...]]] = {}  # per stratum: its best-scored corner so far
        self.queues: dict[str, list[tuple[int, ...]]] = {}  # per stratum: that corner's neighbours not yet proposed
        self.turn = 0

    # -- the pool -----------------------------------------------------------------------------------------
    def _pool(self, size: int, deadline: float | None = None) -> tuple[np.ndarray, list[dict[str, Any]],
                                                                       list[dict[str, float]]]:
        """At most ``size`` pool rows (level indices), their corner points and their RHS shares there (rows that
        cannot be built are left out); whether a corner meets the hypotheses is kept for :meth:`_at_levels`."""
        levels = [len(v) for _, v in self.factors]
        # the arrays cover the ends (an integer factor's low + 1 is for the climb): all where they fit, else a draw
        ends = [np.array([0, k - 1] if k > 2 else list(range(k)), dtype=np.int64) for k in levels]
        rows = np.stack([e[r] for e, r in zip(ends, all_rows([len(e) for e in ends]).T)], axis=1) if levels \
            else np.zeros((1, 0), np.int64)
        if len(rows) > size:
            rows = rows[np.sort(self.rng.choice(len(rows), size, replace=False))]
        keep: list[int] = []
        points: list[dict[str, Any]] = []
        shares: list[dict[str, float]] = []
        for i, row in enumerate(rows):
            pt = {**self.default, **{p.name: v[int(j)] for (p, v), j in zip(self.factors, row)}}
            got = self._probe(pt)
            if got is not None:
                (self.admissible if got[0] is not False else self.unprojected)[tuple(int(j) for j in row)] = pt
                keep.append(i)
                points.append(pt)
                shares.append(got[1])
            if deadline is not None and keep and time.perf_counter() >= deadline:
                break
        return rows[keep], points, shares

    def _probe(self, point: Mapping[str, Any]) -> tuple[bool | None, dict[str, float]] | None:
        """(hypotheses decided, each term's share of the RHS) at ``point``; None where it cannot be built."""
        from verify.scenario import decide_hypotheses

        try:
            inst = self.scenario.build(self.scenario.point(point))
            checked = decide_hypotheses(self.scenario, inst, dict(inst.values))
            vals = {k: abs(float(v)) for k, v in checked.report.evaluation.terms.items()}
        except PointRefused:  # a point the builder or the result refuses: not a corner (the box said nothing of it)
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

    # -- the lattice climb --------------------------------------------------------------------------------
    def _at_levels(self, levels: tuple[int, ...]) -> dict[str, Any] | None:
        """The admissible point of the corner with these level indices (None: none toward the default), projected
        onto the hypotheses when first asked for, cached (a pool row's or a climb move's alike)."""
        if levels not in self.admissible:
            pt = self.unprojected.pop(levels, None)
            if pt is None:  # not in the pool: probed here
                pt = {**self.default, **{p.name: v[j] for (p, v), j in zip(self.factors, levels)}}
                got = self._probe(pt)
                self.admissible[levels] = None if got is None else pt if got[0] is not False else self._project(pt)
            else:
                self.admissible[levels] = self._project(pt)
        return self.admissible[levels]

    def _neighbours(self, levels: tuple[int, ...]) -> list[tuple[int, ...]]:
        """The corners one factor's level away from ``levels``, not yet proposed, in a seeded order."""
        out = [levels[:j] + (k,) + levels[j + 1:] for j, (_, v) in enumerate(self.factors) for k in range(len(v))
               if k != levels[j]]
        out = [c for c in out if c not in self.proposed]
        return [out[i] for i in self.rng.permutation(len(out))]

    def _climb_point(self) -> tuple[dict[str, Any], tuple[int, ...], str] | None:
        """The next lattice move: the strata's climbs take turns (each from its own best corner)."""
        names = [t for t, q in self.queues.items() if q]
        for t in names[self.turn % len(names):] + names[:self.turn % len(names)] if names else []:
            queue = self.queues[t]
            while queue:
                levels = queue.pop(0)
                if levels in self.proposed:
                    continue
                self.proposed.add(levels)
                pt = self._at_levels(levels)
                if pt is not None:
                    self.turn += 1
                    return pt, levels, t
        return None

    # -- ask/tell -----------------------------------------------------------------------------------------
    def _next_corner(self) -> tuple[dict[str, Any], tuple[int, ...], Stratum] | None:
        """The corner stage's next point: every CLIMB-th a lattice move from the best corner so far (while one is
        left), the others the arrays' next row; None: the wrapped optimiser's turn, or the stage is over."""
        k = self.count - WARMUP
        if k <= 0 or k % INTERLEAVE == 0:
            return None
        if k % CLIMB == 1:
            got = self._climb_point()
            if got is not None:
                return got[0], got[1], _corner("climb", got[2])
        while self.rows:
            stratum, i = self.rows.pop(0)
            levels = tuple(int(x) for x in self.pool[i])
            self.proposed.add(levels)
            pt = self._at_levels(levels)  # a row with no admissible point is passed over
            if pt is not None:
                self.origin[levels] = stratum
                return pt, levels, _corner(f"{self.strength}-way", stratum)
        got = self._climb_point()
        return None if got is None else (got[0], got[1], _corner("climb", got[2]))

    def ask(self, n: int) -> list[Proposal]:
        out: list[Proposal] = []
        self.asked = []
        for _ in range(n):
            self.count += 1
            got = self._next_corner()
            if got is not None:
                out.append(Proposal(dict(got[0]), got[2]))
                self.asked.append(got[1])
                continue
            out.extend(self.inner.ask(1))
            self.asked.append(None)
        return out

    def tell(self, points: Sequence[Mapping[str, Any]], scores: Sequence[float]) -> None:
        for levels, s in zip(self.asked, scores):
            if levels is None:
                continue
            t = self.origin.get(levels)
            if t is not None and math.isfinite(s) and (t not in self.best or s > self.best[t][0]):
                self.best[t] = (float(s), levels)  # a better corner of stratum t: t's climb goes on from it
                self.queues[t] = self._neighbours(levels)
                for c in self.queues[t]:
                    self.origin.setdefault(c, t)
        mine = [(p, s) for p, s, levels in zip(points, scores, self.asked) if levels is None]
        if mine:  # the wrapped optimiser hears of its own points only
            self.inner.tell([p for p, _ in mine], [s for _, s in mine])


def _corner(detail: str, stratum: str) -> Stratum:
    """A corner row's or lattice move's stratum: ``stratum`` is an RHS term or "plain" (the whole pool)."""
    return Stratum("corner", term=None if stratum == "plain" else stratum, detail=detail)
