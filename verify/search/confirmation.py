"""Confirmation of a searched point: a fresh re-run of one point, its verdict, and the guards around it.

**Setting**: a point of a :class:`verify.scenario.Scenario` that a search (``verify.search.falsify``) or a
shrink/orders step wants to claim.
**Quantity**: the point's LHS re-estimated on fresh seeds (exact where ``verify.exact_score`` applies,
with a Monte Carlo cross-check up to :data:`CROSS_CHECK_STEPS`).
**Statement**: the verdict is ``verify.verdict.verdict_of``'s, the one rule ``verify`` uses too: a
violation only at admissible points, ``violated unless`` where they rest on assumed hypotheses.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from bounds.core.errors import PointRefused, UserInputError
from bounds.core.stats import MEAN_LEVEL
from verify.scenario import PointEstimate, Scenario, evaluate_point

__all__ = ["CROSS_CHECK_LEAST_TRIALS", "CROSS_CHECK_STEPS", "PluginFailed", "confirm", "cross_check", "plugin_guard", "plugin_record"]


class PluginFailed(UserInputError):
    """A plugin scenario's code failed; the message names the scenario and where it came from."""


@contextmanager
def plugin_guard(scenario: Scenario, point: Mapping[str, Any] | None = None) -> Iterator[None]:
    """Run one evaluation of ``scenario``: a refused point (:class:`bounds.core.errors.PointRefused`: outside a
    domain, too large to build) passes through by its type, and a crash inside a plugin scenario's code (build,
    measure, complete) becomes one ``UserInputError`` line naming its file.

    Built-in scenarios' own errors propagate unchanged (they are bugs of ours, and tests should see them).
    """
    try:
        yield
    except PointRefused:  # declared by its raiser: the search counts it (skipped or cut), by type
        raise
    except PluginFailed:  # already said with its file (a guard inside a guard)
        raise
    except UserInputError as exc:
        if scenario.origin != "built-in":
            raise PluginFailed(f"plugin scenario {scenario.id} ({scenario.origin}): {exc}") from None
        raise
    except Exception as exc:  # the edge of a user's code: a plugin scenario's failure, whatever it is, is one line
        if scenario.origin == "built-in":
            raise
        at = "" if point is None else " at " + ", ".join(f"{k}={v}" for k, v in dict(point).items())
        raise PluginFailed(f"plugin scenario {scenario.id} ({scenario.origin}) failed{at}: "
                             f"{type(exc).__name__}: {exc}") from None


def confirm(scenario: Scenario, point: Mapping[str, Any], *, trials: int, seed: int, device: str = "cpu",
            level: float = MEAN_LEVEL) -> tuple[dict[str, Any], PointEstimate]:
    """Re-run ``point`` with ``trials`` fresh trials; the verdict by ``verify.verdict.verdict_of`` (a violation only at
    admissible points; ``violated unless`` where they rest on assumed hypotheses, named in ``unless``)."""
    from verify.verdict import unless_clause, verdict_of

    with plugin_guard(scenario, point):
        est = evaluate_point(scenario, point, trials=trials, seed=seed, device=device, level=level)
    low, high = est.ci
    verdict = verdict_of(est)  # the one verdict rule (verify and verify --instance use it too)
    # a conditional violation: the hypotheses it rests on, and what the theorem needs for the point not to count
    needs = [unless_clause(c) for c in est.conditions if c.get("name") in verdict.unless]
    extra: dict[str, Any] = {"why": list(verdict.notes), "unless": list(verdict.unless), "unless_needs": needs}
    if est.kind == "order":
        # hidden constant C (LHS <= C x argument): the confirmed interval's low end / argument bounds it below
        extra["constant_lower_bound"] = low / est.rhs if est.rhs > 0 and est.hypotheses is True else None
        extra["constant_ci"] = [low / est.rhs, high / est.rhs] if est.rhs > 0 else [None, None]
    method = (est.exact or {}).get("method", "monte carlo")
    out = {"verdict": verdict.word, "lhs": est.lhs, "ci": [low, high], "rhs": est.rhs, "ratio": est.ratio,
           "ratio_ci": [low / est.rhs, high / est.rhs] if est.rhs > 0 else [None, None], "trials": trials,
           "method": method, "cross_check": cross_check(scenario, point, est, trials=trials, seed=seed,
                                                        device=device, level=level) if method == "exact" else None,
           "seeds": [seed], "level": level, "hypotheses": est.hypotheses, "conditions": list(est.conditions),
           "values": dict(est.values), "rhs_terms": dict(est.rhs_terms), "describe": dict(est.describe),
           "assumed": dict(est.assumed), **extra}
    return out, est


