"""HTML section for exact worst cases (``verify.pep.WorstCase`` records or their JSON dicts).

Self-contained: one function returns a ``<section>`` fragment (escaped, no script, no external file) that
uses the report's existing classes (``badge``, ``meta``, ``scroll``); the report builder places it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from reports.document import fmt
from verify.verdict import HOLDS, INCONCLUSIVE, VIOLATED

_MEASURE = {"dist_sq": "‖x<sub>R</sub> − x*‖²", "gap": "F(x<sub>R</sub>) − F*",
            "min_grad_sq": "min<sub>r≤R</sub> ‖∇F(x<sub>r</sub>)‖² (non-convex)",
            "avg_grad_sq": "(1/R) Σ<sub>r=1..R</sub> ‖∇F(x<sub>r</sub>)‖² (non-convex)",
            "avg_grad_sq0": "(1/R) Σ<sub>r=0..R−1</sub> ‖∇F(x<sub>r</sub>)‖² (non-convex)"}
# a dual certificate's status drawn with a verdict's badge (the closed set of verify.verdict)
_CERT_BADGE = {"certified": HOLDS, "approximate": INCONCLUSIVE, "failed": VIOLATED, "none": VIOLATED}
_PARAM_ORDER = ("L", "mu", "zeta", "eta", "K", "R", "M", "eta_g", "D0", "I", "S", "participation", "sigma")


def _record(r: Any) -> Mapping[str, Any]:
    return r.to_dict() if hasattr(r, "to_dict") else r


def _params(p: Mapping[str, Any]) -> str:
    parts = [f"{k}={fmt(p[k])}" for k in _PARAM_ORDER if p.get(k) is not None]
    if p.get("schedule"):
        parts.append("schedule " + " ".join("{" + ",".join(str(i) for i in ids) + "}" for ids in p["schedule"]))
    return escape(", ".join(parts))


def _tightness(coverage: Iterable[Mapping[str, Any]]) -> str:
    rows = [c for c in coverage if c.get("covers") != "no"]
    if not rows:
        return '<span class="meta">no encoded result covers this setting</span>'
    items = []
    for c in rows:
        hyp = c.get("hypotheses_hold")
        state = {True: "hypotheses hold", False: "hypotheses fail", None: "hypotheses unverified"}[hyp]
        items.append(f"<li><b>{escape(c['key'])}</b> ({escape(c['covers'])}): worst / bound = "
                     f"<b>{escape(fmt(c.get('ratio')))}</b> (bound {escape(fmt(c.get('bound')))}; {state})"
                     + (f"<br><span class=\"meta\">{escape(str(c['verdict']))}"
                        + (f"; ratio ~ R^{escape(fmt(c['ratio_exponent_along_R']))} along the horizon"
                           if c.get("ratio_exponent_along_R") is not None else "") + "</span>"
                        if c.get("verdict") else "") + "</li>")
    return '<ul class="plain">' + "".join(items) + "</ul>"


def _sweep(r: Mapping[str, Any]) -> str:
    """Worst case / bound of every covering result along the horizon, and the engine replay."""
    rows = r.get("sweep") or []
    out = []
    if rows:
        keys = list(dict.fromkeys(k for row in rows for k in (row.get("results") or {})))
        head = "".join(f"<th>{escape(k)}: worst / bound</th>" for k in keys)
        body = []
        for row in rows:
            res = row.get("results") or {}
            cells = "".join(
                f"<td>{escape(fmt((res.get(k) or {}).get('ratio')))}"
                + ("" if (res.get(k) or {}).get("hypotheses_hold") in (True, None) else
                   ' <span class="meta">(hypotheses fail)</span>') + "</td>" for k in keys)
            body.append(f"<tr><td>{escape(str(row.get('R')))}</td><td>{escape(str(row.get('kind')))}</td>"
                        f"<td>{escape(fmt(row.get('value'), 6))}</td>{cells}</tr>")
        out.append('<details><summary>tightness against the horizon</summary><div class="scroll"><table><thead><tr>'
                   f"<th>R</th><th>worst case from</th><th>value</th>{head}</tr></thead><tbody>" + "".join(body)
                   + '</tbody></table></div><p class="meta">exact: the finite-R PEP; per-round bound: the '
                   "per-round certificate iterated R times, an upper bound on the worst case (so its ratio bounds "
                   "the true ratio from above).</p></details>")
    rep = r.get("replay") or {}
    if rep:
        if rep.get("status") == "replayed":
            out.append(f'<p class="meta">replayed in the engine (1-D quadratic, curvature {escape(fmt(rep.get("curvature")))}'
                       f"): {escape(fmt(rep.get('engine_value'), 8))}, difference {escape(fmt(rep.get('difference')))}"
                       "</p>")
        else:
            out.append(f'<p class="meta">{escape(str(rep.get("status")))}: {escape(str(rep.get("reason", "")))}</p>')
    return "".join(out)


def worstcase_section(records: Iterable[Any], *, title: str = "Exact worst cases (performance estimation)",
                      sources: Sequence[str] | None = None) -> str:
    """A ``<section id="worst-cases">`` with one table row per record and the reasons for each comparison.

    Columns: method and measure, parameters, the value (the rechecked upper bound) and primal value,
    solver status, certificate status with its largest error, solve time, and the tightness
    (worst case / bound) of every encoded result that covers or is compared with the setting, with the
    record's horizon sweep (``sweep``) and engine replay (``replay``) when it has them.
    An empty list renders a section that says so. ``sources``: where each record came from (computed
    live, or the file it was read from), shown under its method.
    """
    recs = [_record(r) for r in records]
    out = [f'<section id="worst-cases"><h2>{escape(title)}</h2>']
    if not recs:
        out.append('<p class="meta">No worst case was computed.</p></section>')
        return "".join(out)
    out.append('<p class="meta">Exact worst cases of the expected measure (over the participation law) over every '
               "L-smooth, μ-strongly convex set of clients with ‖∇f<sub>i</sub>(x*)‖ ≤ ζ and "
               "‖x<sub>0</sub> − x*‖² ≤ D0, from the performance-estimation SDP; with noise, an upper bound. "
               "A certified value is an upper bound whose dual certificate passed an exact rational recheck, attained "
               "up to solver accuracy by the primal solution.</p>")
    out.append('<div class="scroll"><table><thead><tr><th>Method</th><th>Parameters</th><th>Worst case</th>'
               "<th>Solver</th><th>Certificate</th><th>Time</th><th>Tightness of encoded bounds</th></tr></thead><tbody>")
    reasons: dict[str, None] = {}
    for i, r in enumerate(recs):
        p = r.get("parameters", {})
        src = f'<br><span class="meta">{escape(sources[i])}</span>' if sources else ""
        cert = r.get("certificate", {})
        status = str(cert.get("status", "none"))
        for c in r.get("coverage", []):
            if c.get("covers") != "no":
                reasons[f"{c['key']}: {c['reason']}"] = None
        measure = _MEASURE.get(p.get("measure", ""), escape(str(p.get("measure", ""))))
        out.append(
            f"<tr><td>{escape(str(r.get('method')))}<br><span class=\"meta\">{measure}</span>{src}</td>"
            f"<td>{_params(p)}</td>"
            f"<td><b>{escape(fmt(r.get('value'), 8))}</b><br><span class=\"meta\">primal "
            f"{escape(fmt(r.get('primal_value'), 8))}</span></td>"
            f"<td>{escape(str(r.get('solver', '')))}: {escape(str(r.get('solver_status', '')))}</td>"
            f'<td><span class="badge v-{_CERT_BADGE.get(status, VIOLATED)}">{escape(status)}</span>'
            f"<br><span class=\"meta\">largest dual error {escape(fmt(cert.get('worst_dual_error')))}</span></td>"
            f"<td>{escape(fmt(r.get('solve_seconds')))} s</td>"
            f"<td>{_tightness(r.get('coverage', []))}{_sweep(r)}</td></tr>")
    out.append("</tbody></table></div>")
    if reasons:
        out.append('<details><summary>why each compared result applies</summary><ul class="plain">'
                   + "".join(f"<li>{escape(k)}</li>" for k in reasons) + "</ul></details>")
    notes = dict.fromkeys(n for r in recs for n in r.get("notes", []))
    if notes:
        out.append('<p class="meta">' + "<br>".join(escape(n) for n in notes) + "</p>")
    out.append("</section>")
    return "".join(out)
