"""Exact recheck of a PEP's dual certificate in rational arithmetic: `certified` means proved.

**Certificate**: multipliers Lambda_i >= 0 (one per ordered pair of client i's points), beta_b >= 0 (one per
bound <u, G v> <= b_b) and free ones for the equalities (noise orthogonality; the moment identities of the
relaxed law, whose multipliers are rounded like the others and enter S exactly), such that (1) the function
values cancel: for every value f_t, the multipliers' net coefficient equals the objective's; (2) the
residual S = sum Lambda phi_G + sum beta B - C is positive semidefinite. Then for every instance, objective
<= sum beta_b b_b =: tau (weak duality), whatever the solver did.
**Recheck**: the solver's multipliers are rounded to multiples of 2^-40 (negatives set to zero); (1) is
restored exactly by raising, for each value, one multiplier of a pair with x* (raising keeps it >= 0); S
is formed from the exact problem data (constants read as decimals: eta = 0.3 is 3/10) in integer
arithmetic; (2) is proved by a float Cholesky factor R of S - t I with t = half of S's smallest float
eigenvalue, then the exact check ||S - t I - R R^T||_F <= t, which gives S >= (t - ||.||_2) I >= 0.
tau is summed exactly and rounded up to a float.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

import numpy as np

from verify.pep.psd import float_above
from verify.pep.sdp import Problem, Solved, Vec, build

_GRID = 2**40
# Above this many Gram-matrix rows the recheck (integer products of size rows^3) is not attempted.
MAX_EXACT_ROWS = 400


def _rat(v: float) -> Fraction:
    return Fraction(round(v * _GRID), _GRID)


def _ints(rows: list[list[Fraction]] | np.ndarray) -> tuple[np.ndarray, int]:
    """(integer object array, common denominator) of a matrix of Fractions."""
    arr = np.asarray(rows, dtype=object)
    den = 1
    for v in arr.flat:
        den = math.lcm(den, v.denominator)
    out = np.empty(arr.shape, dtype=object)
    for idx, v in np.ndenumerate(arr):
        out[idx] = v.numerator * (den // v.denominator)
    return out, den


def _coeffs(vecs: list[Vec], d: int) -> tuple[np.ndarray, int]:
    rows = [[Fraction(0)] * d for _ in vecs]
    for r, v in enumerate(vecs):
        for k, c in v.items():
            rows[r][k] = Fraction(c)
    return _ints(rows) if vecs else (np.zeros((0, d), dtype=object), 1)


class _Acc:
    """A sum of integer matrices with denominators, kept as one integer matrix over a common denominator."""

    def __init__(self, d: int) -> None:
        self.num = np.zeros((d, d), dtype=object)
        self.num[:] = 0
        self.den = 1

    def add(self, mat: np.ndarray, den: int, coef: Fraction = Fraction(1)) -> None:
        mat = mat * coef.numerator
        den = den * coef.denominator
        common = math.lcm(self.den, den)
        self.num = self.num * (common // self.den) + mat * (common // den)
        self.den = common

    def fractions(self) -> np.ndarray:
        out = np.empty(self.num.shape, dtype=object)
        for idx, v in np.ndenumerate(self.num):
            out[idx] = Fraction(v, self.den)
        return out


def _sym(a: np.ndarray) -> np.ndarray:
    return a + a.T  # twice the symmetric part; the caller halves the coefficient


def recheck(s_or_pb: Any, sol: Solved) -> dict[str, Any]:
    """Rebuild the PEP exactly, round ``sol``'s multipliers, restore equalities and prove S PSD.

    Returns ``ok`` (bool), ``bound`` (the proved upper bound, a float rounded up, or None), ``reason``
    when not ok, and the residuals: ``min_eig_float`` (S's smallest eigenvalue, float), ``t``,
    ``frobenius_residual`` (||S - tI - RR^T||_F, exact then rounded), ``balance_fix`` (largest raise of a
    multiplier needed for the value equalities), ``negative_multipliers`` (the most negative one the
    solver returned, set to zero), ``seconds``.
    """
    t0 = time.perf_counter()
    pb: Problem = s_or_pb if isinstance(s_or_pb, Problem) else build(s_or_pb, exact=True)
    d = pb.d
    out: dict[str, Any] = {"ok": False, "bound": None, "gram_rows": d}
    if sol.S is None:
        return {**out, "reason": "the solver returned no multipliers"}
    if d > MAX_EXACT_ROWS:
        return {**out, "reason": f"exact recheck not attempted: {d} Gram rows > {MAX_EXACT_ROWS}"}
    acc = _Acc(d)
    most_negative, biggest_fix = _add_interpolation(acc, pb, sol)
    tau, betas, lowest_beta = _add_bounds(acc, pb, sol)
    _add_objective(acc, pb)
    _add_moments(acc, pb, sol)
    S = acc.fractions()
    for idx, n in pb.zero_after:  # entries freed by the orthogonality equalities: take the solver's
        for b in range(n):
            S[idx, b] = S[b, idx] = _rat(float(sol.S[idx, b]))
    out.update(min_eig_float=None, balance_fix=float(biggest_fix), negative_multipliers=min(most_negative, lowest_beta))
    failed = _prove_psd(S, d, out)
    out["seconds"] = time.perf_counter() - t0
    if failed:
        return {**out, "reason": failed}
    bound = float_above(tau)
    return {**out, "ok": True, "bound": bound, "tau": tau, "betas": betas, "bound_exact": f"{tau.numerator}/{tau.denominator}"
            if tau.denominator < 10**60 else None}


def _add_interpolation(acc: _Acc, pb: Problem, sol: Solved) -> tuple[float, Fraction]:
    """Each client's interpolation multipliers, rounded, balanced and added to S; returns the most negative
    multiplier the solver gave (set to zero) and the largest raise the value equalities needed."""
    d = pb.d
    mu, L = Fraction(repr(float(pb.setting.mu))), Fraction(repr(float(pb.setting.L)))
    most_negative = 0.0
    biggest_fix: Fraction = Fraction(0)
    for c, lam_f in zip(pb.clients, sol.interp_duals):
        p = len(c.xs)
        if p < 2:
            continue
        most_negative = min(most_negative, float(np.min(lam_f)))
        lam = [[_rat(max(float(lam_f[j, k]), 0.0)) if j != k else Fraction(0) for k in range(p)] for j in range(p)]
        # (1) value balance for each point t >= 1: colsum_t - rowsum_t must equal the objective's weight
        for t in range(1, p):
            want = Fraction(pb.values.get(c.fs[t], 0))
            r = sum(lam[j][t] for j in range(p)) - sum(lam[t]) - want
            if r > 0:
                lam[t][0] += r
            elif r < 0:
                lam[0][t] += -r
            biggest_fix = max(biggest_fix, abs(r))
        Li, dl = _ints(lam)
        X, dx = _coeffs(c.xs, d)
        Gr, dg = _coeffs(c.gs, d)
        rows, cols = Li.sum(axis=1), Li.sum(axis=0)
        Dr, Dc = np.diag(rows), np.diag(cols)
        Dr = Dr.astype(object)
        Dc = Dc.astype(object)
        lap = Dr + Dc - Li - Li.T
        kappa = 1 / (2 * (1 - mu / L))
        # <g_k, x_j - x_k>: sym(X^T (Lambda - Dc) Gr)
        acc.add(_sym(X.T.dot(Li - Dc).dot(Gr)), dl * dx * dg, Fraction(1, 2))
        acc.add(Gr.T.dot(lap).dot(Gr), dl * dg * dg, kappa / L)
        if mu:
            acc.add(X.T.dot(lap).dot(X), dl * dx * dx, kappa * mu)
            acc.add(_sym(Gr.T.dot(lap).dot(X)), dl * dg * dx, -kappa * mu / L)
    return most_negative, biggest_fix


def _add_bounds(acc: _Acc, pb: Problem, sol: Solved) -> tuple[Fraction, list[Fraction], float]:
    """The scalar bounds' multipliers beta, rounded and added to S; returns tau = sum beta * rhs (the bound),
    the betas and the most negative multiplier the solver gave."""
    tau = Fraction(0)
    betas = []
    most_negative = 0.0
    for (_, u, v, rhs), b in zip(pb.bounds, sol.bound_duals):
        most_negative = min(most_negative, b)
        beta = _rat(max(b, 0.0))
        betas.append(beta)
        U, du = _coeffs([u], pb.d)
        V, dv = _coeffs([v], pb.d)
        acc.add(_sym(np.outer(U[0], V[0])), du * dv, beta / 2)
        tau += beta * Fraction(rhs)
    return tau, betas, most_negative


def _add_objective(acc: _Acc, pb: Problem) -> None:
    """Minus the objective's weighted squared norms."""
    W = [Fraction(w) for w, _ in pb.norms]
    if W:
        Xo, do = _coeffs([v for _, v in pb.norms], pb.d)
        Wi, dw = _ints(np.diag(np.array(W, dtype=object)))
        acc.add(Xo.T.dot(Wi).dot(Xo), do * do * dw, Fraction(-1))


def _add_moments(acc: _Acc, pb: Problem, sol: Solved) -> None:
    """The relaxed law's equalities G[n, :n] = (G xbar)[:n] and G[n, n] = sum coef <a, G b>, with free
    multipliers."""
    d = pb.d
    for (n, xbar, terms), (nu_row, nu_diag) in zip(pb.moments, sol.moment_duals):
        nu = [_rat(float(v)) for v in nu_row] + [Fraction(0)] * (d - n)
        E, de = _coeffs([Vec({n: Fraction(1)}) - Vec({k: Fraction(c) for k, c in xbar.items()})], d)
        Nu, dn = _ints([nu])
        acc.add(_sym(np.outer(E[0], Nu[0])), de * dn, Fraction(1, 2))
        nd = _rat(nu_diag)
        U, du = _coeffs([Vec({n: Fraction(1)})], d)
        acc.add(np.outer(U[0], U[0]), du * du, nd)
        for coef, left, right in terms:
            A, da = _coeffs([left], d)
            B, db = _coeffs([right], d)
            acc.add(_sym(np.outer(A[0], B[0])), da * db, -nd * Fraction(coef) / 2)


def _prove_psd(S: Any, d: int, out: dict[str, Any]) -> str:
    """Prove S PSD exactly: S - tI = RR^T + E with ||E||_F <= t (t half S's smallest float eigenvalue, R a
    rational Cholesky factor); records the residuals in ``out``; returns why it failed ('' when proved)."""
    Sf = np.array([[float(v) for v in row] for row in S])
    eig = float(np.min(np.linalg.eigvalsh(Sf)))
    out.update(min_eig_float=eig)
    if eig <= 0:
        return f"residual matrix not positive definite (smallest eigenvalue {eig:.3g})"
    shift = _rat(eig / 2) if eig / 2 > 1 / _GRID else Fraction(eig / 2)
    try:
        R = np.linalg.cholesky(Sf - float(shift) * np.eye(d))
    except np.linalg.LinAlgError:
        return "Cholesky factor of S - tI failed"
    scale = 2**60
    Ri = np.vectorize(lambda v: int(round(v * scale)), otypes=[object])(R)
    RR = Ri.dot(Ri.T)
    frob2 = Fraction(0)
    for a in range(d):
        for b in range(d):
            e = S[a, b] - (shift if a == b else 0) - Fraction(RR[a, b], scale * scale)
            frob2 += e * e
    out.update(t=float(shift), frobenius_residual=math.sqrt(float(frob2)))
    if frob2 > shift * shift:
        return "exact residual ||S - tI - RR^T||_F exceeds t: S not proved PSD"
    return ""
