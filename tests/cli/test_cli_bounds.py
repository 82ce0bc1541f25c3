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
