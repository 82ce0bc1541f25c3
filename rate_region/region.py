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

from bounds.core.errors import UserInputError
from bounds.core.face import notebook_face
from rate_region import polymatroid as pm
from rate_region.availability import AvailabilityModel
from rate_region.policy import StaticPolicy, policy_from_means

MEMBERSHIP_TOL = 1e-9
LP_MAX_VARS = 200_000
PRIORITY_MAX_CLIENTS = 60  # column generation tails off beyond this; larger r keep the exact rank check only
PRIORITY_TIME_S = 20.0


@dataclass(frozen=True)
class PriorityPolicy:
    """A static policy without listing configurations: each round draw priority order j w.p. weights[j]
    (else select nobody), select the K_t available clients of ``orders[j]`` that come first, then keep
    each selected client i w.p. thinning[i]. Its rate is sum_j weights_j v_j * thinning, v_j the greedy
    vertex of order j (v_j(order_m) = g(first m) - g(first m-1))."""

    orders: tuple[np.ndarray, ...]
    weights: np.ndarray
    thinning: np.ndarray
    vertices: np.ndarray  # [J, N]

    def rate(self) -> np.ndarray:
        return (self.weights @ self.vertices) * self.thinning

    def check(self, tol: float = 1e-9) -> bool:
        return bool((self.weights >= -tol).all() and self.weights.sum() <= 1 + tol
                    and ((self.thinning >= -tol) & (self.thinning <= 1 + tol)).all())

    def select(self, available: np.ndarray, caps, rng: np.random.Generator) -> np.ndarray:
        """Apply the policy to availability [runs, N] with caps (int or [runs]): [runs, N] bool."""
        runs, N = available.shape
        w = np.append(self.weights, max(0.0, 1.0 - self.weights.sum()))
        j = rng.choice(w.size, size=runs, p=w / w.sum())
        rank = np.full((w.size, N), N + 1, dtype=np.int64)  # N+1: not in the order, never selected
        for i, o in enumerate(self.orders):
            rank[i, o] = np.arange(o.size)
        rk = np.where(available, rank[j], N + 1)
        order = np.argsort(rk, axis=1, kind="stable")
        pos = np.empty_like(order)
        np.put_along_axis(pos, order, np.broadcast_to(np.arange(N), (runs, N)).copy(), axis=1)
        k = np.asarray(caps)
        sel = (pos < (k[:, None] if k.ndim else k)) & (rk <= N)
        return sel & (rng.random((runs, N)) < self.thinning)

    def to_dict(self, max_orders: int = 50, max_clients: int = 50) -> dict:
        return {
            "kind": "priority-mixture",
            "weights": self.weights[:max_orders].tolist(),
            "orders": [o[:max_clients].tolist() for o in self.orders[:max_orders]],
            "thinning": self.thinning[:max_clients].tolist(),
            "n_orders": len(self.orders),
            "rate": self.rate()[:max_clients].tolist(),
        }


def priority_certificate(rank: pm.RankFunction, r: np.ndarray, tol: float = MEMBERSHIP_TOL, max_iter: int = 500,
                         time_s: float = PRIORITY_TIME_S):
    """Column generation: min t s.t. sum_j lambda_j v_j + t 1 >= r, sum lambda <= 1, v_j greedy vertices.

    Returns (t, PriorityPolicy or None, direction or None): t <= tol means r is achievable (policy), else the
    LP dual y separates (y.r > h(y)).
    """
    import time

    from scipy.optimize import linprog

    start = time.perf_counter()
    N = rank.n
    cols = [pm.support(rank, r)[1]]
    orders = [_greedy_order(r)]
    for _ in range(max_iter):
        if time.perf_counter() - start > time_s:
            break
        V = np.array(cols).T  # [N, J]
        J = V.shape[1]
        A = np.vstack([np.hstack([-V, -np.ones((N, 1))]), np.append(np.ones(J), 0.0)[None, :]])
        b = np.append(-r, 1.0)
        c = np.zeros(J + 1)
        c[-1] = 1.0
        res = linprog(c, A_ub=A, b_ub=b, bounds=[(0, None)] * (J + 1), method="highs",
                      options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
        if res.status != 0:
            return float("nan"), None, None
        t = float(res.x[-1])
        y = np.clip(-res.ineqlin.marginals[:N], 0.0, None)
        u = float(-res.ineqlin.marginals[N])
        h, v = pm.support(rank, y)
        if h <= u + 1e-12 * max(1.0, abs(u)):
            lam = np.clip(res.x[:J], 0.0, None)
            lam /= max(1.0, lam.sum())  # solver round-off may leave sum lambda a hair above 1
            if t <= tol:
                mix = V @ lam
                with np.errstate(divide="ignore", invalid="ignore"):
                    thin = np.where(mix > 0, np.minimum(1.0, r / np.where(mix > 0, mix, 1)), 0.0)
                keep = lam > 1e-15
                pol = PriorityPolicy(tuple(o for o, kk in zip(orders, keep) if kk), lam[keep], thin,
                                     V[:, keep].T)
                return t, pol, None
            return t, None, y
        cols.append(v)
        orders.append(_greedy_order(y))
    return float("nan"), None, None


def _greedy_order(d: np.ndarray) -> np.ndarray:
    pos = np.flatnonzero(d > 0)
    return pos[np.argsort(-d[pos], kind="stable")]


@notebook_face(lambda m: f"{m.r.size} rates: {'achievable' if m.achievable else 'NOT achievable'} ({m.method})",
               rows=lambda m: [("message", m.message)])
@dataclass(frozen=True)
class Membership:
    r: np.ndarray
    achievable: bool
    policy: StaticPolicy | PriorityPolicy | None
    direction: np.ndarray | None
    support_value: float | None  # h(direction)
    margin: float  # direction.r - h(direction) (> 0 separates); for achievable r: -max violation slack (<= 0)
    violation: float  # max_U r(U) - g(U)
    method: str
    residual: float | None  # ||rate(policy) - r||_inf
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
        return None  # too many configurations: the caller falls back to a priority-mixture certificate
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
    if lp is None and not exact_ok:
        raise UserInputError(
            f"membership for {model.name!r} ({model.n_clients} clients, correlated law) is too large to decide "
            "exactly; use fewer clients or states"
        )
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
    elif certificate and rank.n <= PRIORITY_MAX_CLIENTS:
        t, policy, _ = priority_certificate(rank, rp, tol)
        if policy is not None:
            residual = float(np.max(np.abs(policy.rate() - r)))
            msg = (f"achievable; mixture of {len(policy.orders)} priority orders (with thinning) attains r "
                   f"(max error {residual:.2e})")
        else:
            msg = "achievable: every rank inequality r(U) <= g(U) holds (exact prefix check); no policy listed"
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


def naive_rate(model: AvailabilityModel, k, p) -> np.ndarray | None:
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
