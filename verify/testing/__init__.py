"""Assertions for a user's own test suite: a bound holds on an instance, a rate has an exponent.

**Setting**: a theorist's tests (pytest, hypothesis) about their own bound or a shipped one.
**Helpers**: :func:`assert_bound_holds` runs a check group (by id, a :class:`~verify.extensions.Check`,
or a scenario) with a seeded Monte Carlo and fails unless every certificate ``holds`` at the given
confidence level (negative controls must be ``violated``); :func:`assert_rate` fits the log-log slope
(with a t interval, :mod:`verify.fit`) and fails unless the predicted exponent lies inside it;
:func:`params_for` is the hypothesis strategy of valid parameter sets of any result key, built-in or
plugin (:mod:`verify.testing.strategies`); :func:`instances_for` the strategy of a scenario's built instances,
which a property test scores and which shrink to a minimal failing instance (:mod:`verify.testing.instances`); :func:`assert_conforms` fails unless a user's federated
implementation conforms to the algorithm and participation law it claims (:mod:`verify.conformance`).
The pytest plugin (``-p convbound``) offers these as fixtures.

>>> from verify.testing import assert_rate
>>> fit = assert_rate([1, 2, 4, 8], [1.0, 0.7071, 0.5, 0.35355], exponent=-0.5)
>>> round(fit.slope, 3)
-0.5
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from bounds.core.stats import MEAN_LEVEL, SLOPE_LEVEL
from verify.fit import SlopeFit, fit_loglog, fit_over_seeds
from verify.record import Verification

__all__ = ["assert_bound_holds", "assert_conforms", "assert_rate", "instances_for", "params_for"]


def _runner(target: Any):
    from verify.extensions import _as_check
    from verify.suite import registry, select

    if isinstance(target, str):
        reg = registry()
        return [reg[cid] for cid in select([target])]
    return [_as_check(target)]


def assert_bound_holds(target: Any, *, level: float = MEAN_LEVEL, trials: int | None = None, seed: int = 0,
                       device: str = "cpu") -> list[Verification]:
    """Run a check group and assert its certificates hold (controls violated) at confidence ``level``.

    Args:
        target: a check id or prefix (``"FAST.T2"``, a plugin's id), a ``verify.Check``, or a scenario.
        level: two-sided confidence level of every interval.
        trials: Monte Carlo trials per check (default: the check's own full-size count).
        seed: base seed (same seed, same numbers).
        device: ``cpu`` or ``cuda``.

    Returns the Verification records (for further assertions). Raises ``AssertionError`` listing
    every record whose verdict is not the expected one.

    What a pass covers: each certificate is the one instance it names (a scenario: its default point,
    scored by ``verify.scenario.evaluate_point`` as ``verify`` and ``falsify``'s confirmation score it),
    at this seed; it is not a proof over the result's domain (search the space with ``falsify``).

    >>> from verify import Check, Verification
    >>> ok = Check("DEMO", lambda ctx: [Verification(id="DEMO", title="demo", verdict="holds")])
    >>> [v.verdict for v in assert_bound_holds(ok)]
    ['holds']
    """
    from verify.checks import Context

    if not 0 < level < 1:
        raise ValueError(f"level={level} must lie in (0, 1)")
    ctx = Context(trials=trials, seed=seed, device=device, level=level)
    records: list[Verification] = []
    for run in _runner(target):
        records += list(run(ctx))
    if not records:
        raise AssertionError(f"{target!r} produced no verification records")
    bad = [v for v in records if not v.ok]
    if bad:
        lines = [f"{v.id}: {v.verdict} (want {v.expected}); LHS {v.lhs} CI {list(v.ci)} RHS {v.rhs}, "
                 f"{v.trials} trials, seed {v.seed}" + "".join(f"; {n}" for n in v.notes) for v in bad]
        raise AssertionError(f"{len(bad)} of {len(records)} verdicts not as expected at level {level}:\n"
                             + "\n".join(lines))
    return records


def assert_rate(x: Sequence[float], y: Sequence[float] | Sequence[Sequence[float]], *, exponent: float,
                tol: float = 0.0, level: float = SLOPE_LEVEL) -> SlopeFit:
    """Assert that log y against log x has slope ``exponent`` (inside the interval widened by ``tol``).

    ``y`` is one curve (least squares with a t interval on the slope) or one row per seed (a slope per
    seed, t interval across seeds). The interval is never narrower than the fit's floating-point error
    (:func:`verify.fit.rounding_error`), so exact power-law data passes with ``tol=0``. Returns the fit.

    >>> fit = assert_rate([100, 200, 400, 800], [3 / 100, 3 / 200, 3 / 400, 3 / 800], exponent=-1)
    >>> assert_rate([1, 2, 4, 8], [1, 0.5, 0.25, 0.125], exponent=-0.5)
    Traceback (most recent call last):
    ...
    AssertionError: slope -1 (95% interval [-1, -1], 4 points; at least +-2.5e-14, the fit's floating-point error) does not contain the exponent -0.5 (tol 0)
    """
    import numpy as np

    arr = np.asarray(y, dtype=float)
    fit = fit_over_seeds(x, arr, level) if arr.ndim == 2 else fit_loglog(x, arr, level)
    if not fit.agrees(exponent, tol):
        # enough digits that the exponent and the nearer end of the interval print apart
        gap = min(abs(exponent - fit.low), abs(exponent - fit.high)) or 1e-16
        digits = min(17, max(4, 2 - math.floor(math.log10(gap))))
        raise AssertionError(f"slope {fit.slope:.{digits}g} ({level:.0%} interval [{fit.low:.{digits}g}, "
                             f"{fit.high:.{digits}g}], {fit.n} {'seeds' if arr.ndim == 2 else 'points'}; at least "
                             f"+-{fit.rounding:.2g}, the fit's floating-point error) does not contain the exponent "
                             f"{exponent:.{digits}g} (tol {tol:g})")
    return fit


def params_for(key: str, **overrides: Any):
    """Hypothesis strategy of parameter dicts satisfying every hypothesis of result ``key`` (any registry key).

    >>> from verify.testing import params_for
    >>> strategy = params_for("FAST.T1")
    """
    from verify.testing.strategies import params_for as _params_for

    return _params_for(key, **overrides)


def instances_for(scenario_id: str, **axes: Any):
    """Hypothesis strategy of built instances of a scenario (:func:`verify.testing.instances.instances_for`):
    each has ``point``, ``instance`` and ``score(trials=, seed=)``; a failing test shrinks to a minimal one."""
    from verify.testing.instances import instances_for as _instances_for

    return _instances_for(scenario_id, **axes)


def assert_conforms(implementation: Any, *, algorithm: str, law: str, form: str = "function",
                    trials: int | None = None, seed: int = 0, alpha: float | None = None,
                    rounds: int | None = None) -> Any:
    """Fail unless ``implementation`` conforms to ``algorithm`` under ``law`` (:func:`verify.conformance.conform`;
    ``alpha`` the family-wise error rate, default :data:`verify.conformance.ALPHA`). Returns the
    :class:`verify.conformance.ConformanceResult`; the failure message says which quantity departs first, at
    which round and by how many standard errors. ``rounds``: rounds per scenario (default: the check's own)."""
    from verify.conformance import ALPHA, conform

    sizes: dict[str, Any] = {} if rounds is None else {"rounds": rounds}
    result = conform(implementation, algorithm=algorithm, law=law, form=form, trials=trials, seed=seed,
                     alpha=ALPHA if alpha is None else alpha, **sizes)
    assert result.conforms, result.message
    return result
