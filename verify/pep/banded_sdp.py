"""The windowed, chordal PEP's SDP and its exact certificate (the solver of verify.pep.banded).

**Quantity**: :func:`solve_banded_sdp` maximises <C, G> + delta tr(G) over the kept interpolation inequalities
of a :class:`~verify.pep.banded_build.Banded` problem with one PSD cone per clique of its chordal pattern
(Clarabel, called directly); :func:`recheck_banded` rounds the multipliers to multiples of 2^-40, restores the
value balance exactly and proves S = sum lambda A + sum beta B - C PSD by a chordal Cholesky factor and an exact
Frobenius check (the certificate of verify.pep.banded's module doc). Used by the banded route and by the
farthest fixed point of one round (verify.pep.fixed_point).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from verify.pep.banded_build import Banded, Key
from verify.pep.psd import clarabel_min, clique_cones, float_above, prove_psd

_GRID = 2**40  # multipliers are rounded to this grid (as verify.pep.exact)
DELTA = 3e-9  # trace weight: S >= DELTA I at the solver's optimum, the margin the exact check needs
TOL = 1e-8  # Clarabel gap and feasibility tolerances
VERBOSE = False  # Clarabel's iteration log, for debugging


@dataclass
class BandSolved:
    status: str
    value: float | None
    primal: float | None
    lam: np.ndarray | None
    beta: np.ndarray | None
    seconds: float
    delta: float
    r_prim: float | None = None
    gram: dict[Key, float] | None = None  # the primal Gram entries on the filled pattern


def solve_banded_sdp(pb: Banded, keys: list[Key], cliques: list[list[int]], delta: float = DELTA,
                     margin: float = 0.0) -> BandSolved:
    """Maximise <C, G> + delta tr(G) over the kept inequalities, each clique block PSD (Clarabel, directly);
    ``margin``: the interpolation inequalities tightened to phi <= -margin (verify.pep.fixed_point)."""
    import clarabel
    import scipy.sparse as sp

    t0 = time.perf_counter()
    col = {k: j for j, k in enumerate(keys)}
    ng = len(keys)
    nv = ng + pb.nf
    ri, ci, vals = [], [], []
    b = []
    row = 0
    for _, _, _, q, fv in pb.rows:
        for k, c in q.items():
            ri.append(row)
            ci.append(col[k])
            vals.append(float(c))
        for f, cf in fv.items():
            ri.append(row)
            ci.append(ng + f)
            vals.append(float(cf))
        b.append(-margin)
        row += 1
    for _, q, rhs in pb.bounds:
        for k, c in q.items():
            ri.append(row)
            ci.append(col[k])
            vals.append(float(c))
        b.append(float(rhs))
        row += 1
    nlin = row
    cones: list[Any] = [clarabel.NonnegativeConeT(nlin)]
    row, psd_cones = clique_cones(cliques, col, row, ri, ci, vals, b)
    cones += psd_cones
    A = sp.csc_matrix((vals, (ri, ci)), shape=(row, nv))
    qvec = np.zeros(nv)
    for key, c in pb.objective.items():
        qvec[col[key]] -= float(c)
    for a in range(pb.d):
        qvec[col[(a, a)]] -= delta
    sol = clarabel_min(qvec, A, b, cones, TOL, VERBOSE)
    status = str(sol.status)
    if "Solved" not in status:
        return BandSolved(status, None, None, None, None, time.perf_counter() - t0, delta)
    xv = np.asarray(sol.x)
    z = np.asarray(sol.z)
    primal = float(sum(float(c) * xv[col[k]] for k, c in pb.objective.items()))
    return BandSolved("optimal" if status == "Solved" else "optimal_inaccurate", float(-sol.obj_val), primal,
                      z[: len(pb.rows)], z[len(pb.rows): nlin], time.perf_counter() - t0, delta, float(sol.r_prim),
                      {k: float(xv[j]) for k, j in col.items()})


def recheck_banded(pb: Banded, sol: BandSolved, filled: set[Key]) -> dict[str, Any]:
    """Round the multipliers, restore the value balance exactly, form S exactly, prove it PSD (module doc)."""
    t0 = time.perf_counter()
    out: dict[str, Any] = {"ok": False, "bound": None, "gram_rows": pb.d}
    if sol.lam is None or sol.beta is None:
        return {**out, "reason": "the solver returned no multipliers"}
    most_negative = float(min(np.min(sol.lam), np.min(sol.beta)))
    lam = [Fraction(round(max(v, 0.0) * _GRID), _GRID) for v in sol.lam]
    # (1) value balance: for each value f, sum of its coefficients times multipliers = 0 (the objective has none)
    net: dict[int, Fraction] = {}
    down: dict[int, int] = {}  # value f_t -> the row of pair (t, *), where f_t has coefficient -1
    up: dict[int, int] = {}  # value f_t -> the row of pair (*, t), where it has +1
    for r, (_, pj, pk, _, fv) in enumerate(pb.rows):
        for f, cf in fv.items():
            net[f] = net.get(f, 0) + cf * lam[r]
        if pk == 0:
            down[next(iter(fv))] = r
        if pj == 0:
            up[next(iter(fv))] = r
    fix = Fraction(0)
    for f, v in net.items():
        if v:
            if v > 0:  # f has coefficient -1 in row (t, *): raise it
                lam[down[f]] += v
            else:
                lam[up[f]] += -v
            fix = max(fix, abs(v))
    # (2) S = sum lam phi_G + sum beta B - C, exactly: integers over the common denominator DEN = D 2^40
    # (D: the data's, lam and beta on the 2^40 grid); C's coefficients carry the whole DEN
    D = pb.denominator()
    S: dict[Key, int] = {}
    for r, (_, _, _, q, _) in enumerate(pb.rows):
        li = int(lam[r] * _GRID)
        if li:
            for k, c in q.items():
                S[k] = S.get(k, 0) + li * (c.numerator * (D // c.denominator))
    tau = Fraction(0)
    for (_, q, rhs), bv in zip(pb.bounds, sol.beta):
        bi = round(max(float(bv), 0.0) * _GRID)
        tau += Fraction(bi, _GRID) * rhs
        for k, c in q.items():
            S[k] = S.get(k, 0) + bi * (c.numerator * (D // c.denominator))
    for k, c in pb.objective.items():
        S[k] = S.get(k, 0) - c.numerator * (D // c.denominator) * _GRID
    den = D * _GRID
    out.update(balance_fix=float(fix), negative_multipliers=most_negative)
    ok, info = prove_psd(S, den, pb.d, filled, sol.delta)  # exact, in integers (verify.pep.psd)
    out.update(info, seconds=time.perf_counter() - t0)
    if not ok:
        return out
    bound = float_above(tau)
    return {**out, "ok": True, "bound": bound, "tau": tau}
