"""The LaTeX import reads real statements exactly, refuses what it cannot read, and never misreads silently.

Expected readings are written by hand in latex_cases.py (or computed here by a mutation rule from the
pieces the rule assembles), never produced by the parser under test.
"""

from __future__ import annotations

import random

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st
from latex_cases import NEAR_MISSES, STATEMENTS, a, b, c, tables

from bounds.core.errors import UserInputError
from bounds.latex_parse import parse_bound, parse_expression, parse_relations

TABLE, VECTORS = tables()
READ = {"rel": parse_relations, "bound": parse_bound, "expr": parse_expression}


def _equal(got, want) -> bool:
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(_equal(g, w) for g, w in zip(got, want))
    if isinstance(want, sp.core.relational.Relational):
        return type(got) is type(want) and _equal(got.lhs, want.lhs) and _equal(got.rhs, want.rhs)
    return sp.simplify((got - want).doit()) == 0


def _outcome(how, tex, want):
    """'correct', 'refused' (a one-line error naming a column) or 'WRONG' (read, but not as expected)."""
    try:
        got = READ[how](tex, TABLE, VECTORS).value
    except UserInputError as exc:
        assert "\n" not in str(exc) and "column" in str(exc), str(exc)
        return "refused" if want is None else f"refused where a reading was expected: {exc}"
    return "correct" if want is not None and _equal(got, want) else f"WRONG: read {got}, expected {want}"


def test_real_statements_18_of_20_read_and_the_rest_refused_by_token():
    correct = 0
    for case in STATEMENTS:
        if case["expected"] is None:
            with pytest.raises(UserInputError, match="cannot read") as err:
                READ[case["how"]](case["tex"], TABLE, VECTORS)
            assert f"{case['token']!r} at column" in str(err.value), (case["src"], str(err.value))
            continue
        outcome = _outcome(case["how"], case["tex"], case["expected"])
        assert outcome == "correct", (case["src"], outcome)
        correct += 1
    assert len(STATEMENTS) == 20 and correct >= 18


def test_statement_pieces_keep_the_papers_term_labels_and_left_side():
    reading = parse_bound(STATEMENTS[3]["tex"], TABLE, VECTORS)
    assert [label for label, _, _ in reading.pieces] == ["Optimization Error", "Statistical Error", "Heterogeneity Error"]
    assert reading.relation == "<=" and reading.lhs_latex.startswith(r"\frac{1}{R} \sum_{r=1}^R")


def _generated_near_misses(seed: int = 20261127) -> list[tuple[str, str, object]]:
    """Mutation rules whose expected value the rule computes from its own parts."""
    rng = random.Random(seed)
    atoms = [(r"a", a), (r"\frac{b}{c}", b / c), (r"b^2", b**2), (r"\frac1a", 1 / a), (r"2c", 2 * c)]
    out = []
    # a signed sum, then the same sum with one minus dropped: the written signs decide each value
    def signed(picks, signs):
        tex = "".join(("-" if s == "-" else ("+" if i else "")) + t for i, (s, (t, _)) in enumerate(zip(signs, picks)))
        return ("expr", tex, sum((-v if s == "-" else v) for s, (_, v) in zip(signs, picks)))

    for _ in range(13):
        picks = [rng.choice(atoms) for _ in range(rng.randint(2, 4))]
        signs = [rng.choice("+-") for _ in picks]
        signs[rng.randrange(len(signs))] = "-"
        out.append(signed(picks, signs))
        dropped = list(signs)
        dropped[rng.choice([i for i, s in enumerate(signs) if s == "-"])] = "+"
        out.append(signed(picks, dropped))
    # nested fractions, one- or many-character arguments
    for depth in range(1, 9):
        tex, value = "a", a
        for level in range(depth):
            top, topv = (("1", 1) if level % 2 else ("b", b))
            tex, value = (rf"\frac{{{top}}}{{{tex}}}", topv / value) if level % 3 else (rf"\frac{{{tex}}}{{c}}", value / c)
        out.append(("expr", tex, value))
    # min and max of two or three generated arguments
    for _ in range(13):
        args = [rng.choice(atoms) for _ in range(rng.randint(2, 3))]
        fn, name = rng.choice([(sp.Min, "min"), (sp.Max, "max")])
        opener, closer = rng.choice([(r"\{", r"\}"), (r"\left\{", r"\right\}"), ("(", ")"), (r"\Bigl\{", r"\Bigr\}")])
        out.append(("expr", f"\\{name}{opener}{', '.join(t for t, _ in args)}{closer}", fn(*(v for _, v in args))))
    # a star on every atom: refused unless the starred name is declared
    for t, _ in atoms[:3]:
        out.append(("expr", t + "^*", None))
    return out


def test_no_silent_misreading_on_near_misses():
    cases = list(NEAR_MISSES) + _generated_near_misses()
    outcomes = [(tex, _outcome(how, tex, want)) for how, tex, want in cases]
    wrong = [(tex, o) for tex, o in outcomes if o not in ("correct", "refused")]
    assert len(_generated_near_misses()) >= 50 and not wrong, wrong
    # the suite exercises both outcomes
    assert sum(o == "refused" for _, o in outcomes) >= 15 and sum(o == "correct" for _, o in outcomes) >= 35


def test_every_token_has_a_role():
    reading = parse_relations(STATEMENTS[4]["tex"], TABLE, VECTORS)
    covered = {col for tok, role in reading.roles for col in range(tok.pos, tok.pos + len(tok.text)) if role}
    text = STATEMENTS[4]["tex"]
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


def test_the_rendering_shown_reads_back_to_the_same_value():
    """What the import shows (sympy.latex of the reading) is itself read to the same value: no hidden drift."""
    from latex_cases import DECLARED

    from bounds.latex_import import _render, _same_value

    names = {TABLE[k]: latex for k, latex in zip(TABLE, DECLARED)}
    checked = 0
    for case in STATEMENTS:
        if case["expected"] is None:
            continue
        value = READ[case["how"]](case["tex"], TABLE, VECTORS).value
        if isinstance(value, list):
            rendered = r",\quad ".join(_render(r, names) for r in value)
            again = parse_relations(rendered, TABLE, VECTORS).value
        else:
            again = parse_expression(_render(value, names), TABLE, VECTORS).value
        assert _same_value(value, again), (case["src"], rendered if isinstance(value, list) else _render(value, names))
        checked += 1
    assert checked == 18


_LEAVES = st.sampled_from([a, b, c, sp.Integer(2), sp.Integer(3), sp.Rational(1, 2)])
_UNARY = [sp.sqrt, sp.log, sp.exp, lambda x: -x, lambda x: x**2, lambda x: 1 / x]
_BINARY = [lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y, lambda x, y: x / y, sp.Min, sp.Max]
_EXPRS = st.recursive(_LEAVES, lambda inner: st.one_of(
    st.tuples(st.sampled_from(range(len(_UNARY))), inner).map(lambda t: _UNARY[t[0]](t[1])),
    st.tuples(st.sampled_from(range(len(_BINARY))), inner, inner).map(lambda t: _BINARY[t[0]](t[1], t[2]))),
    max_leaves=6)


@given(_EXPRS)
def test_sympys_own_latex_of_a_random_expression_is_read_exactly_or_refused(expr):
    """sympy.latex (not this parser) writes the LaTeX; the reading must be the expression or a refusal."""
    tex = sp.latex(expr)
    try:
        got = parse_expression(tex, TABLE, VECTORS).value
    except UserInputError as exc:
        assert "\n" not in str(exc)
        return
    assert sp.simplify(got - expr) == 0, (tex, got, expr)
