"""`convbound worst-case`: the record, the printed tightness of covering results, and bad input."""

import math

import pytest

pytest.importorskip("PEPit")

ARGS = ("worst-case", "--eta", "0.003", "--K", "2", "--R", "3", "--zeta", "0.1", "--mu", "0.1")


def test_json_record_and_printed_tightness_agree(convbound):
    res = convbound(*ARGS, "--json")
    assert res.code == 0, res.err
    rec = res.json()
    assert rec["certificate"]["status"] == "certified" and rec["parameters"]["M"] == 2
    t2 = next(row for row in rec["coverage"] if row["key"] == "FAST.T2")
    bound = math.exp(-2 * 3 * 0.003 * 0.1) + 8 * 2 * 0.003 * 0.1**2 / 0.1  # FAST Thm 2, q = 1, sigma = 0
    assert abs(t2["ratio"] - rec["value"] / bound) <= 1e-9
    text = convbound(*ARGS)
    assert text.code == 0, text.err
    for key in ("FAST.T2", "FAST.T2@corrected"):
        line = next(ln for ln in text.out.splitlines() if f" {key} " in ln)
        assert f"{t2['ratio']:.4f}" in line and "hold" in line
    assert f"{len(rec['coverage']) - 2} do not" in text.out


@pytest.mark.parametrize("extra,word", [
    (("--eta", "0"), "eta"), (("--eta", "0.1", "--K", "20", "--R", "5"), "too large"),
    (("--eta", "0.1", "--method", "newton"), "method"), (("--eta", "0.1", "--solver", "MOSEK"), "solver"),
    (("--eta", "0.1", "--method", "fast", "--cohort", "3"), "cohort"), (("--eta", "0.1", "--mu", "2"), "mu"),
])
def test_bad_input_is_one_line_and_exit_2(convbound, extra, word):
    res = convbound("worst-case", *extra)
    assert res.code == 2
    assert len(res.err.strip().splitlines()) == 1 and word in res.err
