"""Convex programs over explicit configurations (CVXPY), with solver fallback.

**Setting**: an explicit stationary law of (A, K): configurations c with probability pi_c. A static
policy's conditional mean selection y_c lies in conv{1_S : S subset of A_c, |S| <= K_c}
= {0 <= y <= 1_{A_c}, sum y <= K_c}; r = sum_c pi_c y_c (F3AST eq. 2).
**Algorithm**: (i) min sum_k w_k / r_k (eq. 3); (ii) Euclidean projection of a point onto R (membership:
distance 0 gives the policy, otherwise r - proj(r) separates).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from bounds.core.errors import UserInputError
from rate_region.availability import AvailabilityModel, make_cap

SOLVERS = ("CLARABEL", "SCS")
# (solver, tolerance) attempts in order: a tight interior-point solve, a default one, then a first-order solver
_LADDER = {"CLARABEL": (1e-10, 1e-8), "SCS": (1e-9,)}
MAX_CONFIG_VARS = 2_000_000


@dataclass(frozen=True)
class Configurations:
    sets: np.ndarray  # [M, N] bool
    caps: np.ndarray  # [M] int
    probs: np.ndarray  # [M]


def configurations(model: AvailabilityModel, k=None) -> Configurations:
    cap = make_cap(k, getattr(model, "cap", None))
    law = model.explicit_law()
    if law is None:
        raise UserInputError(
            f"model {model.name!r} with {model.n_clients} clients has too many configurations to enumerate; "
            "use the polymatroid method (independent/periodic/cyclic availability) or fewer clients"
        )
    sets, probs = law
    v = np.asarray(cap.values)
    pv = np.asarray(cap.probs)
    S = np.repeat(sets, v.size, axis=0)
    Kc = np.tile(v, sets.shape[0])
    P = (probs[:, None] * pv[None, :]).ravel()
    if S.size > MAX_CONFIG_VARS:
        raise UserInputError(f"{S.shape[0]} configurations x {S.shape[1]} clients is too large for CVXPY")
    return Configurations(S.astype(bool), Kc, P)


@dataclass(frozen=True)
class ConvexSolve:
    success: bool
    value: float
    y: np.ndarray | None  # [M, N] conditional selection means
    r: np.ndarray | None
    solver: str | None
    tried: tuple[str, ...]
    message: str


def _tol(tol) -> str:
    return "" if tol is None else f" tol {tol:g}"


def _solve(build, solvers=SOLVERS) -> ConvexSolve:
    import cvxpy as cp

    installed = set(cp.installed_solvers())
    tried, notes = [], []
    for name in solvers:
        if name not in installed:
            notes.append(f"{name}: not installed")
            continue
        tried.append(name)
        for tol in _LADDER.get(name, (None,)):
            prob, Y, r = build()
            if name == "CLARABEL":
                opts = dict(tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol, max_iter=500)
            elif name == "SCS":
                opts = dict(eps_abs=tol, eps_rel=tol, max_iters=200_000)
            else:
                opts = {}
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # inaccurate solutions are reported, not warned about
                    prob.solve(solver=name, **opts)
            except Exception as exc:  # a solver crash must not end the attempt: fall back
                notes.append(f"{name}{_tol(tol)}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
                continue
            if prob.status == "optimal" and Y.value is not None:
                msg = f"optimal ({name}{_tol(tol)})" + (f" after: {'; '.join(notes)}" if notes else "")
                return ConvexSolve(True, float(prob.value), np.asarray(Y.value), np.asarray(r.value), name, tuple(tried), msg)
            notes.append(f"{name}{_tol(tol)}: status {prob.status}")
    return ConvexSolve(
        False, float("nan"), None, None, None, tuple(tried),
        "all solvers failed (" + "; ".join(notes) + ")",
    )


def min_H_cvxpy(cfg: Configurations, w: np.ndarray, solvers=SOLVERS) -> ConvexSolve:
    """argmin_{r in R} sum_k w_k / r_k; clients with w_k = 0 are left out of the objective."""
    import cvxpy as cp

    M, N = cfg.sets.shape
    pos = np.flatnonzero(w > 0)

    def build():
        Y = cp.Variable((M, N), nonneg=True)
        r = cfg.probs @ Y
        cons = [Y <= cfg.sets.astype(float), cp.sum(Y, axis=1) <= cfg.caps]
        # scaled so the largest weight is 1: the solver's tolerances are then relative to H
        obj = cp.sum(cp.multiply(w[pos] / w[pos].max(), cp.inv_pos(r[pos])))
        return cp.Problem(cp.Minimize(obj), cons), Y, r

    out = _solve(build, solvers)
    if out.success and out.r is not None:
        r = out.r.copy()
        r[w <= 0] = 0.0  # down-closed: dropping unweighted clients keeps feasibility
        return ConvexSolve(True, out.value * w[pos].max(), out.y, r, out.solver, out.tried, out.message)
    return out


def project_cvxpy(cfg: Configurations, target: np.ndarray, solvers=SOLVERS) -> ConvexSolve:
    """argmin_{x in R} ||x - target||^2 with the policy means y attaining x."""
    import cvxpy as cp

    M, N = cfg.sets.shape

    def build():
        Y = cp.Variable((M, N), nonneg=True)
        r = cfg.probs @ Y
        cons = [Y <= cfg.sets.astype(float), cp.sum(Y, axis=1) <= cfg.caps]
        return cp.Problem(cp.Minimize(cp.sum_squares(r - target)), cons), Y, r

    return _solve(build, solvers)
