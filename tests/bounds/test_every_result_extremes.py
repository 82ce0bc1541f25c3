"""Every registered result at extreme inputs (0, 1e-300, 1e300, inf, nan, negatives): check either
reports or refuses with UserInputError, and no condition with a non-finite side is ever True.

A condition reported True is also re-decided independently: sympy evaluates both sides exactly
(rationals, no float overflow) and the relation must hold there up to the boundary tolerance.
"""

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bounds import Domain, UserInputError, all_results

RESULTS = all_results()
VALID = {
    Domain.POSITIVE: [1e-300, 1e-12, 0.5, 1.0, 3.0, 1e12, 1e300],
    Domain.NONNEGATIVE: [0.0, 1e-300, 1e-12, 0.5, 1.0, 1e12, 1e300],
    Domain.REAL: [0.0, -1e300, -1.0, 1e-300, 0.5, 1.0, 1e300],
    Domain.PROBABILITY: [0.0, 1e-300, 0.5, 1.0 - 1e-16, 1.0],
    Domain.OPEN_PROBABILITY: [1e-300, 0.5, 1.0 - 1e-16, 1.0],
    Domain.POSITIVE_INTEGER: [1.0, 2.0, 5.0, 1e6, 1e300],
    Domain.NONNEGATIVE_INTEGER: [0.0, 1.0, 5.0, 1e300],
}
INVALID = [math.inf, -math.inf, math.nan, -1.0, 1.5, -1e-300]


def scalar(domain: Domain):
    """Mostly valid extremes (so checks run), one draw in twenty from values a domain may refuse."""
    valid = st.sampled_from(VALID[domain])
    if domain in (Domain.POSITIVE, Domain.NONNEGATIVE, Domain.REAL):
        valid = valid | st.floats(min_value=1e-6 if domain is Domain.POSITIVE else 0.0, max_value=1e3)
    return st.integers(0, 19).flatmap(lambda i: st.sampled_from(INVALID) if i == 0 else valid)


VECTORS = {
    Domain.VECTOR_PROBABILITY: [(0.5, 0.5), (1.0, 0.0), (1e-300, 1.0), (0.25, 0.75), (0.5, math.inf)],
    Domain.VECTOR_RATE: [(1e-300, 1.0), (0.5, 0.5), (1.0, 1.0), (1e-300, 1e-300), (0.0, 1.0), (0.5, math.nan)],
    Domain.VECTOR_POSITIVE: [(1e-300, 1e300), (1.0, 1.0), (1e300, 1e300), (0.0, 1.0)],
    Domain.VECTOR_NONNEGATIVE: [(0.0, 0.0), (0.0, 1e300), (1.0, 1.0), (-1e-300, 1.0)],
    Domain.VECTOR_REAL: [(0.0, 0.0), (1e300, -1e300), (1.0, math.inf)],
    Domain.MATRIX_REAL: [((1.0, 0.0), (0.0, 1.0)), ((1e300, 1e300), (1e300, 1e300)), ((0.0, 0.0), (0.0, 0.0)),
                         ((1e-300, 0.0), (0.0, 1e-300))],
    Domain.MATRIX_PSD: [((1.0, 0.0), (0.0, 1.0)), ((1e300, 0.0), (0.0, 0.0)), ((0.0, 0.0), (0.0, 0.0)),
                        ((1.0, 1.0), (1.0, 1.0)), ((-1.0, 0.0), (0.0, -1.0))],
}


@st.composite
def values_for(draw, res):
    out = {}
    for s in res.symbols:
        if s.unrecovered and draw(st.integers(0, 4)) == 0:
            continue  # absent: its hypotheses stay unverified
        if s.domain.is_vector:
            out[s.name] = np.asarray(draw(st.sampled_from(VECTORS[s.domain])), dtype=float)
        else:
            out[s.name] = draw(scalar(s.domain))
    return out


def exact(expr: sp.Expr, values) -> sp.Expr:
    subs = {s: sp.Rational(float(values[s.name])) for s in expr.free_symbols}
    return sp.simplify(expr.subs(subs))


def independently_true(res, hyp, values) -> bool:
    """The relation decided with exact rationals (no overflow, no rounding); False if undefined."""
    scalars = {k: v for k, v in values.items() if np.ndim(v) == 0}
    if not {s.name for s in hyp.relation.free_symbols} <= set(scalars):
        return True  # written in aggregates of vectors: covered by the finiteness property only
    lhs, rhs = exact(hyp.relation.lhs, scalars), exact(hyp.relation.rhs, scalars)
    if not (lhs.is_finite and rhs.is_finite and lhs.is_real and rhs.is_real):
        return False
    slack = (rhs - lhs) if isinstance(hyp.relation, (sp.LessThan, sp.StrictLessThan)) else (lhs - rhs)
    scale = max(abs(float(lhs)), abs(float(rhs)))
    return float(slack) >= -1e-9 * scale


@pytest.mark.parametrize("res", RESULTS, ids=lambda r: r.key)
def test_extreme_inputs_never_make_an_undecidable_condition_true(res):
    outcomes = {"report": 0, "refused": 0}

    @settings(max_examples=40, database=None, deadline=None, phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(values_for(res))
    def run(values):
        try:
            rep = res.check(values)
        except UserInputError as exc:
            assert "\n" not in str(exc)
            outcomes["refused"] += 1
            return
        outcomes["report"] += 1
        hyps = {h.name: h for h in res.hypotheses}
        for c in rep.conditions:
            if c.lhs is None:  # not evaluated: must be unverified with a reason
                assert c.holds is not True or c.reason  # decided only by an outside decision
                assert c.holds is None and c.reason
                continue
            sides_finite = bool(np.all(np.isfinite(c.lhs)) and np.all(np.isfinite(c.rhs)))
            if not sides_finite:
                assert c.holds is None, (c.name, c.lhs, c.rhs)
                assert c.reason.startswith("unverified")
            if c.holds is True:
                assert independently_true(res, hyps[c.name], values), (c.name, values)
        verdicts = [c.holds for c in rep.conditions]
        if rep.holds is True:
            assert all(v is True for v in verdicts)
        if any(v is False for v in verdicts):
            assert rep.holds is False
        value = np.asarray(rep.evaluation.value, dtype=float)
        if not np.all(np.isfinite(value)):
            assert rep.notes  # an infinite or undefined bound is said to say nothing

    run()
    # the draws must exercise reports, not only refusals
    assert outcomes["report"] > 0, outcomes


@pytest.mark.parametrize("res", [r for r in RESULTS if r.hypotheses], ids=lambda r: r.key)
def test_solve_at_extremes_answers_inside_the_domain_or_refuses(res):
    scalars = [s for s in res.symbols if not s.domain.is_vector and not s.unrecovered]

    @settings(max_examples=6, database=None, deadline=None, phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(values_for(res), st.sampled_from(scalars))
    def run(values, unknown):
        values = {k: v for k, v in values.items() if k != unknown.name}
        try:
            sol = res.solve(unknown.name, values)
        except UserInputError as exc:
            assert "\n" not in str(exc)
            return
        if sol.success:
            assert math.isfinite(sol.value) and bool(unknown.domain.contains(np.asarray(sol.value)))
            assert sol.bound is None or math.isfinite(sol.bound)
        else:
            assert sol.value is None

    run()
