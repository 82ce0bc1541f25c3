"""Check groups contributed by plugins: a user's certificate joins ``convbound verify`` and the report.

**Setting**: a plugin's ``scenarios()`` (entry point group ``convbound.scenarios`` or a ``--plugin``
file, see :mod:`bounds.plugins`) returns a list of any of

- a scenario (``verify.scenario.Scenario``: ``id``, ``result``, ``space``, ``build(point)``): a check
  group of one :class:`verify.checks.Certify` at its default point, run by the one runner
  (:func:`verify.checks.run_group`, through ``evaluate_point``: every hypothesis rule applies);
- a :class:`verify.checks.Group` (specs over scenarios, e.g. a certificate with its control);
- :class:`Check`: an id and a function ``run(ctx) -> list[Verification]`` (``ctx`` is a
  ``verify.checks.Context``; records from ``verify.certificate``): a user's own procedure, kept for
  plugins written before the specs; it bypasses ``evaluate_point``, so prefer a scenario or a Group.

Each record a plugin check returns carries its origin (a note ``origin: ...`` and
``instance["origin"]``), so tables and the report show where it came from.

>>> from verify.extensions import Check
>>> Check("MY.T1", lambda ctx: [], title="my bound").title
'my bound'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bounds import plugins
from bounds.core.errors import UserInputError
from verify.record import Verification

__all__ = ["Check", "certificate", "plugin_checks"]


@dataclass(frozen=True)
class Check:
    """One check group: ``run(ctx)`` returns its Verification records (certificate, controls, rates).

    Args:
        id: the check id shown by ``convbound verify`` (e.g. ``KMR.T3``); unique across all checks.
        run: ``(ctx: Context) -> list[Verification]``; pure given ``ctx.seed`` (same seed, same numbers).
        title: one line for tables.
        result: the ``bounds`` registry key the check certifies, when there is one.
        origin: set by the registry (``built-in``, ``entry point ...``, ``file ...``).

    >>> Check("DEMO", lambda ctx: []).run(None)
    []
    """

    id: str
    run: Callable[[Any], list[Verification]]
    title: str = ""
    result: str = ""
    origin: str = plugins.BUILT_IN

    def __call__(self, ctx: Any) -> list[Verification]:
        records = list(self.run(ctx))
        if self.origin == plugins.BUILT_IN:
            return records
        return [_mark(v, self.origin) for v in records]


def _mark(v: Verification, origin: str) -> Verification:
    if not isinstance(v, Verification):
        raise UserInputError(f"check from {origin} returned a {type(v).__name__}, not a verify.Verification")
    return v.replace(instance={**dict(v.instance), "origin": origin}, notes=v.notes + (f"origin: {origin}",))


def _as_check(item: Any) -> Any:
    """A plugin's item as a check group: a Group or Check as given, a scenario as a Group certifying its
    default point (scored by the one runner), another callable with an ``id`` as a Check."""
    from verify.checks import Certify, Group
    from verify.scenario import Scenario

    if isinstance(item, (Check, Group)):
        return item
    cid = getattr(item, "id", None)
    if not isinstance(cid, str) or not cid:
        raise UserInputError(f"scenarios() returned a {type(item).__name__} without a string id; "
                             f"return verify.scenario.Scenario, verify.checks.Group or verify.Check objects")
    if isinstance(item, Scenario):
        return Group(cid, (Certify(item, id=cid, title=item.title),), title=item.title, origin=item.origin)
    if hasattr(item, "build") and hasattr(item, "result"):
        sc = as_scenario(item)
        return Group(cid, (Certify(sc, id=cid, title=sc.title),), title=sc.title, origin=sc.origin)
    if callable(item):
        return Check(cid, item, getattr(item, "title", ""), getattr(item, "result", ""))
    raise UserInputError(f"scenario {cid!r} is neither a Scenario, a Group, a Check nor callable")


def plugin_checks(builtins: Mapping[str, Callable]) -> dict[str, Callable]:
    """Built-in check groups, then every plugin check (entry points, files); clashes raise ``UserInputError``.

    >>> "FAST.T1" in plugin_checks({"FAST.T1": print})
    True
    """
    from dataclasses import replace

    def key(item: Any) -> str:
        return _as_check(item).id

    return plugins.merge("scenarios", builtins, key=key, tag=lambda item, where: replace(_as_check(item), origin=where))


def _instance_of(point: Mapping[str, Any], *, build: Callable[[Mapping[str, Any]], Any]) -> Any:
    """``build(point)`` as a ``verify.scenario.Instance`` (the fields the object has; defaults for the rest)."""
    from dataclasses import fields

    from verify.scenario import Instance

    made = build(point)
    if isinstance(made, Instance):
        return made
    return Instance(**{f.name: getattr(made, f.name) for f in fields(Instance) if hasattr(made, f.name)})


def as_scenario(item: Any) -> Any:
    """A scenario-like plugin object (``id``, ``result``, ``build(point)``, optional ``title``, ``space`` or
    ``default_point()``) as a ``verify.scenario.Scenario``; without a space, each default value is a
    fixed axis (one choice), so the object is scored at its default point only."""
    import functools

    from verify.scenario import Param, Scenario

    if isinstance(item, Scenario):
        return item
    space = getattr(item, "space", None)
    if space is None:
        point = item.default_point() if hasattr(item, "default_point") else {}
        space = tuple(Param(k, default=v, choices=(v,), doc="fixed (the plugin declares no space)")
                      for k, v in dict(point).items())
    return Scenario(item.id, item.result, getattr(item, "title", "") or item.id, tuple(space),
                    functools.partial(_instance_of, build=item.build), tuple(getattr(item, "notes", ()) or ()),
                    origin=getattr(item, "origin", plugins.BUILT_IN))


def is_scenario(item: Any) -> bool:
    """True for a plugin item that is a scenario (the falsify layer searches those)."""
    from verify.scenario import Scenario

    return isinstance(item, Scenario)


def certificate(ctx: Any, *, check_id: str, title: str, key: str, values: Mapping[str, Any], samples: Any,
                instance: Mapping[str, Any], trials: int, notes: Sequence[str] = (),
                series: Mapping[str, Any] | None = None, assumed: Mapping[str, str] | None = None,
                decided: Mapping[str, tuple[bool | None, str]] | None = None,
                started: float | None = None) -> Verification:
    """Verdict of result ``key`` at ``values`` for per-trial LHS ``samples`` (a user's hand-built ``Check``).

    The same rule as :func:`verify.verdict.verdict_of` (one verdict): the LHS interval against the RHS,
    gated by the hypotheses (``assumed``: name -> why it is met although ``bounds`` cannot check it; a
    violation then reads ``violated unless`` it fails; ``decided``: met by construction, passed to
    ``Result.check``).
    Prefer a scenario (``verify.scenario.Scenario``) scored by ``evaluate_point``: it applies every
    hypothesis rule of the instance (``broken``, ``run_broken``, realised participation).
    """
    import time

    import numpy as np

    import bounds
    from verify.measures import Measured
    from verify.scenario import PointEstimate, check_values
    from verify.verdict import HOLDS, mean_ci, ratio, verdict_of

    result = bounds.get(key)
    checked = check_values(result, values, decided, assumed)
    report, conds = checked.report, checked.conditions
    x = np.asarray(samples, dtype=float)
    est = mean_ci(x, ctx.level)
    point = PointEstimate.build(check_id, {}, Measured(x, est.mean, (est.low, est.high), int(trials)), checked, {},
                                seed=int(ctx.seed), level=ctx.level)
    verdict = verdict_of(point)
    return Verification(
        id=check_id, title=title, verdict=verdict.word, unless=verdict.unless, expected=HOLDS,
        lhs=est.mean, ci=(est.low, est.high), rhs=point.rhs, ratio=ratio(est.mean, point.rhs),
        instance={**dict(instance), "result": result.key, "result_inputs": {k: _num(v) for k, v in values.items()},
                  "rhs_terms": {k: float(np.asarray(v)) for k, v in report.evaluation.terms.items()},
                  "level": ctx.level},
        control=False, kind="certificate", trials=trials, seed=ctx.seed,
        variant=result.variant, conditions=tuple(conds), series=dict(series or {}), notes=tuple(notes) + verdict.notes,
        device=ctx.device, elapsed_s=(time.perf_counter() - started) if started else 0.0,
    )


def _num(v: Any) -> Any:
    import numpy as np

    arr = np.asarray(v, dtype=float)
    return float(arr) if arr.ndim == 0 else arr.tolist()
