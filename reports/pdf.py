"""The report as a PDF (reportlab platypus): same sections, verdicts, formulas and figures as the page.

Formulas are the same mathtext PNGs as in the HTML; figures are the same PNG bytes.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import escape

from reports.document import (
    alerts,
    anchor,
    ci_label,
    fmt,
    hypotheses_verdict,
    is_control,
    summary_rows,
    trials_label,
    verdict_counts,
)
from reports.figures import FigureImage, report_figures
from reports.formulas import formula_png, png_size
from verify.verdict import HOLDS, INAPPLICABLE, INCONCLUSIVE, PENDING, UNVERIFIED, VIOLATED, VIOLATED_UNLESS

# verdicts of checks (the closed set of verify.verdict), then the words of results' hypotheses (bounds)
VERDICT_COLOURS = {HOLDS: "#1f7a3a", VIOLATED: "#b3261e", VIOLATED_UNLESS: "#b3261e", INCONCLUSIVE: "#8a5a00",
                   UNVERIFIED: "#8a5a00", INAPPLICABLE: "#5b6673", PENDING: "#5b6673",
                   "fails": "#b3261e", "statement": "#2d5b9a", "holds given conditions": "#2d5b9a",
                   "condition": "#2d5b9a", "evaluated": "#2d5b9a"}


def render_pdf(doc: Mapping[str, Any], figures: list[FigureImage] | None = None) -> bytes:
    """PDF bytes of a report document (figures drawn here unless given), one function per section."""
    buf = io.BytesIO()
    k = _Kit(doc, report_figures(doc) if figures is None else figures, buf)
    from reports.decision_section import decisions_pdf
    from reports.pdf_records import records_pdf

    for section in (_title_and_banner, decisions_pdf, _summary, _checks, records_pdf, _results, _rates_sampler_participation,
                    _comparisons, _environment):
        section(k, doc)
    from reportlab import rl_config

    # images as binary Flate streams, not ASCII85 text: without reportlab's C accelerator its encoder is pure
    # Python (0.75 s of a quick report's PDF), and the text form is 20% larger
    before, rl_config.useA85 = rl_config.useA85, 0
    try:
        k.page.build(k.story, onFirstPage=_footer, onLaterPages=_footer)
    finally:
        rl_config.useA85 = before
    return buf.getvalue()


class _Kit:
    """What every section draws with: the page, its styles, the story being built, and small builders."""

    def __init__(self, doc: Mapping[str, Any], figures: list[FigureImage], buf: io.BytesIO) -> None:
        from reportlab.lib import colors
        from reportlab.lib.pagesizes import A4
        from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
        from reportlab.lib.units import mm
        from reportlab.platypus import Image, KeepTogether, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

        self.colors, self.mm, self.Image, self.KeepTogether = colors, mm, Image, KeepTogether
        self.Paragraph, self.Spacer, self.Table, self.TableStyle = Paragraph, Spacer, Table, TableStyle
        self.by_anchor: dict[str, list[FigureImage]] = {}
        for f in figures:
            self.by_anchor.setdefault(f.anchor, []).append(f)
        styles = getSampleStyleSheet()
        self.body = ParagraphStyle("body", parent=styles["BodyText"], fontSize=9.5, leading=12.5)
        self.small = ParagraphStyle("small", parent=self.body, fontSize=8, leading=10,
                                    textColor=colors.HexColor("#5b6673"))
        self.cell = ParagraphStyle("cell", parent=self.body, fontSize=8, leading=10)
        self.h1 = styles["Title"]
        self.h2 = ParagraphStyle("h2", parent=styles["Heading2"], keepWithNext=1)
        self.h3 = ParagraphStyle("h3", parent=styles["Heading3"], fontSize=11, keepWithNext=1)
        self.page = SimpleDocTemplate(buf, pagesize=A4, leftMargin=16 * mm, rightMargin=16 * mm, topMargin=14 * mm,
                                      bottomMargin=14 * mm, title=str(doc.get("title", "convbound report")),
                                      author="convbound", subject="verification report")
        self.width = self.page.width
        self.story: list[Any] = []

    def P(self, text: str, style=None):
        return self.Paragraph(text, self.body if style is None else style)

    @staticmethod
    def t(x: Any) -> str:
        return escape(fmt(x) if not isinstance(x, str) else x)

    @staticmethod
    def verdict(v: str) -> str:
        return f'<font color="{VERDICT_COLOURS.get(v, "#000000")}"><b>{escape(v)}</b></font>'

    def formula(self, tex: str, max_w: float, display: bool = False):
        png = formula_png(tex, 14.0 if display else 12.0)
        if png is None:
            return self.P(f'<font face="Courier" size="7">{escape(tex)}</font>', self.cell)
        w, h = (v * 72 / 150 for v in png_size(png))
        scale = min(1.0, max_w / w)
        return self.Image(io.BytesIO(png), width=w * scale, height=h * scale, hAlign="LEFT")

    def grid(self, rows: list[list[Any]], widths: list[float] | None = None, header: bool = True):
        colors = self.colors
        tbl = self.Table(rows, colWidths=widths, repeatRows=1 if header else 0, hAlign="LEFT")
        style = [("VALIGN", (0, 0), (-1, -1), "TOP"), ("LINEBELOW", (0, 0), (-1, -1), 0.25, colors.HexColor("#d8dde3")),
                 ("LEFTPADDING", (0, 0), (-1, -1), 3), ("RIGHTPADDING", (0, 0), (-1, -1), 3)]
        if header:
            style.append(("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#f0f3f6")))
        tbl.setStyle(self.TableStyle(style))
        return tbl

    def figs(self, key: str) -> None:
        for f in self.by_anchor.get(key, []):
            w, h = png_size(f.png)
            fw = min(self.width, 160 * self.mm)
            self.story.append(self.KeepTogether([self.Image(io.BytesIO(f.png), width=fw, height=fw * h / w),
                                                 self.P(escape(f.caption), self.small), self.Spacer(1, 4)]))

    def kv(self, pairs: list[tuple[str, Any]]):
        rows = [[self.P(escape(k), self.cell), self.P(_value(v), self.cell)] for k, v in pairs
                if v not in (None, "", {}, [])]
        return self.grid(rows or [[self.P("–", self.cell), self.P("", self.cell)]],
                         [35 * self.mm, self.width - 35 * self.mm], header=False)

    def box(self, lines: list[Any], fill: str, edge: str):
        return _box(self.Table, self.TableStyle, self.colors, lines, self.width, fill, edge)


def _title_and_banner(k: _Kit, doc: Mapping[str, Any]) -> None:
    """The title, the run's facts, and the boxes of alerts and notices."""
    P, t, body, small, story = k.P, k.t, k.body, k.small, k.story
    env = doc.get("environment") or {}
    story.append(P(escape(str(doc.get("title", "convbound report"))), k.h1))
    git = env.get("git") or {}
    story.append(P(f"Created {t(env.get('created', ''))} · {'quick' if doc.get('quick') else 'full'} suite · "
                   f"device {t(env.get('device', ''))} · seed {t(env.get('seed', ''))}"
                   + (f" · commit {escape(git.get('commit', '')[:12])}" if git else ""), small))
    story.append(k.Spacer(1, 6))
    _headline(k, doc)
    found = alerts(doc)
    bad = [a for a in found if a.level == "alert"]
    notes = [a for a in found if a.level == "notice"]
    if bad:
        lines = [P(f'<font color="#5f100b"><b>{len(bad)} problem{"s" if len(bad) != 1 else ""} with the evidence</b></font>', body)]
        lines += [P("• " + escape(a.message), body) for a in bad]
        story.append(k.box(lines, "#fdecea", "#b3261e"))
    elif doc.get("verifications"):
        others = [r for r in summary_rows(doc) if r.section == "verify" and not r.as_expected]
        lines = [P("<b>No certificate is violated unexpectedly, and every negative control failed as it should</b> "
                   "(this covers the checks, each at its own instance; it says nothing about the decisions above).",
                   body)]
        if others:
            lines.append(P("Not as expected: " + ", ".join(f"{escape(r.id)} ({escape(r.verdict)})" for r in others),
                           body))
        story.append(k.box(lines, "#e9f6ec", "#1f7a3a"))
    if notes:
        lines = [P("<b>Notes</b>", body)] + [P("• " + escape(a.message), body) for a in notes]
        story.append(k.box(lines, "#fff6e0", "#e0b040"))


