"""The fidelity and cost of one search point: scored exactly, simulated, or cut by cost.

**Setting**: a search (:func:`verify.search.falsify.search`) draws points from axes bounded by the theorem (its
hypotheses and its symbols' domains), not by what a simulation can afford. Cost is handled per point:

* exact (:func:`verify.exact_score.scored_exactly` says ``"exact"``): from moments, any horizon and client count;
  its cost grows with the cube of the moment recursion's order (the state's size squared), which is sized too,
  or, where it is scored coordinate by coordinate (:mod:`quadratics.exact.diagonal`), with d blocks of order 3
  and a setup linear in M d K;
* per-trial exact: participation and noise integrated given each trial's draw (cost grows with the trials);
* simulated: the engine's Monte Carlo run, sized by :func:`bounds.core.limits.simulation_cost`; a point whose
  estimate exceeds the per-point budget (:func:`bounds.core.limits.point_budget`) is cut, not run, and says so.

**Quantity**: :func:`point_fidelity` -> (kind, reason); :func:`fidelity_shares` -> the record's shares.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["FIDELITIES", "PROPORTIONS", "fidelity_shares", "instance_fidelity", "point_fidelity", "predicted_cost",
           "simulated_cost", "sizing_axes", "within_budget"]

FIDELITIES = ("exact", "per-trial", "simulated", "cut")
#: the fractions of the way from the default point's sizes to a proposal's that :func:`within_budget` tries, the
#: nearest to the proposal first (0: the default point's own sizes, which the shipped instance affords)
PROPORTIONS = (0.5, 0.25, 0.125, 0.0625, 0.0)


def point_fidelity(scenario: Any, point: Mapping[str, Any], trials: int) -> tuple[str, str]:
    """(kind, why) of ``point``: kind in FIDELITIES; ``why``: the cost estimate that cut it, why it is simulated
    (what its objects declare or fail to), or the law an exact point uses. The kind is what
    :func:`verify.scenario.evaluate_point` will do (the same rule: ``verify.exact_score.scoring``)."""
    return instance_fidelity(scenario.build(scenario.point(point)), trials)


def instance_fidelity(inst: Any, trials: int) -> tuple[str, str]:
    """:func:`point_fidelity` of an instance already built (a caller that then evaluates it builds it once)."""
    from bounds.core.limits import over_budget, point_budget

    kind, reason, cost = predicted_cost(inst, trials)
    cut = over_budget(cost, *point_budget())
    if not cut:
        return kind, reason
    return "cut", f"{cut} ({'scored exactly otherwise' if kind == 'exact' else 'simulated because'}: {reason})"


def predicted_cost(inst: Any, trials: int) -> tuple[str, str, Any]:
    """(kind, why, :class:`bounds.core.limits.Cost`) of scoring ``inst`` with ``trials`` trials: kind ``exact``,
    ``per-trial`` or ``simulated`` as :func:`verify.exact_score.scoring` decides it, and the predicted seconds and
    memory from the family's sizes (d, M, K, rounds, trials), before anything is run."""
    from bounds.core.limits import exact_cost, per_trial_cost
    from quadratics.exact.evaluate import exact_shape
    from verify.exact_score import scoring

    kind, reason = scoring(inst)
    M, d, K = _sizes(inst)
    if kind == "exact":  # any horizon and client count; the state's size sets the cost (blocks x order^3 log R)
        order, blocks = exact_shape(inst.problem, inst.algorithm, inst.pattern)
        # by coordinate (blocks = d): coefficients over 2M + 1 features (a few dozen passes over M x d numbers)
        # and the check's engine round on 3 clients (K steps over 3 x d); 0.3-2 s at M = d = 1,000, K = 64 from
        # fresh objects, load 1-2 (tests/benchmarks/bench_exact_dimension.py)
        # and, either way, the problem's own set-up in d: 4e4 element operations a coordinate (2e-4 s at the element
        # rate of bounds.core.limits; measured 0.23 s at d = 1,000, M = 4 on FAST.T1's quadratic)
        setup = (60.0 * M * d + 6.0 * K * d + 4e4 * d, 12.0 * M * d) if blocks > 1 else (4e4 * d, 0.0)
        return kind, reason, _plus_point(exact_cost(order, int(inst.rounds), blocks, setup))
    if kind == "per-trial":
        return kind, reason, _plus_point(per_trial_cost(int(trials), M, d))
    return "simulated", reason, simulated_cost(inst, trials)


