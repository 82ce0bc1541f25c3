"""`convbound worst-case --banded [--window w]`: the record, and bad input as one line with exit 2 (in-process)."""

from __future__ import annotations

import pytest

ARGS = ("worst-case", "--eta", "0.1", "--zeta", "0.5", "--K", "2", "--R", "3", "--banded")


def test_banded_record_says_upper_bound_with_its_window_and_bracket(convbound):
    res = convbound(*ARGS, "--window", "2", "--json")
    assert res.code == 0, res.err
    rec = res.json()
    assert rec["exactness"] == "upper bound (sparse certificate, window 2)"
    assert rec["certificate"]["status"] == "certified"
    assert rec["certificate"]["proved_upper_bound"] == rec["value"]
    assert 0 < rec["certificate"]["lower_bound"] <= rec["value"]
    assert rec["size"]["window"] == 2
    # each end of the bracket says how it is known; "certified" beside a solver status other than "optimal"
    # is explained (the exact recheck proves the bound whatever the solver's accuracy)
    cert = rec["certificate"]
    assert cert["upper_bound_basis"].startswith("proved") and cert["lower_bound_basis"] in (
        "proved (exact)", "attained in floating point (float64)")
    bracket = [n for n in rec["notes"] if n.startswith("bracket of the exact worst case")]
    assert len(bracket) == 1 and not any(n.startswith("proved bracket") for n in rec["notes"])
    if rec["solver_status"] != "optimal":
        assert any(f"although the solver reported {rec['solver_status']}" in n for n in rec["notes"])
    text = convbound(*ARGS)
    assert text.code == 0 and "upper bound" in text.out and "bracket" in text.out


@pytest.mark.parametrize("extra,word", [
    (("--window", "-1"), "window"), (("--method", "scaffold"), "supports"), (("--sigma", "0.1"), "supports"),
    (("--participation", "uniform:1"), "supports"), (("--measure", "gap"), "supports"),
    (("--relaxed",), "--banded"), (("--solver", "SCS"), "CLARABEL"), (("--window", "x"), "window"),
    (("--R", "10000000000000000000000"), "too large"), (("--K", "1000", "--R", "1"), "too large"),
])
def test_banded_bad_input_is_one_line_and_exit_2(convbound, extra, word):
    res = convbound(*ARGS, *extra)
    assert res.code == 2, (res.code, res.out[-300:], res.err)
    assert len(res.err.strip().splitlines()) == 1 and word in res.err, res.err


def test_window_without_banded_is_refused(convbound):
    res = convbound("worst-case", "--eta", "0.1", "--window", "2")
    assert res.code == 2 and len(res.err.strip().splitlines()) == 1 and "--banded" in res.err, res.err
