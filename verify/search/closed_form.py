"""Closed forms of small linear counterexamples: the LHS as a function of R from the declared moment recursion.

**Setting**: a shrunk counterexample (``verify.search.shrink``) whose exact path reads declarations only
(:mod:`quadratics.exact.declare`): the algorithm declares its round as an affine map of a state of D <= 3 numbers
(``Algorithm.linear`` -> ``RoundMap``, period 1), the pattern a law that is the same every round (``Law``, period 1;
no Markov chain, no per-trial draw), the measure a quadratic form of e_x = x - x* at one round or averaged over
rounds (``QuadraticMeasure``); the moment recursion below is lower triangular (always for a scalar state; for a
diagonal one; for one whose coordinates feed each other in one direction only, in the state's order). Nothing is recognised by name: a renamed or user-written algorithm
that declares the same round gets the same closed form.
**Quantity**: with u the client features (1, q_1..q_M, 1_1..1_M), one round is e' = A e + c + n with A = sum_f u_f
B_f, c = sum_f u_f c_f (the declared coefficients) and zero-mean noise n with E[n n^T] = sum_i <E[(q_i, 1_i)^T
(q_i, 1_i)], N_i> (the declared blocks N_i). So v_r = (1, E e_r, E e_r e_r^T (i <= j)) follows v_{r+1} = T v_r:
  m' = E[A] m + E[c],   S' = E[A S A^T] + E[A m c^T + c m^T A^T] + E[c c^T] + E[n n^T],
whose entries are read from the declared B, c, N and the law's first moments E[u] and second moments E[u u^T]
(``Law.moments`` -> ``Pairwise``) in exact rational arithmetic of those float64 numbers (a scalar state: m' = E[A] m
+ E[c], s' = E[A^2] s + 2 E[A c] m + E[c^2] + E[n^2]). A triangular T is solved moment by moment, exactly: each
moment, and the measure, is sum_lam K_lam lam^r over T's diagonal entries lam; its mean over rounds sums geometric
series. sympy writes the result as a function of the horizon R (coefficients as 40-digit Floats).
**Statement**: the printed LHS(R) beside the result's RHS(R) (its own sympy terms, every other input at the
point), their values at the point's R with the exact path's value beside them (or a Monte Carlo run where the
exact path does not score the point, said so), and the ranges of R within the horizon axis where LHS > RHS, found
on integers by scanning a log grid and bisecting each sign change (mpmath, 30 digits). How the measure's rounds
and the other inputs move with R is read by building the instance at R, R + 1 and 2R: the closed form is derived
only where the measure's rounds shift with R (at round R + k, or a mean over a fixed first round to R + k) and the
recursion and the other inputs do not change.
Instances outside the setting return ``{"derived": False, "why": ...}``: nothing is guessed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from bounds.core.errors import PointRefused
from verify.scenario import Scenario

__all__ = ["ClosedLHS", "MomentRecursion", "Trial", "at_rounds", "closed_lhs", "derive", "lhs_of_R", "moment_recursion",
           "rates", "rounds_axis", "rounds_range"]

MAX_STATE = 3  # a state of at most 3 numbers: at most 10 moments, so LHS(R) has at most 10 rates to print
DIGITS = 40  # sympy Float precision of the coefficients (exact rationals of float64 numbers, rounded here)
SETTING = ("declared state of {D} number(s) with a triangular moment recursion, the same law and round map every "
           "round (verify/search/closed_form.py)")
MC_TRIALS = 16  # where the exact path does not score the point: the closed form is set beside a Monte Carlo mean


def _fr(x: Any) -> Fraction:
    return Fraction(float(x))  # exact: every float64 is a rational


def _np(t: Any) -> np.ndarray | None:
    return None if t is None else np.asarray(t.detach().cpu() if hasattr(t, "detach") else t, dtype=float)


@dataclass(frozen=True)
class MomentRecursion:
    """The moment recursion v_{r+1} = T v_r on v = (1, E e, E e_i e_j for i <= j) in exact rationals (``T`` rows,
    ``v0`` the start), for a state of ``D`` numbers whose model is ``x`` (a slice of it)."""

    T: tuple[tuple[Fraction, ...], ...]
    v0: tuple[Fraction, ...]
    D: int
    x: tuple[int, int]


def _gram(vecs: list[tuple[Fraction, list[Fraction]]], Eu: list[Fraction], pairs: Any,
          exact: Callable[[Any], Fraction] = _fr) -> list[list[Fraction]]:
    """E[(x_0 + u.x)(y_0 + u.y)] for every pair of the declared feature vectors (constant part, 2M client parts),
    exactly in rationals from the declared ``Pairwise``: between clients (V W V^T), for the same client
    ``same[i]``; O(M r) per vector and O(r^2 + M) per pair, never the 2M x 2M matrix. Python loops: exact
    rationals have no vectorised form (measured 0.04 s at M = 100 and 0.7 s at M = 1,000 for a scalar state, 0.5 s
    at M = 100 for a state of 3, at load 12 on 2 cores); a shrunk counterexample has few clients."""
    V, W, same = pairs.V, pairs.W, pairs.same
    M, rk = same.shape[0], V.shape[1]
    Vf = [[exact(V[f, k]) for k in range(rk)] for f in range(2 * M)]
    Wf = [[exact(W[k, j]) for j in range(rk)] for k in range(rk)]
    own = [[[sum((Vf[a * M + i][k] * Wf[k][j] * Vf[b * M + i][j] for k in range(rk) for j in range(rk)), Fraction(0))
             for b in range(2)] for a in range(2)] for i in range(M)]
    delta = [[[exact(same[i, a, b]) - own[i][a][b] for b in range(2)] for a in range(2)] for i in range(M)]
    proj = [[sum((Vf[f][k] * x[f] for f in range(2 * M)), Fraction(0)) for k in range(rk)] for _, x in vecs]
    mean = [x0 + sum((p * v for p, v in zip(Eu, x)), Fraction(0)) for x0, x in vecs]
    P = len(vecs)
    G = [[Fraction(0)] * P for _ in range(P)]
    for p in range(P):
        for q in range(p, P):
            (x0, x), (y0, y) = vecs[p], vecs[q]
            second = sum((proj[p][k] * Wf[k][j] * proj[q][j] for k in range(rk) for j in range(rk)), Fraction(0))
            second += sum((x[a * M + i] * delta[i][a][b] * y[b * M + i] for i in range(M) for a in range(2)
                           for b in range(2)), Fraction(0))
            G[p][q] = G[q][p] = x0 * mean[q] + y0 * (mean[p] - x0) + second
    return G


def moment_recursion(rm: Any, law: Any, exact: Callable[[Any], Fraction] = _fr) -> MomentRecursion | str:
    """The recursion of the state's first and second moments (module docstring) from a declared ``RoundMap`` and
    ``Law``, or why the instance is outside the setting. ``exact`` turns each declared float64 number into the
    rational it stands for (default: the float's own value; ``verify.erratum.rational`` recovers the data's
    simple rationals, so that an erratum's closed form has no float residue)."""
    from quadratics.exact.declare import Law

    if rm.D > MAX_STATE:
        return f"state of {rm.D} numbers (RoundMap.D): derived only for a state of at most {MAX_STATE}"
    if rm.period != 1:
        return f"the declared round map has period {rm.period}: derived only where every round is the same map"
    if not isinstance(law, Law) or law.period != 1:
        return "the pattern declares no law that is the same every round (period 1): derived only for such laws"
    co = rm.coefficients(0)
    B, c, noise = _np(co.B), _np(co.c), _np(co.noise)
    assert B is not None and c is not None
    Eu, pairs = law.moments(law.key(0))
    M, D = int(law.M), rm.D
    if B.shape != (2 * M + 1, D, D) or c.shape != (2 * M + 1, D):
        return f"the declared round map has B {B.shape}, c {c.shape} for {M} clients and a state of {D}"
    # feature vectors: A[i][k] and c[i] as (constant part, client parts); their Gram matrix under the law
    vecs = [(exact(B[0, i, k]), [exact(v) for v in B[1:, i, k]]) for i in range(D) for k in range(D)]
    vecs += [(exact(c[0, i]), [exact(v) for v in c[1:, i]]) for i in range(D)]
    Eu_x = [exact(v) for v in np.ravel(Eu)]
    G = _gram(vecs, Eu_x, pairs, exact)
    A = lambda i, k: i * D + k  # noqa: E731 (index of A[i][k] among the vectors)
    C = lambda i: D * D + i  # noqa: E731
    mean = lambda p: vecs[p][0] + sum((e * v for e, v in zip(Eu_x, vecs[p][1])), Fraction(0))  # noqa: E731
    iu = [(i, j) for i in range(D) for j in range(i, D)]
    n = 1 + D + len(iu)
    T = [[Fraction(0)] * n for _ in range(n)]
    T[0][0] = Fraction(1)
    for i in range(D):
        T[1 + i][0] = mean(C(i))
        for k in range(D):
            T[1 + i][1 + k] = mean(A(i, k))
    for row, (i, j) in enumerate(iu, start=1 + D):
        # S'_ij = sum_kl E[A_ik A_jl] S_kl + sum_k (E[A_ik c_j] + E[c_i A_jk]) m_k + E[c_i c_j] + E[n_i n_j]
        T[row][0] = G[C(i)][C(j)] + _noise(noise, pairs, M, i, j, exact)
        for k in range(D):
            T[row][1 + k] = G[A(i, k)][C(j)] + G[C(i)][A(j, k)]
        for col, (k, l) in enumerate(iu, start=1 + D):
            T[row][col] = G[A(i, k)][A(j, l)] + (G[A(i, l)][A(j, k)] if k != l else 0)
    e0 = [exact(z) - exact(zr) for z, zr in zip(_np(rm.z0), _np(rm.z_ref))]  # type: ignore[arg-type]
    v0 = [Fraction(1), *e0, *(e0[i] * e0[j] for i, j in iu)]
    x = rm.block("x") if any(name == "x" for name, _ in rm.layout) else None
    if x is None:
        return "the declared round map has no state block named 'x' (the model)"
    return MomentRecursion(tuple(map(tuple, T)), tuple(v0), D, (x.start, x.stop))


def _noise(noise: np.ndarray | None, pairs: Any, M: int, i: int, j: int,
           exact: Callable[[Any], Fraction] = _fr) -> Fraction:
    """E[n_i n_j]: client k's noise enters with its own (q_k, 1_k), so it is sum_k <same_k, N_k[., ., i, j]>."""
    if noise is None:
        return Fraction(0)
    return sum((exact(pairs.same[k, a, b]) * exact(noise[k, a, b, i, j]) for k in range(M) for a in range(2)
                for b in range(2)), Fraction(0))


def _solve(rec: MomentRecursion) -> list[dict[Fraction, Fraction]] | str:
    """Each moment v_p(r) = sum_lam C_p[lam] lam^r, exactly, where T is lower triangular (a scalar state always; a
    diagonal one in this order): v_p(r+1) = d v_p(r) + sum_lam F[lam] lam^r has the particular solution
    F[lam] / (lam - d) lam^r for lam != d, plus (v_p(0) - sum of those) d^r; lam = d with F[lam] != 0 (a term
    r d^r) is refused as degenerate."""
    T, n = rec.T, len(rec.T)
    if any(T[p][q] != 0 for p in range(n) for q in range(p + 1, n)):
        return ("the moment recursion is not triangular (the state's coordinates feed each other both ways): "
                "derived for scalar states, diagonal ones and ones fed in one direction only")
    out: list[dict[Fraction, Fraction]] = []
    for p in range(n):
        d, F = T[p][p], {}  # type: ignore[var-annotated]
        for q in range(p):
            if T[p][q]:
                for lam, coef in out[q].items():
                    F[lam] = F.get(lam, Fraction(0)) + T[p][q] * coef
        part = {}
        for lam, f in F.items():
            if f == 0:
                continue
            if lam == d:
                return ("degenerate recursion (a moment's own rate equals a rate feeding it, e.g. E[A] = 1 with a "
                        "drift): its closed form has r lam^r terms, not derived")
            part[lam] = f / (lam - d)
        part[d] = part.get(d, Fraction(0)) + rec.v0[p] - sum(part.values(), Fraction(0))
        out.append({lam: v for lam, v in part.items() if v != 0})
    return out


def _row(rec: MomentRecursion, form: tuple[Any, Any, Any], exact: Callable[[Any], Fraction] = _fr) -> list[Fraction]:
    """The measure's row L with L v = E[e_x^T Q e_x + c^T e_x + s] (rationals)."""
    Q, cv, s = (np.asarray(v.detach().cpu() if hasattr(v, "detach") else v, dtype=float) for v in form)
    lo, D = rec.x[0], rec.D
    iu = [(i, j) for i in range(D) for j in range(i, D)]
    L = [exact(np.ravel(s)[0])] + [Fraction(0)] * (D + len(iu))
    for k, val in enumerate(np.ravel(cv)):
        L[1 + lo + k] = exact(val)
    Qm = np.atleast_2d(Q)
    for col, (i, j) in enumerate(iu, start=1 + D):
        a, b = i - lo, j - lo
        if 0 <= a < Qm.shape[0] and 0 <= b < Qm.shape[0]:
            L[col] = exact(Qm[a, b]) + (exact(Qm[b, a]) if a != b else 0)
    return L


def rates(rec: MomentRecursion, form: tuple[Any, Any, Any],
          exact: Callable[[Any], Fraction] = _fr) -> dict[Fraction, Fraction] | str:
    """The measure at round r as sum_lam K[lam] lam^r ({lam: K[lam]}, exact rationals), or why not."""
    comps = _solve(rec)
    if isinstance(comps, str):
        return comps
    K: dict[Fraction, Fraction] = {}
    for w, comp in zip(_row(rec, form, exact), comps):
        for lam, v in comp.items():
            K[lam] = K.get(lam, Fraction(0)) + w * v
    return K


def lhs_of_R(rec: MomentRecursion, form: tuple[Any, Any, Any], kind: str, first: int, shift: int) -> Any:
    """The measure as a sympy expression in the symbol ``R``: E[e_x^T Q e_x + c^T e_x + s] at round R + shift
    (``kind="final"``) or its mean over rounds first..R + shift (``kind="mean"``); or why not (a string).

    From :func:`_solve`, the measure at round r is sum_lam K_lam lam^r (K = L C, exact rationals); its mean over
    n = R + shift - first + 1 rounds sums each geometric series: K_lam lam^first (1 - lam^n) / (1 - lam) / n, or
    K_1 for lam = 1. The K are written as 40-digit sympy Floats."""
    import sympy as sp

    K = rates(rec, form)
    if isinstance(K, str):
        return K
    hp = lambda v: sp.Float(sp.Rational(v.numerator, v.denominator), DIGITS)  # noqa: E731
    R = sp.Symbol("R", integer=True, positive=True)
    terms = sorted(((lam, k) for lam, k in K.items() if k != 0), key=lambda t: -abs(t[0]))
    if not terms:
        return sp.Float(0)
    if kind == "final":
        return sp.Add(*(hp(k) * hp(lam) ** (R + shift) if lam != 1 else hp(k) for lam, k in terms))
    n = R + shift - first + 1
    return sp.Add(*(hp(k * lam ** first / (1 - lam)) * (1 - hp(lam) ** n) / n if lam != 1 else hp(k)
                    for lam, k in terms))


def _measure_in_R(scenario: Scenario, point: Mapping[str, Any], inst: Any, rec: MomentRecursion,
                  trial: Trial | None = None) -> tuple[Any, int, int] | str:
    """(declared measure at the point, its first round, shift k: its last round is R + k), read by building the
    instance at R + 1 and 2R (:func:`at_rounds`): its rounds must shift with R (a first round of a mean fixed), and
    the round map, the law and every other input must stay as they are (else LHS(R) at fixed coefficients is not
    the scenario's)."""
    from quadratics.exact.plan import declared_law, declared_round
    from verify.measures import declared_measure

    R = int(inst.rounds)
    spec = declared_measure(inst.measure)
    if isinstance(spec, str):
        return spec
    if spec.kind not in ("final", "mean"):
        return f"the measure declares kind {spec.kind!r}: derived for 'final' and 'mean'"
    shift = int(spec.last) - R
    for target in (R + 1, 2 * R):
        try:
            other, R2 = at_rounds(scenario, point, inst, target)
        except PointRefused as e:  # a builder that refuses R2: said, and nothing is derived
            return f"the instance could not be built at R = {target} to read how the measure moves with R ({e})"
        sp2 = declared_measure(other.measure)
        if isinstance(sp2, str) or sp2.kind != spec.kind or int(sp2.last) != R2 + shift or \
                (spec.kind == "mean" and int(sp2.first) != int(spec.first)):
            return "the measure's rounds do not move with R as at round R + k or a mean over a fixed first to R + k"
        moved = sorted(k for k in inst.values if k != "R" and other.values.get(k) != inst.values[k])
        if moved:
            return f"the inputs {', '.join(moved)} change with R: no closed form in R with them fixed"
        law2 = _one_law(declared_law(other.pattern), trial)
        rm2 = None if isinstance(law2, str) else declared_round(other.problem, other.algorithm,
                                                                 getattr(law2, "aux", {}))
        if rm2 is None or isinstance(rm2, str) or moment_recursion(rm2, law2) != rec:
            return "the declared round map or law changes with R: no closed form in R at fixed coefficients"
    return spec, int(spec.first), shift


class ClosedLHS(NamedTuple):
    """A derived LHS: the recursion's coefficients, LHS(R) (sympy, in the symbol R), the declared measure's
    description and its limit as R -> infinity (None where the recursion does not contract)."""

    recursion: MomentRecursion
    lhs: Any
    measure: str
    stationary: float | None


class Trial(NamedTuple):
    """One trial of a per-trial law (``PerTrialLaw``: propensities drawn once per trial): the law of that trial's
    rounds given the engine's draw for ``trials`` trials from ``seed``, trial ``number``."""

    trials: int
    seed: int
    number: int


def rounds_axis(scenario: Scenario) -> str | None:
    """The axis that sets the horizon: ``R`` itself, else the scenario's horizon axis as the rays read it
    (``verify.search.rays.HORIZON_WORDS``, e.g. FAST.T2's contraction e-folds, proportional to R at fixed others)."""
    from verify.search.rays import HORIZON_WORDS

    names = [p.name for p in scenario.space]
    return "R" if "R" in names else next((n for n in names if n in HORIZON_WORDS), None)


def at_rounds(scenario: Scenario, point: Mapping[str, Any], inst: Any, R2: int) -> tuple[Any, int]:
    """(instance, its horizon) built at horizon ``R2``: R set directly, or a horizon axis scaled by R2 / R (the
    horizon built is read back: a rounded axis can land one round off, and the caller uses what was built).
    Raises ``PointRefused`` where the builder refuses the point."""
    axis, full = rounds_axis(scenario), dict(scenario.point(point))
    if axis == "R":
        moved = {**full, "R": R2}
    else:
        assert axis is not None
        moved = {**full, axis: float(full[axis]) * R2 / int(inst.rounds)}
    other = scenario.build(scenario.point(moved, outside=True))
    return other, int(other.rounds)


def rounds_range(scenario: Scenario, point: Mapping[str, Any], inst: Any) -> tuple[int, int]:
    """The horizons the scenario's axis spans with every other axis at ``point``: R's own ends, or a horizon
    axis's ends scaled as :func:`at_rounds` scales it (at least 1)."""
    axis = rounds_axis(scenario)
    assert axis is not None  # a scenario without one has no closed form (declared_recursion)
    p = next(q for q in scenario.space if q.name == axis)
    if axis == "R":
        return int(p.low), int(p.high)
    R, h = int(inst.rounds), float(scenario.point(point)[axis])
    return max(1, round(R * float(p.low) / h)), max(1, round(R * float(p.high) / h))


def _one_law(law: Any, trial: Trial | None) -> Any:
    """The law of every round: ``law`` itself, or one trial's law of a per-trial one (``trial`` names it)."""
    from quadratics.exact.declare import PerTrialLaw

    if not isinstance(law, PerTrialLaw):
        return law
    if trial is None:
        return f"{law.why}: derived per trial only (name one)"
    laws = law.laws(trial.trials, trial.seed)
    return laws if isinstance(laws, str) else laws[trial.number]


def declared_recursion(scenario: Scenario, point: Mapping[str, Any],
                       trial: Trial | None = None) -> tuple[Any, ...] | str:
    """``(recursion, measure spec, first round, shift, instance, round map, law)`` of ``scenario`` at ``point`` from
    its declarations (the recursion at float64's own values), or why the setting does not apply. A per-trial law
    (propensities drawn once per trial) is derived for the one ``trial`` named: given that draw, every round has
    the same law."""
    from quadratics.exact.plan import declared_law, declared_round

    if rounds_axis(scenario) is None:
        return f"scenario {scenario.id} has no horizon axis (R, or one the rays read as a horizon)"
    inst = scenario.build(scenario.point(point))
    law = _one_law(declared_law(inst.pattern), trial)
    if isinstance(law, str):
        return law
    rm = declared_round(inst.problem, inst.algorithm, getattr(law, "aux", {}))
    if isinstance(rm, str):
        return rm
    rec = moment_recursion(rm, law)
    if isinstance(rec, str):
        return rec
    found = _measure_in_R(scenario, point, inst, rec, trial)
    if isinstance(found, str):
        return found
    return (rec, *found, inst, rm, law)


def closed_lhs(scenario: Scenario, point: Mapping[str, Any]) -> ClosedLHS | str:
    """The closed-form LHS(R) of ``scenario`` at ``point`` from its declarations, or why it is not derived."""
    found = declared_recursion(scenario, point)
    if isinstance(found, str):
        return found
    rec, spec, first, shift, inst, _, _ = found
    form = spec.form(inst.problem)
    expr = lhs_of_R(rec, form, spec.kind, first, shift)
    if isinstance(expr, str):
        return expr
    end = "R" + (f" + {shift}" if shift > 0 else f" - {-shift}" if shift < 0 else "")
    along = f"at round {end}" if spec.kind == "final" else f"mean over rounds {first}..{end}"
    return ClosedLHS(rec, expr, f"{spec.describe} (in R: {along})", _stationary(rec, form))


def _stationary(rec: MomentRecursion, form: tuple[Any, Any, Any]) -> float | None:
    """The limit of the measure as R -> infinity (K[1], the rate-1 part), None where another rate is not below 1 in
    modulus (it does not settle)."""
    K = rates(rec, form)
    if isinstance(K, str) or any(abs(lam) >= 1 for lam, k in K.items() if lam != 1 and k != 0):
        return None
    return float(K.get(Fraction(1), Fraction(0)))


def derive(scenario: Scenario, point: Mapping[str, Any]) -> dict[str, Any]:
    """LHS(R) and RHS(R) at ``point`` (every input but R fixed), their values at the point's R, the exact
    numeric LHS beside them (or a Monte Carlo mean, said so), and the ranges of R where LHS > RHS."""
    import mpmath
    import sympy as sp

    import bounds
    from verify.scenario import evaluate_point

    found = closed_lhs(scenario, point)
    if isinstance(found, str):
        return {"derived": False, "why": found}
    rec, lhs_R, measure, stationary = found
    R = next(iter(lhs_R.free_symbols), sp.Symbol("R", integer=True, positive=True))
    est = evaluate_point(scenario, point, trials=MC_TRIALS, seed=0)
    res = bounds.get(scenario.result)
    rsym = next((s for s in res.rhs.free_symbols if s.name == "R"), None)
    others = {s: sp.Float(est.values[s.name], 30) for s in res.rhs.free_symbols if s is not rsym and s.name in est.values}
    try:
        rhs_R = res.rhs.subs(others).subs(rsym, R) if rsym is not None else res.rhs.subs(others)
    except (ValueError, TypeError, ZeroDivisionError) as exc:  # e.g. Max(..., nan): a 0/0 once R stays free
        return {"derived": False, "why": f"the RHS as a function of R is undefined at this point (sympy: {exc})"}
    if rhs_R.has(sp.nan, sp.zoo):
        return {"derived": False, "why": "the RHS as a function of R is undefined at this point (nan or zoo)"}
    with mpmath.workdps(30):
        f_l, f_r = sp.lambdify(R, lhs_R, "mpmath"), sp.lambdify(R, rhs_R, "mpmath")
        inst = scenario.build(scenario.point(point))
        at = int(inst.rounds)
        value, rhs_at = float(f_l(at)), float(f_r(at))
        violated = _ranges(lambda r: bool(f_l(r) > f_r(r)), *rounds_range(scenario, scenario.point(point), inst))
    half = (est.ci[1] - est.ci[0]) / 2
    exact = est.exact.get("method") == "exact"
    return {"derived": True, "setting": SETTING.format(D=rec.D), "measure": measure,
            "numbers": {"moment_matrix": [[float(v) for v in row] for row in rec.T],
                        "start": [float(v) for v in rec.v0], "R": at},
            "lhs_of_R": str(sp.N(lhs_R, 8)), "rhs_of_R": str(sp.N(rhs_R, 8)), "stationary_lhs": stationary,
            "lhs_closed_form": value, "rhs_at_point": rhs_at, "free_parameter": "R", "violated_for_R": violated,
            "compared_with": "exact path" if exact else
            f"Monte Carlo mean of {est.trials} trials, seed 0, {100 * est.level:g}% interval (the exact path does "
            f"not score this point: {_why_simulated(scenario, point)})",
            "lhs_exact_path": est.lhs if exact else None, "lhs_monte_carlo": None if exact else est.lhs,
            "rel_diff": abs(value - est.lhs) / max(abs(est.lhs), 1e-300), "exact_bound": half if exact else None,
            "interval": list(est.ci),
            "agrees": abs(value - est.lhs) <= (max(half, 1e-10 * abs(est.lhs)) if exact else half)}


def _why_simulated(scenario: Scenario, point: Mapping[str, Any]) -> str:
    from verify.exact_score import scoring

    return scoring(scenario.build(scenario.point(point)))[1]


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
