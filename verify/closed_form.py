"""Closed forms of small linear counterexamples: the LHS of a scalar-state instance from its declared moment recursion.

**Setting**: a shrunk counterexample (``verify.shrink``) whose exact path reads declarations only
(:mod:`quadratics.exact.declare`): the algorithm declares its round as an affine map of a state of D = 1 number
(``Algorithm.linear`` -> ``RoundMap``, period 1), the pattern a law that is the same every round (``Law``, period 1;
no Markov chain, no per-trial draw), the measure a quadratic form of e = x - x* at one round or averaged over rounds
(``QuadraticMeasure``). Nothing is recognised by name: a renamed or user-written algorithm that declares the same
round gets the same closed form.
**Quantity**: with u the client features (1, q_1..q_M, 1_1..1_M), one round is e' = A e + c + n with A = sum_f u_f
B_f, c = sum_f u_f c_f (the declared coefficients) and zero-mean noise n of variance sum_i E[(q_i, 1_i) N_i (q_i,
1_i)^T] (the declared blocks N_i); so mu_r = E e_r and s_r = E e_r^2 follow the triangular affine recursion
  mu_{r+1} = E[A] mu_r + E[c],   s_{r+1} = E[A^2] s_r + 2 E[A c] mu_r + E[c^2] + E[n^2],
whose coefficients are read from the declared B, c, N and the law's first moments E[u] and second moments
E[u u^T] (``Law.moments`` -> ``Pairwise``) in exact rational arithmetic of those float64 numbers. sympy sums the
geometric series (numbers as 40-digit Floats): mu_r, s_r in closed form, the measure's form Q s_r + c mu_r + s at
its round or averaged over its rounds, as a function of the horizon R.
**Statement**: the printed LHS(R) beside the result's RHS(R) (its own sympy terms, every other input at the
point), their values at the point's R with the exact path's value beside them, and the ranges of R within the
horizon axis where LHS > RHS, found on integers by scanning a log grid and bisecting each sign change (mpmath,
30 digits). How the measure's rounds and the RHS's other inputs move with R is read by building the instance at
R, R + 1 and 2R: the closed form is derived only where the measure's rounds shift with R (at round R + k, or a
mean over a fixed first round to R + k) and the round map, law and other inputs do not change.
Instances outside the setting return ``{"derived": False, "why": ...}``: nothing is guessed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from verify.scenario import Scenario

__all__ = ["ClosedLHS", "Recursion", "closed_lhs", "derive", "lhs_of_R", "recursion"]

DIGITS = 40  # sympy Float precision of the coefficients (exact rationals of float64 numbers, rounded here)
SETTING = "scalar declared state (D = 1), law and round map the same every round (verify/closed_form.py)"


def _fr(x: Any) -> Fraction:
    return Fraction(float(x))  # exact: every float64 is a rational


def _np(t: Any) -> np.ndarray | None:
    return None if t is None else np.asarray(t.detach().cpu() if hasattr(t, "detach") else t, dtype=float)


def _scalar_form(form: tuple[Any, Any, Any]) -> tuple[Fraction, Fraction, Fraction]:
    """(Q, c, s) of a declared form on a scalar model, as exact rationals."""
    return tuple(_fr(np.ravel(_np(v))[0]) for v in form)  # type: ignore[return-value,index]


class Recursion(dict):
    """The scalar moment recursion's coefficients as exact rationals: ``EA`` = E[A], ``EA2`` = E[A^2], ``Ec`` = E[c],
    ``EAc2`` = 2 E[A c], ``Ec2n`` = E[c^2] + E[n^2]; start ``mu0`` = e_0, ``s0`` = e_0^2."""


def _second(pairs: Any, x: list[Fraction], y: list[Fraction]) -> Fraction:
    """E[(u.x)(u.y)] over the 2M client features from the declared ``Pairwise`` (between clients (V W V^T), the
    same client ``same[i]``), exactly in rationals: O(M r + r^2), never the 2M x 2M matrix."""
    V, W, same = pairs.V, pairs.W, pairs.same
    M, rk = same.shape[0], V.shape[1]
    Vx = [sum((_fr(V[f, k]) * x[f] for f in range(2 * M)), Fraction(0)) for k in range(rk)]
    Vy = [sum((_fr(V[f, k]) * y[f] for f in range(2 * M)), Fraction(0)) for k in range(rk)]
    out = sum((Vx[k] * _fr(W[k, j]) * Vy[j] for k in range(rk) for j in range(rk)), Fraction(0))
    for i in range(M):  # replace the low-rank part's own 2 x 2 block by the declared same-client block
        xi, yi = (x[i], x[M + i]), (y[i], y[M + i])
        rows = [[_fr(V[i, k]) for k in range(rk)], [_fr(V[M + i, k]) for k in range(rk)]]
        for a in range(2):
            for b in range(2):
                own = sum((rows[a][k] * _fr(W[k, j]) * rows[b][j] for k in range(rk) for j in range(rk)), Fraction(0))
                out += xi[a] * (_fr(same[i, a, b]) - own) * yi[b]
    return out


def recursion(rm: Any, law: Any) -> Recursion | str:
    """The coefficients of the scalar recursion (module docstring) from a declared ``RoundMap`` and ``Law``, or why
    the instance is outside the setting."""
    from quadratics.exact.declare import Law

    if rm.D != 1:
        return f"state of {rm.D} numbers (RoundMap.D): derived only for a scalar state (D = 1)"
    if rm.period != 1:
        return f"the declared round map has period {rm.period}: derived only where every round is the same map"
    if not isinstance(law, Law) or law.period != 1:
        return "the pattern declares no law that is the same every round (period 1): derived only for such laws"
    co = rm.coefficients(0)
    B, c, noise = _np(co.B), _np(co.c), _np(co.noise)
    assert B is not None and c is not None
    Eu, pairs = law.moments(law.key(0))
    M = int(law.M)
    if B.shape != (2 * M + 1, 1, 1) or c.shape != (2 * M + 1, 1):
        return f"the declared round map has B {B.shape}, c {c.shape} for {M} clients (expected [2M + 1, 1, 1])"
    b0, g0 = _fr(B[0, 0, 0]), _fr(c[0, 0])
    b, g, m1 = [_fr(v) for v in B[1:, 0, 0]], [_fr(v) for v in c[1:, 0]], [_fr(v) for v in np.ravel(Eu)]
    Eb, Eg = sum((p * v for p, v in zip(m1, b)), Fraction(0)), sum((p * v for p, v in zip(m1, g)), Fraction(0))
    var_n = Fraction(0)
    if noise is not None:  # client i's noise enters with its own (q_i, 1_i): E[n^2] = sum_i <same_i, N_i>
        var_n = sum((_fr(pairs.same[i, a, bb]) * _fr(noise[i, a, bb, 0, 0])
                     for i in range(M) for a in range(2) for bb in range(2)), Fraction(0))
    e0 = _fr(_np(rm.z0)[0]) - _fr(_np(rm.z_ref)[0])  # type: ignore[index]
    return Recursion(EA=b0 + Eb, EA2=b0 * b0 + 2 * b0 * Eb + _second(pairs, b, b), Ec=g0 + Eg,
                     EAc2=2 * (b0 * g0 + b0 * Eg + g0 * Eb + _second(pairs, b, g)),
                     Ec2n=g0 * g0 + 2 * g0 * Eg + _second(pairs, g, g) + var_n, mu0=e0, s0=e0 * e0)


def lhs_of_R(rec: Mapping[str, Fraction], form: tuple[Any, Any, Any], kind: str, first: int, shift: int) -> Any:
    """The measure as a sympy expression in the symbol ``R``: E[Q e_x^2 + c e_x + s] at round R + shift
    (``kind="final"``) or its mean over rounds first..R + shift (``kind="mean"``), from the recursion ``rec``;
    or why not (a string) where the recursion is degenerate.

    Derivation (a = E[A], b = E[A^2], a != b, neither 1): mu_r = mu* + (mu_0 - mu*) a^r with mu* = E[c] / (1 - a);
    s_r = s* + D a^r + (s_0 - s* - D) b^r with s* = (E[c^2] + E[n^2] + 2 E[A c] mu*) / (1 - b) and
    D = 2 E[A c] (mu_0 - mu*) / (a - b) (substitute: D a^(r+1) = b D a^r + 2 E[A c] (mu_0 - mu*) a^r). So the
    measure at round r is K0 + K1 a^r + K2 b^r, and its mean over n rounds from ``first`` sums two geometric series.
    K0, K1, K2 are computed in exact rationals, then written as 40-digit sympy Floats."""
    import sympy as sp

    a, b = rec["EA"], rec["EA2"]
    if a == 1 or b == 1 or a == b:
        return ("degenerate recursion (E[A] = 1, E[A^2] = 1 or E[A] = E[A^2]: a participation or step that "
                "leaves the state unmoved or deterministic 0/1): not derived")
    Q, cv, s = _scalar_form(form)
    mu_st = rec["Ec"] / (1 - a)
    s_st = (rec["Ec2n"] + rec["EAc2"] * mu_st) / (1 - b)
    D = rec["EAc2"] * (rec["mu0"] - mu_st) / (a - b)
    K0, K1, K2 = Q * s_st + cv * mu_st + s, Q * D + cv * (rec["mu0"] - mu_st), Q * (rec["s0"] - s_st - D)
    hp = lambda v: sp.Float(sp.Rational(v.numerator, v.denominator), DIGITS)  # noqa: E731
    R = sp.Symbol("R", integer=True, positive=True)
    if kind == "final":
        return hp(K0) + hp(K1) * hp(a) ** (R + shift) + hp(K2) * hp(b) ** (R + shift)
    n = R + shift - first + 1
    series = (hp(K1 * a ** first / (1 - a)) * (1 - hp(a) ** n) + hp(K2 * b ** first / (1 - b)) * (1 - hp(b) ** n))
    return sp.expand(hp(K0) + series / n)


def _measure_in_R(scenario: Scenario, point: Mapping[str, Any], inst: Any, rec: Recursion) -> tuple[Any, int, int] | str:
    """(declared measure at the point, its first round, shift k: its last round is R + k), read by building the
    instance at R + 1 and 2R: its rounds must shift with R (a first round of a mean fixed), and the round map, the
    law and every other input must stay as they are (else LHS(R) at fixed coefficients is not the scenario's)."""
    from quadratics.exact.plan import declared_law, declared_round
    from verify.measures import declared_measure

    R = int(inst.rounds)
    spec = declared_measure(inst.measure)
    if isinstance(spec, str):
        return spec
    if spec.kind not in ("final", "mean"):
        return f"the measure declares kind {spec.kind!r}: derived for 'final' and 'mean'"
    shift = int(spec.last) - R
    for R2 in (R + 1, 2 * R):
        other = scenario.build(scenario.point({**point, "R": R2}, outside=True))
        sp2 = declared_measure(other.measure)
        if isinstance(sp2, str) or sp2.kind != spec.kind or int(sp2.last) != R2 + shift or \
                (spec.kind == "mean" and int(sp2.first) != int(spec.first)):
            return "the measure's rounds do not move with R as at round R + k or a mean over a fixed first to R + k"
        moved = sorted(k for k in inst.values if k != "R" and other.values.get(k) != inst.values[k])
        if moved:
            return f"the inputs {', '.join(moved)} change with R: no closed form in R with them fixed"
        law2 = declared_law(other.pattern)
        rm2 = declared_round(other.problem, other.algorithm, getattr(law2, "aux", {}))
        if isinstance(rm2, str) or recursion(rm2, law2) != rec:
            return "the declared round map or law changes with R: no closed form in R at fixed coefficients"
    return spec, int(spec.first), shift


class ClosedLHS(NamedTuple):
    """A derived LHS: the recursion's coefficients, LHS(R) (sympy, in the symbol R), the declared measure's
    description and its limit as R -> infinity (None where the recursion does not contract)."""

    recursion: Recursion
    lhs: Any
    measure: str
    stationary: float | None


def closed_lhs(scenario: Scenario, point: Mapping[str, Any]) -> ClosedLHS | str:
    """The closed-form LHS(R) of ``scenario`` at ``point`` from its declarations, or why it is not derived."""
    from quadratics.exact.plan import declared_law, declared_round

    if not any(p.name == "R" for p in scenario.space):
        return f"scenario {scenario.id} has no horizon axis R"
    inst = scenario.build(scenario.point(point))
    law = declared_law(inst.pattern)
    if isinstance(law, str):
        return law
    rm = declared_round(inst.problem, inst.algorithm, getattr(law, "aux", {}))
    if isinstance(rm, str):
        return rm
    rec = recursion(rm, law)
    if isinstance(rec, str):
        return rec
    try:
        x = rm.block("x")
    except KeyError:
        return "the declared round map has no state block named 'x' (the model)"
    if (x.start, x.stop) != (0, 1):
        return "the declared state's only number is not the model x"
    found = _measure_in_R(scenario, point, inst, rec)
    if isinstance(found, str):
        return found
    spec, first, shift = found
    form = spec.form(inst.problem)
    expr = lhs_of_R(rec, form, spec.kind, first, shift)
    if isinstance(expr, str):
        return expr
    return ClosedLHS(rec, expr, spec.describe, _stationary(rec, form))


def _stationary(rec: Mapping[str, Fraction], form: tuple[Any, Any, float]) -> float | None:
    """The limit of the measure as R -> infinity (the recursion's fixed point), None where it does not contract."""
    if not (abs(rec["EA"]) < 1 and 0 <= rec["EA2"] < 1):
        return None
    mu = rec["Ec"] / (1 - rec["EA"])
    s = (rec["Ec2n"] + rec["EAc2"] * mu) / (1 - rec["EA2"])
    Q, cv, c0 = _scalar_form(form)
    return float(Q * s + cv * mu + c0)


def derive(scenario: Scenario, point: Mapping[str, Any]) -> dict[str, Any]:
    """LHS(R) and RHS(R) at ``point`` (every input but R fixed), their values at the point's R, the exact
    numeric LHS beside them, and the ranges of R where LHS > RHS."""
    import mpmath
    import sympy as sp

    import bounds
    from verify.scenario import evaluate_point

    found = closed_lhs(scenario, point)
    if isinstance(found, str):
        return {"derived": False, "why": found}
    rec, lhs_R, measure, stationary = found
    R = next(iter(lhs_R.free_symbols), sp.Symbol("R", integer=True, positive=True))
    est = evaluate_point(scenario, point, trials=2, seed=0)
    res = bounds.get(scenario.result)
    rsym = next((s for s in res.rhs.free_symbols if s.name == "R"), None)
    others = {s: sp.Float(est.values[s.name], 30) for s in res.rhs.free_symbols if s is not rsym and s.name in est.values}
    rhs_R = res.rhs.subs(others).subs(rsym, R) if rsym is not None else res.rhs.subs(others)
    with mpmath.workdps(30):
        f_l, f_r = sp.lambdify(R, lhs_R, "mpmath"), sp.lambdify(R, rhs_R, "mpmath")
        at = int(scenario.point(point)["R"])
        value, rhs_at = float(f_l(at)), float(f_r(at))
        half = (est.ci[1] - est.ci[0]) / 2
        out = {"derived": True, "setting": SETTING, "measure": measure,
               "numbers": {**{k: float(v) for k, v in rec.items()}, "R": at},
               "lhs_of_R": str(sp.N(lhs_R, 8)), "rhs_of_R": str(sp.N(rhs_R, 8)), "stationary_lhs": stationary,
               "lhs_closed_form": value, "lhs_exact_path": est.lhs,
               "rel_diff": abs(value - est.lhs) / max(abs(est.lhs), 1e-300), "exact_bound": half,
               "agrees": abs(value - est.lhs) <= max(half, 1e-10 * abs(est.lhs)), "rhs_at_point": rhs_at,
               "free_parameter": "R"}
        axis = next(p for p in scenario.space if p.name == "R")
        out["violated_for_R"] = _ranges(lambda r: bool(f_l(r) > f_r(r)), int(axis.low), int(axis.high))
    return out


def _ranges(bad, lo: int, hi: int) -> list[list[int]]:
    """Integer intervals of [lo, hi] where ``bad`` holds: a log grid, each sign change bisected to the integer."""
    grid = sorted({int(round(x)) for x in np.geomspace(max(lo, 1), hi, 200)} | {lo, hi})
    flags = [bad(r) for r in grid]
    out: list[list[int]] = []
    start = grid[0] if flags[0] else None
    for (r0, f0), (r1, f1) in zip(zip(grid, flags), zip(grid[1:], flags[1:])):
        if f0 == f1:
            continue
        a, b = r0, r1  # bad(a) == f0 != bad(b): the first integer of the new state
        while b - a > 1:
            c = (a + b) // 2
            a, b = (c, b) if bad(c) == f0 else (a, c)
        if f1:
            start = b
        elif start is not None:
            out.append([start, a])
            start = None
    if start is not None:
        out.append([start, grid[-1]])
    return [[int(x), int(y)] for x, y in out if math.isfinite(x)]
