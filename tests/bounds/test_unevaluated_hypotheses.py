"""Hypotheses built unevaluated (``bounds.result.at_most`` / ``at_least``, issue 30's start-up) are the
relations sympy's evaluating constructors build: every built-in hypothesis is rebuilt evaluated here."""

import sympy as sp

from bounds.registry import all_results
from bounds.result import at_least, at_most


def test_the_helpers_do_not_decide_the_relation():
    # sympy decides 1 <= 2 when it may evaluate; the helpers keep the relation (and its sides) as written
    assert sp.Le(1, 2) is sp.true and sp.Ge(1, 2) is sp.false
    kept = at_most(1, 2), at_least(1, 2)
    assert [type(r) for r in kept] == [sp.LessThan, sp.GreaterThan]
    assert [(r.lhs, r.rhs) for r in kept] == [(1, 2), (1, 2)]


def test_every_builtin_hypothesis_is_the_relation_sympy_would_build():
    rebuilt = 0
    for res in all_results():
        for hyp in res.hypotheses:
            rel = hyp.relation
            evaluated = type(rel)(rel.lhs, rel.rhs)  # evaluate=True: sympy tries to decide it
            assert evaluated == rel, (res.key, hyp.name, evaluated)
            rebuilt += 1
    assert rebuilt >= 60  # 63 across the 59 built-in results when written
