"""Solve the non-convex PEP (verify.pep.nonconvex) and recheck its dual certificate in exact arithmetic.

**Solver**: Clarabel called directly on the Gram entries of a chordal pattern: one PSD cone per clique of the
pattern's chordal extension (elimination in basis order, verify.pep.banded_build.chordal_cliques); a partial Gram
matrix whose clique blocks are PSD has a PSD completion (Grone et al. 1984), so this is the SDP itself. Without
a window (the full PEP) or with noise (its orthogonality rows touch every earlier vector) the pattern is dense:
one cone. The objective carries a trace weight delta (S >= delta I at the optimum, the margin the rounding
needs), raised 3e-9, 1e-8, 1e-7, 1e-6 until the recheck passes; the proved bound then lies about delta tr(G)
above the attained value (``gap_to_primal``).
**Certificate**: multipliers y_r >= 0 of the inequality rows (free for equalities) with, for every scalar
unknown v, sum_r y_r a_r[v] = c[v] (the objective's coefficient) and S = sum_r y_r A_r - C PSD; then for every
instance objective <= sum_r y_r rhs_r =: tau (weak duality).
**Recheck**: multipliers rounded to multiples of 2^-40 (negatives set to zero); the scalar balance is restored
exactly: the epigraph variables t and F_inf by solving for one of their rows' multipliers (the largest), each
function value, latest first, by raising the pair with its chain predecessor (either order is a kept row, raising
keeps it >= 0; f_i(x_0) = 0 absorbs the rest); the balance is then verified exactly; S is formed in integers and
proved PSD by a float Cholesky factor R of S - tI in the elimination order (no fill outside the chordal pattern)
and the exact check ||S - tI - R R^T||_F <= t. ``certified`` means all of that passed.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from verify.pep.banded_build import Key, chordal_cliques
from verify.pep.nonconvex import NCProblem
from verify.pep.psd import GRID, clarabel_min, clique_cones, float_above, prove_psd

DELTAS = (3e-9, 1e-8, 1e-7, 1e-6)
TOL = 1e-8


@dataclass
class NCSolved:
    """The solver's output: status, objective values, multipliers per row, and the filled pattern."""

    status: str
    value: float | None
    primal: float | None
    y: np.ndarray | None
    delta: float
    seconds: float
    filled: list[Key] = field(default_factory=list)
    cliques: int = 0
    largest_clique: int = 0
    gram: dict[Key, float] | None = None  # the solver's Gram entries on the filled pattern
    scalars: np.ndarray | None = None


def pattern(pb: NCProblem, dense: bool) -> tuple[list[list[int]], list[Key]]:
    """(cliques, filled pattern sorted) of the problem's Gram entries; ``dense``: one clique of everything."""
    if dense or pb.noise:
        return [list(range(pb.d))], [(a, b) for a in range(pb.d) for b in range(a, pb.d)]
    keys = {k for q, _, _, _ in pb.rows for k in q} | set(pb.obj_gram) | {(a, a) for a in range(pb.d)}
    cliques, filled = chordal_cliques(pb.d, sorted(keys))
    return cliques, sorted(filled)


def solve_clarabel(pb: NCProblem, cliques: list[list[int]], filled: list[Key], delta: float) -> NCSolved:
    """Maximise objective + delta tr(G) subject to the rows and a PSD cone per clique (module doc)."""
    import clarabel
    import scipy.sparse as sp

    t0 = time.perf_counter()
    col = {k: j for j, k in enumerate(filled)}
    ng = len(filled)
    nv = ng + pb.ns
    order = [r for r, row in enumerate(pb.rows) if row[3]] + [r for r, row in enumerate(pb.rows) if not row[3]]
    neq = sum(1 for row in pb.rows if row[3])
    ri: list[int] = []
    ci: list[int] = []
    vals: list[float] = []
    b: list[float] = []
    for pos, r in enumerate(order):
        q, scal, rhs, _ = pb.rows[r]
        for k, c in q.items():
            ri.append(pos)
            ci.append(col[k])
            vals.append(float(c))
        for v, c in scal.items():
            ri.append(pos)
            ci.append(ng + v)
            vals.append(float(c))
        b.append(float(rhs))
    row = len(order)
    cones: list[Any] = ([clarabel.ZeroConeT(neq)] if neq else []) + \
        ([clarabel.NonnegativeConeT(row - neq)] if row > neq else [])
    row, psd_cones = clique_cones(cliques, col, row, ri, ci, vals, b)
    cones += psd_cones
    A = sp.csc_matrix((vals, (ri, ci)), shape=(row, nv))
    qv = np.zeros(nv)
    for k, c in pb.obj_gram.items():
        qv[col[k]] -= float(c)
    for v, c in pb.obj_scal.items():
        qv[ng + v] -= float(c)
    for a in range(pb.d):
        qv[col[(a, a)]] -= delta
    sol = clarabel_min(qv, A, b, cones, TOL)
    status = str(sol.status)
    if "Solved" not in status:
        return NCSolved(status, None, None, None, delta, time.perf_counter() - t0, filled, len(cliques),
                        max(len(c) for c in cliques))
    x, z = np.asarray(sol.x), np.asarray(sol.z)
    primal = float(sum(float(c) * x[col[k]] for k, c in pb.obj_gram.items()) +
                   sum(float(c) * x[ng + v] for v, c in pb.obj_scal.items()))
    y = np.zeros(len(pb.rows))
    y[order] = z[: len(order)]
    return NCSolved("optimal" if status == "Solved" else "optimal_inaccurate", float(-sol.obj_val), primal, y, delta,
                    time.perf_counter() - t0, filled, len(cliques), max(len(c) for c in cliques), gram={k: float(x[j]) for k, j in col.items()},
                    scalars=x[ng:].copy())


