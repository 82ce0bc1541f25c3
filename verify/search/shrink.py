"""Minimal counterexamples: a confirmed violation shrunk, move by move, while it stays a violation.

**Setting**: a :class:`verify.scenario.Scenario` of an UPPER result and a point where a violation was
confirmed (``verify.search.falsify.confirm``).
**Algorithm** (:func:`shrink`): greedy passes over the axes in the order of :data:`ORDER` (fewest clients,
smallest dimension, fewest local steps, the simplest problem family, noise and heterogeneity to their
low end, which each scenario's axis docs say stands for 0, the random draw to 0), each axis tried at its
simplest value first, then geometrically closer to where it was; then every real coordinate rounded to
one, then two significant digits. A move is kept when the point is still admissible and its LHS/RHS
stays above 1 (scored exactly where ``verify.exact_score`` applies, else on ``trials`` Monte Carlo
trials with the interval's low end above the RHS); a move to a point that the search's per-point cost
budget would cut (``verify.search.cost``) is not tried; the final point is confirmed again by ``confirm``. The
caller passes the space searched (``verify.search.search_options.search_space``), so no move leaves its families.
**Statement**: the record keeps both points, the moves kept and the confirmation of each; a shrunk
point is *a* simpler violation, not the simplest one (greedy, not exhaustive).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from bounds.core.errors import PointRefused
from verify.scenario import Param, Scenario, evaluate_point

__all__ = ["ShrinkRecord", "shrink"]

# axis names, simplest-first: clients, dimension, local steps, the family, noise, heterogeneity, draw
ORDER = (("M", "N", "clients"), ("d",), ("K", "E", "I"), ("problem",), ("sigma",),
         ("zeta", "sigma_G", "zeta2", "delta"), ("draw",))
PASSES = 2


@dataclass
class ShrinkRecord:
    """The original and the shrunk point, the moves kept (axis, from, to) and both confirmations."""

    scenario: str
    original: dict[str, Any]
    shrunk: dict[str, Any]
    moves: list[dict[str, Any]] = field(default_factory=list)
    evaluations: int = 0
    confirmation: dict[str, Any] = field(default_factory=dict)
    closed_form: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from bounds.core.jsonable import jsonable

        return jsonable(asdict(self))


def _candidates(p: Param, x: Any) -> list[Any]:
    """The values an axis is tried at, simplest first (its low end or first choice, then toward x)."""
    if p.choices is not None:
        return [c for c in p.choices if c != x][:1] if p.choices[0] != x else []
    lo = p.low
    if x == lo:
        return []
    out = [lo]
    if x > 0 and lo > 0:
        out += [math.exp(math.log(lo) + f * (math.log(x) - math.log(lo))) for f in (0.25, 0.5, 0.75)]
    else:
        out += [lo + f * (x - lo) for f in (0.25, 0.5, 0.75)]
    out = [int(round(v)) if p.integer else v for v in out]
    return list(dict.fromkeys(v for v in out if v != x))


def _round(x: float, digits: int) -> float:
    return float(f"{x:.{digits}g}") if x != 0 and math.isfinite(x) else x


def violates_fn(scenario: Scenario, *, trials: int, seed: int) -> Callable[[Mapping[str, Any]], bool]:
    """``point -> still a violation`` (admissible; exact ratio > 1, or Monte Carlo interval above the RHS)."""
    from verify.search.cost import instance_fidelity
    from verify.verdict import RHS_REL

    def violates(point: Mapping[str, Any]) -> bool:
        try:
            inst = scenario.build(scenario.point(point))  # built once: sized, then scored
            if instance_fidelity(inst, trials)[0] == "cut":  # the search's per-point budget holds here too:
                return False  # a move to a point it would not score is not tried (R = 10^6 simulated: hours)
            est = evaluate_point(scenario, point, trials=trials, seed=seed, instance=inst)
        except PointRefused:  # a point the builder or the result refuses is no counterexample
            return False
        return est.score is not None and est.ci[0] > est.rhs * (1 + RHS_REL)

    return violates


def shrink(scenario: Scenario, point: Mapping[str, Any], *, trials: int = 64, confirm_trials: int = 256,
           seed: int = 0, closed_form: bool = True) -> ShrinkRecord:
    """Shrink the violation at ``point`` (module docstring); ``closed_form``: derive it where it is small and linear."""
    from verify.search.falsify import confirm

    axes = {p.name: p for p in scenario.space}
    cur = scenario.point(point)
    violates = violates_fn(scenario, trials=trials, seed=seed)
    rec = ShrinkRecord(scenario.id, dict(cur), dict(cur))
    order = [n for group in ORDER for n in group if n in axes and axes[n].low != axes[n].high]
    for _ in range(PASSES):
        changed = False
        for name in order:
            for v in _candidates(axes[name], cur[name]):
                rec.evaluations += 1
                trial_pt = {**cur, name: v}
                if violates(trial_pt):
                    rec.moves.append({"axis": name, "from": cur[name], "to": v})
                    cur, changed = trial_pt, True
                    break
        if not changed:
            break
    for digits in (1, 2):  # round numbers
        for name, p in axes.items():
            if p.choices is not None or p.integer or not isinstance(cur[name], float):
                continue
            v = min(float(p.high), max(float(p.low), _round(cur[name], digits)))
            if v == cur[name]:
                continue
            rec.evaluations += 1
            if violates({**cur, name: v}):
                rec.moves.append({"axis": name, "from": cur[name], "to": v})
                cur = {**cur, name: v}
    rec.shrunk = dict(cur)
    rec.confirmation, _ = confirm(scenario, cur, trials=confirm_trials, seed=seed)
    if closed_form:
        from verify.search.closed_form import derive

        rec.closed_form = derive(scenario, cur)
    return rec
