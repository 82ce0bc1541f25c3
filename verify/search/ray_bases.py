"""Where a ray starts and how far it runs: axes past a cost cap, and bases where the bound is tightest.

**Setting**: a ray (``verify.search.rays.Ray``) of a :class:`verify.scenario.Scenario` whose points are scored exactly
(``verify.exact_score``); the orders table (``verify.search.orders``) fits exponents along it.
**Quantity**:

* :func:`widened`: the scenario with the ray's axis allowed past its space's end where that end is not the
  theorem's or the domain's, as the axis declares it (``Param.end``): a *cost cap* (``cost``) or a *stand-in* for
  infinity (``stand-in``: the theorem bounds no such axis, e.g. M in FAST Theorem 1), the ray runs to infinity (an integer count to its high end) and the family's far point is scored
  exactly within the per-point budget: the axis then runs to ``low x 10^decades`` (the stand-in for infinity,
  enough decades to fit). Exact evaluation does not grow with the horizon and barely with K (measured: d = 10,
  K = 1000, R = 10^6 in 0.02 s; FAST.T1's quadratic at M = 1000, 0.6 s), so such an end only ever held
  simulated points back.
* :func:`tight_base`: from a base (a term-dominant point), greedy moves of the other numeric axes to their
  ends (an integer axis also to low + 1), each kept when it raises LHS/RHS at the ray's far end, is
  scored exactly there and the ray still moves one of the result's inputs (mu/L at d = 1 does not). Why: a term of the wrong order shows
  as a ratio that grows along the ray only where the bound is otherwise tight; elsewhere a slack of the
  correct bound (contraction in other directions, accumulation over rounds and local steps, a term the
  ray does not touch) masks it (measured: REGIME.noise-mu-32 from its noise-dominant point, ratio 0.6 at
  mu/L = 1e-3; from its tight base, 1.2, confirmed). It is a search along one ray's end face, stated as
  such in the row's base label; it proves nothing about points it did not evaluate.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from bounds.core.errors import End, PointRefused
from verify.scenario import Scenario, evaluate_point
from verify.search.rays import Ray, ray_points

__all__ = ["OPEN_ENDS", "exact_at", "moves_inputs", "tight_base", "widened"]

SWEEPS = 3  # greedy sweeps over the axes (each axis to each end, an integer axis also to low + 1)


#: the kinds of high end a ray may run past where its far point is scored exactly (``Param.end``, declared)
OPEN_ENDS = (End.STAND_IN, End.COST)


def widened(scenario: Scenario, ray: Ray, base: Mapping[str, Any], decades: float) -> tuple[Scenario, str]:
    """``scenario`` with ``ray``'s axis run past a cost cap to ``low x 10^decades`` (module docstring), and a note
    saying so; the scenario unchanged (note "") where the rule does not apply or the far point is not exact."""
    from verify.search.cost import point_fidelity

    p = next(q for q in scenario.space if q.name == ray.axis)
    end = float(p.low) * 10 ** decades if p.low > 0 else 10 ** decades
    if ray.end != "high" or not p.integer or p.end not in OPEN_ENDS or float(p.high) >= end:
        return scenario, ""
    wide = dataclasses.replace(p, high=int(math.ceil(end)) if p.integer else end)
    sc = dataclasses.replace(scenario, space=tuple(wide if q.name == p.name else q for q in scenario.space))
    try:
        kind, _ = point_fidelity(sc, {**base, p.name: wide.high}, 2)
    except PointRefused:  # a builder that refuses the far point: the space's own end stands
        return scenario, ""
    if kind != "exact":
        return scenario, ""
    end_kind = "cost cap" if p.end == End.COST else "stand-in end"
    return sc, (f"{p.name} run past its {end_kind} {p.high:g} to {wide.high:g} (the theorem has no upper end; "
                "every point scored exactly)")


def exact_at(scenario: Scenario, point: Mapping[str, Any], *, seed: int = 0, instance: Any = None) -> tuple[Any, str]:
    """(the :class:`verify.scenario.PointEstimate` of ``point``, "") where it is scored exactly, else (None, why).

    The point is built once and its fidelity read before anything is evaluated (``verify.search.cost.instance_fidelity``:
    the rule falsify's search uses, from the declarations and a cost estimate; nothing is run). Why: a point that
    is not scored exactly would be simulated by ``evaluate_point`` (the cosine family on a ray to R = 10^6:
    minutes a point) only to be refused afterwards, and an exact point past the per-point budget
    (``CONVBOUND_POINT_SECONDS``; order 561 at d = 32: about 10 s) is cut here as falsify cuts it, said as such.
    An exact path that declines at evaluation (a horizon past a step schedule's reach) still falls back to a
    simulation; its estimate says so (``exact`` empty) and is refused too. ``instance``: the point already built
    (a caller that built it to compare it with another). The estimate carries no per-round curve
    (``verify.exact_score.without_series``): a ray keeps each point's LHS and RHS only, and the curve is a second
    recursion (about a seventh of `orders FAST.T1`'s CPU)."""
    from verify.exact_score import without_series
    from verify.search.cost import instance_fidelity

    full = scenario.point(point)
    inst = scenario.build(full) if instance is None else instance
    kind, why = instance_fidelity(inst, 2)
    if kind == "cut":
        return None, f"cut by cost: {why}"
    if kind not in ("exact", "per-trial") or inst.run is not None:
        return None, why or "its evidence is not an engine trajectory (Instance.run)"
    with without_series():
        est = evaluate_point(scenario, full, trials=2, seed=seed, instance=inst)
    return (est, "") if est.exact else (None, "the exact path declined at evaluation; it was simulated")


def _end_point(scenario: Scenario, ray: Ray, base: Mapping[str, Any]) -> dict[str, Any]:
    return ray_points(scenario.space, base, ray, [1.0])[0]


def moves_inputs(scenario: Scenario, ray: Ray, base: Mapping[str, Any]) -> bool:
    """Whether moving along ``ray`` from ``base`` changes an input of the result (e.g. mu/L at d = 1 does not)."""
    return _far_if_moved(scenario, ray, base) is not None


def _far_if_moved(scenario: Scenario, ray: Ray, base: Mapping[str, Any]) -> Any:
    """The ray's far point from ``base`` built, where moving along the ray changes an input of the result; else
    None (also where the builder refuses either end: a point it refuses moves nothing)."""
    near = ray_points(scenario.space, base, ray, [0.0])[0]
    far = _end_point(scenario, ray, base)
    try:
        far_inst = scenario.build(scenario.point(far))
        moved = dict(scenario.build(scenario.point(near)).values) != dict(far_inst.values)
    except PointRefused:
        return None
    return far_inst if moved else None


def tight_base(scenario: Scenario, ray: Ray, base: Mapping[str, Any], *, seed: int = 0,
               scores: dict[tuple, float] | None = None) -> tuple[dict[str, Any], float]:
    """The greedy tight base of ``ray`` from ``base`` (module docstring) and its LHS/RHS at the ray's far end
    (-inf when no move leaves a point that is admissible, scored exactly and moved by the ray).

    An axis the builder does not read at the base's family (``Param.families``) is not moved: it changes
    nothing built. ``scores``: the far ends already scored for this ray at this seed (far point -> LHS/RHS),
    kept by a caller that climbs the same ray from several bases. Why: a far end is a pure function of the
    point (the build and the exact path are deterministic at a seed), and the greedy meets the same one again
    (a sweep's last candidates before the next sweep's first; bases that climb to the same face): about a
    quarter of FAST.T1's far ends, each up to 0.3 s at M = 2,000, d = 1,000."""
    known: dict[tuple, float] = {} if scores is None else scores

    def score(b: Mapping[str, Any]) -> float:
        far = _end_point(scenario, ray, b)
        key = (seed, *sorted(far.items()))
        if key not in known:
            far_inst = _far_if_moved(scenario, ray, b)
            e = None if far_inst is None else exact_at(scenario, far, seed=seed, instance=far_inst)[0]
            known[key] = (float(e.ratio) if e is not None and e.score is not None and math.isfinite(e.ratio)
                          else -math.inf)
        return known[key]

    from verify.search.cost import point_fidelity

    cur = scenario.point(base)
    try:  # a family not scored exactly is not climbed (each step would be a simulation)
        if point_fidelity(scenario, _end_point(scenario, ray, cur), 2)[0] != "exact":
            return cur, -math.inf
    except PointRefused:  # a point the builder refuses: no base
        return cur, -math.inf
    best = score(cur)
    axes = [p for p in scenario.space if p.choices is None and p.low < p.high and p.name not in (ray.axis, "draw")
            and p.name != ray.horizon and p.read_at(cur)]  # the greedy never moves the family (a choice axis)
    for _ in range(SWEEPS):
        moved = False
        for p in axes:
            for v in (p.low, p.high) + ((p.low + 1,) if p.integer and p.low + 1 < p.high else ()):
                cand = {**cur, p.name: int(v) if p.integer else float(v)}
                if cand == cur:
                    continue
                s = score(cand)
                if s > best * (1 + 1e-9) if best > 0 else s > best:
                    cur, best, moved = cand, s, True
        if not moved:
            break
    return cur, best
