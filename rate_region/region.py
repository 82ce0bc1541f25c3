"""The achievable rate region R: membership with a certificate, support function, extreme points.

**Setting**: F3AST Assumption 1 with cardinality caps; R = {r^f : f static policy} (eq. 2).
**Quantity**: for a given r, either a static policy f with r^f = r (certificate of membership) or a
direction d with d.r > h(d) = max_{x in R} d.x (separating hyperplane).
**Statement**: F3AST Lemma III.2 (R closed and convex). R is the polymatroid of g(U) = E[min(|A n U|, K)]
(see ``polymatroid``), so a violated rank inequality r(U) > g(U) gives d = 1_U with h(1_U) = g(U).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bounds.errors import UserInputError
from rate_region.availability import AvailabilityModel
from rate_region.policy import StaticPolicy, policy_from_means
from rate_region import polymatroid as pm

MEMBERSHIP_TOL = 1e-9
LP_MAX_VARS = 3_000_000


@dataclass(frozen=True)
class Membership:
    r: np.ndarray
    achievable: bool
    policy: "StaticPolicy | None"
    direction: "np.ndarray | None"
    support_value: "float | None"  # h(direction)
    margin: float  # direction.r - h(direction) (> 0 separates); for achievable r: -max violation slack (<= 0)
    violation: float  # max_U r(U) - g(U)
    method: str
    residual: "float | None"  # ||rate(policy) - r||_inf
    tol: float
    message: str

    def to_dict(self) -> dict:
        return {
            "r": self.r.tolist(),
            "achievable": self.achievable,
            "policy": None if self.policy is None else self.policy.to_dict(),
            "direction": None if self.direction is None else self.direction.tolist(),
            "support_value": self.support_value,
            "margin": self.margin,
            "violation": self.violation,
            "method": self.method,
            "residual": self.residual,
            "tol": self.tol,
            "message": self.message,
        }


def _validate_r(model: AvailabilityModel, r) -> np.ndarray:
    r = np.asarray(r, dtype=float).ravel()
    if r.size != model.n_clients:
        raise UserInputError(f"rate vector has {r.size} entries but the model has {model.n_clients} clients")
    if not np.all(np.isfinite(r)):
        raise UserInputError("rate vector has a non-finite entry; give numbers in [0, 1]")
    return r


def lp_certificate(model: AvailabilityModel, k, r: np.ndarray):
    """min t s.t. |sum_c pi_c y_c - r| <= t, y_c in its configuration polytope (HiGHS).

    Returns (t, policy) or None when the configurations cannot be enumerated.
    """
    from scipy import sparse
    from scipy.optimize import linprog

    from rate_region.cvx import configurations

    law = model.explicit_law()
    if law is None:
        return None
    cfg = configurations(model, k)
    M, N = cfg.sets.shape
    if M * N > LP_MAX_VARS:
        return None
    nv = M * N + 1
    rows_cap = sparse.kron(sparse.eye(M), np.ones((1, N)))
    rate = sparse.kron(cfg.probs[None, :], sparse.eye(N))  # [N, M*N]: r_i = sum_c pi_c Y[c, i]
    tcol = -np.ones((N, 1))
    A_ub = sparse.vstack(
        [
            sparse.hstack([rows_cap, sparse.csr_matrix((M, 1))]),
            sparse.hstack([rate, tcol]),
            sparse.hstack([-rate, tcol]),
        ]
    ).tocsr()
    b_ub = np.concatenate([cfg.caps.astype(float), r, -r])
    bounds = np.column_stack([np.zeros(nv), np.concatenate([cfg.sets.ravel().astype(float), [np.inf]])])
    cost = np.zeros(nv)
    cost[-1] = 1.0
    res = linprog(cost, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0:
        return None
    Y = res.x[:-1].reshape(M, N)
    policy = policy_from_means(cfg.sets, cfg.caps, cfg.probs, Y)
    return float(res.x[-1]), policy


def membership(model: AvailabilityModel, k, r, tol: float = MEMBERSHIP_TOL, certificate: bool = True) -> Membership:
    """Is r achievable under ``model`` with cap ``k``? Policy certificate or separating direction."""
    r = _validate_r(model, r)
    neg = np.flatnonzero(r < -tol)
    rank = pm.rank_function(model, k)
    if neg.size:
        d = np.zeros(r.size)
        d[neg[0]] = -1.0
        return Membership(r, False, None, d, 0.0, float(-r[neg[0]]), float("nan"), "sign", None, tol,
                          f"r[{neg[0]}] = {r[neg[0]]:g} < 0; rates are non-negative")
    rp = np.clip(r, 0.0, None)
    exact_ok = rank.structured or rank.n <= pm.ENUM_MAX_CLIENTS + 4
    if exact_ok:
        v = pm.max_violation(rank, rp)
        if v.value > tol:
            d = v.set.astype(float)
            h = float(rank.rank_sets(v.set[None, :])[0])
            return Membership(r, False, None, d, h, float(d @ r - h), v.value, f"rank-inequalities ({v.method})",
                              None, tol, f"not achievable: r(U) - g(U) = {v.value:.6g} > 0 for U = {np.flatnonzero(v.set).tolist()[:20]}")
    policy, residual, msg = None, None, ""
    lp = lp_certificate(model, k, rp) if (certificate or not exact_ok) else None
    if lp is not None:
        residual, policy = lp
        if not exact_ok and residual > tol:
            from rate_region.cvx import configurations, project_cvxpy

            proj = project_cvxpy(configurations(model, k), rp)
            if not proj.success:
                raise UserInputError(f"membership undecided: {proj.message}")
            d = rp - proj.r
            d /= np.linalg.norm(d)
            h, _ = pm.support(rank, d)
            return Membership(r, False, None, d, h, float(d @ r - h), float("nan"), "projection", None, tol,
                              "not achievable: r - proj_R(r) separates")
        policy_rate = policy.rate()
        residual = float(np.max(np.abs(policy_rate - r)))
        msg = f"achievable; static policy with {len(policy.prob)} rows attains r (max error {residual:.2e})"
    else:
        msg = "achievable: every rank inequality r(U) <= g(U) holds (exact prefix check); configurations too many to list a policy"
    return Membership(r, True, policy, None, None, 0.0, 0.0, "rank-inequalities" if exact_ok else "lp", residual, tol, msg)


def support(model: AvailabilityModel, k, d) -> tuple[float, np.ndarray]:
    """h(d) = max_{x in R} d.x and a maximising extreme point (greedy: Edmonds)."""
    d = np.asarray(d, dtype=float)
    if d.shape != (model.n_clients,):
        raise UserInputError(f"direction has {d.size} entries but the model has {model.n_clients} clients")
    return pm.support(pm.rank_function(model, k), d)


def extreme_points(model: AvailabilityModel, k, clients=None) -> np.ndarray:
    """Extreme points of R, or of its projection onto ``clients`` (the restriction polymatroid)."""
    rank = pm.rank_function(model, k)
    if clients is None:
        return pm.extreme_points(rank)
    clients = np.asarray(clients, dtype=np.int64)
    sub = _Restricted(rank, clients)
    return pm.extreme_points(sub)


class _Restricted(pm.RankFunction):
    """g restricted to a subset of clients: the rank function of the projection of R onto them."""

    def __init__(self, rank: pm.RankFunction, clients: np.ndarray):
        self.base, self.clients, self.cap = rank, clients, rank.cap

    @property
    def n(self) -> int:  # type: ignore[override]
        return self.clients.size

    def prefix_ranks(self, order):
        return self.base.prefix_ranks(self.clients[np.asarray(order, dtype=np.int64)])

    def rank_sets(self, masks):
        masks = np.atleast_2d(masks)
        full = np.zeros((masks.shape[0], self.base.n), dtype=bool)
        full[:, self.clients] = masks
        return self.base.rank_sets(full)


def naive_rate(model: AvailabilityModel, k, p) -> "np.ndarray | None":
    """Exact long-run rate of the naive sampler (available clients drawn with probability proportional to p).

    Exact for a cap of one client (r_i = sum_A pi(A) p_i / p(A) over A containing i) or a cap that never
    binds; None otherwise (use the simulation).
    """
    from rate_region.availability import make_cap

    cap = make_cap(k, getattr(model, "cap", None))
    law = model.explicit_law()
    if law is None:
        return None
    sets, probs = law
    p = np.asarray(p, dtype=float)
    if cap.kmax >= model.n_clients and cap.is_fixed:
        return probs @ (sets & (p > 0))
    if not (cap.is_fixed and cap.values[0] == 1):
        return None
    mass = sets @ p
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(sets & (mass[:, None] > 0), p[None, :] / mass[:, None], 0.0)
    return probs @ share
