"""Which encoded results a worst-case setting covers, and the tightness (worst case / bound) of each.

**Setting**: a worst-case setting (:class:`verify.pep.setting.Setting`) and its certified value.
**Quantity**: per encoded result, whether the setting is an instance of the result's class, and the ratio
value / bound where it is. Which result covers which setting, and how the setting's parameters read as the
result's inputs, is paper knowledge: each paper module (``verify.scenarios.<paper>``, listed in
``verify.scenarios.PAPER_MODULES``) declares it in ``pep_coverage(key, s)`` (``verify.scenarios.pep_words``).
This module asks them, evaluates what they answer, and says why the others are not compared (a result no
paper module answers for: from its declared convention, ``bounds.conventions``).
**Statement**: the PEP class bounds heterogeneity only at x*, so it contains the classes of the results a
rule covers: the PEP value is >= the worst case over such a class. A ratio <= 1 therefore proves the bound
for every instance of the setting; a ratio > 1 does not show a violation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
        covers, reason, inputs = rule(res.key, s)
        row.update(covers=covers, reason=reason)
        if covers != "no" and inputs is not None:
            _evaluate(row, res, inputs, value)
        out.append(row)
    return out


def rule(key: str, s: Setting) -> tuple[str, str, dict[str, Any] | None]:
    """``(covers, reason, inputs)`` for result ``key`` at ``s``: its paper module's answer, else the generic one."""
    from importlib import import_module

    from verify.scenarios import PAPER_MODULES

    for name in PAPER_MODULES:
        answer = getattr(import_module(name), "pep_coverage", lambda k, s: None)(key, s)
        if answer is not None:
            return answer
    return "no", _generic_reason(key), None


def reason_not_covered(key: str, s: Setting) -> str | None:
    """Why ``key`` does not cover ``s`` (None when it does, or is compared)."""
    covers, reason, _ = rule(key, s)
    return reason if covers == "no" else None


def _generic_reason(key: str) -> str:
    """For a result no paper module answers for: a non-convex gradient-norm order result is compared by the
    non-convex worst case (its convention says so), any other is not compared."""
    from bounds.conventions import convention_of
    from verify.scenarios.pep_words import NO_RULE

    conv = convention_of(key)
    if conv is not None and conv.convexity == "nonconvex" and conv.quantity == "grad-sq" and not conv.why_not:
        return ("a gradient-norm result for non-convex clients, not this distance measure; the non-convex worst "
                "case (worst-case --nonconvex) compares the results verify.pep.nonconvex_cover lists")
    return NO_RULE


def _evaluate(row: dict[str, Any], res: Any, values: Mapping[str, Any], value: float) -> None:
    # only FAST-shaped laws reach here: snapshot rounds uniform m of M with probability q, other rounds by a rule
    decided = {a.name: (True, "the law's snapshot rounds are uniform m of M with probability q (q = 1: every "
                              "round), its other rounds follow a fixed rule, one of FAST's arbitrary processes")
               for a in res.participation if a.kind == "snapshot"}
    report = res.check(values, decided)
    hyps = {c.name: (None if c.holds is None else bool(c.holds)) for c in report.conditions}
    bound = float(report.evaluation.value)
    row.update(inputs=dict(values), bound=bound, ratio=value / bound if bound > 0 else None, hypotheses=hyps,
               hypotheses_hold=None if report.holds is None else bool(report.holds))
