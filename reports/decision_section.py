"""The decision table that heads the report: one decision per result, as ``convbound decide`` gives it.

**Input**: the report document being assembled: its selected results, the worst cases its own worst-case
section computed (and any ``--include``-d), its included searches, plus the evidence store's records (``verify.evidence``).
**Quantity**: :func:`verify.decision_sources.decide_with` over that evidence (the one rule of
``verify.decision``), so the table is ``convbound decide --no-live-pep --worst-case FILE ...`` given the same
records: nothing is solved a second time. A quick report's live worst case is ``decide``'s own live setting
(FAST.T2's tightness, K = 2, R = 3, M = 2), so there it is plain ``convbound decide``'s table.
**Output**: the document entry ``{"evidence": {...}, "records": [Decision.to_dict()]}`` (see
``reports.document``), its rows for both renderers, its HTML section and its PDF section.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape

from reports.decision_views import decision_rows, erratum_pointer

#: What the table's closing line says about the outcomes' strength (as ``convbound decide`` prints it).
CAVEAT = "'consistent so far' is not a proof; 'certified at stated settings' holds at the named settings only."
#: The outcome words (``verify.decision.OUTCOMES``) and their colours in the PDF (the HTML's are in report.css).
OUTCOME_COLOURS = {"refuted": "#b3261e", "refuted unless": "#b3261e", "certified at stated settings": "#1f7a3a",
                   "consistent so far": "#2d5b9a", "open": "#8a5a00"}


# Assemble ----------------------------------------------------------------------------------------------

def decisions_section(doc: Mapping[str, Any], keys: Sequence[str] | None = None) -> dict[str, Any]:
    """The decisions on the report's results (every encoded one, or the registry ``keys`` the report selected)
    from the evidence ``doc`` holds: its ``worst_cases``, ``searches`` and ``verifications`` entries, and the
    evidence store's."""
    from bounds.registry import all_results, get
    from verify.decision_sources import decide_with, stored_evidence
    from verify.record import Verification

    results = list(all_results()) if keys is None else [get(k) for k in keys]
    stored = stored_evidence()
    searches = _records(doc, "searches")
    worst = _records(doc, "worst_cases")
    checks = [("this report's checks", Verification.from_dict(v, "verification")) for v in doc.get("verifications") or ()]
    n = sum(len(ev.searches) for ev in stored.values())
    evidence = {"saved searches": f"{n} falsify records in the evidence store (the user's and the shipped one; "
                                  "read, not rerun)",
                "searches in this report": [s for s, _ in searches],
                "worst cases in this report": [s for s, _ in worst],
                "checks in this report": len(checks),
                "rule": "verify.decision.decide, as convbound decide (--no-live-pep --worst-case per record), "
                        "with this report's verification checks as evidence"}
    return {"evidence": evidence, "records": [d.to_dict() for d in decide_with(results, searches, worst, stored=stored,
                                                                            verifications=checks)]}


def _records(doc: Mapping[str, Any], key: str) -> list[tuple[str, Any]]:
    """``(source, record object)`` for each entry the document holds under ``key``."""
    from reports.schema import ENTRY_KINDS, record_type

    cls = record_type(ENTRY_KINDS[key])
    return [(str(e["source"]), cls.from_dict(e["record"], key)) for e in doc.get(key) or ()]


def refresh_decisions(doc: dict[str, Any]) -> None:
    """Decide again after ``--include`` added searches or worst cases (only where the table is in the report)."""
    if doc.get("decisions") is not None:  # the same results as before
        doc["decisions"] = decisions_section(doc, [str(d["id"]) for d in doc["decisions"].get("records") or ()])


# Rows for both renderers -------------------------------------------------------------------------------

def shown_why(row: Mapping[str, Any]) -> str:
    """The reason as the table shows it: an open result's "no evidence" reason repeats its missing list, which has
    a column of its own, so it is shortened to point there."""
    missing = "; ".join(row["missing"])
    if missing and row["why"].endswith(": " + missing):
        return row["why"][: -len(missing) - 2] + " (see what is missing)"
    return str(row["why"])