def simulated_cost(inst: Any, trials: int) -> Any:
    """The predicted :class:`bounds.core.limits.Cost` of simulating ``inst`` with ``trials`` trials (the engine's
    Monte Carlo run, whatever path would score it: a cross-check of an exact point replays it so)."""
    from bounds.core.limits import simulation_cost

    M, d, K = _sizes(inst)
    return _plus_point(simulation_cost(int(trials), max(1, int(inst.rounds)), M, d, K,
                                       active=_active_clients(inst.pattern, int(trials), M),
                                       path=_step_path(inst.problem)))


def _sizes(inst: Any) -> tuple[int, int, int]:
    """(clients M, dimension d, local steps K) of ``inst``, each at least 1 (an object that does not say: 1)."""
    M, d, K = (max(1, int(getattr(o, a, 1) or 1)) for o, a in ((inst.problem, "M"), (inst.problem, "d"),
                                                                  (inst.algorithm, "K")))
    return M, d, K


def _active_clients(pattern: Any, trials: int, M: int) -> int:
    """The clients a simulated round's local steps run on: the engine gathers the n largest weights per trial, n the
    most participants of the round over the trials (quadratics.engine._Participation), not all M; read from the
    pattern's own draw of round 0 (a pure function of seed and round; FAST.T1's default: 5 of 10 clients, so the
    former count of M put its simulated points at twice their measured time)."""
    import numpy as np

    try:
        q = np.asarray(pattern.draw(pattern.init(trials, 0), 0)[0])
    except Exception:  # a plugin's pattern, whatever fails in it: sizing only, so all M clients (the engine reports it)
        return M
    if q.ndim != 2 or q.shape[0] == 0:
        return M
    return max(1, min(M, int((q > 0).sum(axis=1).max())))


def _step_path(problem: Any) -> str:
    """``"tabulated"`` where the engine runs the affine step kernels (its bound declares ``affine``: one to three tensor
    operations a local step), else ``"general"`` (``bound.grad`` each step); bound on the CPU as the engine binds."""
    import torch

    try:
        bound = problem.bind(torch.device("cpu"), torch.float64)
    except Exception:  # a plugin's problem, whatever fails in it: sizing only, so the dearer path
        return "general"
    return "tabulated" if getattr(bound, "affine", None) is not None else "general"


# what scoring any point costs besides its LHS (the RHS and hypotheses from bounds, the estimate's interval): 1-10 ms of
# CPU once warm (an exact point at d = 2 took 0.010 s in all; a simulated point's scoring 0-7 ms over its simulate call,
# tests/benchmarks/bench_cost_model.py at load 5-6; 0.025 before, from a first, cold case)
_POINT_S = 0.01


def _plus_point(cost: Any) -> Any:
    import dataclasses

    return dataclasses.replace(cost, seconds=cost.seconds + _POINT_S)


def sizing_axes(space: Sequence[Any]) -> list[Any]:
    """The axes that size an instance (what a point costs): integer counts (clients, local steps, rounds, dimension)
    and axes whose high end is a cost cap or a stand-in (``Param.end``); a problem's random seed is no size."""
    return [p for p in space if p.choices is None and p.low < p.high and p.name != "draw"
            and (p.integer or str(p.end) in ("cost", "stand-in"))]