def _headline(k: _Kit, doc: Mapping[str, Any]) -> None:
    """The first box: how many results have each decision, and which are refuted (``reports.decision_views``)."""
    from reports.decision_views import headline

    h = headline(doc)
    if h is None:
        return
    P, body = k.P, k.body
    counts = ", ".join(f"{n} {w}" for w, n in h["counts"].items())
    lines = [P(f"<b>Decisions on {h['total']} results: {escape(counts)}.</b>", body)]
    if h["refuted"]:
        lines.append(P("Refuted: " + escape(", ".join(h["refuted"])) + ".", body))
    if h["conditional"]:
        lines.append(P("Refuted unless a hypothesis fails: " + escape("; ".join(
            f"{key} (unless {cond}{': ' + meaning if meaning else ''})" for key, cond, meaning in h["conditional"]))
            + ".", body))
    refuted = bool(h["refuted"] or h["conditional"])
    story_box = k.box(lines, "#fdecea" if refuted else "#f5f7f9", "#b3261e" if refuted else "#2d5b9a")
    k.story.append(story_box)


def _summary(k: _Kit, doc: Mapping[str, Any]) -> None:
    """The verdict table, checks first, then encoded results."""
    P, verdict, grid, body = k.P, k.verdict, k.grid, k.body
    cell, h2, h3, width, story = k.cell, k.h2, k.h3, k.width, k.story
    rows = summary_rows(doc)
    story.append(P("Summary of verdicts", h2))
    for section, heading in (("verify", "Checks"), ("bounds", "Encoded results (hypotheses at the worked-example values)")):
        part = [r for r in rows if r.section == section]
        if not part:
            continue
        story.append(P(f"{heading} ({len(part)})", h3))
        line = " · ".join(f"{verdict(k)} × {n}" for k, n in verdict_counts(part).items())
        if section == "verify":
            line += f" · {sum(1 for r in part if r.as_expected)} of {len(part)} as expected"
        story.append(P(line, body))
        table = [[P("<b>ID</b>", cell), P("<b>Verdict</b>", cell), P("<b>Kind</b>", cell), P("<b>Detail</b>", cell)]]
        for r in part:
            mark = "" if r.as_expected is None else (" ✓" if r.as_expected else
                                                      f' <font color="#b3261e">(expected {escape(r.expected)})</font>')
            table.append([P(f'<a href="#{r.anchor}" color="#2d5b9a">{escape(r.id)}</a>', cell),
                          P(verdict(r.verdict) + mark, cell), P(escape(r.kind), cell),
                          P(escape(r.title + (": " + r.detail if r.detail else "")), cell)])
        story.append(grid(table, [38 * k.mm, 30 * k.mm, 18 * k.mm, width - 86 * k.mm]))


