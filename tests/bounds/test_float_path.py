"""The numpy-free scalar path of `check`/`evaluate` (bounds.floats, bounds.binding.bind_floats).

One number per scalar symbol is evaluated with Python floats and the ``math`` module; the numbers
must be those of the numpy path (same lambdified arithmetic, libm instead of numpy's loops: equal to
rtol 1e-14), and any value that leaves float64's range must go to the numpy path, which reports it
as it always did. The numpy path is forced here by giving the same values as 0-d numpy arrays.
"""

import math

import numpy as np
import pytest

from bounds import get
from bounds.binding import bind, bind_floats
from bounds.core.errors import UserInputError
from bounds.core.jsonable import jsonable
from bounds.floats import Checked, checked_math
from bounds.registry import all_results
from bounds.symbols import Domain

RTOL = 1e-14
T1 = dict(L=1, K=5, m=10, n=5, q=0.5, sigma2=1, sigma_G2=0.25, zeta=1, R=1000, eta_c=0.005)


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is b
    a, b = float(a), float(b)
    return (math.isnan(a) and math.isnan(b)) or a == b or math.isclose(a, b, rel_tol=RTOL, abs_tol=0.0)


def _scalar_examples():
    return [r for r in all_results() if bind_floats(r, r.example_values) is not None]


def test_most_built_in_examples_take_the_float_path():
    # the comparison below covers these; if bind_floats refused them all, it would compare nothing
    taken = _scalar_examples()
    assert len(taken) >= 40, [r.key for r in taken]
    assert "FAST.T1" in {r.key for r in taken}


@pytest.mark.parametrize("key", [r.key for r in _scalar_examples()])
def test_float_path_equals_the_numpy_path_on_every_built_in_example(key):
    res = get(key)
    values = res.example_values
    fast = res.check(values)
    slow = res.check({k: np.asarray(v, dtype=float) for k, v in values.items()})
    assert type(fast.evaluation.value) is float  # the float path was taken (numpy gives np.float64)
    assert type(slow.evaluation.value) is not float  # and the numpy path for arrays
    assert _close(fast.evaluation.value, slow.evaluation.value)
    assert fast.evaluation.terms.keys() == slow.evaluation.terms.keys()
    assert all(_close(fast.evaluation.terms[t], slow.evaluation.terms[t]) for t in fast.evaluation.terms)
    assert fast.evaluation.notes == slow.evaluation.notes and fast.notes == slow.notes
    assert [c.name for c in fast.conditions] == [c.name for c in slow.conditions]
    for f, s in zip(fast.conditions, slow.conditions):
        assert (f.relation, f.holds, f.open, f.reason, f.needs) == (s.relation, s.holds, s.open, s.reason, s.needs)
        assert _close(f.lhs, s.lhs) and _close(f.rhs, s.rhs), f.name
        if f.margin is not None:  # a margin is a difference: compare it on the scale of its sides
            scale = max(abs(float(f.lhs)), abs(float(f.rhs)))
            assert abs(float(f.margin) - float(s.margin)) <= 4 * RTOL * scale, f.name
    assert fast.to_dict().keys() == slow.to_dict().keys()
    assert fast.verdict == slow.verdict and fast.holds == slow.holds


def test_fast_t1_by_hand():
    # FAST Theorem 1 at the spec's example, by hand: 4*1/(5*1000*0.005) = 0.16;
    # 4*(5*0.5 + 10*0.5)*1*0.005*1/(10*5) = 0.003; (120*0.5 + 60*0.5)*1*25*0.005^2*0.25 = 0.0140625
    report = get("FAST.T1").check({k: str(v) for k, v in T1.items()})
    terms = report.evaluation.terms
    assert math.isclose(terms["optimization"], 0.16, rel_tol=1e-15)
    assert math.isclose(terms["statistical"], 0.003, rel_tol=1e-15)
    assert math.isclose(terms["heterogeneity"], 0.0140625, rel_tol=1e-15)
    caps = {c.name: c for c in report.conditions}
    assert caps["step size cap 1/(8LK)"].holds is True
    assert math.isclose(caps["step size cap 1/(8LK)"].margin, 1 / 40 - 0.005, rel_tol=1e-14)


