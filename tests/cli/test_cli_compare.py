"""`convbound compare`: the JSON contract, the table, --plot, and bad input as one line with exit status 2."""

import math

import pytest

FAST_STYLE = ["L=1", "tau=5", "S=10", "N=100", "sigma2=1", "zeta_G2=0.25", "Delta0=1", "eps=0.05", "R=1000",
              "eta_c=0.005"]
F3AST_STYLE = ["L=4", "mu=1", "tau=5", "G=1", "D0=1", "sigma=1", "p=0.5,0.5", "r=0.5,0.5", "Gamma=0.1",
               "var_s=133.33333333333334", "R=1000", "eps=0.05"]


def test_json_fast_style_sorted_with_reasons(convbound):
    run = convbound("compare", *FAST_STYLE, "--pattern", "iid", "--json")
    assert run.code == 0, run.err
    out = run.json()
    rounds = [r["rounds_for_eps"] for r in out["covered"]]
    assert rounds == sorted(rounds) and out["sorted_by"] == "rounds_for_eps"
    by_key = {r["key"]: r for r in out["covered"]}
    # SCAF.T3 non-convex by hand: 1/(5*10*0.05^2) + 10^(2/3)/0.05
    assert by_key["SCAF.T3@nonconvex"]["rounds_for_eps"] == pytest.approx(8 + 10 ** (2 / 3) / 0.05, rel=1e-9)
    assert by_key["SCAF.T3@nonconvex"]["order_constant_one"] is True
    assert all(r["reason"] for r in out["not_covered"])
    assert out["setting"]["values"]["sigma"] == 1.0 and out["setting"]["eps_power"] == 1


def test_table_f3ast_style(convbound, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")  # one table row per line
    run = convbound("compare", *F3AST_STYLE, "--pattern", "static-rate", "--measure", "gap",
                    "--convexity", "strongly-convex")
    assert run.code == 0, run.err
    text = " ".join(run.out.split())
    # the explicit forms need E > 8L/mu (the seed's strict step condition with the proof's gamma'): listed apart
    assert "1 result covers this setting" in text and "F3AST.T3.5@explicit" in text
    row = next(line for line in run.out.splitlines() if "│ F3AST.T3.5 " in line)
    assert "│ 1048 " in row  # T >= (263.43/0.05 - 32)/5 = 1047.3
    assert "assumes iid participation" in text  # the reason SCAFFOLD's results do not cover it


def test_plot_and_only(convbound, tmp_path):
    png = tmp_path / "cmp.png"
    run = convbound("compare", *FAST_STYLE, "--pattern", "iid", "--only", "SCAF.T1@nonconvex,SCAF.T3@nonconvex",
                    "--plot", str(png), "--plot-results", "SCAF.T3@nonconvex", "--json")
    assert run.code == 0, run.err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [r["key"] for r in run.json()["covered"]] == ["SCAF.T1@nonconvex", "SCAF.T3@nonconvex"]
    again = convbound("compare", *FAST_STYLE, "--pattern", "iid", "--plot", str(png))
    assert again.code == 2 and "exists" in again.err


@pytest.mark.parametrize("argv, needle", [
    (["compare", *FAST_STYLE], "--pattern"),
    (["compare", *FAST_STYLE, "--pattern", "often"], "often"),
    (["compare", *FAST_STYLE, "--pattern", "iid", "nope=1"], "unknown setting name 'nope'"),
    (["compare", "L=1", "--pattern", "iid"], "give eps"),
    (["compare", *FAST_STYLE, "--pattern", "iid", "S=1000"], "S given twice"),
    (["compare", "L=1", "S=20", "N=10", "eps=0.1", "--pattern", "iid"], "exceeds N"),
    (["compare", *FAST_STYLE, "--pattern", "iid", "--only", "SCAF.T9"], "unknown result ID"),
    (["compare", *FAST_STYLE, "--pattern", "iid", "--only", ","], "--only is empty"),
    (["compare", *FAST_STYLE, "--pattern", "iid", "--plot-results", "SCAF.T3@sc"], "goes with --plot"),
    (["compare", *FAST_STYLE, "--pattern", "iid", "--plot", "x.gif"], "unsupported format"),
    (["compare", "L=x", "eps=1", "--pattern", "iid"], "not a number"),
    (["compare", "L=inf", "eps=1", "--pattern", "iid"], "finite"),
    (["compare", "L", "--pattern", "iid"], "expected KEY=VALUE"),
])
def test_bad_input_is_one_line_exit_2(convbound, argv, needle, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = convbound(*argv)
    assert code == 2 and needle in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_plot_results_must_cover(convbound, tmp_path):
    code, _, err = convbound("compare", *FAST_STYLE, "--pattern", "iid", "--plot", str(tmp_path / "a.png"),
                             "--plot-results", "SCAF.T3@sc")
    assert code == 2 and "does not cover this setting" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "a.png").exists()


def test_eps_reached_is_finite_or_absent(convbound):
    out = convbound("compare", *FAST_STYLE, "--pattern", "iid", "--json").json()
    assert all(r["eps_reached_at_R"] is None or math.isfinite(r["eps_reached_at_R"]) for r in out["covered"])