def outcome_counts(rows: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How many decisions have each outcome word, in order of first appearance."""
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["word"]] = counts.get(r["word"], 0) + 1
    return counts


# HTML --------------------------------------------------------------------------------------------------

def decisions_html(doc: Mapping[str, Any]) -> str:
    """The ``<section id="decisions">`` (escaped here); result IDs link to their cards when the report has them."""
    from reports.document import anchor

    rows = decision_rows(doc.get("decisions"))
    cards = {str(r.get("key")) for r in doc.get("results") or ()}
    ev = (doc.get("decisions") or {}).get("evidence") or {}
    out = ['<section id="decisions">', "<h2>One decision per result</h2>",
           '<p class="counts">' + "".join(f"<span>{_badge(w)} × {n}</span>" for w, n in outcome_counts(rows).items())
           + "</p>", '<div class="scroll"><table>',
           '<thead><tr><th>Result</th><th>Decision</th><th>Why</th><th class="hide-narrow">What is missing</th>'
           "</tr></thead><tbody>"]
    for r in rows:
        rid = escape(r["id"])
        link = f'<a href="#{anchor("res", r["id"])}">{rid}</a>' if r["id"] in cards else rid
        covered = ("" if not r["covered"] else f'<details><summary>covered ({len(r["covered"])})</summary>'
                   '<ul class="plain">' + "".join(f"<li>{escape(c)}</li>" for c in r["covered"]) + "</ul></details>")
        out.append(f"<tr><td>{link}</td><td>{_badge(r['word'])}{_condition(r)}{erratum_html(r['id'], r['word'])}"
                   f"{rests_on_html(r, cards)}</td>"
                   f"<td>{escape(shown_why(r))}{covered}"
                   f'</td><td class="hide-narrow">{escape("; ".join(r["missing"])) or "-"}</td></tr>')
    out += ["</tbody></table></div>", f'<p class="meta">{escape(CAVEAT)} Evidence: {escape(_evidence_line(ev))}</p>',
            "</section>"]
    return "\n".join(out)


def rests_on_html(row: Mapping[str, Any], cards: set[str] | frozenset[str] = frozenset()) -> str:
    """The decisions a result carries from what it rests on, one ``<div class="rests-on">`` each: "rests on
    FAST.T1: [refuted unless] q >= q_min fails" (the id links to its card when the report has one)."""
    from reports.document import anchor

    out = []
    for c in row.get("rests_on") or ():
        rid = escape(str(c["id"]))
        link = f'<a href="#{anchor("res", c["id"])}">{rid}</a>' if c["id"] in cards else rid
        out.append(f'<div class="rests-on">rests on {link}: {_badge(str(c["word"]))}'
                   f'{_condition({"outcome": c["outcome"], "word": c["word"]})}{erratum_html(c["id"], c["word"])}</div>')
    return "".join(out)


def erratum_html(key: str, word: str) -> str:
    """`` (erratum: convbound erratum KEY)`` after a refuted or conditionally refuted decision, else ''."""
    pointer = erratum_pointer(str(key), str(word))
    return f' <span class="meta erratum">(erratum: <code>{escape(pointer)}</code>)</span>' if pointer else ""


def badge_html(word: str) -> str:
    """A decision's badge (its outcome word), escaped: the one badge every view draws."""
    return _badge(word)


def _badge(word: str) -> str:
    return f'<span class="badge d-{word.replace(" ", "-")}">{escape(word)}</span>'


def _condition(row: Mapping[str, Any]) -> str:
    """The rest of a conditional outcome ("q >= q_min fails" after "refuted unless"), beside its badge."""
    rest = row["outcome"][len(row["word"]):].strip()
    return f' <span class="meta">{escape(rest)}</span>' if rest else ""


def _evidence_line(ev: Mapping[str, Any]) -> str:
    worst = ev.get("worst cases in this report") or []
    searches = ev.get("searches in this report") or []
    return (f"{ev.get('saved searches', 'no saved searches')}; {len(searches)} search(es) and {len(worst)} worst "
            f"case(s) of this report{': ' + ', '.join(worst) if worst else ''}; rule {ev.get('rule', 'not recorded')}.")


# PDF ---------------------------------------------------------------------------------------------------

def decisions_pdf(k: Any, doc: Mapping[str, Any]) -> None:
    """The same table in the PDF (``k``: ``reports.pdf``'s kit), right after the title and banners."""
    rows = decision_rows(doc.get("decisions"))
    if doc.get("decisions") is None:
        return
    P, cell, story = k.P, k.cell, k.story
    story.append(P("One decision per result", k.h2))
    story.append(P(" · ".join(f"{_coloured(w)} × {n}" for w, n in outcome_counts(rows).items()) or "no result", k.body))
    table = [[P("<b>Result</b>", cell), P("<b>Decision</b>", cell), P("<b>Why</b>", cell), P("<b>Missing</b>", cell)]]
    for r in rows:
        carried = "".join(f"<br/>rests on {escape(str(c['id']))}: {_coloured(str(c['word']), str(c['outcome']))}"
                          for c in r["rests_on"])
        table.append([P(escape(r["id"]), cell), P(_coloured(r["word"], r["outcome"]) + carried, cell),
                      P(escape(shown_why(r)), cell), P(escape("; ".join(r["missing"])) or "-", cell)])
    mm, width = k.mm, k.width
    story.append(k.grid(table, [32 * mm, 30 * mm, (width - 62 * mm) * 0.55, (width - 62 * mm) * 0.45]))
    ev = (doc.get("decisions") or {}).get("evidence") or {}
    story.append(P(escape(CAVEAT + " Evidence: " + _evidence_line(ev)), k.small))


def _coloured(word: str, text: str | None = None) -> str:
    return f'<font color="{OUTCOME_COLOURS.get(word, "#000000")}"><b>{escape(text or word)}</b></font>'