def _checks(k: _Kit, doc: Mapping[str, Any]) -> None:
    """One subsection per certificate, rate check and negative control."""
    P, t, verdict, figs, body = k.P, k.t, k.verdict, k.figs, k.body
    small, cell, h2, h3, story = k.small, k.cell, k.h2, k.h3, k.story
    if doc.get("verifications"):
        story.append(P("Checks: certificates, rates and negative controls", h2))
        story.append(P("Each certificate is evidence at one instance (the point and seed its record names), not a "
                       "proof over the result's domain; a rate is a fit over the sweep shown.", body))
        for v in doc["verifications"]:
            tag = " · negative control" if is_control(v) else ""
            story.append(P(f'<a name="{anchor("chk", v.get("id"))}"/>{escape(str(v.get("id")))} — '
                           f'{verdict(str(v.get("verdict")))}{tag}', h3))
            if v.get("title"):
                story.append(P(escape(str(v["title"])), body))
            ci = v.get("ci") or [None, None]
            if v.get("kind") == "rate" or (is_control(v) and (v.get("series") or {}).get("fit_slope") is not None):
                head = f"fitted slope <b>{t(v.get('lhs'))}</b> [{t(ci[0])}, {t(ci[1])}] vs predicted <b>{t(v.get('rhs'))}</b>"
            elif v.get("measured"):  # a shape check: its own quantities, no bound compared
                m = v["measured"]
                head = (f"{escape(str(m.get('quantity')))} in <b>[{t(m.get('c_min'))}, {t(m.get('c_max'))}]</b>, "
                        f"spread <b>{t(m.get('spread'))}</b> (limit {t(m.get('spread_limit'))}: a shape check, no "
                        "bound compared)")
            else:
                head = (f"measured <b>{t(v.get('lhs'))}</b> ({ci_label(v)} [{t(ci[0])}, {t(ci[1])}]) vs bound "
                        f"<b>{t(v.get('rhs'))}</b>" + (f" · ratio {t(v['ratio'])}" if v.get("ratio") is not None else ""))
            story.append(P(head + f" · expected <b>{t(v.get('expected', ''))}</b>, got {verdict(str(v.get('verdict')))}",
                           body))
            story.append(P(" · ".join(str(x) for x in (v.get("kind"), trials_label(v), f"seed {v.get('seed')}",
                                                         v.get("variant"), v.get("device")) if x), small))
            for key in ("conditions", "notes"):
                if v.get(key):
                    story.append(P(_value(v[key]), cell))
            figs(anchor("chk", v.get("id")))
            if v.get("instance"):
                story.append(P("<b>instance</b>: " + _inline(v["instance"]), small))


