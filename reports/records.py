"""Stage-two records in a report: falsify searches, PEP worst cases and participation audits.

**Input**: the JSON records that ``convbound falsify --json``, ``convbound worst-case --json`` and
``convbound audit --json`` print (``report --include FILE``), or a worst case the suite computes live.
**Output**: document entries ``{"source": text, "record": dict}`` under the keys of :data:`KINDS`
(``searches``, ``worst_cases``, ``audits``) and their HTML sections. Reading and checking them is
``reports.schema``'s (one reader of saved evidence).
Nothing here imports torch, cvxpy or PEPit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bounds.core.record import BadRecord

# document key -> (what the record is, the command that writes it)
KINDS: dict[str, tuple[str, str]] = {
    "searches": ("falsify search record", "convbound falsify ID --json"),
    "worst_cases": ("worst-case record", "convbound worst-case --json"),
    "audits": ("audit record", "convbound audit --json"),
}
VALID = "a falsify search record (convbound falsify ID --json), a worst-case record (convbound worst-case --json) " \
        "or an audit record (convbound audit --json)"


def trial_render(key: str, entries: Sequence[Mapping[str, Any]]) -> None:
    """Render the HTML fragment once, so that a value the checks let through fails here, not after the suite."""
    try:
        section_html(key, entries, {})
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, ZeroDivisionError) as exc:
        raise BadRecord(f"a field could not be rendered ({type(exc).__name__}: {exc})") from None


def add_entries(doc: dict[str, Any], included: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """Append included entries to the document, by kind, after those it already holds."""
    for key, entry in included:
        doc.setdefault(key, [])
        if doc[key] is None:
            doc[key] = []
        doc[key].append(entry)


# HTML -----------------------------------------------------------------------------------------------

def section_html(key: str, entries: Sequence[Mapping[str, Any]], doc: Mapping[str, Any]) -> str:
    """The HTML ``<section>`` of one kind (searches, worst cases or audits), with each record's source."""
    records = [e["record"] for e in entries]
    sources = [str(e["source"]) for e in entries]
    if key == "searches":
        from reports.falsify_section import falsify_sections, render_html

        return render_html(falsify_sections(records, doc.get("verifications") or []), sources=sources)
    if key == "worst_cases":
        from reports.worstcase_section import worstcase_section

        return worstcase_section(records, sources=sources)
    from reports.audit_section import audit_html

    parts = ['<section id="audits"><h2>Participation audits</h2>']
    for i, (rec, src) in enumerate(zip(records, sources)):
        lg = rec["log"]
        parts.append(audit_html(rec, title=f"Audit of {lg.get('source', 'a log')}", ident=f"audit-{i + 1}",
                                heading="h3", source=src))
    parts.append("</section>")
    return "\n".join(parts)


# where each kind's section starts (HTML id) and its name in the table of contents
SECTION_TITLES = {"searches": ("falsify", "Searches"), "worst_cases": ("worst-cases", "Worst cases"),
                  "audits": ("audits", "Audits")}
