"""PEPit's formulation of the deterministic PEP: the independent cross-check of :mod:`verify.pep.sdp`.

PEPit (Goujaud, Moucer, Glineur, Hendrickx, Taylor, Dieuleveut) builds the same worst case from its own
interpolation classes; tests/verify/test_pep.py compares the two on deterministic settings. Only
deterministic participation (full or a fixed schedule), no noise and mu < L are expressible here.
PEPit (and through it cvxpy) is imported inside the functions: `convbound --help` never loads it.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Sequence
from typing import Any

from verify.pep.setting import Setting


def supports(s: Setting) -> bool:
    """Whether PEPit's formulation here expresses ``s``."""
    return s.sigma == 0 and s.mu < s.L and (s.law is None or s.law.kind == "full")


def solve_pepit(s: Setting, solver: str = "CLARABEL") -> tuple[float | None, str, dict[str, Any]]:
    """(PEPit's worst case, cvxpy's status, PEPit's own float feasibility numbers) for a deterministic ``s``."""
    pep, _ = _build(s)
    log = io.StringIO()
    with contextlib.redirect_stdout(log), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tau = pep.solve(wrapper="cvxpy", solver=solver.upper(), verbose=0)
    status = str(pep.wrapper.prob.status) if pep.wrapper is not None else "unknown"
    if tau is None:
        return None, status, {}
    return float(tau), status, certificate(pep, float(pep.objective.eval()))


def _build(s: Setting) -> tuple[Any, Any]:
    """The PEP of ``s`` (objective set), and F's minimiser (for later inspection)."""
    from PEPit import PEP, Expression, Point
    from PEPit.functions import SmoothConvexFunction, SmoothStronglyConvexFunction

    pep = PEP()
    if s.mu > 0:
        fs = [pep.declare_function(SmoothStronglyConvexFunction, L=s.L, mu=s.mu) for _ in range(s.M)]
    else:
        fs = [pep.declare_function(SmoothConvexFunction, L=s.L) for _ in range(s.M)]
    F = _sum(fs) / s.M
    if s.zeta > 0:
        xs = F.stationary_point()
        for f in fs:
            pep.add_constraint(f.gradient(xs) ** 2 <= s.zeta**2)
    else:
        # zeta = 0 as an exact shared stationary point: the constraint ||g||^2 <= 0 would hold only up to the
        # solver's tolerance (1e-9 on the square lets ||g|| reach 3e-5) and bias the value by ~1e-5
        xs = fs[0].stationary_point()
        for f in fs[1:]:
            f.add_point((xs, Point(is_leaf=False, decomposition_dict=dict()), Expression()))
    x0 = pep.set_initial_point()
    pep.set_initial_condition((x0 - xs) ** 2 <= s.D0)

    # Run
    x = x0
    c = [0 * x0 for _ in fs] if s.method == "scaffold" else None
    cbar = 0 * x0
    for r in range(s.R):
        (_, ids), = s.round_patterns(r)
        moves, new_c = [], {}
        for i in ids:
            y, gsum = x, 0 * x
            for _ in range(s.K):
                g = fs[i].gradient(y)
                gsum = gsum + g
                y = y - s.eta * (g if c is None else g - c[i] + cbar)
            moves.append(y - x)
            new_c[i] = gsum / s.K
        x = x + (s.eta_g / len(ids)) * _sum(moves)
        if c is not None:
            c = [new_c.get(i, ci) for i, ci in enumerate(c)]
            cbar = _sum(c) / s.M

    # Measure
    pep.set_performance_metric((x - xs) ** 2 if s.measure == "dist_sq" else F(x) - F(xs))
    return pep, xs


def _sum(items: Sequence[Any]) -> Any:
    total = items[0]
    for item in items[1:]:
        total = total + item
    return total


def certificate(pep: Any, primal: float, tol: float = 1e-6, loose: float = 1e-3) -> dict[str, Any]:
    """PEPit's own feasibility checks (``PEP.check_feasibility``), returned instead of printed.

    Returns: gram_min_eig and max_primal_violation (primal side); residual_min_eig,
    min_inequality_dual and proof_error (the dual certificate: the residual matrix must be PSD, the
    multipliers of inequalities non-negative, and the weighted sum of constraints must reproduce
    objective - tau up to proof_error); dual_objective (= pepit_tau), duality_gap (absolute and
    relative); status ``certified`` when the residual's eigenvalues and the multipliers are >= -tol and
    proof_error <= tol (all scaled by max(1, |tau|)), ``approximate`` when within ``loose`` (PEPit's
    own threshold for warning about a duality gap), else ``failed``. proof_error is a sum of absolute
    coefficients over all O(n^2) Gram entries, so it grows with size: Clarabel stops at "optimal_inaccurate"
    with proof_error ~1e-6 at 16 gradients and ~1e-4 at 50, while its duality gap stays ~1e-8.
    """
    import numpy as np
    from PEPit.point import Point
    from PEPit.tools.dict_operations import prune_dict, symmetrize_dict

    cons = pep._list_of_prepared_constraints
    ineq = [c for c in cons if c.equality_or_inequality == "inequality"]
    eq = [c for c in cons if c.equality_or_inequality == "equality"]
    gram_min = float(np.min(np.linalg.eigvalsh(pep.G_value)))
    viol = max([float(c.eval()) for c in ineq] + [abs(float(c.eval())) for c in eq] + [0.0])
    res_min = float(np.min(np.linalg.eigvalsh(pep.residual)))
    duals = [float(c.eval_dual()) for c in ineq]
    min_dual = min(duals) if duals else 0.0
    # Proof reconstruction, as PEPit does it: objective - sum(dual * constraint) + <G, residual> = tau
    comb = -np.dot(Point.list_of_leaf_points, np.dot(pep.residual, Point.list_of_leaf_points))
    for c in cons:
        comb += c.eval_dual() * c.expression
    dec = prune_dict(symmetrize_dict((pep.objective - comb).decomposition_dict))
    tau = float(dec.get(1, 0.0))
    proof_err = float(np.sum(np.abs([v for k, v in dec.items() if k != 1]))) if len(dec) > int(1 in dec) else 0.0
    scale = max(1.0, abs(tau))
    worst = max(-res_min, -min_dual, proof_err) / scale
    status = "certified" if worst <= tol else "approximate" if worst <= loose else "failed"
    gap = tau - primal
    return {
        "status": status, "tolerance": tol, "loose_tolerance": loose, "worst_dual_error": worst,
        "dual_objective": tau, "primal_objective": primal,
        "duality_gap": gap, "relative_duality_gap": gap / primal if primal else 0.0,
        "residual_min_eig": res_min, "min_inequality_dual": min_dual, "proof_error": proof_err,
        "gram_min_eig": gram_min, "max_primal_violation": viol, "constraints": len(cons),
        "gram_size": int(pep.G_value.shape[0]),
    }


