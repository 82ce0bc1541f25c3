"""Report section per falsify search: hand-picked vs searched ratio, confirmation, worst instance, trace.

**Input**: search records (``verify.search.falsify.SearchRecord.to_dict()``, the JSON `convbound falsify
--json` prints), optionally the verify records of the same run (for the hand-picked ratio of the
shipped check). **Output**: one plain dict per result (:func:`falsify_sections`), its trace figure
(:func:`trace_figure`, matplotlib's object API), and HTML / Markdown renderings of the section.
Torch-free; matplotlib is imported inside.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

from reports.document import anchor, closed_form_text, counterexample_text, fmt, point_text, shrunk_fields

__all__ = ["falsify_sections", "render_html", "render_markdown", "trace_figure", "trace_png"]


def _ratio_of(v: Mapping[str, Any] | None) -> float | None:
    if not v:
        return None
    r = v.get("ratio")
    return r if isinstance(r, (int, float)) and math.isfinite(r) else None


def falsify_sections(records: Sequence[Mapping[str, Any]],
                     verifications: Sequence[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
    """One section dict per search record (in the order given).

    ``hand_picked``: the shipped check's ratio from ``verifications`` when present (same id), else the
    search's first evaluation (the default point = the shipped instance, with the search's trials).
    """
    shipped = {v.get("id"): v for v in verifications}
    out = []
    for rec in records:
        c = rec.get("confirmation", {})
        default = rec.get("default", {}).get("estimate")
        hand = _ratio_of(shipped.get(rec["id"])) or _ratio_of(default)
        searched = c.get("ratio") if isinstance(c.get("ratio"), (int, float)) else None
        out.append({
            "id": rec["id"], "result": rec.get("result"), "optimiser": rec.get("optimiser"), "seed": rec.get("seed"),
            "evaluations": rec.get("evaluations"), "admissible": rec.get("admissible"),
            "stopped_by": rec.get("stopped_by"), "hand_picked_ratio": hand,
            "hand_picked_source": "verify record" if rec["id"] in shipped else "search evaluation 1 (default point)",
            "best_first_ratio": (rec.get("best", {}).get("estimate") or {}).get("ratio"),
            "searched_ratio": searched, "ratio_ci": c.get("ratio_ci"), "verdict": c.get("verdict"),
            "unless": list(c.get("unless") or ()),
            "lhs": c.get("lhs"), "ci": c.get("ci"), "rhs": c.get("rhs"), "trials": c.get("trials"),
            "seeds": c.get("seeds"), "gain": searched / hand if searched and hand else None,
            "point": rec.get("best", {}).get("point", {}), "notes": list(rec.get("notes", [])),
            "trace": rec.get("trace", []), **shrunk_fields(rec.get("shrunk")),
        })
    return out


def trace_figure(section: Mapping[str, Any]):
    """Ratio against evaluation (admissible points), best so far, LHS = RHS, and the confirmation interval."""
    from matplotlib.figure import Figure

    from reports.figures import log_scale

    fig = Figure(figsize=(6.4, 3.6), dpi=120)
    fig.subplots_adjust(left=0.13, right=0.97, bottom=0.15, top=0.9)
    ax = fig.add_subplot()
    tr = section["trace"]
    ev = [t["evaluation"] for t in tr]
    r = [t["ratio"] if t.get("admissible") and isinstance(t.get("ratio"), (int, float)) else math.nan for t in tr]
    best = [t["best"] if isinstance(t.get("best"), (int, float)) else math.nan for t in tr]
    ax.scatter(ev, r, s=6, alpha=0.5, label="admissible point (first estimate)")
    ax.plot(ev, best, color="C1", label="best so far")
    ax.axhline(1.0, color="k", lw=0.8, ls="--", label="LHS = RHS")
    ci = section.get("ratio_ci") or [None, None]
    if section.get("searched_ratio") is not None and ci[0] is not None and ev:
        s = section["searched_ratio"]
        ax.errorbar([ev[-1]], [s], yerr=[[s - ci[0]], [ci[1] - s]], fmt="s", color="C3",
                    label=f"confirmation ({section.get('trials')} fresh trials)")
    if section.get("hand_picked_ratio"):
        ax.axhline(section["hand_picked_ratio"], color="C2", lw=0.8, label="hand-picked instance")
    if any(x > 0 for x in r + best if x == x):
        log_scale(ax, "y")
    ax.set_xlabel("evaluation (count)")
    ax.set_ylabel("LHS / RHS")
    ax.set_title(f"falsify {section['id']} ({section.get('optimiser')}, seed {section.get('seed')})", fontsize=9)
    ax.legend(fontsize=7)
    return fig


def trace_png(section: Mapping[str, Any]) -> bytes:
    from reports.figures import to_png

    return to_png(trace_figure(section))


def search_verdict(s: Mapping[str, Any]) -> str:
    """What a search established: a confirmed violation, or what it covered (never "holds": not a proof)."""
    from verify.verdict import INCONCLUSIVE, UNVERIFIED, VIOLATED, VIOLATED_UNLESS

    if s.get("verdict") in (INCONCLUSIVE, UNVERIFIED):  # as verify.decision words it: neither a pass nor a failed check
        return (f"search inconclusive: best point {s.get('verdict')}, ratio {fmt(s.get('searched_ratio'))}; no "
                f"violation confirmed among {s.get('admissible')} admissible points searched, not a proof")
    if s.get("verdict") == VIOLATED:
        return "violated (confirmed on fresh trials)"
    if s.get("verdict") == VIOLATED_UNLESS:
        return (f"violated unless {'; '.join(s.get('unless') or ())} fails (a conditional violation, confirmed on "
                "fresh trials)")
    return (f"not violated at the best point ({s.get('verdict')}); no violation among {s.get('admissible')} "
            "admissible points searched, not a proof")


def render_markdown(sections: Sequence[Mapping[str, Any]], figures: Mapping[str, str] | None = None) -> str:
    """Markdown: one subsection per result (figure paths from ``figures`` by id, else ``falsify-ID.png``)."""
    lines = ["## Worst instances found by search (falsify)", ""]
    for s in sections:
        ci = s.get("ci") or [None, None]
        lines += [f"### {s['id']}", "",
                  f"- hand-picked ratio: {fmt(s['hand_picked_ratio'])} ({s['hand_picked_source']})",
                  f"- searched ratio: {fmt(s['searched_ratio'])} (confirmation CI of the ratio "
                  f"[{fmt((s.get('ratio_ci') or [None])[0])}, {fmt((s.get('ratio_ci') or [None, None])[1])}], "
                  f"{s.get('trials')} fresh trials, seed {(s.get('seeds') or ['-'])[0]}); **{search_verdict(s)}**",
                  f"- LHS {fmt(s['lhs'])} in [{fmt(ci[0])}, {fmt(ci[1])}] vs RHS {fmt(s['rhs'])}",
                  f"- points tried: {s['evaluations']} ({s['admissible']} admissible), {s['optimiser']}, "
                  f"stopped by {s['stopped_by']}",
                  f"- worst instance: {point_text(s['point'])}",
                  *([f"- minimal counterexample: {counterexample_text(s)}"] if s.get("shrunk_point") else []),
                  *([f"- closed form: {closed_form_text(s)}"] if s.get("closed_form") else []),
                  f"- trace: ![trace]({(figures or {}).get(s['id'], 'falsify-' + s['id'] + '.png')})", ""]
        lines += [f"- note: {n}" for n in s["notes"]] + ([""] if s["notes"] else [])
    return "\n".join(lines)


def render_html(sections: Sequence[Mapping[str, Any]], figures: bool = True,
                sources: Sequence[str] | None = None) -> str:
    """An HTML fragment (``<section>``) with the trace figures embedded as PNG data URIs.

    ``sources``: where each record came from (one line under its heading), e.g. the file it was read from.
    """
    import base64

    parts = ['<section id="falsify"><h2>Worst instances found by search (falsify)</h2>']
    for i, s in enumerate(sections):
        e = html.escape
        ci = s.get("ci") or [None, None]
        rci = s.get("ratio_ci") or [None, None]
        # two searches of the same result (e.g. two optimisers) need distinct anchors
        ident = anchor("falsify", s["id"]) + (f"-{i + 1}" if any(t["id"] == s["id"] for t in sections[:i]) else "")
        parts.append(f'<h3 id="{e(ident)}">{e(s["id"])}</h3>')
        if sources:
            parts.append(f'<p class="meta">{e(sources[i])} · {e(str(s.get("optimiser")))}, seed {e(str(s.get("seed")))}, '
                         f"stopped by {e(str(s.get('stopped_by')))}</p>")
        parts.append('<div class="scroll"><table>'
                     f"<tr><th>hand-picked ratio</th><td>{fmt(s['hand_picked_ratio'])} "
                     f"<span class=\"meta\">({e(s['hand_picked_source'])})</span></td></tr>"
                     f"<tr><th>searched ratio</th><td>{fmt(s['searched_ratio'])} [{fmt(rci[0])}, {fmt(rci[1])}] "
                     f"({s.get('trials')} fresh trials)</td></tr>"
                     f"<tr><th>verdict</th><td>{e(search_verdict(s))}: LHS {fmt(s['lhs'])} "
                     f"[{fmt(ci[0])}, {fmt(ci[1])}] vs RHS {fmt(s['rhs'])}</td></tr>"
                     f"<tr><th>points tried</th><td>{s['evaluations']} ({s['admissible']} admissible)</td></tr>"
                     f"<tr><th>worst instance</th><td>{e(point_text(s['point']))}</td></tr>"
                     + (f"<tr><th>minimal counterexample</th><td>{e(counterexample_text(s))}</td></tr>"
                        if s.get("shrunk_point") else "")
                     + (f"<tr><th>closed form</th><td>{e(closed_form_text(s))}</td></tr>" if s.get("closed_form") else "")
                     + "</table></div>")
        if figures and s["trace"]:
            uri = "data:image/png;base64," + base64.b64encode(trace_png(s)).decode()
            parts.append(f'<figure><img alt="search trace of {e(s["id"])}" src="{uri}"></figure>')
        parts += [f"<p>{e(n)}</p>" for n in s["notes"]]
    parts.append("</section>")
    return "\n".join(parts)
