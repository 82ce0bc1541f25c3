"""Assertions for a user's own test suite: a bound holds on an instance, a rate has an exponent.

**Setting**: a theorist's tests (pytest, hypothesis) about their own bound or a shipped one.
**Helpers**: :func:`assert_bound_holds` runs a check group (by id, a :class:`~verify.extensions.Check`,
or a scenario) with a seeded Monte Carlo and fails unless every certificate ``holds`` at the given
confidence level (negative controls must be ``violated``); :func:`assert_rate` fits the log-log slope
(with a t interval, :mod:`verify.fit`) and fails unless the predicted exponent lies inside it;
:func:`params_for` is the hypothesis strategy of valid parameter sets of any result key, built-in or
plugin (:mod:`verify.testing.strategies`); :func:`assert_conforms` fails unless a user's federated
implementation conforms to the algorithm and participation law it claims (:mod:`verify.conformance`).
The pytest plugin (``-p convbound``) offers these as fixtures.

>>> from verify.testing import assert_rate
>>> fit = assert_rate([1, 2, 4, 8], [1.0, 0.7071, 0.5, 0.35355], exponent=-0.5)
>>> round(fit.slope, 3)
-0.5
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bounds.core.stats import MEAN_LEVEL, SLOPE_LEVEL
from verify.fit import SlopeFit, fit_loglog, fit_over_seeds
from verify.record import Verification

__all__ = ["assert_bound_holds", "assert_conforms", "assert_rate", "params_for"]


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
    seed, t interval across seeds). Returns the fit.

    >>> assert_rate([1, 2, 4, 8], [1, 0.5, 0.25, 0.125], exponent=-0.5)
    Traceback (most recent call last):
    ...
    AssertionError: slope -1 (95% interval [-1, -1], 4 points) does not contain the exponent -0.5 (tol 0)
    """
    import numpy as np

    arr = np.asarray(y, dtype=float)
    fit = fit_over_seeds(x, arr, level) if arr.ndim == 2 else fit_loglog(x, arr, level)
    if not fit.agrees(exponent, tol):
        raise AssertionError(f"slope {fit.slope:.4g} ({level:.0%} interval [{fit.low:.4g}, {fit.high:.4g}], "
                             f"{fit.n} {'seeds' if arr.ndim == 2 else 'points'}) does not contain the exponent "
                             f"{exponent:g} (tol {tol:g})")
    return fit


def params_for(key: str, **overrides: Any):
    """Hypothesis strategy of parameter dicts satisfying every hypothesis of result ``key`` (any registry key).

    >>> from verify.testing import params_for
    >>> strategy = params_for("FAST.T1")
    """
    from verify.testing.strategies import params_for as _params_for

    return _params_for(key, **overrides)


def assert_conforms(implementation: Any, *, algorithm: str, law: str, form: str = "function",
                    trials: int | None = None, seed: int = 0, alpha: float | None = None) -> Any:
    """Fail unless ``implementation`` conforms to ``algorithm`` under ``law`` (:func:`verify.conformance.conform`;
    ``alpha`` the family-wise error rate, default :data:`verify.conformance.ALPHA`). Returns the
    :class:`verify.conformance.ConformanceResult`; the failure message says which quantity departs first, at
    which round and by how many standard errors."""
    from verify.conformance import ALPHA, conform

    result = conform(implementation, algorithm=algorithm, law=law, form=form, trials=trials, seed=seed,
                     alpha=ALPHA if alpha is None else alpha)
    assert result.conforms, result.message
    return result
