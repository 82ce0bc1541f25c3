"""Check groups contributed by plugins: a user's certificate joins ``convbound verify`` and the report.

**Setting**: a plugin's ``scenarios()`` (entry point group ``convbound.scenarios`` or a ``--plugin``
file, see :mod:`bounds.plugins`) returns a list of any of

- :class:`Check`: an id and a function ``run(ctx) -> list[Verification]`` (``ctx`` is a
  ``verify.certificates.common.Context``; build records with ``certificate(...)`` from that module);
- a scenario object (the falsify layer's ``Scenario``: ``id``, ``result``, ``build(point)`` returning an
  instance with ``problem, algorithm, pattern, rounds, values, measure``): its default point is
  simulated and scored like a certificate.

Each record a plugin check returns carries its origin (a note ``origin: ...`` and
``instance["origin"]``), so tables and the report show where it came from.

>>> from verify.extensions import Check
>>> Check("MY.T1", lambda ctx: [], title="my bound").title
'my bound'
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bounds import plugins
from bounds.core.errors import UserInputError
from verify.record import Verification

__all__ = ["Check", "plugin_checks"]


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


def _as_check(item: Any) -> Check:
    """A plugin's item as a Check (Check, scenario object, or an object with ``id`` that is callable)."""
    if isinstance(item, Check):
        return item
    cid = getattr(item, "id", None)
    if not isinstance(cid, str) or not cid:
        raise UserInputError(f"scenarios() returned a {type(item).__name__} without a string id; "
                             f"return verify.extensions.Check objects or scenarios")
    if hasattr(item, "build") and hasattr(item, "result"):
        return Check(cid, functools.partial(_score_scenario_list, scenario=item), getattr(item, "title", ""),
                     item.result)
    if callable(item):
        return Check(cid, item, getattr(item, "title", ""), getattr(item, "result", ""))
    raise UserInputError(f"scenario {cid!r} is neither a Check, a scenario (build/result) nor callable")


def _score_scenario_list(ctx: Any, scenario: Any) -> list[Verification]:
    return [_score_scenario(ctx, scenario)]


def _score_scenario(ctx: Any, scenario: Any) -> Verification:
    """A scenario at its default point, scored like a hand-built certificate."""
    from verify.certificates.common import certificate

    t0 = time.perf_counter()
    point = scenario.default_point() if hasattr(scenario, "default_point") else {}
    inst = scenario.build(point)
    trials = ctx.n(64, 256)
    sim = ctx.simulate(inst.problem, inst.algorithm, inst.pattern, trials, inst.rounds)
    samples = inst.measure(sim)
    return certificate(ctx, check_id=scenario.id, title=getattr(scenario, "title", scenario.id), key=scenario.result,
                       values=dict(inst.values), samples=samples, instance={"point": dict(point)}, trials=trials,
                       assumed=dict(getattr(inst, "assumed", {}) or {}), started=t0)


def plugin_checks(builtins: Mapping[str, Callable]) -> dict[str, Callable]:
    """Built-in check groups, then every plugin check (entry points, files); clashes raise ``UserInputError``.

    >>> "FAST.T1" in plugin_checks({"FAST.T1": print})
    True
    """
    from dataclasses import replace

    def key(item: Any) -> str:
        return _as_check(item).id

    return plugins.merge("scenarios", builtins, key=key, tag=lambda item, where: replace(_as_check(item), origin=where))
