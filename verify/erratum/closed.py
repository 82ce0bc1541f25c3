"""Exact closed forms of a refuted instance: LHS(R) and RHS(R) in rationals, their limits, where LHS > RHS.

**Setting**: an instance inside ``verify.search.closed_form``'s setting (a declared affine round of a state of at
most 3 numbers, a law that is the same every round, a quadratic measure at round R + k or a mean over rounds
first..R + k, a triangular moment recursion). A participation law drawn once per trial (client propensities, e.g.
FAST's arbitrary rounds) is the same every round given that draw: the closed form is then the one of the trial
whose exact value (``verify.exact_score.per_trial_lhs``, TRIALS trials from seed SEED) is largest at the
instance, i.e. of the participation process with that trial's propensities fixed; the record says so and gives
the process's per-round participation probabilities and the mean over all trials beside it.
**Quantity**: the moment recursion v_{r+1} = T v_r built in exact rational arithmetic from the declared data read
back as rationals (:mod:`verify.erratum.rational`), solved moment by moment: the measure at round r is
sum_lam K_lam lam^r with rational K, lam. LHS(R) is that at round R + k, or its mean over rounds (each geometric
series summed); RHS(R) is the result's own sympy terms with every other input at the instance's value (read back as
a rational; a squared input such as sigma_G^2 as the rational of its square).
**Statement**: LHS(R) and RHS(R) are sympy expressions with rational coefficients (no floats); the limit of LHS as R
grows is K_1 (exact) where every other rate is below 1 in modulus. The range of R where LHS > RHS is found on the
integers of the R axis (log grid, bisection) evaluating the exact expressions with 50-digit arithmetic. The value at
the instance's R is set beside the float exact path's (relative difference, and agreement to REL_CHECK).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp

from verify.erratum.rational import Recovery, recover
from verify.scenario import Scenario

__all__ = ["REL_CHECK", "ExactForm", "exact_form"]

REL_CHECK = 1e-12  # the closed form and the float exact path agree to this relative difference
DPS = 50  # digits of the arithmetic that locates LHS > RHS on the integers
TRIALS, SEED = 256, 0  # a per-trial law's draws: the confirmation's default count, the project's first seed


def _q(v: Fraction) -> sp.Rational:
    return sp.Rational(v.numerator, v.denominator)


@dataclass(frozen=True)
class ExactForm:
    """A refuted instance's exact closed forms (module docstring). ``rates``: {lam: K_lam} of the measure at round
    r; ``values``: the RHS's inputs as rationals; ``check``: the float exact path beside LHS at the point's R."""

    scenario: str
    result: str
    point: dict[str, Any]
    values: dict[str, sp.Expr]
    rates: dict[Fraction, Fraction]
    measure: str
    lhs: sp.Expr
    rhs: sp.Expr
    lhs_limit: sp.Expr | None
    rhs_limit: sp.Expr
    violated_for_R: list[list[int]]
    R_axis: tuple[int, int]
    check: dict[str, Any]
    recovery: dict[str, Any]
    process: dict[str, Any] | None = None  # a per-trial law: the trial whose law the closed form is (docstring)

    def to_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "result": self.result, "point": self.point,
                "values": {k: str(v) for k, v in self.values.items()}, "measure": self.measure,
                "rates": [{"rate": str(lam), "coefficient": str(k)} for lam, k in self.rates.items()],
                "lhs_of_R": str(self.lhs), "rhs_of_R": str(self.rhs),
                "lhs_of_R_latex": sp.latex(self.lhs), "rhs_of_R_latex": sp.latex(self.rhs),
                # 12-digit forms for display where the exact rationals run long (data read as their float64 values)
                **{f"{k}_approx{t}": f(_digits(e)) for k, e in (("lhs_of_R", self.lhs), ("rhs_of_R", self.rhs),
                                                                ("lhs_limit", self.lhs_limit), ("rhs_limit",
                                                                                                self.rhs_limit))
                   if e is not None for t, f in (("", str), ("_latex", sp.latex))},
                "lhs_limit": None if self.lhs_limit is None else str(self.lhs_limit),
                "lhs_limit_latex": None if self.lhs_limit is None else sp.latex(self.lhs_limit),
                "rhs_limit": str(self.rhs_limit), "violated_for_R": self.violated_for_R,
                "R_axis": list(self.R_axis), "check": self.check, "data_as_rationals": self.recovery,
                **({"process": self.process} if self.process is not None else {})}


def _recursion(scenario: Scenario, point: Mapping[str, Any], conv: Recovery,
               trial: Any = None) -> tuple[Any, ...] | str:
    """(exact recursion, declared measure, first round, shift, instance), or why the setting does not apply: the
    search's declared recursion (``verify.search.closed_form.declared_recursion``: how the measure moves with R is
    read on its float recursion), then the same declarations with the data's recovered rationals."""
    from verify.search.closed_form import declared_recursion, moment_recursion

    found = declared_recursion(scenario, point, trial)
    if isinstance(found, str):
        return found
    floats, spec, first, shift, inst, rm, law = found
    exact = moment_recursion(rm, law, conv)
    assert not isinstance(exact, str)  # the same declarations passed above
    return (exact, floats, spec, first, shift, inst, rm, law)


