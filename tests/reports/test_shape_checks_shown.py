"""A shape check shows what it measured (a fitted constant's range and spread against a limit), never an
LHS/RHS ratio: in verify's JSON, in the report's results.json and on its card."""

import json

import pytest


@pytest.fixture(scope="module")
def scaf_t2(tmp_path_factory):
    from verify.suite import run_suite

    return [v.to_dict() for v in run_suite(["SCAF.T2"], quick=True, device="cpu", seed=0)]


def test_shape_records_carry_their_own_quantities_and_no_ratio(scaf_t2):
    shapes = [v for v in scaf_t2 if v["measured"]]
    assert {v["id"] for v in shapes} == {"SCAF.T2.construction", "SCAF.T2.control:K1"}
    for v in shapes:
        m = v["measured"]
        assert v["lhs"] is None and v["rhs"] is None and v["ratio"] is None and v["ci"] == [None, None]
        spread = float(m["spread"])  # JSON carries an infinite spread as "inf"
        if m["c_min"] > 0:
            assert spread == pytest.approx(m["c_max"] / m["c_min"], rel=1e-12)  # spread = max c / min c
        else:  # a constant that reached 0 or below (the K = 1 control's collapse, to rounding): unbounded
            assert spread == float("inf")
        assert m["spread_limit"] == 4.0
        assert (spread <= m["spread_limit"]) == (v["instance"]["shape_verdict"] == "holds")


def test_report_results_json_and_card_show_no_ratio_for_a_shape_check(scaf_t2, tmp_path, convbound):
    saved = tmp_path / "verify.json"
    saved.write_text(json.dumps(scaf_t2))
    run = convbound("report", "--from-json", str(saved), "--out", str(tmp_path / "rep"))
    assert run.code == 0, run.err
    doc = json.loads((tmp_path / "rep" / "results.json").read_text())
    (card,) = [v for v in doc["verifications"] if v["id"] == "SCAF.T2.construction"]
    assert card["ratio"] is None and card["measured"]["spread"] > 1
    html = (tmp_path / "rep" / "index.html").read_text()
    from reports.document import anchor

    start = html.index(f'id="{anchor("chk", "SCAF.T2.construction")}"')  # the check's card
    headline = html[start:].split('<p class="headline">', 1)[1].split("</p>", 1)[0]
    assert "spread" in headline and "no bound compared" in headline
    assert "ratio" not in headline and "vs bound" not in headline
