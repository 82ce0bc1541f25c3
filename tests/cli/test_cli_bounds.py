"""`convbound list/show/check/solve`: the JSON contract and one-line errors with exit status 2."""

import pytest

T1 = ["L=1", "K=5", "m=10", "n=5", "q=0.5", "sigma2=1", "sigma_G2=0.25", "zeta=1", "R=1000"]


def test_list_json_has_every_key(convbound):
    run = convbound("list", "--json")
    assert run.code == 0
    rows = run.json()
    assert {"FAST.T1", "FAST.T2"} <= {r["id"] for r in rows}
    assert {"FAST.T2", "FAST.T2@corrected"} <= {r["key"] for r in rows}
    assert all({"id", "key", "paper", "kind", "title"} <= set(r) for r in rows)


def test_show_prints_symbols_hypotheses_and_provenance(convbound):
    run = convbound("show", "FAST.T1")
    assert run.code == 0
    for needle in ("eta_c", "step size cap", "000_cd604f43d63aca60.txt", "Theorem 1", "G1"):
        assert needle in run.out


def test_check_json_contract_and_worked_example(convbound):
    run = convbound("check", "FAST.T1", *T1, "eta_c=0.005", "--json")
    assert run.code == 0
    out = run.json()
    assert out["id"] == "FAST.T1"
    assert out["value"] == pytest.approx(0.16 + 0.003 + 0.0140625)
    assert out["terms"]["optimization"] == pytest.approx(0.16)
    names = [c["name"] for c in out["conditions"]]
    assert len(names) == 4 and all({"name", "holds", "lhs", "rhs"} <= set(c) for c in out["conditions"])
    # the participation process is not an input: listed, never reported as holding
    assert names[3] == "participation (snapshot)" and out["conditions"][3]["holds"] is None
    # G1..G3 absent: the q-condition is unverified, so overall holds is null, never true
    assert out["conditions"][2]["holds"] is None and out["holds"] is None


def test_check_reports_broken_step_size_with_margin_and_value(convbound):
    run = convbound("check", "FAST.T1", *T1, "eta_c=0.01", "--json")
    out = run.json()
    cap = next(c for c in out["conditions"] if "5mnLK" in c["name"])
    assert cap["holds"] is False
    assert cap["margin"] == pytest.approx(0.006 - 0.01)
    assert out["holds"] is False
    assert out["value"] == pytest.approx(4 / (5 * 1000 * 0.01) + 4 * 7.5 * 0.01 / 50 + 90 * 25 * 1e-4 * 0.25)


def test_check_with_supplied_constants_decides(convbound):
    out = convbound("check", "FAST.T1", *T1, "eta_c=0.005", "G1=10", "G2=1", "G3=1", "--json").json()
    assert out["conditions"][2]["rhs"] == pytest.approx(11.55 / 21.5)
    assert out["holds"] is False  # q = 0.5 < q_min = 0.5372


def test_solve_json(convbound):
    out = convbound("solve", "FAST.T1", "--for", "eta_c", *T1, "--json").json()
    assert out["id"] == "FAST.T1" and out["symbol"] == "eta_c"
    assert out["value"] == pytest.approx(0.006, rel=1e-12)
    out = convbound("solve", "FAST.T1", "--for", "R", "--target", "0.2", *[a for a in T1 if not a.startswith("R=")],
                    "eta_c=0.005", "--json").json()
    assert out["value"] == 875  # 160/R <= 0.2 - 0.0170625


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["check", "FAST.T9"], "did you mean"),
        (["check", "FAST.T1", "L=0"], "L=0 is outside its domain"),
        (["check", "FAST.T1", "L=1", "q=1.5"], "q=1.5 is outside its domain"),
        (["check", "FAST.T1", "L=1"], "required:"),
        (["check", "FAST.T1", "L=one"], "not a number"),
        (["check", "FAST.T1", "L"], "expected KEY=VALUE"),
        (["solve", "FAST.T1", "--for", "zz", *T1], "unknown scalar symbol"),
        (["solve", "FAST.T1", "--for", "R", "--target", "abc", *T1], "not a number"),
        (["show", "NOPE"], "unknown result ID"),
        (["nope"], "No such command"),
    ],
)
def test_user_errors_are_one_line_exit_2(convbound, argv, needle):
    run = convbound(*argv)
    assert run.code == 2
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in run.err


# Issue 10 (bounds side of findings 1, 3, 5, 8)
T2_ARGS = ("mu=0.1", "L=1", "K=5", "m=10", "n=10", "sigma_G=0.01", "sigma=1", "kappa=1", "R=1000", "q=0.8")


def test_check_never_says_all_hold_for_an_infinite_threshold(convbound):
    for q in ("0", "0.5", "1"):
        run = convbound("check", "FAST.T2", "mu=0.01", "L=1", "K=5", "m=10", "n=10", "eta_c=0.001", "sigma_G=0",
                        "sigma=1", "kappa=1", "R=100", f"q={q}", "--json")
        out = run.json()
        thr = next(c for c in out["conditions"] if c["name"] == "snapshot probability threshold")
        assert thr["holds"] is None and out["holds"] is None
        assert "all hypotheses hold" not in convbound("check", "FAST.T2", "mu=0.01", "L=1", "K=5", "m=10", "n=10",
                                                      "eta_c=0.001", "sigma_G=0", "sigma=1", "kappa=1", "R=100",
                                                      f"q={q}").out


