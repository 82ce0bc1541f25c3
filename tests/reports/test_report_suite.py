"""The suite's sections (without verify), checked against the spec's worked numbers."""

import math

import pytest

from reports.suite import collect

SECTIONS = ("results", "region", "large_n", "sampler", "participation")


@pytest.fixture(scope="module")
def doc():
    return collect(quick=True, sections=SECTIONS, argv=["convbound", "report", "--quick"])


def test_no_section_failed(doc):
    assert doc["sections_failed"] == {}
    assert set(doc["timings_s"]) == set(SECTIONS)


def test_every_result_is_listed_and_fast_t1_matches_the_spec_example(doc):
    import bounds

    assert [r["key"] for r in doc["results"]] == [r.key for r in bounds.all_results()]
    t1 = next(r for r in doc["results"] if r["key"] == "FAST.T1")
    check = t1["example"]["check"]
    # fast.md FAST.T1 worked example: terms 0.16, 0.003, 0.0140625; RHS 0.1770625
    assert check["terms"] == pytest.approx({"optimization": 0.16, "statistical": 0.003, "heterogeneity": 0.0140625})
    assert check["value"] == pytest.approx(0.1770625)
    # G1..G3 unrecovered; the participation process is not an input of a bound
    assert [c["holds"] for c in check["conditions"]] == [True, True, None, None]
    sweep = t1["sweep"]
    assert sweep["var"] == "R" and sweep["example"] == 1000
    i = sweep["x"].index(1000.0)
    assert sweep["terms"]["optimization"][i] == pytest.approx(0.16)


def test_table1_region_points_match_the_spec(doc):
    reg = doc["region"]
    pts = reg["points"]
    # f3ast.md F3AST.EX1: r^a = (3/8, 0), r^b = r* = (3/8, 1/2), naive = (9/40, 13/20)
    assert pts["r^a"] == pytest.approx([0.375, 0.0])
    assert pts["r^b"] == pytest.approx([0.375, 0.5])
    assert pts["r*"] == pytest.approx([0.375, 0.5])
    assert pts["naive"] == pytest.approx([0.225, 0.65])
    h = {row[0]: row[3:5] for row in reg["table"]["rows"]}
    assert h["r*"] == pytest.approx([7 / 6, 7 / 3])
    assert h["naive"] == pytest.approx([175 / 117, 350 / 117])
    assert math.isinf(h["r^a"][0])
    verts = {tuple(round(x, 9) for x in v) for v in reg["vertices"]}
    assert verts == {(0, 0), (0.375, 0), (0.375, 0.5), (0.075, 0.8), (0, 0.8)}


def test_large_n_sampler_and_pattern_shapes(doc):
    big = doc["large_n"]
    assert big["N"] == 1000 and big["sum of r*"] == pytest.approx(10, rel=1e-6)  # cap k = 10 is tight at r*
    s = doc["sampler"]
    assert len(s["t"]) == len(s["r"]) and all(len(r) == 2 for r in s["r"]) and s["r_star"] == pytest.approx([0.375, 0.5])
    w = doc["participation"]["weights"]
    assert len(w) == 16 and len(w[0]) == 32
    assert all(abs(sum(col) - 1) < 1e-12 for col in zip(*w))  # weights of a round sum to 1
    env = doc["environment"]
    assert env["seed"] == 0 and env["packages"]["numpy"] != "not installed" and env["command"].startswith("convbound")


def test_only_filters_results_and_rejects_unknown_ids():
    from bounds.core.errors import UserInputError

    doc = collect(quick=True, only=["FAST.T2"], sections=("results",))
    assert [r["key"] for r in doc["results"]] == ["FAST.T2", "FAST.T2@corrected", "FAST.T2@repaired"]
    with pytest.raises(UserInputError, match="unknown result or check ID 'FAST.T9'"):
        collect(quick=True, only=["FAST.T1", "FAST.T9"], sections=("results",))


def test_removing_a_control_from_a_real_run_raises_the_banner():
    from reports.document import alerts
    from reports.html import render_html

    doc = collect(quick=True, only=["FAST.T1"], sections=("verify",))
    assert {v["id"] for v in doc["verifications"]} == {"FAST.T1", "FAST.T1.control:step-cap"}
    assert [a for a in alerts(doc) if a.level == "alert"] == []
    doc["verifications"] = [v for v in doc["verifications"] if not v["control"]]
    found = [a.message for a in alerts(doc) if a.level == "alert"]
    assert any("FAST.T1" in m and "control is missing" in m for m in found)
    page = render_html({**doc, "results": [], "environment": {"device": "cpu", "seed": 0, "packages": {}}}, [])
    assert page.index('class="banner alert"') < page.index('id="summary"')
