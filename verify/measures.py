"""Measures of an instance's left-hand side, and what they declare for the exact path.

**Quantity**: an ``Instance.measure`` (``verify.scenario``) maps a simulation to per-trial LHS samples.
:class:`Measured` is the LHS part of a scored point, whichever path measured it.
**Declaration**: the exact path (:mod:`verify.exact_score`) scores a measure from moments only when it declares
what it is: a quadratic form E[e^T Q e + c^T e + s] of e = x_r - x* at one round, or averaged over rounds
(:class:`quadratics.exact.declare.QuadraticMeasure`): ``measure.quadratic() -> QuadraticMeasure | str``, or,
for a ``functools.partial`` measure (keyword arguments only), ``measure.func.quadratic(**measure.keywords)``; a
string says why not. The built-in :func:`at_round` and :func:`mean_over_rounds` declare themselves this way for
the metrics ``dist_sq = ||e||^2``, ``gap = e^T H e / 2`` and ``grad_sq = ||H e||^2`` (H the problem's Hessian);
:func:`declares` attaches a declaration to a user's own measure function.
A module of its own so that ``verify.scenario`` and ``verify.exact_score`` both import it without importing
each other.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["FORMS", "Measured", "at_round", "declared_measure", "declares", "mean_over_rounds", "metric_form",
           "quadratic_at_round", "quadratic_mean_over_rounds"]

FORMS = ("dist_sq", "gap", "grad_sq")


def metric_form(metric: str) -> Callable[[Any], tuple[Any, Any, float]] | str:
    """The form (problem -> (Q, c, s)) of a built-in metric, or why it has none."""
    if metric not in FORMS:
        return f"metric {metric!r} has no declared quadratic form (declared: {', '.join(FORMS)})"

    def form(problem: Any) -> tuple[Any, Any, float]:
        from quadratics.exact.evaluate import metric_forms

        return metric_forms(problem)[metric]

    return form


def quadratic_at_round(metric: str, r: int) -> Any:
    """The declaration of ``at_round(metric, r)``: E metric at round r."""
    from quadratics.exact.declare import QuadraticMeasure

    form = metric_form(str(metric))
    if isinstance(form, str):
        return form
    if int(r) < 1:
        return "at_round(r=0) is the initial point, not a measured round"
    return QuadraticMeasure("final", int(r), int(r), form, f"E {metric} at round {int(r)}")


def quadratic_mean_over_rounds(metric: str, first: int, last: int) -> Any:
    """The declaration of ``mean_over_rounds(metric, first, last)``: the mean of E metric over first..last."""
    from quadratics.exact.declare import QuadraticMeasure

    form = metric_form(str(metric))
    if isinstance(form, str):
        return form
    if int(last) < 1:
        return f"a mean over rounds {int(first)}..{int(last)} has no measured round"
    return QuadraticMeasure("mean", int(first), int(last), form,
                            f"mean of E {metric} over rounds {int(first)}..{int(last)}")


def declares(quadratic: Callable[..., Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: ``@declares(q)`` on a measure function ``f(sim, **kw)`` declares ``f(**kw)`` as ``q(**kw)`` (a
    QuadraticMeasure or the reason there is none); use f through ``functools.partial(f, **kw)``."""
    def attach(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.quadratic = quadratic  # type: ignore[attr-defined]
        return fn

    return attach


def declared_measure(measure: Any) -> Any:
    """What ``measure`` declares (a QuadraticMeasure), or why it declares nothing (a string)."""
    own = getattr(measure, "quadratic", None)
    if callable(own) and not isinstance(measure, functools.partial):
        found = own()
    elif isinstance(measure, functools.partial):
        fn = getattr(measure.func, "quadratic", None)
        if fn is None:
            return (f"the measure {getattr(measure.func, '__name__', measure.func)!r} declares no quadratic form "
                    "(measure.quadratic): simulated")
        if measure.args:
            return "the measure is a functools.partial with positional arguments (declarations take keywords)"
        try:
            found = fn(**measure.keywords)
        except TypeError as e:
            return f"the measure's declaration does not accept its keywords ({e})"
    else:
        return (f"the measure {getattr(measure, '__name__', type(measure).__name__)!r} declares no quadratic form "
                "(measure.quadratic): simulated")
    if found is None:
        return "the measure declares that it is not a quadratic form here"
    return found


# The two measures an Instance's ``measure`` may be (as functools.partial with keyword arguments) for the exact
# path (verify.exact_score) to compute its LHS from moments instead of simulating: a plugin that uses them gets
# exact scores wherever quadratics.exact covers its problem, algorithm and pattern.
def at_round(sim: Any, metric: str, r: int) -> np.ndarray:
    """Per-trial ``metric`` at round r (a diverged trial -> inf); e.g. ``partial(at_round, metric="dist_sq", r=R)``."""
    out = sim.metrics[metric][r]
    return np.where(np.isfinite(out), out, math.inf)


def mean_over_rounds(sim: Any, metric: str, first: int, last: int) -> np.ndarray:
    """Per-trial average of ``metric`` over rounds first..last (a diverged trial -> inf)."""
    out = sim.metrics[metric][first:last + 1].mean(axis=0)
    return np.where(np.isfinite(out), out, math.inf)


@dataclass(frozen=True)
class Measured:
    """The left-hand side of one scored point, however measured (simulated, exact, per-trial exact).

    Args:
        samples: per-trial LHS samples (or the ends of an exact value's rounding interval).
        lhs, ci: the LHS and its interval (a confidence interval, or value +- floating-point bound).
        trials: trials run (0: none, exact). notes: how it was measured. series: the record's curve.
        exact: the exact path's facts (empty: Monte Carlo).
    """

    samples: Any
    lhs: float
    ci: tuple[float, float]
    trials: int
    notes: tuple[str, ...] = ()
    series: dict[str, Any] = field(default_factory=dict)
    exact: dict[str, Any] = field(default_factory=dict)


at_round.quadratic = quadratic_at_round  # type: ignore[attr-defined]
mean_over_rounds.quadratic = quadratic_mean_over_rounds  # type: ignore[attr-defined]