def test_an_overflow_inside_a_term_is_reported_as_before():
    # K*R = 1e310 leaves float64's range inside the first term, whose float64 value becomes 4/inf = 0:
    # Python floats would say 0 without a word; the numpy path flags the term
    values = {**T1, "K": 100000, "R": 1e305, "eta_c": 1}
    report = get("FAST.T1").check(values)
    before = get("FAST.T1").check({k: np.asarray(v, dtype=float) for k, v in values.items()})
    assert report.evaluation.notes == before.evaluation.notes
    assert report.evaluation.notes and "overflow inside term(s) optimization" in report.evaluation.notes[0]
    assert type(report.evaluation.value) is not float  # the numpy path answered
    assert jsonable(report.to_dict()) == jsonable(before.to_dict())  # nan -> None: nan != nan


@pytest.mark.parametrize("key, change, expected", [
    # log(0) in a hypothesis side (math.log raises; numpy gives -inf): the condition is undecided, not decided
    ("FAST.T2", {"sigma_G": 0}, "its right side is infinite (-inf)"),
    # a zero denominator in the bound (Python raises ZeroDivisionError; numpy gives inf): the bound says nothing
    ("F3AST.T3.7@corrected", {"alpha": 1}, "the bound is infinite at these values"),
])
def test_a_value_that_is_not_finite_is_reported_as_before(key, change, expected):
    res = get(key)
    values = {**res.example_values, **change}
    assert bind_floats(res, values) is not None  # the float path is tried, and hands over
    report = res.check(values)
    before = res.check({k: np.asarray(v, dtype=float) for k, v in values.items()})
    assert jsonable(report.to_dict()) == jsonable(before.to_dict())  # nan -> None: nan != nan
    said = [*report.notes, *(c.reason for c in report.conditions)]
    assert any(expected in text for text in said), said


def test_checked_floats_raise_where_float64_overflows():
    big = Checked(1e308)
    with pytest.raises(OverflowError):
        big * 10
    with pytest.raises(OverflowError):
        10.0 * big  # the reflected method of the subclass is called first
    with pytest.raises(OverflowError):
        big + big
    with pytest.raises(OverflowError):
        Checked(10.0) ** 400
    with pytest.raises(ValueError):
        Checked(-8.0) ** (1 / 3)  # complex in Python, nan in numpy
    with pytest.raises(OverflowError):
        checked_math()["exp"](Checked(1000.0))
    with pytest.raises(ZeroDivisionError):
        Checked(1.0) / 0
    out = 2 * -Checked(3.0) / 4 + checked_math()["sqrt"](Checked(4.0))
    assert type(out) is Checked and out == 0.5


def test_domain_membership_of_one_float():
    cases = {
        Domain.POSITIVE: {1e-300: True, 0.0: False, -1.0: False, math.inf: False},
        Domain.NONNEGATIVE: {0.0: True, -1e-300: False, 5.0: True},
        Domain.REAL: {-1e300: True, math.inf: False, math.nan: False},
        Domain.PROBABILITY: {0.0: True, 1.0: True, 1.0000001: False, -1e-300: False},
        Domain.OPEN_PROBABILITY: {0.0: False, 0.5: True, 1.0: True},
        Domain.POSITIVE_INTEGER: {1.0: True, 0.0: False, 2.5: False, 1e300: True, math.inf: False},
        Domain.NONNEGATIVE_INTEGER: {0.0: True, -1.0: False, 3.0: True, 0.5: False},
    }
    for domain, expected in cases.items():
        got = {x: domain.admits(x) for x in expected}
        assert got == expected, domain
        arrays = domain.contains(np.array(list(expected)))  # the array path decides the same
        assert list(arrays) == list(expected.values()), domain


def test_bind_floats_leaves_to_bind_what_it_cannot_take():
    res = get("FAST.T1")
    assert bind_floats(res, {"L": "1", "sigma2": "0.25"}) == {"L": 1.0, "sigma": 0.5}
    assert bind_floats(res, {"L": np.float64(1.0)}) is None  # numpy values keep numpy results
    assert bind_floats(res, {"R": 10**400}) is None and bind_floats(res, {"R": True}) is None
    assert bind_floats(res, {"L": "-1"}) is None  # refused by bind, with its message
    assert bind_floats(res, {"sigma2": "-1"}) is None
    assert bind_floats(res, {"sigma": "1", "sigma2": "1"}) is None
    with pytest.raises(UserInputError, match="is outside its domain"):
        bind(res, {"L": "-1"})
    for bad in ({"Lx": "1"}, {"L": "one"}, {"L": "1,2"}):
        with pytest.raises(UserInputError) as fast:
            bind_floats(res, bad)
        with pytest.raises(UserInputError) as slow:
            bind(res, bad)
        assert str(fast.value) == str(slow.value)