# Largest Monte Carlo cross-check of an exact confirmation, in rounds x local steps (the engine's cost is about
# linear in them; 20,000 take a few seconds at 4,096 trials of a small quadratic on 2 cores).
CROSS_CHECK_STEPS = 20_000
#: the fewest trials a cross-check replays: fewer would leave its interval too wide to disagree with anything
CROSS_CHECK_LEAST_TRIALS = 16


def cross_check(scenario: Scenario, point: Mapping[str, Any], est: PointEstimate, *, trials: int, seed: int,
                device: str = "cpu", level: float = MEAN_LEVEL) -> dict[str, Any]:
    """A Monte Carlo replay of an exactly scored point: the claim is the exact value (its interval is the
    floating-point bound); the replay checks the exact path against the engine. ``agrees``: the exact
    interval meets the replay's ``level`` confidence interval. Skipped, with the reason, past CROSS_CHECK_STEPS.

    The replay is a simulated point and is sized like one (``verify.search.cost.simulated_cost`` against the
    per-point budget, before it runs): where ``trials`` would not fit, it replays the most trials that do
    (``trials_wanted`` and ``fewer_trials`` say so), and it is skipped, with the predicted cost, where even
    :data:`CROSS_CHECK_LEAST_TRIALS` would not. Why: a confirmation at d = 1,000 and 11,085 rounds replayed
    256 trials in 13 s, six times the budget a search gives any simulated point, for a check whose interval
    needs far fewer trials to meet or miss an exact value."""
    from bounds.core.limits import over_budget, point_budget
    from verify.exact_score import monte_carlo
    from verify.instance import instance_sizes
    from verify.search.cost import simulated_cost

    sizes = instance_sizes(scenario, point)
    steps = sizes["rounds"] * sizes["local_steps"]
    if steps > CROSS_CHECK_STEPS:
        return {"skipped": f"{sizes['rounds']} rounds x {sizes['local_steps']} local steps = {steps} is past the "
                           f"{CROSS_CHECK_STEPS} a Monte Carlo cross-check may take"}
    with plugin_guard(scenario, point):
        inst = scenario.build(scenario.point(point))
    budget = point_budget()
    replay, cut = int(trials), over_budget(simulated_cost(inst, int(trials)), *budget)
    while cut and replay > CROSS_CHECK_LEAST_TRIALS:  # the cost is about linear in the trials
        replay = max(CROSS_CHECK_LEAST_TRIALS, replay // 2)
        cut = over_budget(simulated_cost(inst, replay), *budget)
    if cut:
        return {"skipped": f"a Monte Carlo replay: {cut}"}
    with monte_carlo(), plugin_guard(scenario, point):
        mc = evaluate_point(scenario, point, trials=replay, seed=seed, device=device, level=level, instance=inst)
    lo, hi = mc.ci
    out = {"method": "monte carlo", "lhs": mc.lhs, "ci": [lo, hi], "trials": replay, "seed": seed, "level": level,
           "agrees": bool(lo <= est.ci[1] and est.ci[0] <= hi)}
    if replay < trials:
        out.update(trials_wanted=int(trials), fewer_trials=f"{replay} of {trials} trials: the most that fit the "
                                                           "per-point budget (CONVBOUND_POINT_SECONDS)")
    return out


def plugin_record(scenario: Scenario) -> dict[str, str]:
    """``{"path", "sha256"}`` of the plugin file ``scenario`` came from (empty for built-ins and code)."""
    import hashlib

    from verify.scenarios import plugin_file

    path = plugin_file(scenario)
    if path is None:
        return {}
    with open(path, "rb") as fh:
        return {"path": path, "sha256": hashlib.sha256(fh.read()).hexdigest()}