def _results(k: _Kit, doc: Mapping[str, Any]) -> None:
    """One subsection per encoded result: conclusion, terms, hypotheses at the example values."""
    P, t, verdict, formula, grid, figs = k.P, k.t, k.verdict, k.formula, k.grid, k.figs
    small, cell, h2, h3, width, story = k.small, k.cell, k.h2, k.h3, k.width, k.story
    if doc.get("results"):
        story.append(P("Encoded results at the suite's constants", h2))
        for r in doc["results"]:
            hv, detail = hypotheses_verdict(r)
            prov = r.get("provenance") or {}
            story.append(P(f'<a name="{anchor("res", r["key"])}"/>{escape(r["key"])} — {escape(r.get("title", ""))} '
                           f'({verdict(hv)})', h3))
            story.append(P(f"{escape(str(r.get('paper', '')))} · {escape(str(prov.get('locator', '')))} · kind "
                           f"<b>{escape(str(r.get('kind')))}</b> · variant {escape(str(r.get('variant')))} · status "
                           f"{escape(', '.join(r.get('status') or []))}", small))
            story.append(formula(r["conclusion_latex"], width, True))
            story.append(P("Left side: " + escape(str(r.get("lhs", ""))), small))
            ex = r.get("example")
            terms = [[P("<b>Term</b>", cell), P("<b>Formula</b>", cell), P("<b>At example</b>", cell)]]
            for term in r.get("terms") or []:
                val = (ex["check"]["terms"].get(term["name"]) if ex else None)
                terms.append([P(escape(term["name"]), cell), formula(term["latex"], width - 70 * k.mm),
                              P(t(val) if ex else "–", cell)])
            if ex:
                terms.append([P("<b>bound</b>", cell), P("sum of terms", cell), P(f"<b>{t(ex['check']['value'])}</b>", cell)])
            story.append(grid(terms, [35 * k.mm, width - 65 * k.mm, 30 * k.mm]))
            if r.get("hypotheses"):
                hyp = [[P("<b>Hypothesis</b>", cell), P("<b>Condition</b>", cell), P("<b>At example</b>", cell)]]
                conds = ex["check"]["conditions"] if ex else []
                for i, h in enumerate(r["hypotheses"]):
                    c = conds[i] if i < len(conds) else None
                    state = "–" if c is None else (verdict("condition" if c.get("open") == "condition" else "unverified")
                                                   + " " + escape(c.get("reason", ""))
                                                   if c.get("holds") is None else
                                                   verdict("holds" if c.get("holds") else "fails")
                                                   + f" ({t(c.get('lhs'))} vs {t(c.get('rhs'))})")
                    hyp.append([P(escape(h["name"]), cell), formula(h["latex"], width - 95 * k.mm), P(state, cell)])
                story.append(k.Spacer(1, 3))
                story.append(grid(hyp, [40 * k.mm, width - 95 * k.mm, 55 * k.mm]))
            if ex:
                story.append(P(f"Example values ({escape(str(ex.get('source', '')))}): "
                               + ", ".join(f"{escape(str(k))}={escape(str(val))}" for k, val in ex["values"].items()), small))
            else:
                story.append(P("No worked-example values are encoded for this result: statement only.", small))
            for flag in r.get("flags") or []:
                story.append(P(f'<font color="#8a5a00">Flag: {escape(flag)}</font>', small))
            figs(anchor("res", r["key"]))