def _balance(pb: NCProblem, y: list[Fraction]) -> tuple[Fraction, str]:
    """Restore sum_r y_r a_r[v] = c[v] exactly (module doc); returns (largest fix, failure reason or '')."""
    net: dict[int, Fraction] = {}
    for r, (_, scal, _, _) in enumerate(pb.rows):
        if y[r]:
            for v, c in scal.items():
                net[v] = net.get(v, Fraction(0)) + y[r] * c
    fix: Fraction = Fraction(0)
    for v, rows in pb.solve_for:
        star = max(rows, key=lambda r: y[r])
        coef = pb.rows[star][1][v]
        others = net.get(v, Fraction(0)) - y[star] * coef
        new = (pb.obj_scal.get(v, Fraction(0)) - others) / coef
        fix = max(fix, Fraction(abs(new - y[star])))
        if new < 0:
            return fix, f"the balance of scalar {v} needs a negative multiplier ({float(new):.3g})"
        for w, c in pb.rows[star][1].items():
            net[w] = net.get(w, Fraction(0)) + (new - y[star]) * c
        y[star] = new
    for v in sorted(pb.chain, reverse=True):  # latest value first: a raise moves only v and its predecessor
        raise_row, lower_row = pb.chain[v]
        miss = pb.obj_scal.get(v, Fraction(0)) - net.get(v, Fraction(0))
        if miss:
            row = raise_row if miss > 0 else lower_row
            amount = abs(miss)
            y[row] += amount
            for w, c in pb.rows[row][1].items():
                net[w] = net.get(w, Fraction(0)) + amount * c
            fix = max(fix, Fraction(amount))
    wrong = [v for v in range(pb.ns) if net.get(v, Fraction(0)) != pb.obj_scal.get(v, Fraction(0))]
    return fix, (f"scalar balance not restored for {len(wrong)} unknown(s)" if wrong else "")


def recheck(pb: NCProblem, sol: NCSolved) -> dict[str, Any]:
    """Round ``sol``'s multipliers, restore the balance, form S exactly and prove it PSD (module doc)."""
    t0 = time.perf_counter()
    out: dict[str, Any] = {"ok": False, "bound": None, "gram_rows": pb.d}
    if sol.y is None:
        return {**out, "reason": "the solver returned no multipliers"}
    ineq = [not row[3] for row in pb.rows]
    most_negative = float(min((v for v, i in zip(sol.y, ineq) if i), default=0.0))
    y = [Fraction(round((max(float(v), 0.0) if i else float(v)) * GRID), GRID) for v, i in zip(sol.y, ineq)]
    fix, why = _balance(pb, y)
    out.update(balance_fix=float(fix), negative_multipliers=most_negative)
    if why:
        return {**out, "reason": why, "seconds": time.perf_counter() - t0}
    Y = math.lcm(*(v.denominator for v in y))
    D = math.lcm(*({c.denominator for q, _, _, _ in pb.rows for c in q.values()} |
                   {c.denominator for c in pb.obj_gram.values()}))
    S: dict[Key, int] = {}
    tau = Fraction(0)
    for r, (q, _, rhs, _) in enumerate(pb.rows):
        if not y[r]:
            continue
        tau += y[r] * rhs
        yi = y[r].numerator * (Y // y[r].denominator)
        for k, c in q.items():
            S[k] = S.get(k, 0) + yi * (c.numerator * (D // c.denominator))
    for k, c in pb.obj_gram.items():
        S[k] = S.get(k, 0) - Y * (c.numerator * (D // c.denominator))
    ok, info = prove_psd(S, Y * D, pb.d, sol.filled, sol.delta)
    out.update(info, seconds=time.perf_counter() - t0)
    if not ok:
        return out
    bound = float_above(tau)
    return {**out, "ok": True, "bound": bound, "tau": tau}


