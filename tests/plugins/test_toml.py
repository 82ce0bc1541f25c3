"""TOML results: same numbers as Python, and formulas that would run code are refused with nothing executed."""

import pytest
from plugin_helpers import EXAMPLES

from bounds import UserInputError, plugins
from bounds.tomlresult import parse_formula, result_from_toml

GD_TOML = (EXAMPLES / "gd_drori_teboulle.toml").read_text(encoding="utf-8")


def test_toml_result_evaluates_like_the_python_one():
    py = plugins.load_file(str(EXAMPLES / "gd_drori_teboulle.py")).results()[0]
    tm = result_from_toml(GD_TOML)
    for vals in ({"L": 1, "gamma": 1, "n": 10, "D2": 1}, {"L": 2.5, "gamma": 0.1, "n": 7, "D2": 3.25}):
        assert float(tm.evaluate(vals).value) == pytest.approx(float(py.evaluate(vals).value), rel=1e-14)
        assert tm.check(vals).holds == py.check(vals).holds
    assert float(tm.evaluate({"L": 2, "gamma": 0.25, "n": 3, "D2": 5}).value) == pytest.approx(1.25)


def test_check_show_solve_with_file(convbound, tmp_path):
    path = tmp_path / "gd.toml"
    path.write_text(GD_TOML, encoding="utf-8")
    run = convbound("check", "--file", str(path), "L=2", "gamma=0.25", "n=3", "D2=5", "--json")
    assert run.code == 0, run.err
    assert run.json()["value"] == pytest.approx(1.25)
    run = convbound("solve", "--file", str(path), "L=2", "n=3", "D2=5", "--for", "gamma", "--mode", "max", "--json")
    assert run.code == 0 and run.json()["value"] == pytest.approx(0.5)
    run = convbound("show", "--file", str(path))
    assert run.code == 0 and "Theorem 3.1" in run.out
    run = convbound("--plugin", str(path), "list", "--json")
    assert {r["key"]: r["origin"] for r in run.json()}["DT14.T3.1"] == f"file {path}"


@pytest.mark.parametrize("formula", [
    "__import__('os').system('touch {flag}')",
    "eval(\"open('{flag}', 'w')\")",
    "open('{flag}', 'w')",
    "L.__class__.__base__",
    "().__class__",
    "L[0]",
    "(lambda: open('{flag}', 'w'))()",
    "exec('open(1)')",
    "L + undeclared",
    "'text'",
    "9**9**9",
])
def test_malicious_formula_refused_and_nothing_executed(convbound, tmp_path, formula):
    flag = tmp_path / "pwned"
    bad = GD_TOML.replace('"L * D2 / (4*n*L*gamma + 2)"', "'''" + formula.format(flag=flag) + "'''")
    path = tmp_path / "bad.toml"
    path.write_text(bad, encoding="utf-8")
    run = convbound("check", "--file", str(path), "L=1", "gamma=1", "n=1", "D2=1")
    assert run.code == 2, (run.out, run.err)
    assert "is not allowed; allowed:" in run.err and str(path) in run.err and run.err.count("\n") == 1
    assert not flag.exists()


def test_relations_only_in_hypotheses():
    with pytest.raises(UserInputError, match="comparison outside a hypothesis"):
        parse_formula("L <= 1", ["L"])
    with pytest.raises(UserInputError, match="without a comparison"):
        parse_formula("L + 1", ["L"], relation=True)
    assert str(parse_formula("Max(L, 2) >= sqrt(L)", ["L"], relation=True)) == "Max(2, L) >= sqrt(L)"