def _toward(p: Any, frm: float, to: float, f: float) -> Any:
    """The value a fraction ``f`` of the way from ``frm`` to ``to`` on ``p``'s scale (log on a log axis)."""
    if p.log and frm > 0 and to > 0:
        x = math.exp(math.log(frm) + f * (math.log(to) - math.log(frm)))
    else:
        x = frm + f * (to - frm)
    x = min(float(p.high), max(float(p.low), x))
    return int(round(x)) if p.integer else x


def within_budget(scenario: Any, point: Mapping[str, Any], trials: int) -> tuple[dict[str, Any], str]:
    """``point`` moved into the per-point budget along its sizing axes, and a note saying how ("" unmoved).

    **Algorithm**: a point predicted to be cut (:func:`point_fidelity`) has its sizing axes (:func:`sizing_axes`)
    taken back toward the default point's values, geometrically on log axes: half the way from the default, then a
    quarter, ..., down to the default's own sizes (:data:`PROPORTIONS`); the first that fits is proposed instead.
    Why: a proposal the search would cut is a point it pays for and never scores (45-51% of FAST.T1's points at
    budget 300 were cut before); its other axes (where the bound is tight, the step, the noise) are what the
    optimiser chose, and they are kept. A point still over the budget at the default's sizes is returned as it is
    (the search counts it as cut). A point the builder refuses is returned as it is (the search counts it).
    """
    if _fits(scenario, point, trials) is not False:
        return dict(point), ""
    base = scenario.point()
    axes = [p for p in sizing_axes(scenario.space) if p.name in point and point[p.name] != base[p.name]]
    for f in PROPORTIONS:
        cand = {**point, **{p.name: _toward(p, float(base[p.name]), float(point[p.name]), f) for p in axes}}
        if _fits(scenario, cand, trials):
            moved = ", ".join(f"{p.name} {point[p.name]:g} -> {cand[p.name]:g}" for p in axes
                              if cand[p.name] != point[p.name])
            return cand, f"projected into the per-point budget ({moved})"
    return dict(point), ""


def _fits(scenario: Any, point: Mapping[str, Any], trials: int) -> bool | None:
    """Whether ``point`` fits the per-point budget: False where it would be cut or its size is refused (both
    counted as cut by cost), None where the builder refuses it for another reason (a domain, a hypothesis)."""
    from bounds.core.errors import PointRefused, SizeRefused

    try:
        return point_fidelity(scenario, point, trials)[0] != "cut"
    except SizeRefused:
        return False
    except PointRefused:
        return None


def fidelity_shares(evaluations: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Shares of the scored points (outside-domain skips excluded) that were scored exactly (exact or per-trial
    exact), simulated, or cut by cost; they sum to 1 when any point was scored, with the counts."""
    counts = {k: 0 for k in FIDELITIES}
    for e in evaluations:
        kind = e.get("fidelity")
        if kind in counts:
            counts[kind] += 1
    n = sum(counts.values())
    share = (lambda k: counts[k] / n if n else 0.0)  # noqa: E731
    projected = sum(bool(e.get("projected")) for e in evaluations)
    out = {"exact": share("exact") + share("per-trial"), "simulated": share("simulated"), "cut": share("cut"),
           "counts": counts, "points": n, "projected": projected,
           "rule": "exact: from moments (per-trial: given each trial's draw); simulated: Monte Carlo; cut: the "
                   "simulation's estimate exceeded the per-point budget, so the point was not scored; projected: "
                   "points proposed over the budget and moved into it along their sizing axes before scoring"}
    climbed = sum(e.get("proposer") == "climb" for e in evaluations)
    if climbed:  # the climb optimiser (verify.search.climb): which points its gradient proposed
        out["climbed"] = climbed / len(evaluations)
        out["climbed_rule"] = ("climbed: the share of points proposed by gradient climbing on exactly scored "
                               "points; the others are stratified draws: the warm-up, every 4th point, and the "
                               "fallback wherever a start is not scored exactly or has no gradient")
    return out
