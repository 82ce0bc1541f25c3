"""r* = argmin over R of H(r) (F3AST eq. 3), choosing an exact method.

**Setting**: availability model + cardinality cap; weights p (default: the model's, uniform for most).
**Quantity**: r* and H(r*); the price of the cap against full participation, H(r*) / H(1).
**Statement**: **argmin**, F3AST Section III-B (eq. 3; Theorem III.3 says F3AST's rate converges to it).
**Algorithm**: ``method="auto"``: rank-one product laws (independent, periodic, cyclic) -> exact
lexicographically-optimal-base chain over prefixes (``polymatroid-prefix-hull``, O(N k) + sort);
other laws with <= 14 weighted clients -> the same decomposition over all subsets
(``polymatroid-enumeration``); otherwise CVXPY over explicit configurations (``cvxpy``).
KKT: with chain S_1 < ... < S_m, levels theta_j = r_k / sqrt(w_k) on block j, the multipliers
mu_j = theta_j^-2 - theta_{j+1}^-2 (mu_m = theta_m^-2) are >= 0 and g(S_j) = r*(S_j).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from bounds.core.errors import UserInputError
from bounds.core.face import notebook_face, short
from rate_region import polymatroid as pm
from rate_region.availability import AvailabilityModel, check_probabilities, make_cap
from rate_region.variance import H as H_of
from rate_region.variance import check_objective, objective_weights

METHODS = ("auto", "polymatroid", "enumeration", "cvxpy")
CERTIFIED_GAP = 1e-6  # relative duality gap under which an exact r* is reported "optimal"


@notebook_face(lambda o: f"{o.r_star.size} clients: H(r*) = {short(o.H)}, price of the cap "
                         f"{short(o.H / o.H_full) if o.H_full > 0 else 'n/a'}, {o.method}, {o.status}",
               rows=lambda o: [("r* range", f"[{short(o.r_star.min())}, {short(o.r_star.max())}]" if o.r_star.size else ""),
                               ("message", o.message)])
@dataclass(frozen=True)
class RateOptimum:
    r_star: np.ndarray
    H: float
    H_full: float
    objective: str
    p: np.ndarray
    cap: dict
    method: str
    solver: str | None
    success: bool
    status: str
    message: str
    levels: np.ndarray = field(default_factory=lambda: np.zeros(0))
    blocks: tuple = ()
    kkt: dict = field(default_factory=dict)
    elapsed_s: float = 0.0

    ARRAYS = ("r_star", "p", "levels")

    def to_dict(self, arrays_file: str | None = None) -> dict:
        """Everything, complete at any N: the per-client arrays inline, or (``arrays_file``) named in
        ``arrays`` and stored in that ``.npz`` file (written by :meth:`arrays_npz`), never cut."""
        out = {
            "n_clients": int(self.r_star.size),
            "r_star": self.r_star.tolist(),
            "H": self.H,
            "H_full_participation": self.H_full,
            "price_of_cap": self.H / self.H_full if self.H_full > 0 else None,
            "objective": self.objective,
            "p": self.p.tolist(),
            "cap": self.cap,
            "method": self.method,
            "solver": self.solver,
            "success": self.success,
            "status": self.status,
            "message": self.message,
            "levels": self.levels.tolist(),
            "n_blocks": len(self.blocks),
            "kkt": self.kkt,
            "elapsed_s": self.elapsed_s,
        }
        if arrays_file is not None:
            for key in self.ARRAYS:
                del out[key]
            out["arrays"] = {"file": str(arrays_file), "format": "npz (numpy.load)", "keys": list(self.ARRAYS),
                             "lengths": {k: int(getattr(self, k).size) for k in self.ARRAYS}}
        return out

    def arrays_npz(self) -> bytes:
        """The per-client arrays (``r_star``, ``p``, ``levels``) as the bytes of an ``.npz`` file."""
        import io

        buf = io.BytesIO()
        np.savez(buf, r_star=np.asarray(self.r_star, dtype=float), p=np.asarray(self.p, dtype=float),
                 levels=np.asarray(self.levels, dtype=float))
        return buf.getvalue()


def resolve_weights(model: AvailabilityModel, p) -> np.ndarray:
    if p is None:
        return np.asarray(model.weights, dtype=float)
    p = np.asarray(p, dtype=float).ravel()
    if p.size != model.n_clients:
        raise UserInputError(f"weights p have {p.size} entries but the model has {model.n_clients} clients")
    return check_probabilities(p, "weights p")


def check_reachable(model: AvailabilityModel, p: np.ndarray) -> None:
    """H is infinite when a weighted client is never available."""
    dead = np.flatnonzero((model.marginals() <= 0) & (p > 0))
    if dead.size:
        i = int(dead[0])
        raise UserInputError(
            f"client {i} is never available while its weight p_{i}={p[i]:g} > 0: H(r) is infinite for every "
            f"achievable r; give it availability > 0 or weight 0 ({dead.size} such client(s))"
        )


def kkt_report(rank: pm.RankFunction, r: np.ndarray, w: np.ndarray, sol: pm.ChainSolution) -> dict:
    """Optimality certificate of ``r``, computed independently of how ``r`` was found.

    Tightness: the chain sets S_1 < ... < S_m have r(S_j) = g(S_j) (``max_tightness_gap``) and the
    multipliers are >= 0. Feasibility: ``max_rank_violation`` = max_U r(U) - g(U) and
    ``rank_ratio`` rho = max_U r(U)/g(U) (exact, by prefixes or enumeration). Duality gap (H convex):
    H* >= H(r) - max_{x in R} d.(x - r) with d = w / r^2 = -grad H, the max taken at Edmonds' greedy
    vertex (``H_lower``); H* <= H(r / max(rho, 1)) = max(rho, 1) H(r) since r / rho is in R
    (``H_upper``). ``relative_gap`` = (H_upper - H_lower) / H_upper; ``rank_dropped_bound`` bounds the
    rank increments left out below double precision by the blocked Poisson-binomial DP.
    """
    order = np.concatenate(sol.blocks) if sol.blocks else np.zeros(0, np.int64)
    G = rank.prefix_ranks(order)
    ends = np.cumsum([b.size for b in sol.blocks])
    cum_r = np.concatenate([[0.0], np.cumsum(r[order])])
    tight = np.abs(G[ends] - cum_r[ends]) if ends.size else np.zeros(0)
    # cyclic direct sums: blocks of different groups are tight within their group; measure per chain prefix
    # extended precision: a rate near 1e-300 (a client almost never available) makes w / r^2 overflow
    # float64, and the certificate would read -inf where H* is finite
    theta = np.asarray(sol.levels, dtype=np.longdouble)
    mu = np.append(theta[:-1] ** -2.0 - theta[1:] ** -2.0, theta[-1] ** -2.0) if theta.size else theta
    out = {
        "max_tightness_gap": float(tight.max()) if tight.size else 0.0,
        "min_multiplier": float(mu.min()) if mu.size else 0.0,
        "tight_sets": int(ends.size),
        "max_rank_violation": None,
    }
    if not (rank.structured or rank.n <= pm.ENUM_MAX_CLIENTS + 4):
        return out
    viol = pm.max_violation(rank, r)
    pos = np.flatnonzero(w > 0)
    rl, wl = r.astype(np.longdouble), w.astype(np.longdouble)
    d = wl[pos] / rl[pos] ** 2
    greedy = pos[np.argsort(-d, kind="stable")]  # Edmonds: the vertex maximising d.x takes prefixes by d
    if isinstance(rank, pm.RankOneRank):
        vertex, dropped = _greedy_increments(rank, greedy)
    else:
        vertex, dropped = np.diff(rank.prefix_ranks(greedy)), 0.0
    h = (wl[greedy] / rl[greedy] ** 2) @ np.asarray(vertex, dtype=np.longdouble)
    H = np.sum(wl[pos] / rl[pos])
    upper = float(H * max(1.0, viol.ratio))
    lower = float(2.0 * H - h)
    out.update({
        "max_rank_violation": viol.value,
        "rank_ratio": viol.ratio,
        "H_lower": lower,
        "H_upper": upper,
        "relative_gap": (upper - lower) / upper if upper > 0 else 0.0,
        "rank_dropped_bound": dropped,
    })
    return out


def _greedy_increments(rank: pm.RankOneRank, order: np.ndarray) -> tuple[np.ndarray, float]:
    """The greedy vertex's coordinates along ``order`` (each to full precision) and the DP's bound."""
    bo = rank.block_of()
    q = rank.local_q()
    inc = np.zeros(order.size)
    dropped = 0.0
    for b, blk in enumerate(rank.blocks):
        where = np.flatnonzero(bo[order] == b)
        if where.size:
            inc[where], db = rank.block_increments(blk, q[order[where]])
            dropped += db
    return inc, dropped


def _inside(r: np.ndarray, kkt: dict) -> tuple[np.ndarray, str]:
    """``r`` itself when it satisfies every rank inequality (within the membership tolerance), else ``r``
    scaled into R by its rank ratio, with a note saying by how much the chain was outside: the r* a user
    gets is always one that ``region --check`` accepts."""
    from rate_region.region import MEMBERSHIP_TOL

    viol, rho = kkt.get("max_rank_violation"), kkt.get("rank_ratio")
    if viol is None or viol <= MEMBERSHIP_TOL or not (rho and math.isfinite(rho) and rho > 1):
        return r, ""
    return r / rho, (f"; the chain's point was outside R by max_U r(U) - g(U) = {viol:.3g} (rank ratio "
                     f"{rho:.12g}); r* here is that point divided by the ratio, inside R")


def min_variance_rates(model: AvailabilityModel, k=None, p=None, objective: str = "p2", method: str = "auto",
                       solvers=None) -> RateOptimum:
    """argmin_{r in R} H(r) for ``model`` under cap ``k`` (None: the model's cap)."""
    t0 = time.perf_counter()
    check_objective(objective)
    if method not in METHODS:
        from bounds.core.errors import unknown

        raise unknown("method", method, METHODS)
    cap = make_cap(k, getattr(model, "cap", None))
    p = resolve_weights(model, p)
    check_reachable(model, p)
    w = objective_weights(p, objective)
    c = np.sqrt(w)
    n_weighted = int((w > 0).sum())

    if method == "auto":
        if model.rank_one_blocks() is not None:
            method = "polymatroid"
        elif n_weighted <= pm.ENUM_MAX_CLIENTS:
            method = "enumeration"
        else:
            method = "cvxpy"

    H_full = float(H_of(np.ones(model.n_clients), p, objective))
    if method in ("polymatroid", "enumeration"):
        if method == "polymatroid":
            rank = pm.rank_function(model, cap)
            if not isinstance(rank, pm.RankOneRank) or not rank.structured:
                raise UserInputError(
                    f"method 'polymatroid' needs a product-form availability model; {model.name!r} is not one "
                    "(use method 'enumeration' or 'cvxpy')"
                )
            sol = pm.lex_optimal_structured(rank, c)
        else:
            rank = pm.rank_function(model, cap, prefer_structured=False)
            sol = pm.lex_optimal_enumerated(rank, c)
        r = sol.r
        kkt = kkt_report(rank, r, w, sol)
        r, outside = _inside(r, kkt)
        gap = kkt.get("relative_gap")
        # "optimal" only with a certificate that closes (or where none is computed: too many clients to check)
        certified = not outside and (gap is None or (math.isfinite(gap) and gap <= CERTIFIED_GAP))
        message = f"exact decomposition: {len(sol.blocks)} tight block(s)" + outside + (
            "" if certified else f"; its certificate does not close (relative gap {gap}): treat r* as unverified")
        return RateOptimum(
            r, float(H_of(r, p, objective)), H_full, objective, p, cap.to_dict(), sol.method, None, True,
            "optimal" if certified else "uncertified", message, sol.levels, sol.blocks, kkt,
            time.perf_counter() - t0,
        )

    from rate_region.cvx import SOLVERS, configurations, min_H_cvxpy

    cfg = configurations(model, cap)
    out = min_H_cvxpy(cfg, w, solvers or SOLVERS)
    if not out.success:
        return RateOptimum(np.full(model.n_clients, np.nan), float("nan"), H_full, objective, p, cap.to_dict(),
                           "cvxpy", None, False, "solver_failed", out.message, elapsed_s=time.perf_counter() - t0)
    assert out.r is not None  # success carries the solution
    r = out.r
    return RateOptimum(r, float(H_of(r, p, objective)), H_full, objective, p, cap.to_dict(), "cvxpy", out.solver,
                       True, "optimal", out.message, elapsed_s=time.perf_counter() - t0)
