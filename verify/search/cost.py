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

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["FIDELITIES", "fidelity_shares", "instance_fidelity", "point_fidelity"]

FIDELITIES = ("exact", "per-trial", "simulated", "cut")


def point_fidelity(scenario: Any, point: Mapping[str, Any], trials: int) -> tuple[str, str]:
    """(kind, why) of ``point``: kind in FIDELITIES; ``why``: the cost estimate that cut it, why it is simulated
    (what its objects declare or fail to), or the law an exact point uses. The kind is what
    :func:`verify.scenario.evaluate_point` will do (the same rule: ``verify.exact_score.scoring``)."""
    return instance_fidelity(scenario.build(scenario.point(point)), trials)


def instance_fidelity(inst: Any, trials: int) -> tuple[str, str]:
    """:func:`point_fidelity` of an instance already built (a caller that then evaluates it builds it once)."""
    from bounds.core.limits import exact_cost, over_budget, per_trial_cost, point_budget, simulation_cost
    from quadratics.exact.evaluate import exact_shape
    from verify.exact_score import scoring

    kind, reason = scoring(inst)
    M, d, K = (max(1, int(getattr(o, a, 1) or 1)) for o, a in ((inst.problem, "M"), (inst.problem, "d"),
                                                                  (inst.algorithm, "K")))
    if kind == "exact":  # any horizon and client count; the state's size sets the cost (blocks x order^3 log R)
        order, blocks = exact_shape(inst.problem, inst.algorithm, inst.pattern)
        # by coordinate (blocks = d): coefficients over 2M + 1 features (a few dozen passes over M x d numbers)
        # and the check's engine round on 3 clients (K steps over 3 x d); 0.3-2 s at M = d = 1,000, K = 64 from
        # fresh objects, load 1-2 (tests/benchmarks/bench_exact_dimension.py)
        setup = (60.0 * M * d + 6.0 * K * d, 12.0 * M * d) if blocks > 1 else (0.0, 0.0)
        cut = over_budget(exact_cost(order, int(inst.rounds), blocks, setup), *point_budget())
        return ("cut", f"{cut} (scored exactly otherwise: {reason})") if cut else ("exact", reason)
    if kind == "per-trial":
        cost = per_trial_cost(int(trials), M)
    else:
        cost = simulation_cost(int(trials), max(1, int(inst.rounds)), M, d, K)
        kind = "simulated"
    cut = over_budget(cost, *point_budget())
    return ("cut", f"{cut} (simulated because: {reason})") if cut else (kind, reason)


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
    out = {"exact": share("exact") + share("per-trial"), "simulated": share("simulated"), "cut": share("cut"),
           "counts": counts, "points": n,
           "rule": "exact: from moments (per-trial: given each trial's draw); simulated: Monte Carlo; cut: the "
                   "simulation's estimate exceeded the per-point budget, so the point was not scored"}
    climbed = sum(e.get("proposer") == "climb" for e in evaluations)
    if climbed:  # the climb optimiser (verify.search.climb): which points its gradient proposed
        out["climbed"] = climbed / len(evaluations)
        out["climbed_rule"] = ("climbed: the share of points proposed by gradient climbing on exactly scored "
                               "points; the others are stratified draws: the warm-up, every 4th point, and the "
                               "fallback wherever a start is not scored exactly or has no gradient")
    return out