def _digits(e: sp.Expr) -> sp.Expr:
    """``e`` with every non-integer rational written to 12 digits (exponents' coefficients too)."""
    return sp.N(e.xreplace({r: sp.Float(r, 12) for r in e.atoms(sp.Rational) if not r.is_Integer}), 12)


def _value(K: Mapping[Fraction, Fraction], kind: str, first: int, shift: int, R: int) -> float:
    """The measure at horizon R from its rates (50-digit arithmetic; the rates are exact)."""
    import mpmath

    with mpmath.workdps(DPS):
        f = sp.lambdify(sp.Symbol("R"), _lhs_expr(K, kind, first, shift, sp.Symbol("R")), "mpmath")
        return float(f(R))


def _lhs_expr(K: Mapping[Fraction, Fraction], kind: str, first: int, shift: int, R: sp.Symbol) -> sp.Expr:
    terms = [(lam, k) for lam, k in sorted(K.items(), key=lambda t: -abs(t[0])) if k != 0]
    if kind == "final":
        return sp.Add(*(_q(k) * _q(lam) ** (R + shift) if lam != 1 else _q(k) for lam, k in terms))
    n = R + shift - first + 1
    return sp.Add(*(_q(k * lam**first / (1 - lam)) * (1 - _q(lam) ** n) / n if lam != 1 else _q(k)
                    for lam, k in terms))


def _rhs_values(res: Any, values: Mapping[str, Any], conv: Recovery) -> dict[str, sp.Expr]:
    """The RHS's inputs (all but R) as exact numbers: a squared input (sigma_G) as the root of its square's rational."""
    out: dict[str, sp.Expr] = {}
    info = res.symbol_map
    for s in sorted(res.rhs.free_symbols, key=lambda x: x.name):  # by name: a set's order moves between runs
        if s.name == "R" or s.name not in values:
            continue
        v = float(values[s.name])
        sq = getattr(info.get(s.name), "squared_input", False)
        out[s.name] = sp.sqrt(_q(conv(v * v))) if sq else _q(conv(v))
    return out


def _trial(scenario: Scenario, point: Mapping[str, Any]) -> tuple[Any, dict[str, Any] | None] | str:
    """(the trial to derive, its description) for a per-trial law (module docstring); (None, None) otherwise."""
    import numpy as np

    from quadratics.exact.declare import PerTrialLaw
    from quadratics.exact.plan import declared_law
    from verify.exact_score import per_trial_lhs
    from verify.search.closed_form import Trial

    inst = scenario.build(scenario.point(point))
    law = declared_law(inst.pattern)
    if not isinstance(law, PerTrialLaw):
        return None, None
    per = per_trial_lhs(inst, TRIALS, SEED)
    if isinstance(per, str):
        return f"{law.why}; the per-trial exact path declines this instance ({per})"
    values = np.asarray(per.values, dtype=float)
    t = int(np.argmax(values))
    laws = law.laws(TRIALS, SEED)
    assert not isinstance(laws, str)  # per_trial_lhs built the same laws above
    Eu, _ = laws[t].moments(laws[t].key(0))
    M = int(laws[t].M)
    return Trial(TRIALS, SEED, t), {
        "trial": t, "trials": TRIALS, "seed": SEED, "why_per_trial": law.why,
        "conditioned_on": f"trial {t} of {TRIALS} (seed {SEED}): the participation process with that trial's "
                          "propensities fixed, the trial whose exact value is largest at the instance",
        "participation_probability": [float(v) for v in np.ravel(Eu)[M:2 * M]],
        "trial_value": float(values[t]), "trial_fp_error": float(per.err),
        "mean_over_trials": float(values.mean()), "law": laws[t].describe}


