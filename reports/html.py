"""The report as one self-contained HTML page (jinja2 template in ``reports/templates``).

Figures and formulas are embedded as base64 PNG data URIs and the stylesheet is inlined, so the
page needs no network and no other file.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

import jinja2

from reports.decision_section import badge_html, rests_on_html
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


class _CompiledTemplates(jinja2.BytecodeCache):
    """The templates' compiled code in memory, shared by every page this process renders (jinja2 checks each
    template's source checksum, so an edited template is compiled again). Why: each page builds a fresh
    environment (its globals close over that page's document), and parsing and compiling the templates again
    was about a third of rendering a small page."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self.code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


_COMPILED = _CompiledTemplates()


def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("reports", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]), undefined=jinja2.ChainableUndefined,
                             trim_blocks=True, lstrip_blocks=True, bytecode_cache=_COMPILED)
    env.filters["fmt"] = fmt
    env.filters["anchor_res"] = lambda k: anchor("res", k)
    env.filters["anchor_chk"] = lambda k: anchor("chk", k)
    env.globals["math"] = _math_img
    env.globals["is_control"] = is_control
    env.globals["ci_label"] = ci_label
    env.globals["trials_label"] = trials_label
    env.globals["hyp_verdict"] = hypotheses_verdict
    env.globals["verdict_legend"] = verdict_legend
    return env


def verdict_legend(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The closed set of verdict words and their meanings, at the confidence level the checks used."""
    from verify.verdict import legend

    levels = [v["instance"]["level"] for v in doc.get("verifications") or []
              if isinstance(v.get("instance"), Mapping) and isinstance(v["instance"].get("level"), (int, float))]
    return legend(levels)


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _math_img(tex: str, display: bool = False):
    """An <img> of a formula (alt = its LaTeX), or its source in <code> when mathtext cannot draw it."""
    png = formula_png(tex, 14.0 if display else 12.0)
    if png is None:
        return jinja2.utils.markupsafe.Markup('<code class="tex">{}</code>').format(tex)
    w, h = png_size(png)
    scale = 150 / 96  # rendered at 150 dpi; show at CSS pixel size
    cls = "math display" if display else "math"
    return jinja2.utils.markupsafe.Markup(
        '<img class="{}" alt="{}" width="{}" height="{}" src="{}">'
    ).format(cls, tex, round(w / scale), round(h / scale), data_uri(png))


def render_html(doc: Mapping[str, Any], figures: list[FigureImage] | None = None) -> str:
    """The page for a report document (figures drawn here unless given)."""
    figures = report_figures(doc) if figures is None else figures
    by_anchor: dict[str, list[dict[str, str]]] = {}
    for f in figures:
        by_anchor.setdefault(f.anchor, []).append({"id": f.id, "caption": f.caption, "src": data_uri(f.png)})
    rows = summary_rows(doc)
    css = jinja2.PackageLoader("reports", "templates").get_source(jinja2.Environment(), "report.css")[0]
    from reports.decision_views import check_views, decisions_by_key, evidence_of, headline

    views = check_views(doc)
    decided = decisions_by_key(doc)
    env = _env()
    env.globals["evidence_of"] = lambda key: evidence_of(key, views, doc)
    env.globals["rests_on"] = lambda row: _markup(rests_on_html(row, frozenset(decided)))
    env.globals["dbadge"] = lambda word: _markup(badge_html(word))
    return env.get_template("report.html.j2").render(
        doc=doc, rows=rows, counts=verdict_counts, alerts=alerts(doc), figures=by_anchor, css=css,
        records=record_sections(doc), decisions=decisions_fragment(doc), headline=headline(doc),
        check_views=views, decided=decided,
    )


def _markup(html: str):
    """An HTML fragment already escaped by its renderer (``reports.decision_section``)."""
    return jinja2.utils.markupsafe.Markup(html)


def decisions_fragment(doc: Mapping[str, Any]):
    """The decision table that heads the page (``reports.decision_section``), or "" when the report has none."""
    from reports.decision_section import decisions_html

    if doc.get("decisions") is None:
        return ""
    return jinja2.utils.markupsafe.Markup(decisions_html(doc))


def record_sections(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The searches, worst cases and audits the document holds: id, table-of-contents name, HTML fragment.

    The fragments come from each kind's own renderer (``reports.records.section_html``), already escaped.
    """
    from reports.records import KINDS, SECTION_TITLES, section_html

    out = []
    for key in KINDS:
        if doc.get(key):
            ident, toc = SECTION_TITLES[key]
            out.append({"id": ident, "toc": toc,
                        "html": jinja2.utils.markupsafe.Markup(section_html(key, doc[key], doc))})
    return out