def test_check_rates_against_an_availability_model(convbound):
    # Table I allows one client per round: r = (0.9, 0.9) sums past 1, so it is not achievable
    base = ("F3AST.L3.4@eq7", "E=1", "G=1", "p=0.5,0.5", "r=0.9,0.9")
    assert "all hypotheses hold" not in convbound("check", *base).out
    out = convbound("check", *base, "model=table1", "--json").json()
    part = next(c for c in out["conditions"] if c["name"] == "participation (static-rate)")
    assert part["holds"] is False and out["holds"] is False
    # r* = (3/8, 1/2) of Table I (f3ast.md EX1) is achievable; eq. (6) has no other undecided hypothesis
    out = convbound("check", "F3AST.L3.4@eq6", "E=1", "G=1", "p=0.5,0.5", "r=0.375,0.5", "model=table1",
                    "--json").json()
    assert out["holds"] is True
    # eq. (7) also assumes uncorrelated availability: Table I's two clients are independent
    # (P(both) = 0.3 = P(A_1) P(A_2) = 0.375 x 0.8), so the model decides it too
    out = convbound("check", "F3AST.L3.4@eq7", "E=1", "G=1", "p=0.5,0.5", "r=0.375,0.5", "model=table1",
                    "--json").json()
    unc = next(c for c in out["conditions"] if c["name"] == "availability uncorrelated or negatively correlated")
    assert unc["holds"] is True and out["holds"] is True
    out = convbound("check", "F3AST.L3.4@eq7", "E=1", "G=1", "p=0.5,0.5", "r=0.375,0.5", "model=table1-markov",
                    "--json").json()
    unc = next(c for c in out["conditions"] if c["name"] == "availability uncorrelated or negatively correlated")
    assert unc["holds"] is True  # the sticky chain keeps Table I as its stationary law: still independent


def test_positively_correlated_availability_fails_eq7(convbound, tmp_path):
    # both clients available together or not at all: Cov(A_1, A_2) = 0.5 - 0.5^2 = 0.25 > 0
    model = tmp_path / "together.toml"
    model.write_text('kind = "table"\nk = 1\nsets = [[1, 1], [0, 0]]\nprobs = [0.5, 0.5]\n', encoding="utf-8")
    out = convbound("check", "F3AST.L3.4@eq7", "E=1", "G=1", "p=0.5,0.5", "r=0.25,0.25", f"model={model}",
                    "--json").json()
    unc = next(c for c in out["conditions"] if c["name"] == "availability uncorrelated or negatively correlated")
    assert unc["holds"] is False and "0.25" in unc["reason"] and out["holds"] is False
    run = convbound("check", "FAST.T1", *T1, "eta_c=0.005", "model=table1")
    assert run.code == 2 and "model=" in run.err


def test_solve_max_with_target_uses_the_target(convbound):
    run = convbound("solve", "FAST.T2", *T2_ARGS, "--for", "eta_c", "--mode", "max", "--target", "0.001", "--json")
    out = run.json()
    assert out["success"] is False and run.code == 1  # the bound is >= 0.6 for every allowed eta_c
    out = convbound("solve", "FAST.T2", *T2_ARGS, "--for", "eta_c", "--mode", "max", "--target", "0.7",
                    "--json").json()
    assert out["success"] and out["bound"] <= 0.7


@pytest.mark.parametrize("argv", [
    ("check", "F3AST.E3", "p=0.5,0.5;0.5", "r=0.5,0.5"),
    ("check", "F3AST.E3", "p=0.5,0.5;0.5,0.5", "r=0.5,0.5"),
    ("check", "F3AST.LB.5", "p=0.5,0.5", "r=0.5,0.5", "v=1,0;0,1", "Sigma=1,0;0", "eta=1"),
    ("check", "F3AST.LB.5", "p=0.5,0.5", "r=0.5,0.5", "v=1,0;0,1", "Sigma=-1,0;0,-1", "eta=1"),
    ("show", "FAST.T1@"),
    ("solve", "F3AST.T3.7@corrected", "eps=0.01", "C=1", "--for", "alpha"),
    ("solve", "FAST.T2", *T2_ARGS, "--for", "eta_c", "--target", "nan"),
    ("solve", "FAST.T2", *T2_ARGS, "--for", "eta_c", "--target", "inf"),
    ("check", "ASCAF.T1", "Delta=1", "L=1", "sigma=1", "rho=0.3", "R=1000", "I=10", "P=5", "p_min=0.1", "gamma=2",
     "eta=inf"),
])
def test_bad_input_gets_one_line_and_exit_2(convbound, argv):
    run = convbound(*argv)
    assert run.code == 2, (run.out, run.err)
    assert "Traceback" not in run.err and len(run.err.strip().splitlines()) == 1
