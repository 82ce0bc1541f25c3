"""Every registered result's formulas (conclusion, terms, hypotheses) draw as images in HTML and PDF.

The formula paths fall back to showing the LaTeX source when mathtext cannot parse a formula; a reader
then sees ``\\mathbb{E}\\|\\bar{\\mathbf w}...`` instead of mathematics. This renders every formula through
the two functions the report uses (not a whole report, to stay fast) and fails on any backslash command
left in what the reader sees (the HTML ``alt`` text is the source by design and is not shown).
"""

import io
import re

import pytest

from bounds.registry import all_results
from bounds.render import result_to_dict
from reports.formulas import simplify
from reports.html import _math_img
from reports.pdf import _Kit

_COMMAND = re.compile(r"\\[A-Za-z]+")


def _formulas():
    out = []
    for r in all_results():
        d = result_to_dict(r)
        out.append((d["id"], "conclusion", d["conclusion_latex"], True))
        out += [(d["id"], f"term {t['name']}", t["latex"], False) for t in d["terms"]]
        out += [(d["id"], f"hypothesis {h['name']}", h["latex"], False) for h in d["hypotheses"]]
    return out


@pytest.fixture(scope="module")
def formulas():
    return _formulas()


def test_every_formula_is_an_image_in_html(formulas):
    raw = []
    for rid, where, tex, display in formulas:
        shown = re.sub(r'alt="[^"]*"', "", str(_math_img(tex, display)))
        if "<img" not in shown or _COMMAND.search(shown):
            raw.append(f"{rid} {where}: {tex[:60]}")
    assert not raw, "raw LaTeX in the page:\n" + "\n".join(raw)


def test_every_formula_is_an_image_in_pdf(formulas):
    kit = _Kit({}, [], io.BytesIO())
    raw = []
    for rid, where, tex, display in formulas:
        flow = kit.formula(tex, 400.0, display)
        if not isinstance(flow, kit.Image) or _COMMAND.search(getattr(flow, "text", "")):
            raw.append(f"{rid} {where}: {tex[:60]}")
    assert not raw, "raw LaTeX in the PDF:\n" + "\n".join(raw)


def test_the_registry_holds_the_formulas_that_failed_before():
    # the 16 results that showed source on c0dc853 all used \mathbf with an unbraced token
    assert sum(r"\mathbf " in tex for _, _, tex, _ in _formulas()) >= 16


def test_unbraced_font_commands_are_braced():
    assert simplify(r"\bar{\mathbf w}^{t} + \mathbf v_i + \mathbb E") == r"\bar{\mathbf{w}}^{t} + \mathbf{v}_i + \mathbb{E}"
    assert simplify(r"\mathbf\alpha + \boldsymbol{x}") == r"\mathbf{\alpha} + \mathbf{x}"
    assert simplify(r"\mathbf{x}") == r"\mathbf{x}"