def exact_form(scenario: Scenario, point: Mapping[str, Any]) -> ExactForm | str:
    """The exact closed forms at ``point`` (module docstring), or why they are not derived (a string)."""
    import bounds
    from verify.search.closed_form import _ranges, moment_recursion, rates, rounds_range

    picked = _trial(scenario, point)
    if isinstance(picked, str):
        return picked
    trial, process = picked
    conv = Recovery()
    found = _recursion(scenario, point, conv, trial)
    if isinstance(found, str):
        return found
    rec, floats, spec, first, shift, inst, rm, law = found
    K = rates(rec, spec.form(inst.problem), conv)
    if isinstance(K, str):
        return K
    R = sp.Symbol("R", integer=True, positive=True)
    # the recovered reading beside the same recursion in exact arithmetic on the float64 data (rational.py)
    K_float = rates(floats, spec.form(inst.problem))
    assert not isinstance(K_float, str)  # the same recursion, other numbers
    at = int(inst.rounds)
    a, b = (_value(k, spec.kind, first, shift, at) for k in (K, K_float))
    if abs(a - b) > REL_CHECK * abs(b):
        conv = Recovery(enabled=False, declined=f"the recovered rationals moved the LHS at R = {at} by "
                                                f"{abs(a - b) / abs(b):.2g} relative (> {REL_CHECK:g}): the float64 "
                                                "data are used as the exact rationals they are")
        floats_exact = moment_recursion(rm, law, conv)
        assert not isinstance(floats_exact, str)  # the same declarations passed above
        K = rates(floats_exact, spec.form(inst.problem), conv)
        assert not isinstance(K, str)
    K = {lam: k for lam, k in K.items() if k != 0}
    lhs = _lhs_expr(K, spec.kind, first, shift, R)
    res = bounds.get(scenario.result)
    vals = _rhs_values(res, inst.values, conv)
    rhs = res.rhs.subs({s: vals[s.name] for s in res.rhs.free_symbols if s.name in vals})
    rsym = next((s for s in rhs.free_symbols if s.name == "R"), None)
    rhs = rhs.subs(rsym, R) if rsym is not None else rhs
    settles = all(abs(lam) < 1 for lam, k in K.items() if lam != 1 and k != 0)
    lhs_limit = _q(K.get(Fraction(1), Fraction(0))) if settles else None
    lo, hi = rounds_range(scenario, point, inst)
    import mpmath

    with mpmath.workdps(DPS):
        f_l, f_r = sp.lambdify(R, lhs, "mpmath"), sp.lambdify(R, rhs, "mpmath")
        bad = _ranges(lambda r: bool(f_l(r) > f_r(r)), lo, hi)
        value = float(f_l(at))
    check = _check(scenario, point, value, at) if process is None else _check_trial(process, value, at)
    return ExactForm(scenario.id, scenario.result, dict(scenario.point(point)), vals, K,
                     f"{spec.describe} (in R: {'at round R' if spec.kind == 'final' else f'mean over rounds {first}..R'}"
                     f"{'' if shift == 0 else f' shifted by {shift}'})", lhs, rhs, lhs_limit,
                     sp.limit(rhs, R, sp.oo), bad, (lo, hi), check, conv.to_dict(), process)


def _check(scenario: Scenario, point: Mapping[str, Any], value: float, at: int) -> dict[str, Any]:
    """The closed form at the point's R beside the float exact path's value there."""
    from verify.scenario import evaluate_point

    est = evaluate_point(scenario, point, trials=2, seed=0)  # exact path: the trial count is unused
    exact = est.exact.get("method") == "exact"
    rel = abs(value - est.lhs) / max(abs(est.lhs), 1e-300)
    return {"R": at, "closed_form": value, "exact_path": est.lhs if exact else None,
            "method": est.exact.get("method", "monte carlo"), "rel_diff": rel, "tolerance": REL_CHECK,
            "agrees": bool(exact and rel <= REL_CHECK)}


def _check_trial(process: Mapping[str, Any], value: float, at: int) -> dict[str, Any]:
    """The closed form at the point's R beside the float per-trial exact path's value of the same trial: they agree
    within that path's own rounding bound (its float recursion carries R rounds of rounding, far above REL_CHECK)."""
    ref, err = float(process["trial_value"]), float(process["trial_fp_error"])
    rel = abs(value - ref) / max(abs(ref), 1e-300)
    return {"R": at, "closed_form": value, "exact_path": ref, "method": f"per-trial exact, trial {process['trial']}",
            "rel_diff": rel, "tolerance": max(REL_CHECK, err / max(abs(ref), 1e-300)),
            "tolerance_is": "the per-trial path's rounding bound, relative", "agrees": bool(abs(value - ref) <= max(
                err, REL_CHECK * abs(ref)))}


def recover_value(x: float) -> sp.Rational:
    """One float read back as the rational it stands for (:func:`verify.erratum.rational.recover`)."""
    return _q(recover(x))
