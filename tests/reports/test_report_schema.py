"""One schema for the report document: what `report --from-json` accepts, the templates can render.

Before: `{"schema": "convbound.report/1"}` passed the validator and ended in a jinja2 traceback
(``doc.environment.packages``): the validator and the template disagreed on which fields are required.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from report_fixtures import fixture_doc

from reports.build import to_json
from reports.document import SCHEMA
from reports.schema import DOCUMENT_FIELDS, ENVIRONMENT_FIELDS, as_report_document

TEMPLATES = Path(__file__).resolve().parents[2] / "reports" / "templates"


def test_the_smallest_document_with_a_record_renders(tmp_path, convbound):
    # a document with only its schema holds no records and is refused (test_words_claim_no_more); one result is
    # enough to render, every other field taking its default
    saved = tmp_path / "min.json"
    saved.write_text(json.dumps({"schema": SCHEMA}))
    code, _, err = convbound("report", "--from-json", str(saved), "--out", str(tmp_path / "rep"))
    assert code == 2 and "holds no records" in err and "Traceback" not in err
    from bounds import get
    from reports.jsonable import strict_json
    from reports.suite import result_entry

    saved.write_text(strict_json({"schema": SCHEMA, "results": [result_entry(get("FAST.T1"))]}))
    code, _, err = convbound("report", "--from-json", str(saved), "--out", str(tmp_path / "rep"))
    assert code == 0, err
    page = (tmp_path / "rep" / "index.html").read_text()
    assert "<h1>convbound report</h1>" in page  # the schema's default title


def test_every_field_the_template_reads_is_in_the_schema():
    text = "\n".join(p.read_text() for p in TEMPLATES.glob("*.j2"))
    top = set(re.findall(r"\bdoc\.(\w+)", text))
    env = set(re.findall(r"\bdoc\.environment\.(\w+)", text))
    env |= set(re.findall(r'"(\w+)"', re.search(r"\{% for k in \[([^\]]*)\] %\}<dt>\{\{ k \}\}</dt><dd>\{\{ doc\.environment",
                                               text).group(1)))
    assert top and env
    assert top <= set(DOCUMENT_FIELDS), top - set(DOCUMENT_FIELDS)
    assert env <= set(ENVIRONMENT_FIELDS), env - set(ENVIRONMENT_FIELDS)


@pytest.mark.parametrize("field", sorted(set(DOCUMENT_FIELDS) - {"schema"}))
def test_a_document_without_any_one_field_renders(field):
    from reports.html import render_html

    doc = json.loads(to_json(fixture_doc()))
    doc.pop(field, None)
    page = render_html(as_report_document(doc, "results.json"))
    assert "</html>" in page


@pytest.mark.parametrize(("doc", "message"), [
    ({"environment": {"packages": [1, 2]}}, "field 'environment.packages' is a list of 2; expected an object"),
    ({"title": 3}, "field 'title' is the number 3; expected text"),
    ({"searches": {}}, "field 'searches' is an object; expected a list"),
])
def test_a_field_of_the_wrong_type_is_one_line(tmp_path, convbound, doc, message):
    saved = tmp_path / "bad.json"
    saved.write_text(json.dumps({"schema": SCHEMA, **doc}))
    code, _, err = convbound("report", "--from-json", str(saved), "--out", str(tmp_path / "rep"))
    assert code == 2
    assert message in err and err.strip().count("\n") == 0, err
