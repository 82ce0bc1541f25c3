"""What every view shows of a result's decision: the headline, a check beside its result's decision, a card's line.

**Input**: the report document's ``decisions`` entry (``reports.decision_section``: one ``Decision.to_dict()`` per
result) and its check records. **Quantity**: for the page's first banner, how many results have each outcome
(all five words, zeros included) and which are refuted or refuted unless a hypothesis fails; for a check or a
result card, its result's decision, and where a check's own verdict would read against that decision (a check
that held at its one instance while the result is refuted elsewhere), the line that joins them.
**Statement**: a view never shows a verdict that contradicts the decision without that line; the decision comes
first and the checks are its evidence.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reports.document import point_text

#: The five outcome words in the order the headline counts them (``verify.decision.OUTCOMES``).
HEADLINE_ORDER = ("refuted", "refuted unless", "certified at stated settings", "consistent so far", "open")
#: The decision words whose result has an erratum (``verify.decision``'s refuted outcomes).
ERRATUM_WORDS = ("refuted", "refuted unless")
#: Check verdicts that report a violation (plain or conditional) at the check's instance.
VIOLATION_VERDICTS = ("violated", "violated unless")


def decision_rows(section: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """One plain row per decision: ``id``, ``outcome`` (spelled out), ``word`` (one of the outcomes), ``why``,
    ``missing`` and ``covered`` (lists), ``instance`` (the refuting point the search found, or empty),
    ``minimal_instance`` (the point it was shrunk to, or empty) and ``rests_on`` (the carried decisions of what
    the result rests on: ``id``, ``outcome``, ``word``, ``why``)."""
    from verify.decision import REFUTED_UNLESS

    rows = []
    for d in (section or {}).get("records") or ():
        outcome = str(d["outcome"])
        word = REFUTED_UNLESS if outcome.startswith(REFUTED_UNLESS + " ") else outcome
        rows.append({"id": str(d["id"]), "outcome": outcome, "word": word, "why": str(d["why"]),
                     "missing": [str(m) for m in d.get("missing") or ()],
                     "covered": [str(c) for c in d.get("covered") or ()], "instance": dict(d.get("instance") or {}),
                     "minimal_instance": dict(d.get("minimal_instance") or {}),
                     "conditions_meaning": [str(m) for m in d.get("conditions_meaning") or ()],
                     "rests_on": [dict(r) for r in d.get("rests_on") or ()]})
    return rows


def erratum_pointer(key: str, word: str) -> str:
    """``convbound erratum KEY`` for a refuted or conditionally refuted result, else ''."""
    return f"convbound erratum {key}" if word in ERRATUM_WORDS else ""


def decisions_by_key(doc: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Registry key -> the decision's plain row (:func:`decision_rows`) for this report."""
    return {r["id"]: r for r in decision_rows(doc.get("decisions"))}


def headline(doc: Mapping[str, Any]) -> dict[str, Any] | None:
    """The first banner's content: ``counts`` (outcome word -> number, every word), ``refuted`` (ids),
    ``conditional`` ((id, what must fail, what failing it would mean) triples), ``total``; None when the report decided nothing."""
    if doc.get("decisions") is None:
        return None
    rows = decision_rows(doc.get("decisions"))
    counts = {w: sum(1 for r in rows if r["word"] == w) for w in HEADLINE_ORDER}
    return {"counts": counts, "total": len(rows),
            "refuted": [r["id"] for r in rows if r["word"] == "refuted"],
            "conditional": [(r["id"], r["outcome"][len(r["word"]):].strip(), "; ".join(r["conditions_meaning"]))
                            for r in rows
                            if r["word"] == "refuted unless"]}


def where_refuted(row: Mapping[str, Any]) -> str:
    """The refuting point in words: the minimal instance where the search shrank it, else the search's point."""
    if row.get("minimal_instance"):
        return "the minimal instance " + point_text(row["minimal_instance"])
    if row.get("instance"):
        return point_text(row["instance"])
    return "the point its decision names"


def result_of_check(v: Mapping[str, Any], decided: Mapping[str, Any]) -> str | None:
    """The registry key of the result a check record is evidence about (its instance's ``result``), when the
    report decided that result."""
    inst = v.get("instance")
    key = inst.get("result") if isinstance(inst, Mapping) else None
    return str(key) if key is not None and str(key) in decided else None


def check_beside_decision(verdict: str, control: bool, row: Mapping[str, Any] | None) -> str:
    """The line that joins a check's verdict at its one instance to its result's decision, or '' where they
    agree (or the check is a negative control, which is built to fail and says nothing about the result).

    >>> check_beside_decision("holds", False, {"word": "refuted", "outcome": "refuted", "id": "X",
    ...                                        "minimal_instance": {"M": 2}})
    'holds at this instance; the result is refuted at the minimal instance M = 2: see the decision'
    >>> check_beside_decision("holds", False, {"word": "consistent so far", "outcome": "consistent so far", "id": "X"})
    ''
    """
    if row is None or control:
        return ""
    word = row["word"]
    if word in ("refuted", "refuted unless") and verdict not in VIOLATION_VERDICTS:
        return f"{verdict} at this instance; the result is {row['outcome']} at {where_refuted(row)}: see the decision"
    if word not in ("refuted", "refuted unless") and verdict in VIOLATION_VERDICTS:
        return (f"{verdict} at this instance, a check the decision does not count; the result's decision is "
                f"{row['outcome']}: see the decision")
    return ""


def check_views(doc: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Check id -> ``{"result": key, "row": its decision row, "note": the joining line}`` for each check whose
    result the report decided (other checks are absent)."""
    from reports.document import is_control

    decided = decisions_by_key(doc)
    out: dict[str, dict[str, Any]] = {}
    for v in doc.get("verifications") or ():
        key = result_of_check(v, decided)
        if key is not None:
            row = decided[key]
            out[str(v.get("id"))] = {"result": key, "row": row,
                                     "note": check_beside_decision(str(v.get("verdict")), is_control(v), row)}
    return out


def evidence_of(key: str, views: Mapping[str, Mapping[str, Any]], doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The checks that are evidence about result ``key``: ``id``, ``verdict``, ``control``, ``note``, in report order."""
    from reports.document import is_control

    return [{"id": str(v.get("id")), "verdict": str(v.get("verdict")), "control": is_control(v),
             "note": views[str(v.get("id"))]["note"]}
            for v in doc.get("verifications") or () if views.get(str(v.get("id")), {}).get("result") == key]
