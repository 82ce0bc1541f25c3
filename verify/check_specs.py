"""What a check group declares: its specs (certificate, control, sweep, contrast, exact).

Plain frozen dataclasses; ``verify.checks`` runs them (``run_group``) and re-exports every name here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from verify.verdict import (
    HOLDS,
)

# Largest allowed spread max c / min c of the fitted hidden constant of an ORDER result over a sweep.
SPREAD_MAX = 4.0


# Specs ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Certify:
    """The scenario's verdict at one point (record kind ``certificate``).

    Args:
        scenario: scenario id (or a ``Scenario`` object, e.g. a plugin's). point: axis overrides of its
            default point.
        id: record id (default: the scenario id). title: one line (default: the scenario's title).
        trials: (quick, full) trial counts.
        expected: the verdict that counts as success (a documented finding may expect ``violated``).
        outside: admit values outside the axes' ranges (a point the space's box leaves out on purpose).
        notes: carried into the record.
        quick: overrides of ``point`` in quick mode (e.g. fewer rounds).
        stream: specs of one group with the same ``stream`` share their simulation seed (paired: e.g. a
            published and a corrected form at one instance, on the same draws); "" = the spec's own.
    """

    scenario: Any
    point: Mapping[str, Any] = field(default_factory=dict)
    id: str = ""
    title: str = ""
    trials: tuple[int, int] = (64, 256)
    expected: str = HOLDS
    outside: bool = False
    notes: tuple[str, ...] = ()
    quick: Mapping[str, Any] = field(default_factory=dict)
    stream: str = ""


@dataclass(frozen=True)
class Control:
    """Negative control: the scenario (an id or a ``Scenario``) at a point just outside hypothesis ``broken``;
    the bound must fail.

    The record is ``violated`` only when the interval clears the RHS and ``broken`` is decided False at
    the point; if ``broken`` is not decided False the control is ``inapplicable`` (it no longer tests
    what ``note`` says).
    """

    scenario: Any
    point: Mapping[str, Any]
    broken: str
    id: str
    title: str
    note: str
    trials: tuple[int, int] = (32, 64)
    stream: str = ""


@dataclass(frozen=True)
class Sweep:
    """One axis swept; the verdict is a fit over the sweep.

    Args:
        scenario, point: the scenario and the fixed part of the point.
        axis: the swept axis; values: (quick, full) value lists (an empty quick list: full mode only).
        fit: ``"slope"``: per-seed-group log-log slope of the LHS against the axis, ``holds`` when
            ``exponent`` lies in its interval widened by ``tol``; ``"constant"``: ORDER shape, the
            fitted constant LHS/argument (argument = the scenario's RHS, or ``argument(est, first)``)
            keeps max/min <= ``spread``.
        exponent: predicted exponent, or a result key whose ``rate_map[axis]`` gives it.
        groups: seed groups the trials are split into (slope: a t interval across groups).
        statistic: the per-trial LHS samples of one group -> the group's value (default: mean).
        argument: ``(PointEstimate, first axis value) -> float`` replacing the RHS as the argument of a
            constant fit (a module-level function, e.g. a false faster rate for a control).
        expected, control: ``violated`` and True for a control that must fail the fit.
    """

    scenario: Any
    axis: str
    values: tuple[tuple[Any, ...], tuple[Any, ...]]
    id: str
    title: str
    point: Mapping[str, Any] = field(default_factory=dict)
    fit: str = "slope"
    exponent: float | str = 0.0
    tol: float = 0.0
    spread: float = SPREAD_MAX
    groups: int = 8
    trials: tuple[int, int] = (64, 256)
    statistic: Callable[[np.ndarray], float] | None = None
    argument: Callable[[Any, Any], float] | None = None
    expected: str = HOLDS
    control: bool = False
    x_label: str = ""
    y_label: str = ""
    notes: tuple[str, ...] = ()
    stream: str = ""


@dataclass(frozen=True)
class Contrast:
    """Two points of one or two scenarios compared on the same seed (paired trials).

    ``rule="greater"``: ``holds`` when the LHS interval at ``b`` lies wholly above the one at ``a`` and
    the paired difference's interval lies above 0 (the effect is established); else ``violated``.
    """

    a: tuple[Any, Mapping[str, Any]]
    b: tuple[Any, Mapping[str, Any]]
    id: str
    title: str
    rule: str = "greater"
    trials: tuple[int, int] = (64, 256)
    expected: str = HOLDS
    control: bool = False
    broken: str = ""
    notes: tuple[str, ...] = ()
    stream: str = ""


@dataclass(frozen=True)
class Exact:
    """A lemma checked without simulation: the scenario's exact LHS against its RHS.

    The scenario's instance provides ``exact_lhs`` (``() -> (value, floating-point error bound)``), read by
    ``evaluate_point(..., exact_lhs=True)``; ``holds`` when the distance between LHS and RHS is at most the
    error bound (+ ``tol``), else ``violated``. ``expected="violated"`` makes it a control: decided on its own where a hypothesis is broken
    at the point, ``inapplicable`` where none is (the control no longer tests anything).
    """

    scenario: Any
    id: str
    title: str
    point: Mapping[str, Any] = field(default_factory=dict)
    tol: float = 0.0
    expected: str = HOLDS


Spec = Certify | Control | Sweep | Contrast | Exact