def _rates_sampler_participation(k: _Kit, doc: Mapping[str, Any]) -> None:
    """The rate region, the large-N r*, the F3AST sampler and the participation pattern."""
    P, t, grid, figs, kv = k.P, k.t, k.grid, k.figs, k.kv
    body, cell, h2, h3, story = k.body, k.cell, k.h2, k.h3, k.story
    if doc.get("region"):
        reg = doc["region"]
        story.append(P('<a name="region"/>Participation rate region (F3AST Table I)', h2))
        if reg.get("description"):
            story.append(P(escape(reg["description"]), body))
        figs("region")
        if reg.get("table"):
            tb = [[P(f"<b>{escape(str(c))}</b>", cell) for c in reg["table"]["columns"]]]
            tb += [[P(t(c), cell) for c in row] for row in reg["table"]["rows"]]
            story.append(grid(tb))
        if doc.get("large_n"):
            story.append(P("Large-N example", h3))
            story.append(kv(list(doc["large_n"].items())))
    for key, title in (("sampler", "F3AST sampler"), ("participation", "Participation pattern")):
        if doc.get(key):
            story.append(P(f'<a name="{key}"/>{title}', h2))
            if doc[key].get("description"):
                story.append(P(escape(doc[key]["description"]), body))
            figs(key)


def _comparisons(k: _Kit, doc: Mapping[str, Any]) -> None:
    """``convbound compare`` on the quick settings: covered results sorted, the others with their reasons."""
    P, t, cell, small, story = k.P, k.t, k.cell, k.small, k.story
    if not doc.get("comparisons"):
        return
    story.append(P('<a name="comparisons"/>Results compared on the quick settings', k.h2))
    story.append(P("ORDER results use every hidden constant = 1 (shapes, not guarantees); as convbound compare.",
                   small))
    mm = k.mm
    for c in doc["comparisons"]:
        story.append(P(escape(c["title"]), k.h3))
        rows = [[P(f"<b>{h}</b>", cell) for h in ("Result", "Algorithm", "Rounds for eps", "eps at R", "Reading")]]
        rows += [[P(t(r["key"]), cell), P(t(r["algorithm"]), cell), P(t(r["rounds"]), cell), P(t(r["reached"]), cell),
                  P(t(r["short"]), cell)] for r in c["rows"] if r["covered"]]
        story.append(k.grid(rows, [40 * mm, 28 * mm, 20 * mm, 18 * mm, k.width - 106 * mm]))
        undecided = [f"{escape(r['key'])}: {escape(r['note'])}" for r in c["rows"] if r.get("undecided")]
        if undecided:
            story.append(P("Hypotheses this setting cannot decide (not covered): " + "; ".join(undecided), small))
        others = [f"{escape(r['key'])}: {escape(r['note'])}" for r in c["rows"]
                  if not r["covered"] and not r.get("undecided")]
        if others:
            story.append(P("Not covered: " + "; ".join(others), small))


