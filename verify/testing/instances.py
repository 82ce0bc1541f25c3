"""A hypothesis strategy of a scenario's built instances, for a user's property tests that shrink.

**Setting**: a scenario (:mod:`verify.scenarios`: a result's family of instances, one axis per parameter).
**Quantity**: ``instances_for(scenario_id, **axes)``, a strategy of :class:`ScenarioInstance`: a point of the
scenario's space and the instance its builder made from it, which a test scores with
:meth:`ScenarioInstance.score` (the same :func:`verify.scenario.evaluate_point` that ``verify`` and
``falsify`` use). A failing property shrinks to a minimal instance: counts toward their lower ends,
categorical axes toward their first choice.
**Method**: each axis is drawn from its declared range (log axes on a log scale, integer axes as integers,
categorical axes from the choices a search draws from). Counts (integer axes) run from their low end to the
value of the shipped instance (``Scenario.default_point``) unless an axis is given, so a drawn instance costs
no more than the shipped one. A keyword per axis replaces its strategy (a strategy, or a value to fix it).
A point the builder refuses (:class:`~bounds.core.errors.UserInputError`: incompatible axes, a size cap) is
rejected as a draw, not failed; a space where every draw is refused makes hypothesis report it unsatisfiable.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from bounds.core.errors import UserInputError
from bounds.core.stats import MEAN_LEVEL

__all__ = ["ScenarioInstance", "axis_strategy", "instances_for"]


@dataclass(frozen=True)
class ScenarioInstance:
    """A drawn point of a scenario and the instance built from it; ``score`` simulates it (seeded)."""

    scenario: Any            # verify.scenario.Scenario
    point: Mapping[str, Any]
    instance: Any            # verify.scenario.Instance

    def score(self, *, trials: int = 16, seed: int = 0, level: float = MEAN_LEVEL) -> Any:
        """The point's :class:`verify.scenario.PointEstimate` (LHS with its interval at ``level``, RHS, hypotheses)
        from ``trials`` seeded trials: same seed, same numbers."""
        from verify.scenario import evaluate_point

        return evaluate_point(self.scenario, self.point, trials=trials, seed=seed, level=level, instance=self.instance)

    def __repr__(self) -> str:  # what hypothesis prints for a falsifying example: the scenario and its point
        return f"ScenarioInstance({self.scenario.id!r}, {dict(self.point)!r})"


def axis_strategy(param: Any, *, up_to_default: bool = True) -> st.SearchStrategy[Any]:
    """The strategy of one axis (:class:`verify.scenario.Param`) over its declared range; an integer axis stops at
    the shipped instance's value when ``up_to_default``."""
    if param.choices is not None:
        return st.sampled_from(tuple(param.searched or param.choices))
    low, high = param.low, param.high
    if param.integer:
        lo = math.ceil(low)
        hi = math.floor(high)
        if up_to_default and isinstance(param.default, (int, float)):
            hi = max(lo, min(hi, int(param.default)))
        return st.integers(lo, hi)
    if param.log:
        return st.floats(math.log(low), math.log(high)).map(lambda v: min(high, max(low, math.exp(v))))
    return st.floats(low, high)


def instances_for(scenario_id: str, **axes: Any) -> st.SearchStrategy[ScenarioInstance]:
    """Strategy of built instances of scenario ``scenario_id`` (ids as ``convbound falsify --list`` shows them).

    Args:
        scenario_id: a built-in or plugin scenario (``FAST.T1``, ``F3AST.T3.5``, ...).
        **axes: per axis, a strategy (``R=st.integers(10, 50)``) or a value that fixes it (``problem="quadratic"``);
            values are checked against the axis's range when drawn.

    >>> from verify.testing import instances_for
    >>> strategy = instances_for("FAST.T1", problem="quadratic", R=20)
    """
    from verify.scenarios import get

    scenario = get(scenario_id)
    params = {p.name: p for p in scenario.space}
    extra = sorted(set(axes) - set(params))
    if extra:
        raise UserInputError(f"scenario {scenario.id} has no axis {', '.join(extra)}; its axes: {', '.join(params)}")
    strategies = {name: axes[name] if isinstance(axes.get(name), st.SearchStrategy)
                  else st.just(axes[name]) if name in axes else axis_strategy(p) for name, p in params.items()}
    return _instances(scenario, strategies)


@st.composite
def _instances(draw: Any, scenario: Any, strategies: Mapping[str, st.SearchStrategy[Any]]) -> ScenarioInstance:
    drawn = {name: draw(s) for name, s in strategies.items()}
    point = scenario.point(drawn)  # a value outside an axis's range is the caller's mistake: refused by name
    try:
        instance = scenario.build(point)
    except UserInputError:  # the builder refuses this combination of axes: not an instance, draw another
        assume(False)
        raise  # unreachable: assume(False) stops the draw
    return ScenarioInstance(scenario, point, instance)
