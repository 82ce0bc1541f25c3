"""The PDF's sections for falsify searches, exact worst cases and participation audits.

Same numbers, figures and sources as the HTML sections (``reports.falsify_section``,
``reports.worstcase_section``, ``reports.audit_section``); drawn with the PDF's kit (``reports.pdf._Kit``).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import escape

from reports.document import fmt
from reports.formulas import png_size


def records_pdf(k: Any, doc: Mapping[str, Any]) -> None:
    """Searches, worst cases and audits, each under its own heading, when the document holds any."""
    if doc.get("searches"):
        _searches(k, doc)
    if doc.get("worst_cases"):
        _worst_cases(k, doc)
    if doc.get("audits"):
        _audits(k, doc)


def _png(k: Any, png: bytes, caption: str) -> None:
    w, h = png_size(png)
    fw = min(k.width, 160 * k.mm)
    k.story.append(k.KeepTogether([k.Image(io.BytesIO(png), width=fw, height=fw * h / w),
                                   k.P(escape(caption), k.small), k.Spacer(1, 4)]))


def _searches(k: Any, doc: Mapping[str, Any]) -> None:
    from reports.falsify_section import falsify_sections, trace_png

    entries = doc["searches"]
    k.story.append(k.P('<a name="falsify"/>Worst instances found by search (falsify)', k.h2))
    sections = falsify_sections([e["record"] for e in entries], doc.get("verifications") or [])
    for e, s in zip(entries, sections):
        ci, rci = s.get("ci") or [None, None], s.get("ratio_ci") or [None, None]
        k.story.append(k.P(f"{escape(str(s['id']))} — {k.verdict(str(s['verdict']))}", k.h3))
        k.story.append(k.P(f"{escape(e['source'])} · {escape(str(s['optimiser']))}, seed {escape(str(s['seed']))}, "
                           f"stopped by {escape(str(s['stopped_by']))}", k.small))
        k.story.append(k.kv([
            ("hand-picked ratio", f"{fmt(s['hand_picked_ratio'])} ({s['hand_picked_source']})"),
            ("searched ratio", f"{fmt(s['searched_ratio'])} [{fmt(rci[0])}, {fmt(rci[1])}] "
                               f"({s.get('trials')} fresh trials, seeds {fmt(s.get('seeds'))})"),
            ("verdict", f"{s['verdict']}: LHS {fmt(s['lhs'])} [{fmt(ci[0])}, {fmt(ci[1])}] vs RHS {fmt(s['rhs'])}"),
            ("points tried", f"{s['evaluations']} ({s['admissible']} admissible)"),
            ("worst instance", ", ".join(f"{key} = {fmt(v)}" for key, v in s["point"].items()) or "–"),
        ]))
        if s["trace"]:
            _png(k, trace_png(s), f"Search trace of {s['id']}: LHS/RHS per evaluation, best so far, confirmation.")
        for n in s["notes"]:
            k.story.append(k.P(escape(n), k.small))


def _worst_cases(k: Any, doc: Mapping[str, Any]) -> None:
    from reports.worstcase_section import _PARAM_ORDER

    P, cell, small = k.P, k.cell, k.small
    k.story.append(P('<a name="worst-cases"/>Exact worst cases (performance estimation)', k.h2))
    k.story.append(P(escape("Exact worst cases over every L-smooth, mu-strongly convex set of clients with ||grad f_i(x*)|| "
                     "<= zeta and ||x_0 - x*||^2 <= D0, for deterministic full-gradient methods, from PEPit's SDP. The value is "
                     "the dual objective: an upper bound certified by the dual certificate, attained up to solver "
                     "accuracy by the primal solution."), small))
    head = ["Method", "Parameters", "Worst case", "Solver", "Certificate", "Time", "Tightness of encoded bounds"]
    rows = [[P(f"<b>{h}</b>", cell) for h in head]]
    reasons: dict[str, None] = {}
    for e in doc["worst_cases"]:
        r = e["record"]
        p, cert = r["parameters"], r["certificate"]
        params = [f"{name}={fmt(p[name])}" for name in _PARAM_ORDER if p.get(name) is not None]
        if p.get("schedule"):
            params.append("schedule " + " ".join("{" + ",".join(str(i) for i in ids) + "}" for ids in p["schedule"]))
        tight = []
        for c in r["coverage"]:
            if c.get("covers") == "no":
                continue
            reasons[f"{c['key']}: {c['reason']}"] = None
            hyp = {True: "hypotheses hold", False: "hypotheses fail", None: "hypotheses unverified"}[
                c.get("hypotheses_hold")]
            tight.append(f"<b>{escape(c['key'])}</b> ({escape(c['covers'])}): worst / bound = "
                         f"<b>{fmt(c.get('ratio'))}</b> (bound {fmt(c.get('bound'))}; {hyp})")
        rows.append([P(f"{len(rows)}. {escape(r['method'])}<br/>{escape(p['measure'])}", cell),
                     P(escape(", ".join(params)), cell),
                     P(f"<b>{fmt(r['value'], 8)}</b><br/>primal {fmt(r['primal_value'], 8)}", cell),
                     P(f"{escape(r['solver'])}: {escape(r['solver_status'])}", cell),
                     P(f"{escape(cert['status'])}<br/>largest dual error {fmt(cert.get('worst_dual_error'))}", cell),
                     P(f"{fmt(r['solve_seconds'])} s", cell),
                     P("<br/>".join(tight) or "no encoded result covers this setting", cell)])
    mm = k.mm
    k.story.append(k.grid(rows, [22 * mm, 30 * mm, 22 * mm, 20 * mm, 22 * mm, 12 * mm, k.width - 128 * mm]))
    # sources are long (a path, or the solver of a live solve): one line each under the table, by row number
    k.story += [P(f"{i}. {escape(e['source'])}", small) for i, e in enumerate(doc["worst_cases"], 1)]
    for i, e in enumerate(doc["worst_cases"], 1):  # the horizon sweep and replay, as in the HTML section
        sweep = e["record"].get("sweep") or []
        if sweep:
            parts = [f"R={row['R']} ({row['kind']}): " + (", ".join(
                f"{key} {fmt(res.get('ratio'))}" for key, res in (row.get("results") or {}).items()) or fmt(row.get("value")))
                for row in sweep]
            k.story.append(P(f"{i}. worst / bound against the horizon: " + escape("; ".join(parts)), small))
        rep = e["record"].get("replay") or {}
        if rep:
            k.story.append(P(f"{i}. engine replay: {escape(str(rep.get('status')))}"
                             + (f", engine {fmt(rep.get('engine_value'), 8)}" if rep.get("engine_value") is not None
                                else f" ({escape(str(rep.get('reason', '')))})"), small))
    if reasons:
        k.story.append(P("Why each compared result applies:", small))
        k.story += [P("• " + escape(x), small) for x in reasons]
    for n in dict.fromkeys(n for e in doc["worst_cases"] for n in e["record"].get("notes", [])):
        k.story.append(P(escape(n), small))


def _audits(k: Any, doc: Mapping[str, Any]) -> None:
    from rate_region.fit import gof_text
    from reports.audit_section import audit_figures

    P, cell, small, grid = k.P, k.cell, k.small, k.grid
    k.story.append(P('<a name="audits"/>Participation audits', k.h2))
    from rate_region.audit.checks import AUDIT_STATUS as status  # the audit's words: never a verdict field
    for e in doc["audits"]:
        rec = e["record"]
        m, v, b, lg, ids = rec["availability_model"], rec["variance"], rec["bias"], rec["log"], rec["rates"]["client_ids"]
        k.story.append(P(f"Audit of {escape(str(lg.get('source', 'a log')))}", k.h3))
        k.story.append(P(escape(e["source"]), small))
        missing = f", {lg['missing_pairs']} missing pairs (counted unavailable)" if lg["missing_pairs"] else ""
        k.story.append(P(escape(f"Log {lg.get('source')}: {lg['rows']} rows, {lg['rounds']} rounds, "
                                f"{lg['clients']} clients{missing}."), k.body))
        img = audit_figures(rec)[0]
        _png(k, img.png, img.caption)
        tbl = [[P(f"<b>{h}</b>", cell) for h in ("availability model (BIC)", "BIC", "parameters")]]
        for c in m["candidates"]:
            name = c["kind"] + ("" if c.get("period") is None else f" (P={c['period']})")
            tbl.append([P(escape(name + (" chosen" if c["kind"] == m["kind"] else "")), cell),
                        P(f"{c['bic']:.6g}", cell), P(escape(str(c.get("n_params"))), cell)])
        k.story.append(grid(tbl))
        g = m["goodness_of_fit"]
        k.story.append(P(escape(f"Goodness of fit: {gof_text(g)} ({g['cells']})."), k.body))
        flagged = ", ".join(str(ids[i]) for i in b["flagged"][:20]) + (" ..." if len(b["flagged"]) > 20 else "")
        k.story.append(P(escape(f"Bias test against {rec['target']['text']} ({b['method']}, FDR {b['alpha']:g}): "
                                f"{len(b['flagged'])} client(s) flagged{': ' + flagged if flagged else ''}; "
                                f"{len(b['under_served'])} under-served."), k.body))
        k.story.append(P(escape(f"Variance price ({v['objective']}): H(realised r) = {v['H_realised']:.6g}, "
                                f"H(r*) = {v['H_rstar']:.6g}, ratio {v['ratio']:.4g}; max |r - r*| = "
                                f"{v['max_abs_dev_rstar']:.4g}."), k.body))
        chk = [[P(f"<b>{h}</b>", cell) for h in ("check", "results", "status", "evidence")]]
        chk += [[P(escape(str(c["check"])), cell), P(escape(", ".join(map(str, c["results"]))), cell),
                 P(status[c["status"]], cell), P(escape(str(c.get("reason", ""))), cell)] for c in rec["checks"]]
        k.story.append(grid(chk, [30 * k.mm, 35 * k.mm, 20 * k.mm, k.width - 85 * k.mm]))