def _environment(k: _Kit, doc: Mapping[str, Any]) -> None:
    """How to rerun: command, versions, device, seed, commit, section times."""
    P, kv, small, h2, story = k.P, k.kv, k.small, k.h2, k.story
    env = doc.get("environment") or {}
    git = env.get("git") or {}
    story.append(P("Environment", h2))
    story.append(P("Rerun with: <font face='Courier'>" + escape(str(env.get("command", ""))) + "</font>", small))
    pairs = [(k, env.get(k)) for k in ("created", "python", "platform", "device", "seed")]
    pairs.append(("git", (git.get("commit", "") + (" (uncommitted changes)" if git.get("dirty") else "")) if git
                  else "not a git checkout"))
    pairs += list((env.get("packages") or {}).items())
    if doc.get("timings_s"):
        pairs.append(("section times", ", ".join(f"{k} {fmt(v)} s" for k, v in doc["timings_s"].items())))
    story.append(kv(pairs))


def _box(Table, TableStyle, colors, lines, width, fill: str, edge: str):
    box = Table([[line] for line in lines], colWidths=[width])
    box.setStyle(TableStyle([("BACKGROUND", (0, 0), (-1, -1), colors.HexColor(fill)),
                             ("BOX", (0, 0), (-1, -1), 1.5, colors.HexColor(edge)),
                             ("LEFTPADDING", (0, 0), (-1, -1), 6), ("TOPPADDING", (0, 0), (-1, -1), 2)]))
    return box


def _value(v: Any) -> str:
    if isinstance(v, Mapping):
        if "holds" in v and "name" in v:  # a hypothesis check (bounds ConditionCheck.to_dict())
            state = (("condition" if v.get("open") == "condition" else "unverified") if v["holds"] is None
                     else ("holds" if v["holds"] else "fails"))
            colour = VERDICT_COLOURS.get(state, "#000000")
            extra = (escape(str(v.get("reason", ""))) if v["holds"] is None
                     else f"({escape(fmt(v.get('lhs')))} vs {escape(fmt(v.get('rhs')))})")
            return f'<font color="{colour}"><b>{state}</b></font> {escape(str(v["name"]))} {extra}'
        return "<br/>".join(f"{escape(str(k))}: {_value(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)) and v and isinstance(v[0], (Mapping, str)):
        return "<br/>".join("• " + _value(x) for x in v)
    return escape(v if isinstance(v, str) else fmt(v))


def _inline(v: Any) -> str:
    if isinstance(v, Mapping):
        return "; ".join(f"<i>{escape(str(k))}</i>" + (f": {{{_inline(x)}}}" if isinstance(x, Mapping) else f" = {_inline(x)}")
                         for k, x in v.items())
    return escape(v if isinstance(v, str) else fmt(v))


def _footer(canvas, page) -> None:
    canvas.saveState()
    canvas.setFont("Helvetica", 7)
    canvas.setFillGray(0.4)
    canvas.drawRightString(page.pagesize[0] - page.rightMargin, 8 * 2.8346, f"convbound report · page {page.page}")
    canvas.restoreState()
