"""Exact proof that a rational matrix is positive semidefinite, as the PEP certificates' rechecks need it.

**Quantity**: S / den with integer S on a chordal pattern (off-diagonal entries S[a, b] / (2 den): a coefficient
counts both (a, b) and (b, a)).
**Statement**: S is PSD when a float Cholesky factor R of S - tI (t > 0 on a 2^-40 grid) satisfies
||S - tI - R R^T||_F <= t, checked exactly in integers (R read on a 2^-60 grid); R R^T lives on the filled
pattern when the elimination order is perfect, so only filled entries are compared. Used by the banded
strongly convex certificate (:mod:`verify.pep.banded`) and the non-convex one (:mod:`verify.pep.nonconvex_solve`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

import numpy as np

GRID = 2**40  # multipliers and the margin t are rounded to this grid
CHOL_SCALE = 2**60  # the float Cholesky factor is read as integers over this scale

Key = tuple[int, int]


def prove_psd(S: Mapping[Key, int], den: int, d: int, filled: Iterable[Key], delta: float) -> tuple[bool, dict[str, Any]]:
    """Prove the matrix S / den (off-diagonal entries S[a, b] / (2 den): a coefficient counts both (a, b) and
    (b, a)) positive semidefinite, exactly: a float Cholesky factor R of S - tI (t = delta / 2, then smaller) in the
    given elimination order and ||S - tI - R R^T||_F <= t checked in integers on the filled pattern (R R^T lives on
    it: no fill outside a perfect elimination order's pattern)."""
    fset = set(filled)
    if any(k not in fset for k, v in S.items() if v):
        return False, {"reason": "S has an entry outside the chordal pattern"}
    Sf = np.zeros((d, d))
    for (a, b), v in S.items():
        Sf[a, b] = Sf[b, a] = v / den if a == b else v / (2 * den)
    Rf, t = None, Fraction(0)
    for j in range(4):
        t = Fraction(round(delta / 2 * 10**-j * GRID), GRID)
        try:
            Rf = np.linalg.cholesky(Sf - float(t) * np.eye(d))
            break
        except np.linalg.LinAlgError:
            continue
    if Rf is None:
        eig = float(np.linalg.eigvalsh(Sf)[0])
        return False, {"min_eig_float": eig, "reason": f"S - tI not positive definite (t = {float(t):.2g}; smallest "
                                                        f"eigenvalue of S {eig:.3g})"}
    rows: list[dict[int, int]] = [{} for _ in range(d)]
    for a, b in filled:  # a <= b: R[b, a]
        v = int(round(float(Rf[b, a]) * CHOL_SCALE))
        if v:
            rows[b][a] = v
    Q = 2 * den * CHOL_SCALE * CHOL_SCALE  # residual numerators over Q
    fs, ft, fr = Q // den, Q // GRID, Q // (CHOL_SCALE * CHOL_SCALE)
    ti = int(t * GRID)
    frob2 = 0
    for a, b in filled:
        ra, rb = rows[a], rows[b]
        if len(ra) > len(rb):
            ra, rb = rb, ra
        rr = sum(v * rb[k] for k, v in ra.items() if k in rb)
        if a == b:
            e = S.get((a, b), 0) * fs - ti * ft - rr * fr
            frob2 += e * e
        else:
            e = S.get((a, b), 0) * (fs // 2) - rr * fr
            frob2 += 2 * e * e
    lim = ti * ft
    info = {"t": float(t), "frobenius_residual": math.sqrt(frob2) / Q}
    if frob2 > lim * lim:
        return False, {**info, "reason": "exact residual ||S - tI - RR^T||_F exceeds t: S not proved PSD"}
    return True, info


def clique_cones(cliques: Any, col: Mapping[Key, int], row: int, ri: list[int], ci: list[int], vals: list[float],
                 b: list[float]) -> tuple[int, list[Any]]:
    """Rows of Clarabel's PSD cones, one per clique of a chordal pattern (appended to the COO lists ``ri``, ``ci``,
    ``vals`` and to ``b``, from row ``row`` on): the slack -G[clique] in Clarabel's svec (upper triangle column by
    column, off-diagonal entries times sqrt 2). Returns the next free row and the cones.

    Why here: the strongly convex banded PEP and the non-convex one state their chordal SDPs the same way.
    """
    import clarabel

    cones: list[Any] = []
    r2 = math.sqrt(2.0)
    for cl in cliques:
        m = len(cl)
        for jj in range(m):
            for ii in range(jj + 1):
                a, bb = cl[ii], cl[jj]
                ri.append(row)
                ci.append(col[(a, bb) if a <= bb else (bb, a)])
                vals.append(-1.0 if ii == jj else -r2)
                b.append(0.0)
                row += 1
        cones.append(clarabel.PSDTriangleConeT(m))
    return row, cones


def float_above(q: Fraction) -> float:
    """The smallest float at least ``q``: a certified upper bound stays one once it is rounded to float64."""
    v = float(q)
    return math.nextafter(v, math.inf) if Fraction(v) < q else v


def clarabel_min(q: np.ndarray, A: Any, b: Any, cones: list[Any], tol: float, verbose: bool = False) -> Any:
    """Clarabel's solution of min q.x subject to b - A x in ``cones`` (a linear objective: no quadratic part),
    gap and feasibility tolerances ``tol``, at most 400 iterations; both PEP routes' SDPs are solved here."""
    import clarabel
    import scipy.sparse as sp

    settings = clarabel.DefaultSettings()
    settings.verbose = verbose
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = tol
    settings.max_iter = 400
    n = len(q)
    return clarabel.DefaultSolver(sp.csc_matrix((n, n)), q, A, np.array(b), cones, settings).solve()
