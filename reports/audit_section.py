"""The audit's report section: an audit record (``rate_region.audit.AuditRecord.to_dict()``) as HTML with a figure.

One figure (realised rates with their intervals against the target and r*, flagged clients marked)
and three tables (model fit, variance price, participation hypotheses). Works from the plain dict, so
a saved JSON renders without recomputation.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping
from typing import Any

import numpy as np

from rate_region.fit import gof_text
from reports.figures import FigureImage, _figure


def rates_figure(rec: Mapping[str, Any]):
    fig, ax = _figure()
    r = np.asarray(rec["rates"]["r"])
    lo, hi = np.asarray(rec["rates"]["low"]), np.asarray(rec["rates"]["high"])
    x = np.arange(r.size)
    ax.errorbar(x, r, yerr=[r - lo, hi - r], fmt="o", ms=3, lw=0.8, label=f"realised r ({rec['rates']['level']:.0%} CI)")
    ax.plot(x, rec["target"]["per_client"], "k_", ms=8, label=f"target {rec['target']['text']}")
    ax.plot(x, rec["rstar"]["r"], "g.", ms=4, label="r* (" + rec["rstar"]["source"] + ")")
    flagged = np.asarray(rec["bias"]["flagged"], dtype=int)
    if flagged.size:
        ax.plot(flagged, r[flagged], "rx", ms=7, label=f"flagged (BH, FDR {rec['bias']['alpha']:g})")
    ax.set_xlabel("client (sorted id)")
    ax.set_ylabel("participation rate")
    ax.legend(fontsize=7)
    return fig


def audit_figures(rec: Mapping[str, Any]) -> list[FigureImage]:
    import io

    fig = rates_figure(rec)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return [FigureImage("audit-rates", "audit", "Realised participation rates against the target and r*", buf.getvalue())]


def _row(*cells) -> str:
    return "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>"


def audit_html(rec: Mapping[str, Any], title: str = "Participation audit", *, ident: str = "audit",
               heading: str = "h2", source: str | None = None) -> str:
    """A self-contained HTML fragment (section) for one audit record.

    ``ident``, ``heading``: the section's HTML id and heading level (several audits in one report need
    distinct ids, and sit under one ``h2``); ``source``: where the record came from, shown under the title.
    """
    m, v, b, lg = rec["availability_model"], rec["variance"], rec["bias"], rec["log"]
    ids = rec["rates"]["client_ids"]
    img = audit_figures(rec)[0]
    from rate_region.audit.checks import AUDIT_STATUS as status  # the audit's words: never a verdict field
    missing = f", {lg['missing_pairs']} missing pairs (counted unavailable)" if lg["missing_pairs"] else ""
    parts = [f'<section id="{html.escape(ident)}"><{heading}>{html.escape(title)}</{heading}>',
             *([f'<p class="meta">{html.escape(source)}</p>'] if source else []),
             f"<p>Log {html.escape(str(lg['source']))}: {lg['rows']} rows, {lg['rounds']} rounds, "
             f"{lg['clients']} clients{missing}.</p>",
             f'<figure><img alt="{html.escape(img.caption)}" src="data:image/png;base64,'
             f'{base64.b64encode(img.png).decode()}"><figcaption>{html.escape(img.caption)}</figcaption></figure>',
             '<div class="scroll"><table><tr><th>availability model (BIC)</th><th>BIC</th><th>parameters</th></tr>']
    parts += [_row(c["kind"] + ("" if c["period"] is None else f" (P={c['period']})") + (" chosen" if c["kind"] == m["kind"] else ""),
                   f"{c['bic']:.6g}", c["n_params"]) for c in m["candidates"]]
    g = m["goodness_of_fit"]
    parts.append(f"</table></div><p>Goodness of fit: {html.escape(gof_text(g))} ({html.escape(g['cells'])}).</p>")
    flagged = ", ".join(str(ids[i]) for i in b["flagged"][:20]) + (" ..." if len(b["flagged"]) > 20 else "")
    parts.append(f"<p>Bias test against {html.escape(rec['target']['text'])} ({html.escape(b['method'])}, FDR {b['alpha']:g}): "
                 f"{len(b['flagged'])} client(s) flagged{': ' + html.escape(flagged) if flagged else ''}; "
                 f"{len(b['under_served'])} under-served.</p>")
    if rec["target"].get("convention"):  # target available[:k]: say what "uniform among the available" meant
        off = rec["target"].get("rounds_off_size", 0)
        parts.append(f"<p>Convention: {html.escape(rec['target']['convention'])}."
                     + (f" {off} round(s) selected a number other than min(k, |A_t|)." if off else "") + "</p>")
    parts.append(f"<p>Variance price ({v['objective']}): H(realised r) = {v['H_realised']:.6g}, H(r*) = {v['H_rstar']:.6g}, "
                 f"ratio {v['ratio']:.4g}; max |r - r*| = {v['max_abs_dev_rstar']:.4g}.</p>")
    parts.append('<div class="scroll"><table><tr><th>check</th><th>results</th><th>status</th><th>evidence</th></tr>')
    parts += [_row(c["check"], ", ".join(c["results"]), status[c["status"]], c["reason"]) for c in rec["checks"]]
    parts.append("</table></div></section>")
    return "\n".join(parts)


def audit_page(rec: Mapping[str, Any]) -> str:
    """A standalone HTML page holding the audit section."""
    return ("<!doctype html><html><head><meta charset='utf-8'><title>convbound audit</title>"
            "<style>body{font-family:sans-serif;max-width:60em;margin:auto}td,th{border:1px solid #ccc;padding:2px 6px}"
            "table{border-collapse:collapse}img{max-width:100%}</style></head><body>"
            + audit_html(rec) + "</body></html>\n")
