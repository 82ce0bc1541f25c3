"""Rays of a scenario's space (one scale parameter to its limit), and the search that walks them.

**Setting**: a :class:`verify.scenario.Scenario` space; a *scale axis* is a numeric axis whose range spans a
factor of at least :data:`MIN_SPAN` (a step, a horizon, a client count, a noise level, a fraction).
**Quantity**: a *ray* from a base point moves one scale axis geometrically toward one end of its range,
the others fixed, except the coupled rays "step (or curvature mu) to 0 with the horizon scaled": the horizon
axis grows as the step shrinks (step x horizon constant, clipped at the horizon's end), so the regime the
small step is meant for is reached (:func:`rays`, :func:`ray_points`).
**Algorithm** (``rays`` optimiser, :class:`RayClimb`): ``stratified`` draws (``verify.search.optimisers``) for the
first :data:`WARMUP` points, then a compass search along rays from the best admissible point so far: each
generation proposes, for every ray, the point a fraction of the remaining log-distance to its end; a
better point becomes the new base (an equally good one too, up to :data:`MAX_SIDEWAYS` times in a row, to cross
the plateaus where a bound is tight to rounding); when no ray improves, the fraction halves, and after
:data:`MAX_HALVINGS` halvings the walk restarts from a fresh stratified point (every
:data:`INTERLEAVE`-th point stays a stratified draw throughout, so the search keeps exploring).
Why: an error that lives in a regime (a term of the wrong order in a small parameter, a term missing
that matters only at long horizons) shows as an LHS/RHS ratio that grows along a ray from points where
its term dominates; a random draw reaches the far end of that ray with the other axes right only by luck.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from verify.scenario import Param, Scenario
from verify.search.proposal import Proposal, Stratum
from verify.search.stratified import Stratified

__all__ = ["MIN_SPAN", "Ray", "RayClimb", "order_rays", "ray_points", "ray_through", "rays"]

MIN_SPAN = 10.0   # an axis spanning less than one decade is not a scale axis
WARMUP = 24       # stratified points before the first ray walk
INTERLEAVE = 4    # every 4th point of the walk is a stratified draw
MAX_HALVINGS = 3  # fractions 1, 1/2, 1/4, 1/8 of the remaining log-distance, then a restart
MAX_SIDEWAYS = 8  # consecutive moves to an equally good point (across a plateau) before only better ones count
STEP_WORDS = ("eta", "step", "gamma", "lr")
CURVATURE_WORDS = ("mu",)  # a curvature to 0 also needs the horizon scaled to reach its regime
HORIZON_WORDS = ("R", "T", "rounds", "horizon")


@dataclass(frozen=True)
class Ray:
    """One ray: ``axis`` to its ``end`` ("low" or "high"); ``horizon``: the axis scaled inversely with it."""

    axis: str
    end: str
    horizon: str | None = None

    @property
    def name(self) -> str:
        base = f"{self.axis} -> {self.end}"
        return base + (f" ({self.horizon} x {self.axis} fixed)" if self.horizon else "")


def _scale_axes(space: Sequence[Param]) -> list[Param]:
    out = []
    for p in space:
        if p.choices is not None or not p.low < p.high or p.name == "draw":
            continue
        lo = float(p.low) if p.low > 0 else 1e-12
        if p.log and float(p.high) / lo >= MIN_SPAN or p.integer and float(p.high) - float(p.low) >= 2:
            out.append(p)
    return out


def _is_step(name: str) -> bool:
    return any(name == w or name.startswith(w + "_") for w in STEP_WORDS)


def _is_curvature(name: str) -> bool:
    return any(name == w or name.startswith(w + "_") for w in CURVATURE_WORDS)


def rays(space: Sequence[Param]) -> list[Ray]:
    """Every ray of ``space``: each scale axis to each end, and each step axis to 0 with the horizon scaled."""
    axes = _scale_axes(space)
    horizon = next((p.name for p in axes if p.name in HORIZON_WORDS), None)
    out = [Ray(p.name, end) for p in axes for end in ("low", "high")]
    out += [Ray(p.name, "low", horizon) for p in axes if horizon and (_is_step(p.name) or _is_curvature(p.name))]
    return out


def order_rays(space: Sequence[Param]) -> list[Ray]:
    """The rays on which an asymptotic order is asked (``verify.search.orders``): a positive scale axis to its low end
    (a step, a noise level, heterogeneity, a curvature ratio to 0), an integer axis to its high end (clients,
    local steps, horizon, dimension to infinity; the end is the axis's stand-in), each step or curvature axis
    to 0 with the horizon scaled. Left out: a real axis to a finite high end (a step at its cap is no limit)."""
    axes = _scale_axes(space)
    horizon = next((p.name for p in axes if p.name in HORIZON_WORDS), None)
    out = [Ray(p.name, "low") for p in axes if p.low > 0 and p.log and not p.integer]
    out += [Ray(p.name, "high") for p in axes if p.integer]
    out += [Ray(p.name, "low", horizon) for p in axes if horizon and (_is_step(p.name) or _is_curvature(p.name))]
    return out


def _move(p: Param, x0: float, end: str, frac: float) -> float:
    """``frac`` of the way from x0 to the end, geometric on positive axes (log-distance), linear otherwise."""
    target = float(p.low if end == "low" else p.high)
    if x0 > 0 and target > 0:
        x = math.exp(math.log(x0) + frac * (math.log(target) - math.log(x0)))
    else:
        x = x0 + frac * (target - x0)
    x = min(float(p.high), max(float(p.low), x))
    return int(round(x)) if p.integer else x


def ray_points(space: Sequence[Param], base: Mapping[str, Any], ray: Ray, fracs: Sequence[float]) -> list[dict]:
    """Points along ``ray`` from ``base`` at the given fractions of its log-distance to the end."""
    axes = {p.name: p for p in space}
    p = axes[ray.axis]
    out = []
    for f in fracs:
        pt = dict(base)
        pt[ray.axis] = _move(p, float(base[ray.axis]), ray.end, f)
        if ray.horizon:
            h = axes[ray.horizon]
            scale = float(base[ray.axis]) / max(float(pt[ray.axis]), 1e-300)
            x = min(float(h.high), max(float(h.low), float(base[ray.horizon]) * scale))
            pt[ray.horizon] = int(round(x)) if h.integer else x
        out.append(pt)
    return out


def ray_through(space: Sequence[Param], base: Mapping[str, Any], ray: Ray, n: int) -> list[dict]:
    """``n`` points of ``ray`` across its axis's whole range, from the opposite end to the ray's end (log-spaced
    where the axis is positive), the other axes at ``base`` (the coupled horizon as in :func:`ray_points`)."""
    axes = {p.name: p for p in space}
    p = axes[ray.axis]
    far, near = (float(p.low), float(p.high)) if ray.end == "low" else (float(p.high), float(p.low))
    start = {**base, ray.axis: int(round(near)) if p.integer else near}
    if ray.horizon:  # the horizon at the start keeps step x horizon of the base
        h = axes[ray.horizon]
        x = min(float(h.high), max(float(h.low), float(base[ray.horizon]) * float(base[ray.axis]) / near))
        start[ray.horizon] = int(round(x)) if h.integer else x
    pts = ray_points(space, start, ray, [i / (n - 1) for i in range(n)])
    return [q for i, q in enumerate(pts) if i == 0 or q[ray.axis] != pts[i - 1][ray.axis]]


class RayClimb:
    """The ``rays`` optimiser (module docstring): stratified warm-up, then compass walks along rays.

    A walk starts from the best point of one stratum ("term t dominates", or the plain one), the strata in
    turn: the best point overall often sits where the bound is tight for a reason the error does not touch
    (a scalar instance, a short horizon), and a walk from there finds nothing the error changed."""

    def __init__(self, scenario: Scenario, warmup: Stratified):
        """``warmup``: the stratified optimiser it draws from first (``verify.search.optimisers`` builds both, so this
        module imports nothing from there)."""
        self.strat = warmup
        self.space = tuple(scenario.space)
        self.rays = rays(self.space)
        self.by_stratum: dict[Stratum | None, tuple[float, dict[str, Any]]] = {}
        self.turn = 0
        self.base: dict[str, Any] | None = None
        self.base_score = -math.inf
        self.frac, self.halvings, self.count, self.sideways = 1.0, 0, 0, 0
        self.queue: list[dict[str, Any]] = []
        self.asked: list[Stratum | None] = []

    def _walk(self) -> list[dict[str, Any]]:
        if self.base is None:
            return []
        pts = [ray_points(self.space, self.base, r, [self.frac])[0] for r in self.rays]
        uniq = {tuple(sorted((k, str(v)) for k, v in p.items())): p for p in pts if p != self.base}
        return list(uniq.values())

    def _restart(self) -> None:
        """The next stratum's best point becomes the base (strata in turn)."""
        names = sorted(self.by_stratum, key=str)
        self.base, self.base_score, self.frac, self.halvings, self.sideways = None, -math.inf, 1.0, 0, 0
        if names:
            self.base_score, self.base = self.by_stratum[names[self.turn % len(names)]]
            self.base = dict(self.base)
            self.turn += 1

    def ask(self, n: int) -> list[Proposal]:
        out: list[Proposal] = []
        for _ in range(n):
            self.count += 1
            if self.count > WARMUP and self.base is None and self.by_stratum:
                self._restart()
            walking = self.count > WARMUP and self.base is not None and self.count % INTERLEAVE != 0
            if walking and not self.queue:
                self.queue = self._walk()
            if walking and self.queue:
                out.append(Proposal(self.queue.pop(0), Stratum("ray", step=self.frac)))
                continue
            out.extend(self.strat.ask(1))
        self.asked = [p.stratum for p in out]
        return out

    def tell(self, points: Sequence[Mapping[str, Any]], scores: Sequence[float]) -> None:
        improved = False
        for p, s, st in zip(points, scores, self.asked):
            walked = st is not None and st.kind == "ray"
            if not walked and (st not in self.by_stratum or s > self.by_stratum[st][0]):
                self.by_stratum[st] = (float(s), dict(p))
            if self.base is None or not walked:
                continue
            if s > self.base_score + 1e-9:
                self.base, self.base_score, improved, self.sideways = dict(p), float(s), True, 0
            elif s >= self.base_score - 1e-12 and self.sideways < MAX_SIDEWAYS:
                # a plateau (a bound tight to rounding, ratio 1 wherever its terms are exact): walk across it,
                # a bounded number of times, since what the error changes may lie one ray further
                self.base, self.sideways, improved = dict(p), self.sideways + 1, True
        if improved:  # walk on from the better point, a longer stride again
            self.queue, self.frac, self.halvings = [], min(1.0, 2 * self.frac), 0
            return
        if self.queue or self.base is None:  # the walk's sweep is not over yet, or none started
            return
        self.halvings += 1
        self.frac /= 2
        if self.halvings > MAX_HALVINGS:  # a local top along every ray: the next stratum's best point
            self._restart()
