"""The decision `show` and `check` print first: a result's decision from the saved evidence, and what it rests on.

**Quantity**: ``verify.decision_sources.decide_with`` over the stored evidence (the user's store and the shipped
one), no worst case solved (``cvxpy`` and
the PEP stay unloaded, so `show` and `check` start fast): the decision ``convbound decide ID --no-live-pep`` gives.
A refuted or conditionally refuted result points to ``convbound erratum ID``; a result that rests on one points
there too.
"""

from __future__ import annotations

from typing import Any

from reports.decision_views import ERRATUM_WORDS, erratum_pointer


def result_decision(res: Any, from_file: bool) -> Any | None:
    """``res``'s :class:`verify.decision.Decision` (None for a result read from a file: decisions are about
    registered results, whose evidence is keyed by their registry key)."""
    if from_file:
        return None
    from verify.decision_sources import decide_with, needed_keys, stored_evidence

    # versions read from the installed distribution's metadata would load importlib.metadata: `show` states none
    return decide_with([res], [], [], stored=stored_evidence(keys=needed_keys([res])),
                       versions={"convbound": "not read by show/check"})[0]


def decision_lines(d: Any) -> list[str]:
    """The decision in lines: outcome (and the command that gives it), why, each condition and what failing it
    would mean, the decisions it rests on with their errata, its own erratum."""
    lines = [f"decision: {d.outcome}  (from the saved evidence, as 'convbound decide {d.id} --no-live-pep')",
             f"  why: {d.why}"]
    for name in d.conditions:
        lines.append(f"  condition: the refutation counts unless '{name}' fails at the refuting point")
    lines += [f"  {m}" for m in d.conditions_meaning]
    for r in d.rests_on:
        pointer = erratum_pointer(str(r["id"]), str(r["word"]))
        lines.append(f"  rests on {r['id']}: {r['outcome']}" + (f" (see '{pointer}')" if pointer else ""))
    lines += evidence_lines(d)
    pointer = erratum_pointer(d.id, d.word)
    if pointer:
        lines.append(f"  erratum: {pointer} (the statement, the minimal instance, closed forms, the missing term)")
    return lines


#: How many searches `show` lists as evidence before it counts the rest.
SHOWN_SEARCHES = 6


def evidence_lines(d: Any) -> list[str]:
    """The searches the decision weighed, one line each: a search that held at its own best point says so
    beside a refutation found by another."""
    refuted = d.word in ERRATUM_WORDS
    out = []
    for s in d.searches[:SHOWN_SEARCHES]:
        ratio = "-" if s.get("ratio") is None else f"{s['ratio']:.4g}"
        beside = (" (at its own best point; the result is refuted at another: see the decision)"
                  if refuted and not str(s.get("verdict", "")).startswith("violated") else "")
        out.append(f"  evidence: search {s.get('source')}: best point {s.get('verdict')}, ratio {ratio}{beside}")
    if len(d.searches) > SHOWN_SEARCHES:
        out.append(f"  evidence: {len(d.searches) - SHOWN_SEARCHES} more searches ('convbound decide {d.id} --json')")
    return out


def decision_json(d: Any | None) -> dict[str, Any] | None:
    """The decision as `check --json` carries it: outcome, why, conditions and their meaning, rests_on, erratum."""
    if d is None:
        return None
    return {"outcome": d.outcome, "word": d.word, "why": d.why, "conditions": list(d.conditions),
            "conditions_meaning": list(d.conditions_meaning), "rests_on": [dict(r) for r in d.rests_on],
            "minimal_instance": dict(d.minimal_instance), "instance": dict(d.instance),
            "erratum": erratum_pointer(d.id, d.word) or None,
            "evidence": f"saved searches, as 'convbound decide {d.id} --no-live-pep'"}
