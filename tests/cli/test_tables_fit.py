"""Tables that fit: IDs never cut or split, numbers never cropped, in an 80-column terminal and in a pipe.

An 80-column terminal is $COLUMNS=80 (rich reads it); a pipe is capsys's stream with no $COLUMNS. "Whole" is
checked against the JSON of the same command: every ID and every number printed there must appear unbroken.
"""

import json
import re

import pytest

CUT = "…"


@pytest.fixture(scope="module")
def scaf_records():
    from verify.suite import run_suite

    return run_suite(["SCAF"], quick=True, device="cpu", seed=0)


def _fmt_like_cli(x):
    from reports.cli.cmd_verify import _fmt

    return _fmt(x)


@pytest.mark.parametrize("columns", ["80", None])
def test_verify_table_keeps_ids_and_numbers_whole(scaf_records, columns, monkeypatch, capsys):
    from reports.cli.cmd_verify import _print_results
    from reports.cli.common import out_console

    if columns:
        monkeypatch.setenv("COLUMNS", columns)
    else:
        monkeypatch.delenv("COLUMNS", raising=False)
    _print_results(out_console(), scaf_records)
    out = capsys.readouterr().out
    assert CUT not in out
    if columns:
        assert max(len(line) for line in out.splitlines()) <= 80
    for v in scaf_records:
        line = next(line for line in out.splitlines() if re.search(rf"(^|\s){re.escape(v.id)}(\s|$)", line))
        assert v.verdict in line
        for x in (v.lhs, v.rhs, v.ratio):
            assert _fmt_like_cli(x) in out


def test_list_at_80_columns_keeps_every_id_whole_and_names_the_place_not_the_file(convbound, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    run = convbound("list")
    ids = [r["key"] for r in convbound("list", "--json").json()]
    assert run.code == 0 and CUT not in run.out
    words = set(run.out.replace("│", " ").split())
    assert set(ids) <= words  # every ID whole, as one word (not folded over two lines)
    monkeypatch.delenv("COLUMNS")
    piped = convbound("list").out  # a pipe: one line per result
    row = next(line for line in piped.splitlines() if "│ FAST.T1 " in line)
    assert ".txt" not in piped and "│ FAST " in row and "│ Theorem 1 " in row


def test_compare_at_80_columns_keeps_ids_whole(convbound, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    args = ["compare", "L=1", "tau=5", "S=10", "N=100", "sigma2=1", "zeta_G2=0.25", "Delta0=1", "eps=0.05", "R=1000",
            "eta_c=0.005", "--pattern", "iid"]
    run = convbound(*args)
    data = convbound(*args, "--json").json()
    keys = [r["key"] for group in ("covered", "undecided", "not_covered") for r in data[group]]
    assert run.code == 0 and CUT not in run.out
    assert set(keys) <= set(run.out.replace("│", " ").split())


def test_compare_lists_undecided_results_apart(convbound):
    # FAST.C1 needs G1..G3 (constants the sources lost): its hypotheses are undecided here, so it is not "covered"
    data = convbound("compare", "L=1", "tau=5", "S=10", "N=100", "sigma2=1", "zeta_G2=0.25", "Delta0=1",
                     "eps=0.05", "R=1000", "eta_c=0.005", "--pattern", "iid", "--json").json()
    covered = {r["key"] for r in data["covered"]}
    undecided = {r["key"]: r for r in data["undecided"]}
    assert "FAST.C1" in undecided and "FAST.C1" not in covered
    assert any(c.startswith("unverified") for c in undecided["FAST.C1"]["conditions"])
    assert all(not any(c.startswith("unverified") for c in r["conditions"]) for r in data["covered"])
    assert undecided["FAST.C1"]["rounds_for_eps"] is not None  # its value is still shown
    assert json.dumps(data)  # strict JSON


def test_verify_table_says_a_rate_checks_columns_are_slope_and_exponent(scaf_records, monkeypatch, capsys):
    from reports.cli.cmd_verify import _print_results
    from reports.cli.common import out_console

    monkeypatch.delenv("COLUMNS", raising=False)
    _print_results(out_console(), scaf_records)
    legend = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("rate checks ("))
    assert "LHS is the fitted slope" in legend and "ratio = slope / predicted" in legend
    named = set(legend[legend.index("(") + 1:legend.index(")")].split(", "))
    # the rows whose record carries a fitted slope, and no other row (a shape check has none)
    assert named == {v.id for v in scaf_records if (v.to_dict().get("series") or {}).get("fit_slope") is not None
                     or v.kind == "rate"} - {v.id for v in scaf_records if v.measured}
    assert "SCAF.T2.construction" not in named and "SCAF.T1.sampling.rate" in named
