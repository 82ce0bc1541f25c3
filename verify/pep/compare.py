"""Which encoded results a worst-case setting covers, and the tightness (worst case / bound) of each.

**Setting**: a worst-case setting (:class:`verify.pep.setting.Setting`) and its certified value.
**Quantity**: per encoded result, whether the setting is an instance of the result's class, and the ratio
value / bound where it is. Which result covers which setting, and how the setting's parameters read as the
result's inputs, is paper knowledge: each result declares it (:mod:`bounds.pep_cover`; found by
:func:`bounds.registry.pep_rule`). This module asks every result's rule, evaluates what it answers, and says why
the others are not compared (a result whose rule says nothing about this class: from its declared convention,
``bounds.conventions``).
**Statement**: the PEP class bounds heterogeneity only at x*, so it contains the classes of the results a
rule covers: the PEP value is >= the worst case over such a class. A ratio <= 1 therefore proves the bound
for every instance of the setting; a ratio > 1 does not show a violation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bounds.pep_cover import NO_RULE, Cover
from verify.pep.setting import Setting


def coverage(s: Setting, value: float) -> list[dict[str, Any]]:
    """The tightness (PEP worst / bound) of every encoded result that covers ``s``, and why others do not.

    Returns one dict per registry key: ``key``, ``covers`` (``yes`` | ``comparison`` | ``no``), ``reason``,
    and, where a bound value exists, ``bound``, ``ratio``, ``hypotheses`` (True/False/None per named
    hypothesis from ``bounds``) and ``hypotheses_hold``.
    """
    from bounds.registry import all_results

    out: list[dict[str, Any]] = []
    for res in all_results():
        row: dict[str, Any] = {"key": res.key, "kind": str(getattr(res.kind, "value", res.kind))}
        cover = rule(res, s)
        row.update(covers=cover.covers, reason=cover.reason)
        if cover.covers != "no" and cover.inputs is not None:
            evaluate_cover(row, res, cover, value)
        out.append(row)
    return out


def rule(key: Any, s: Setting) -> Cover:
    """What result ``key`` (a key or a result) says about ``s``: its declared rule's answer, else the generic one."""
    from bounds.registry import get, pep_rule

    res = get(key)
    declared = pep_rule(res)
    answer = declared.at_convex(s) if declared is not None else None
    return answer if answer is not None else Cover("no", _generic_reason(res.key))


def reason_not_covered(key: str, s: Setting) -> str | None:
    """Why ``key`` does not cover ``s`` (None when it does, or is compared)."""
    cover = rule(key, s)
    return cover.reason if cover.covers == "no" else None


def _generic_reason(key: str) -> str:
    """For a result whose rule says nothing about this class: a non-convex gradient-norm order result is compared
    by the non-convex worst case (its convention says so), any other is not compared."""
    from bounds.conventions import convention_of

    conv = convention_of(key)
    if conv is not None and conv.convexity == "nonconvex" and conv.quantity == "grad-sq" and not conv.why_not:
        return ("a gradient-norm result for non-convex clients, not this distance measure; the non-convex worst "
                "case (worst-case --nonconvex) compares the results verify.pep.nonconvex_cover lists")
    return NO_RULE


def evaluate_cover(row: dict[str, Any], res: Any, cover: Cover, value: float) -> None:
    """``row`` with the result's bound at the rule's inputs, the ratio value / bound and its hypotheses decided
    (the participation assumptions the rule says the setting meets, by kind, decided as it says)."""
    decided = {a.name: cover.decided[a.kind] for a in res.participation if a.kind in cover.decided}
    values: Mapping[str, Any] = cover.inputs or {}
    report = res.check(values, decided)
    hyps = {c.name: (None if c.holds is None else bool(c.holds)) for c in report.conditions}
    bound = float(report.evaluation.value)
    row.update(inputs=dict(values), bound=bound, ratio=value / bound if bound > 0 else None, hypotheses=hyps,
               hypotheses_hold=None if report.holds is None else bool(report.holds))
