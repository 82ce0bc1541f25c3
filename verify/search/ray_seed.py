"""The ``seeded`` optimiser: stratified search seeded with the orders table's rays (issue 27 items 3 and 6).

**Setting**: a :class:`verify.scenario.Scenario` space, an ask/tell search (``verify.search.falsify.search``) whose
evaluations all count toward its budget.
**Algorithm**: every :data:`INTERLEAVE`-th point is a draw of the wrapped optimiser (``stratified``); the
others serve (ray, RHS term) pairs (rays: ``verify.search.rays.order_rays``, each step, noise, heterogeneity or
curvature to 0, each count and the horizon to its end, the step and mu to 0 with the horizon scaled; only
pairs whose term depends on an input the ray moves). Each pair starts where its term dominates (the
stratified optimiser's aimed point); first every pair's start is scored at its ray's far end (scouting),
then the pairs run, the terms taking turns and each term's pairs best scouted LHS/RHS first (the
optimisation term is exact at trivial points, a tiny step: by ratio alone it would take every early turn),
each the tight-base search of ``verify.search.ray_bases`` in
ask/tell form at the ray's far end: a sweep proposes the base with one other axis moved to an end (an
integer axis also to low + 1) where the pair's term stays at least :data:`DOMINANT` of the RHS and the ray
still moves an input; the base with every improving move at once is proposed next; the best becomes the
base, up to :data:`SWEEPS` sweeps per pair. After the last pair the wrapped optimiser has the rest of the
budget. Why: an error of the wrong order in one scale parameter is violated at that parameter's end where
the rest of the bound is tight (REGIME.noise-mu-32: from the default point LHS/RHS at mu/L = 1e-3 is 0.41,
after two sweeps 1.2); a draw of the whole space lands there by chance. It searches; it proves nothing
about points it did not evaluate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import bounds
from bounds.core.errors import PointRefused
from verify.scenario import Scenario
from verify.search.proposal import Proposal, Stratum
from verify.search.rays import Ray, order_rays, ray_points
from verify.search.stratified import Stratified

__all__ = ["RaySeeded"]

INTERLEAVE = 4  # every 4th point is the wrapped optimiser's
DOMINANT = 0.5  # the share of the RHS a ray's term keeps at every proposed point
SWEEPS = 2


class RaySeeded:
    """Ray seeds (module docstring), then the wrapped optimiser; each proposal's stratum names its source."""

    def __init__(self, scenario: Scenario, inner: Stratified):
        self.inner = inner
        self.space = tuple(scenario.space)
        self.scenario = scenario
        self.result = bounds.get(scenario.result)
        self._cache: dict[tuple, dict[str, Any] | None] = {}
        terms: list[str | None] = list(inner.terms) or [None]
        self.pairs: list[tuple[Ray, str | None]] = []
        self.starts: list[dict[str, Any]] = []
        for t in terms:
            start = scenario.point(inner.aimed(t) if t is not None else None)  # where t dominates
            default = scenario.point()
            for r in order_rays(self.space):
                # an inert start (mu/L at d = 1) takes one axis from the default point, the first that helps
                tries = [start] + [{**start, k: v} for k, v in default.items() if start.get(k) != v]
                ok = next((b for b in tries if self._depends(r, t, b)), None)
                if ok is not None:
                    self.pairs.append((r, t))
                    self.starts.append(ok)
        self.ray_i, self.sweep, self.pos = 0, 0, -1
        self.order: list[int] = []
        self.base: dict[str, Any] = scenario.point()
        self.best = -math.inf
        # scouting: every pair's start at its ray's end, scored first; the pairs then run best first
        self.queue: list[tuple[Any, dict[str, Any]]] = [(("scout", i), self._end(r, b))
                                                        for i, ((r, _), b) in enumerate(zip(self.pairs, self.starts))]
        self.scout: dict[int, float] = {}
        self.pending = 0
        self.results: list[tuple[float, dict[str, Any]]] = []
        self.combined = self.sweep_improved = False
        self.count = 0
        self.asked: list[Any] = []

    def _end(self, ray: Ray, base: Mapping[str, Any]) -> dict[str, Any]:
        return ray_points(self.space, base, ray, [1.0])[0]

    def _depends(self, ray: Ray, term: str | None, start: Mapping[str, Any]) -> bool:
        """Whether ``term`` depends on an input the ray moves from ``start`` (noise does not on zeta): a wrong
        order of that term in that parameter can show on the ray only then."""
        near, far = (self._values(ray_points(self.space, start, ray, [f])[0]) for f in (0.0, 1.0))
        if near is None or far is None:
            return False
        moved = {k for k in near if near[k] != far.get(k)}
        if term is None:
            return bool(moved)
        expr = next((x.expr for x in self.result.terms if x.name == term), None)
        return expr is not None and bool(moved & {s.name for s in expr.free_symbols})

    def _start_pair(self) -> None:
        """The next pair in scouting order: its start is the base, its scouted ratio the score to beat."""
        while True:
            self.pos += 1
            if self.pos >= len(self.order):
                self.ray_i, self.queue = len(self.pairs), []
                return
            self.ray_i = self.order[self.pos]
            self.sweep, self.combined = 0, False
            self.base, self.best = dict(self.starts[self.ray_i]), self.scout.get(self.ray_i, -math.inf)
            self.queue = self._moves()
            if self.queue:
                return

    def _moves(self) -> list[tuple[Any, dict[str, Any]]]:
        ray = self.pairs[self.ray_i][0]
        out = []
        for p in self.space:
            if p.choices is not None or not p.low < p.high or p.name in (ray.axis, ray.horizon, "draw"):
                continue
            for v in (p.low, p.high) + ((p.low + 1,) if p.integer and p.low + 1 < p.high else ()):
                b = {**self.base, p.name: int(v) if p.integer else float(v)}
                if b == self.base:
                    continue
                end = self._end(ray, b)
                near = ray_points(self.space, b, ray, [0.0])[0]
                # the term dominates at the end, and the ray moves an input there (mu/L at d = 1 moves nothing)
                if self._dominates(end) and self._values(near) not in (None, self._values(end)):
                    out.append((b, end))
        return out

    def _values(self, point: Mapping[str, Any]) -> dict[str, Any] | None:
        """The result's inputs at ``point`` (the built instance's values; None where it cannot be built), cached:
        building a problem is most of this optimiser's own cost."""
        key = tuple(sorted((k, repr(v)) for k, v in point.items()))
        if key not in self._cache:
            try:
                self._cache[key] = dict(self.scenario.build(self.scenario.point(point)).values)
            except PointRefused:  # a point the builder refuses: no values (the evaluation will say why)
                self._cache[key] = None
        return self._cache[key]

    def _dominates(self, point: Mapping[str, Any]) -> bool:
        """The pair's term is at least DOMINANT of the RHS at ``point``: without it the search climbs to where
        nothing moves (a tiny step: LHS = RHS = D0) instead of where the term's order shows."""
        from bounds.evaluate import evaluate

        term, values = self.pairs[self.ray_i][1], self._values(point)
        if term is None or values is None:
            return term is None
        try:
            vals = {k: abs(float(v)) for k, v in evaluate(self.result, values).terms.items()}
        except PointRefused:  # a point the result refuses: no share
            return False
        total = sum(vals.values())
        return math.isfinite(total) and total > 0 and vals.get(term, 0.0) / total >= DOMINANT

    def _next_stage(self) -> None:
        """All of a stage scored: propose the combined move once, then the next sweep or the next ray."""
        improving = [b for s, b in self.results if s > self.best]
        top = max(self.results, key=lambda t: t[0], default=(-math.inf, self.base))
        if not self.combined and len(improving) > 1:
            merged = dict(self.base)
            for b in improving:
                merged.update({k: v for k, v in b.items() if v != self.base.get(k)})
            self.combined = True
            self.queue = [(merged, self._end(self.pairs[self.ray_i][0], merged))]
            self.sweep_improved = self._best_of(top)
            return
        improved = self._best_of(top) or (self.combined and self.sweep_improved)
        self.sweep += 1
        self.combined = False
        if improved and self.sweep < SWEEPS:
            self.queue = self._moves()
        else:
            self._start_pair()

    def _best_of(self, top: tuple[float, dict[str, Any]]) -> bool:
        self.results = []
        if top[0] > self.best:
            self.best, self.base = top[0], dict(top[1])
            return True
        return False

    def ask(self, n: int) -> list[Proposal]:
        out: list[Proposal] = []
        self.asked = []
        for _ in range(n):
            self.count += 1
            if self.count % INTERLEAVE == 0 or not self.queue:
                out.extend(self.inner.ask(1))
                self.asked.append(None)
                continue
            base, pt = self.queue.pop(0)
            idx = base[1] if isinstance(base, tuple) else self.ray_i
            out.append(Proposal(pt, Stratum("ray", term=self.pairs[idx][1], detail=self.pairs[idx][0].name)))
            self.asked.append(base)
            self.pending += 1
        return out

    def tell(self, points: Sequence[Mapping[str, Any]], scores: Sequence[float]) -> None:
        inner_pts, inner_scores = [], []
        for p, s, base in zip(points, scores, self.asked):
            if base is None:
                inner_pts.append(p)
                inner_scores.append(s)
                continue
            self.pending -= 1
            if isinstance(base, tuple):  # a scouting point
                self.scout[base[1]] = float(s) if s is not None and math.isfinite(s) else -math.inf
                continue
            self.results.append((float(s) if s is not None and math.isfinite(s) else -math.inf, base))
        if inner_pts:
            self.inner.tell(inner_pts, inner_scores)
        if self.pending or self.queue:
            return
        if not self.order and self.scout:  # scouting done: the pairs best first
            # best scouted first within each term, the terms taking turns: a term that is exact at a trivial point
            # (the optimisation term at a tiny step: LHS = RHS = D0) would otherwise take every early turn
            rank = {i: sum(self.pairs[j][1] == self.pairs[i][1] and self.scout[j] > self.scout[i] for j in self.scout)
                    for i in self.scout}
            self.order = sorted(self.scout, key=lambda i: (rank[i], -self.scout[i]))
            self._start_pair()
        elif self.order and self.ray_i < len(self.pairs):
            self._next_stage()
