"""The audit's report section renders from a saved (strict JSON) audit record."""

import json

import numpy as np

from rate_region.audit import audit
from rate_region.audit.synthetic import biased_uniform
from rate_region.logs import ParticipationLog
from reports.audit_section import audit_html, audit_page
from reports.cli.common import dumps


def test_section_from_saved_record():
    T, N = 1500, 40
    A = np.ones((T, N), bool)
    S = biased_uniform(A, 4, np.array([7]), 0.2, 0)
    log = ParticipationLog("synthetic", T * N, np.arange(T), np.arange(N), A, S, None, None, 0)
    rec = json.loads(dumps(audit(log, "uniform:4/40").to_dict()))
    html = audit_html(rec)
    assert 7 in rec["bias"]["under_served"]
    assert "client(s) flagged: 7" in html or "flagged: 7," in html
    assert html.count("data:image/png;base64,") == 1
    for check in ("fast", "regularized", "region"):
        assert f"<td>{check}</td>" in html
    assert audit_page(rec).startswith("<!doctype html>")
