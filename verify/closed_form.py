"""Closed forms of small linear counterexamples: the LHS of a scalar FedAvg instance from its moment recursion.

**Setting**: a shrunk counterexample (``verify.shrink``) whose instance is scalar (d = 1) local SGD (FedAvg,
server step 1) on quadratics F_i(x) = a/2 (x - b_i)^2 with one curvature a, client optima centred on x*
(mean_i b_i = x*), noise of variance sigma^2 per local step, m of M clients drawn uniformly without
replacement each round (m = M: all), x_0 given.
**Quantity**: s_R = E (x_R - x*)^2, derived with sympy: with B = 1 - eta a and u_i = b_i - x*, one round is
e+ = B^K e + (1 - B^K) ubar_S - (eta/m) sum_{i in S} sum_k B^(K-1-k) xi_{i,k}, so
s_{r+1} = B^(2K) s_r + (1 - B^K)^2 V_S + (eta^2 sigma^2 / m) sum_{k<K} B^(2k),
V_S = E ubar_S^2 = (M - m)/(m (M - 1)) (1/M) sum_i u_i^2 (sampling without replacement); sympy sums the
geometric series and solves the affine recursion (``rsolve``) for s_R; the stationary value is its limit.
**Statement**: the printed LHS(R) beside the result's RHS(R) (the result's own sympy terms, every other
input at the point), and the ranges of R within the horizon axis where LHS > RHS, found on integers by
scanning a log grid and bisecting each sign change of the two closed forms (float64 at each R).
Instances outside the setting return ``{"derived": False, "why": ...}``: nothing is guessed.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from verify.scenario import Scenario

__all__ = ["derive", "scalar_fedavg_lhs"]


@functools.lru_cache(maxsize=1)
def scalar_fedavg_lhs():
    """The symbolic s_R (sympy) and its symbols: (expr, stationary, symbols dict); derived once a process."""
    import sympy as sp

    eta, a, sigma, V, s0 = sp.symbols("eta a sigma V_S s_0", nonnegative=True)
    K, R, m, k, r = sp.symbols("K R m k r", integer=True, positive=True)
    B = 1 - eta * a
    noise = eta**2 * sigma**2 / m * sp.summation(B ** (2 * k), (k, 0, K - 1))
    A, C = B ** (2 * K), (1 - B**K) ** 2 * V + noise
    a_, c_ = sp.symbols("A C", positive=True)  # rsolve wants the coefficients as symbols; substituted after
    s = sp.Function("s")
    sol = sp.rsolve(s(r + 1) - a_ * s(r) - c_, s(r), {s(0): s0})
    expr = sol.subs(r, R).subs({a_: A, c_: C})
    stationary = C / (1 - A)
    return expr, stationary, dict(eta=eta, a=a, sigma=sigma, V_S=V, s_0=s0, K=K, R=R, m=m)


def _uniform_m(pat: Any) -> int | str:
    """m when the pattern's declared law (quadratics.exact) is uniform m of M, weights 1/m, every round alike:
    read from what it declares (its moments), not from its name; else why not."""
    from quadratics.exact.declare import Law, uniform_moments
    from quadratics.exact.evaluate import declared_law

    law = declared_law(pat)
    if not isinstance(law, Law) or law.period != 1:
        return "the pattern declares no round-invariant law: derived only for uniform m of M"
    Eu, pairs = law.moments(law.key(0))
    M = int(law.M)
    m = int(round(float(np.sum(Eu[M:]))))  # E[number of participants]: the 1_i features sum to m
    if not 1 <= m <= M:
        return "the declared law draws no client: derived only for uniform m of M"
    ref, ref_pairs = uniform_moments(M, m)
    same = np.allclose(Eu, ref, rtol=1e-12, atol=1e-15) and np.allclose(
        pairs.V @ pairs.W @ pairs.V.T, ref_pairs.V @ ref_pairs.W @ ref_pairs.V.T, rtol=1e-12, atol=1e-15) and \
        np.allclose(pairs.same, ref_pairs.same, rtol=1e-12, atol=1e-15)
    return m if same else f"the declared law ({law.describe or 'unnamed'}) is not uniform m of M with weights 1/m"


def _setting(scenario: Scenario, point: Mapping[str, Any]) -> tuple[dict[str, float] | None, str]:
    """The instance's numbers in the closed form's setting, or None and why not."""
    inst = scenario.build(scenario.point(point))
    pb, alg, pat = inst.problem, inst.algorithm, inst.pattern
    if str(getattr(alg, "name", "")).lower() != "fedavg":
        return None, f"algorithm {getattr(alg, 'name', '?')}: derived only for FedAvg (local SGD, server step 1)"
    why = _uniform_m(pat)
    if isinstance(why, str):
        return None, why
    if int(getattr(pb, "d", 0)) != 1:
        return None, f"dimension {getattr(pb, 'd', '?')}: derived only for scalar instances (d = 1)"
    lam = getattr(pb, "lam", None)
    A = getattr(pb, "A", None)
    curv = np.ravel(lam) if lam is not None else np.ravel(A) if A is not None else None
    if curv is None or not np.allclose(curv, curv[0], rtol=0, atol=1e-15):
        return None, "clients' curvatures differ or are not declared (lam / A)"
    u = np.ravel(pb.b) - float(np.ravel(pb.x_star)[0])
    if abs(u.mean()) > 1e-12 * max(1.0, np.abs(u).max()):
        return None, "client optima not centred on x* (mean_i b_i != x*)"
    M, m = int(pat.M), why
    V = (M - m) / (m * (M - 1)) * float(np.mean(u**2)) if M > 1 else 0.0
    eta, K = float(inst.values["eta"]), int(inst.values["K"])
    if float(getattr(alg, "eta_g", 1.0) if hasattr(alg, "eta_g") else 1.0) != 1.0:
        return None, "server step != 1"
    e0 = float(np.ravel(pb.x0)[0] - np.ravel(pb.x_star)[0])
    return dict(eta=eta, a=float(curv[0]), sigma=float(pb.sigma), V_S=V, s_0=e0**2, K=K, m=m,
                R=int(inst.rounds)), ""


def derive(scenario: Scenario, point: Mapping[str, Any]) -> dict[str, Any]:
    """LHS(R) and RHS(R) at ``point`` (every input but R fixed), their values at the point's R, the exact
    numeric LHS beside them, and the ranges of R where LHS > RHS."""
    import sympy as sp

    import bounds
    from verify.scenario import evaluate_point

    nums, why = _setting(scenario, point)
    if nums is None:
        return {"derived": False, "why": why}
    expr, stat, syms = scalar_fedavg_lhs()
    R = syms["R"]
    fixed = {syms[k]: sp.nsimplify(v) if isinstance(v, int) else sp.Float(v, 30) for k, v in nums.items() if k != "R"}
    lhs_R = expr.subs(fixed)
    est = evaluate_point(scenario, point, trials=2, seed=0)
    res = bounds.get(scenario.result)
    rsym = next((s for s in res.rhs.free_symbols if s.name == "R"), None)
    others = {s: sp.Float(est.values[s.name], 30) for s in res.rhs.free_symbols if s is not rsym and s.name in est.values}
    rhs_R = res.rhs.subs(others).subs(rsym, R) if rsym is not None else res.rhs.subs(others)
    f_l, f_r = sp.lambdify(R, lhs_R, "mpmath"), sp.lambdify(R, rhs_R, "mpmath")
    at = int(nums["R"])
    value = float(f_l(at))
    out = {"derived": True, "setting": "scalar FedAvg, uniform m of M, one curvature (verify/closed_form.py)",
           "numbers": nums, "lhs_of_R": str(sp.N(lhs_R, 8)), "rhs_of_R": str(sp.N(rhs_R, 8)),
           "stationary_lhs": float(stat.subs(fixed)), "lhs_closed_form": value, "lhs_exact_path": est.lhs,
           "rel_diff": abs(value - est.lhs) / max(abs(est.lhs), 1e-300), "exact_bound": (est.ci[1] - est.ci[0]) / 2,
           "agrees": abs(value - est.lhs) <= max((est.ci[1] - est.ci[0]) / 2, 1e-10 * abs(est.lhs)),
           "rhs_at_point": float(f_r(at)),
           "free_parameter": "R"}
    axis = next((p for p in scenario.space if p.name == "R"), None)
    if axis is not None:
        g_l, g_r = sp.lambdify(R, lhs_R, "math"), sp.lambdify(R, rhs_R, "math")  # float64 for the scan
        out["violated_for_R"] = _ranges(lambda r: float(g_l(r)) > float(g_r(r)), int(axis.low), int(axis.high))
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
