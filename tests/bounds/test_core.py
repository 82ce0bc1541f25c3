"""The Result machinery on small synthetic results whose answers are plain arithmetic."""

import math

import numpy as np
import pytest
import sympy as sp

from bounds import Aggregate, Domain, Hypothesis, Kind, Provenance, Result, SymbolInfo, Term, UserInputError, sym

a, b, x, R = sym("a"), sym("b"), sym("x"), sym("R", Domain.POSITIVE_INTEGER)
q = sym("q", Domain.PROBABILITY)
G = sym("G", Domain.REAL)


def toy() -> Result:
    # bound: a/(x R) + b x, under x <= 1/(4a) and q >= G (G unrecovered)
    return Result(
        id="TOY.T1", title="toy", paper="TOY", kind=Kind.UPPER, lhs="toy", lhs_latex="y",
        terms=(Term("opt", a / (x * R)), Term("noise", b * x)),
        hypotheses=(Hypothesis("cap", sp.Le(x, 1 / (4 * a))), Hypothesis("threshold", sp.Ge(q, G))),
        symbols=(SymbolInfo("a", "a"), SymbolInfo("b", "b", Domain.NONNEGATIVE, squared_input=True),
                 SymbolInfo("x", "step", prefer="max"), SymbolInfo("R", "rounds", Domain.POSITIVE_INTEGER),
                 SymbolInfo("q", "prob", Domain.PROBABILITY), SymbolInfo("G", "hidden", Domain.REAL, unrecovered=True)),
        provenance=Provenance("none", "toy"),
    )


VALUES = dict(a=2.0, b=3.0, x=0.1, R=10, q=0.5)


def test_evaluate_total_and_terms():
    ev = toy().evaluate(VALUES)
    assert ev.terms["opt"] == pytest.approx(2 / (0.1 * 10))
    assert ev.terms["noise"] == pytest.approx(0.3)
    assert ev.value == pytest.approx(2.3)


def test_squared_input_alias():
    values = {k: v for k, v in VALUES.items() if k != "b"} | {"b2": 9.0}
    assert toy().evaluate(values).terms["noise"] == pytest.approx(0.3)


def test_check_margins_and_unverified():
    rep = toy().check(VALUES)
    cap, thr = rep.conditions
    assert cap.holds is True and cap.margin == pytest.approx(0.125 - 0.1)
    assert thr.holds is None and "G" in thr.reason
    assert rep.holds is None
    rep = toy().check(dict(VALUES, G=0.7))
    assert rep.conditions[1].holds is False and rep.conditions[1].margin == pytest.approx(-0.2)
    assert rep.holds is False
    rep = toy().check(dict(VALUES, x=0.2, G=0.1))
    assert rep.conditions[0].holds is False and rep.conditions[0].margin == pytest.approx(-0.075)
    assert rep.evaluation.value == pytest.approx(2 / 2 + 0.6)


def test_a_failing_hypothesis_wins_over_an_unverified_one():
    assert toy().check(dict(VALUES, x=0.2)).holds is False


def test_boundary_value_holds():
    assert toy().check(dict(VALUES, x=0.125, G=0.5)).holds is True


def test_vectorised_evaluation_broadcasts():
    xs = np.linspace(0.01, 0.1, 7)
    ev = toy().evaluate(dict(VALUES, x=xs))
    np.testing.assert_allclose(ev.value, 2 / (xs * 10) + 3 * xs)


@pytest.mark.parametrize(
    "values, message",
    [({"a": -1.0}, "outside its domain"), ({"q": 1.5}, "outside its domain"), ({"R": 2.5}, "outside its domain"),
     ({"nope": 1.0}, "unknown symbol"), ({"a": "abc"}, "not a number")],
)
def test_bad_values_are_user_errors(values, message):
    with pytest.raises(UserInputError, match=message):
        toy().evaluate({**VALUES, **values})


def test_missing_symbol_lists_required_ones():
    with pytest.raises(UserInputError, match=r"needs R.*required: R=\.\.\. a=\.\.\. b=\.\.\. x=\.\.\."):
        toy().evaluate({k: v for k, v in VALUES.items() if k != "R"})


def test_solve_max_step_is_the_cap():
    sol = toy().solve("x", {k: v for k, v in VALUES.items() if k != "x"})
    assert sol.mode == "max" and sol.value == pytest.approx(1 / 8, rel=1e-12)
    assert sol.unverified == ()  # the threshold does not involve x


def test_solve_argmin_matches_calculus():
    # d/dx (a/(xR) + b x) = 0 -> x* = sqrt(a/(R b)) = sqrt(2/30) = 0.258 > cap 0.125 -> cap binds
    sol = toy().solve("x", {k: v for k, v in VALUES.items() if k != "x"}, mode="argmin")
    assert sol.value == pytest.approx(0.125, rel=1e-9)
    sol = toy().solve("x", {**{k: v for k, v in VALUES.items() if k != "x"}, "a": 0.1}, mode="argmin")
    assert sol.value == pytest.approx(math.sqrt(0.1 / 30), rel=1e-6)


def test_solve_rounds_for_target_is_integer_ceiling():
    # 2/(0.1 R) + 0.3 <= 0.5  <=>  R >= 100 ; with target 0.55: R >= 80
    vals = {k: v for k, v in VALUES.items() if k != "R"}
    assert toy().solve("R", vals, target=0.5).value == 100
    assert toy().solve("R", vals, target=0.55).value == 80
    assert toy().solve("R", vals, target=0.29).success is False


def test_solve_min_probability_with_supplied_constant():
    sol = toy().solve("q", {k: v for k, v in VALUES.items() if k != "q"} | {"G": 0.3})
    assert sol.value == pytest.approx(0.3, abs=1e-12)


def test_solve_rejects_unknown_and_given_symbol():
    with pytest.raises(UserInputError, match="unknown scalar symbol"):
        toy().solve("y", VALUES)
    with pytest.raises(UserInputError, match="do not also give"):
        toy().solve("x", VALUES)


def test_aggregate_symbols_from_vectors():
    p, r = sp.IndexedBase("p"), sp.IndexedBase("r")
    k, N = sp.symbols("k N", integer=True)
    H = sym("H")
    res = Result(
        id="TOY.H", title="H", paper="TOY", kind=Kind.EQUALITY, lhs="H(r)", lhs_latex="H",
        terms=(Term("H", H),),
        symbols=(SymbolInfo("p", "weights", Domain.VECTOR_PROBABILITY), SymbolInfo("r", "rates", Domain.VECTOR_RATE)),
        aggregates=(Aggregate("H", sp.Sum(p[k] ** 2 / r[k], (k, 1, N)), ("p", "r"),
                              lambda p, r: np.sum(p**2 / r, axis=-1)),),
        provenance=Provenance("none", "toy"),
    )
    assert res.evaluate({"p": "0.5,0.5", "r": "0.375,0.5"}).value == pytest.approx(0.25 / 0.375 + 0.25 / 0.5)
    with pytest.raises(UserInputError, match="outside its domain"):
        res.evaluate({"p": "0.5,0.5", "r": "0,0.5"})


def test_rendering_mentions_every_term_and_hypothesis():
    res = toy()
    tex = res.latex()
    assert r"\text{opt}" in tex and r"\text{noise}" in tex and r"\le" in tex
    txt = res.text()
    assert "cap" in txt and "threshold" in txt
    d = res.to_dict()
    assert [t["name"] for t in d["terms"]] == ["opt", "noise"] and d["kind"] == "upper"
