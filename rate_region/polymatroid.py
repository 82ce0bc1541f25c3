"""The rate region as a polymatroid, and exact separable-convex minimisation over it.

**Setting**: cardinality caps K_t (independent of A_t). Each configuration's feasible sets
{S subset of A : |S| <= K} have the independence polytope {0 <= y <= 1_A, sum y <= K}, a polymatroid with
rank min(|A n U|, K); R (F3AST eq. 2) is their pi-weighted Minkowski sum, hence a polymatroid with
**Quantity**: rank g(U) = E[min(|A n U|, K)], R = {r >= 0 : r(U) <= g(U) for all U}.
**Algorithm**: min sum_k w_k / r_k over R. With c_k = sqrt(w_k), the minimiser is Fujishige's
lexicographically optimal base for c: a chain of tight sets S_1 < S_2 < ... on which r_k / c_k is
constant per block and increasing; S_1 = maximal minimiser of g(U)/c(U), then recurse on the contraction.
For a rank-one product mixture (Pr(i available | phase j) = f_j q_i, K independent) the marginal
g(U+i) - g(U) = q_i s(U) with s decreasing, so every set in the chain, and every maximally violated set
r(U) - g(U), is a prefix of the clients sorted by c_i/q_i (resp. r_i/q_i): the chain is the lower convex
hull of the points (c(prefix), g(prefix)), computed with one Poisson-binomial DP (O(N K)).
Small explicit laws use exhaustive enumeration of subsets instead (any correlation).
**Statement**: region = F3AST Lemma III.2 (closed, convex); optimum = **argmin** of eq. (3) over R.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bounds.core.errors import UserInputError
from rate_region.availability import AvailabilityModel, Cap, RankOneBlock, make_cap

ENUM_MAX_CLIENTS = 14
TIE_TOL = 1e-12


def _cap_table(cap: Cap, n: int) -> np.ndarray:
    """Gtab[x] = E[min(x, K)] for x = 0..n."""
    s = cap.survival()  # P(K > m), m < kmax
    cum = np.concatenate([[0.0], np.cumsum(s)])
    return cum[np.minimum(np.arange(n + 1), cap.kmax)]


class RankFunction:
    """g(U) = E[min(|A n U|, K)] for one availability model and cap."""

    n: int
    cap: Cap

    def prefix_ranks(self, order: np.ndarray) -> np.ndarray:
        """g of the successive prefixes of ``order``: array of len(order)+1, starting with g(empty)=0."""
        raise NotImplementedError

    def rank_sets(self, masks: np.ndarray) -> np.ndarray:
        """g(U) for each row U of ``masks`` [m, N] (bool)."""
        raise NotImplementedError

    @property
    def structured(self) -> bool:
        return False


@dataclass(frozen=True, eq=False)
class ExplicitRank(RankFunction):
    sets: np.ndarray  # [M, N]
    probs: np.ndarray  # [M]
    cap: Cap

    @property
    def n(self) -> int:  # type: ignore[override]
        return self.sets.shape[1]

    def prefix_ranks(self, order):
        order = np.asarray(order, dtype=np.int64)
        counts = np.concatenate(
            [np.zeros((self.sets.shape[0], 1), np.int64), np.cumsum(self.sets[:, order], axis=1)], axis=1
        )
        gt = _cap_table(self.cap, self.n)
        return self.probs @ gt[counts]

    def rank_sets(self, masks):
        masks = np.atleast_2d(np.asarray(masks, dtype=bool))
        gt = _cap_table(self.cap, self.n)
        out = np.empty(masks.shape[0])
        A = self.sets.astype(np.int32)
        step = max(1, 2_000_000 // max(1, A.shape[0]))
        for s in range(0, masks.shape[0], step):  # chunked only to bound memory
            counts = masks[s : s + step].astype(np.int32) @ A.T
            out[s : s + step] = gt[counts] @ self.probs
        return out


@dataclass(frozen=True, eq=False)
class RankOneRank(RankFunction):
    blocks: tuple[RankOneBlock, ...]
    n_clients: int
    cap: Cap

    @property
    def n(self) -> int:  # type: ignore[override]
        return self.n_clients

    @property
    def structured(self) -> bool:
        return True

    def block_of(self) -> np.ndarray:
        out = np.empty(self.n, dtype=np.int64)
        for b, blk in enumerate(self.blocks):
            out[blk.index] = b
        return out

    def local_q(self) -> np.ndarray:
        out = np.empty(self.n)
        for blk in self.blocks:
            out[blk.index] = blk.q
        return out

    def block_prefix_ranks(self, blk: RankOneBlock, q_in_order: np.ndarray) -> np.ndarray:
        """g of each prefix of one block (see :meth:`block_prefix_ranks_bounded`)."""
        return self.block_prefix_ranks_bounded(blk, q_in_order)[0]

    def block_prefix_ranks_bounded(self, blk: RankOneBlock, q_in_order: np.ndarray) -> tuple[np.ndarray, float]:
        """g of each prefix of one block, and a bound on the increments not computed (below rounding)."""
        inc, dropped = self.block_increments(blk, q_in_order)
        return np.concatenate([[0.0], np.cumsum(inc)]), dropped

    def block_increments(self, blk: RankOneBlock, q_in_order: np.ndarray) -> tuple[np.ndarray, float]:
        """Marginals g(first i+1) - g(first i) of one block's clients in order, each to full relative
        precision (no difference of large prefix sums), and the bound on those not computed.

        g(i+1) - g(i) = q_i sum_j w_j f_j P(X^j_i < K), X^j_i the available clients among the first i in
        phase j; the probabilities come from ``poisson_binomial.below_cap`` (O(len * J * kmax)).
        """
        from rate_region.poisson_binomial import below_cap

        s = self.cap.survival()
        inc = np.zeros(q_in_order.size)
        dropped = 0.0
        for wj, fj in zip(blk.w, blk.f):
            if wj > 0 and fj > 0:
                a, d = below_cap(fj * q_in_order, s)
                inc += (wj * fj) * q_in_order * a
                dropped += float(wj * d)
        return inc, dropped

    def prefix_ranks(self, order):
        order = np.asarray(order, dtype=np.int64)
        bo = self.block_of()
        q = self.local_q()
        inc = np.zeros(order.size)
        for b, blk in enumerate(self.blocks):
            pos = np.flatnonzero(bo[order] == b)
            if pos.size:
                gb = self.block_prefix_ranks(blk, q[order[pos]])
                inc[pos] = np.diff(gb)
        return np.concatenate([[0.0], np.cumsum(inc)])

    def rank_sets(self, masks):
        masks = np.atleast_2d(np.asarray(masks, dtype=bool))
        return np.array([self.prefix_ranks(np.flatnonzero(m))[-1] for m in masks])


def rank_function(model: AvailabilityModel, k=None, prefer_structured: bool = True) -> RankFunction:
    """The rank function of R for ``model`` under cap ``k`` (int, Cap, mapping, or None = model's cap)."""
    cap = make_cap(k, getattr(model, "cap", None))
    blocks = model.rank_one_blocks() if prefer_structured else None
    if blocks is not None:
        return RankOneRank(tuple(blocks), model.n_clients, cap)
    law = model.explicit_law()
    if law is None and not prefer_structured and model.rank_one_blocks() is not None:
        raise UserInputError(
            f"enumeration needs at most 14 weighted clients ({model.name!r} has {model.n_clients}); "
            "method 'polymatroid' handles this model at any size"
        )
    if law is None:
        raise UserInputError(
            f"model {model.name!r} has neither a product structure nor an enumerable law "
            f"({model.n_clients} clients); use independent/periodic/cyclic availability or fewer clients"
        )
    return ExplicitRank(law[0], law[1], cap)


def _all_masks(n: int) -> np.ndarray:
    codes = np.arange(1 << n)
    return ((codes[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)


# Minimisation of sum w / r
@dataclass(frozen=True)
class ChainSolution:
    r: np.ndarray
    levels: np.ndarray  # r_k / c_k per block, increasing
    blocks: tuple[np.ndarray, ...]  # client indices of each block, in chain order
    method: str


def _spans(steps: np.ndarray) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``span(a, i)`` = sum of ``steps[a:i]`` (a <= i, prefix indices), without cancellation.

    Differences of prefix sums lose every digit of a step below eps times the sum before it (a client
    with weight 1e-16 after clients of weight ~1/N adds nothing to a float64 prefix sum, so its point
    sits straight above the one before and the hull merges it into that block). Each span is taken
    from the prefix sums or from the suffix sums, whichever side is smaller: error <= eps * min(both).
    """
    pre = np.concatenate([[0.0], np.cumsum(steps)])
    suf = np.concatenate([np.cumsum(steps[::-1])[::-1], [0.0]])

    def span(a: np.ndarray, i: np.ndarray) -> np.ndarray:
        return np.where(pre[i] <= suf[a], pre[i] - pre[a], suf[a] - suf[i])

    return span


def _lower_hull(steps: np.ndarray, y: np.ndarray) -> list[int]:
    """Indices of the lower convex hull of the points (x_j, y_j), x_j = sum of ``steps[:j]`` (first and last kept).

    Vectorised passes first drop every point on or above the segment joining its current neighbours
    (such a point is no hull vertex, so dropping many at once is safe); the monotone chain then runs
    on the few survivors. Collinear points are dropped (their blocks merge), with the tolerance below.
    x differences come from :func:`_spans` (exact for tiny steps beside large ones).
    """
    span = _spans(np.asarray(steps, dtype=float))
    keep = np.arange(y.size)
    for _ in range(64):
        if keep.size < 3:
            break
        ia, ib, ic = keep[:-2], keep[1:-1], keep[2:]
        dac, dab = span(ia, ic), span(ia, ib)
        drop = (y[ib] - y[ia]) * dac >= (y[ic] - y[ia]) * dab - TIE_TOL * dac
        if not drop.any():
            break
        keep = np.concatenate([keep[:1], ib[~drop], keep[-1:]])
    hull: list[int] = []
    for i in keep.tolist():  # monotone chain on the survivors; O(n) amortised
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            dai, dab_ = (float(v) for v in span(np.array([a, a]), np.array([i, b])))
            # drop b unless it lies strictly below segment a-i; collinear points are dropped (merged blocks)
            if (y[b] - y[a]) * dai >= (y[i] - y[a]) * dab_ - TIE_TOL * dai:
                hull.pop()
            else:
                break
        hull.append(i)
    return hull


def lex_optimal_structured(rank: RankOneRank, c: np.ndarray) -> ChainSolution:
    """Exact argmin of sum c_k^2 / r_k over R for a rank-one mixture (prefix chain, convex hull)."""
    r = np.zeros(rank.n)
    levels, blocks = [], []
    for blk in rank.blocks:
        cb = c[blk.index]
        pos = cb > 0
        idx, cb, qb = blk.index[pos], cb[pos], blk.q[pos]
        if idx.size == 0:
            continue
        ratio = cb / qb
        order = np.argsort(-ratio, kind="stable")
        inc, _ = rank.block_increments(blk, qb[order])
        G = np.concatenate([[0.0], np.cumsum(inc)])
        hull = np.asarray(_lower_hull(cb[order], G))
        # each block's level from its own increments: differences of the prefix sums lose the digits
        # of a small block sitting after a large prefix
        theta = np.add.reduceat(inc, hull[:-1]) / np.add.reduceat(cb[order], hull[:-1])
        members = idx[order]
        r[members] = c[members] * np.repeat(theta, np.diff(hull))
        levels += theta.tolist()
        blocks += np.split(members, hull[1:-1])
    # the direct sum's blocks interleave; report the chain sorted by level
    perm = np.argsort(levels, kind="stable")
    return ChainSolution(r, np.asarray(levels)[perm], tuple(blocks[i] for i in perm), "polymatroid-prefix-hull")


def lex_optimal_enumerated(rank: RankFunction, c: np.ndarray) -> ChainSolution:
    """Exact argmin of sum c_k^2 / r_k over R by the decomposition algorithm with exhaustive subsets."""
    V = np.flatnonzero(c > 0)
    if V.size > ENUM_MAX_CLIENTS:
        raise UserInputError(
            f"exhaustive decomposition is limited to {ENUM_MAX_CLIENTS} weighted clients (got {V.size}); "
            "use a product-form availability model or method='cvxpy'"
        )
    sub = _all_masks(V.size)
    full = np.zeros((sub.shape[0], rank.n), dtype=bool)
    full[:, V] = sub
    g = rank.rank_sets(full)
    codes = np.arange(sub.shape[0])
    r = np.zeros(rank.n)
    T = 0
    levels, blocks = [], []
    allmask = (1 << V.size) - 1
    while T != allmask:
        sup = (codes & T) == T
        sup &= codes != T
        ratio = np.full(codes.size, np.inf)
        # c(U \ T) summed directly: cs[U] - cs[T] is 0 in float64 when U adds only clients with weights
        # below eps * c(T), and the level would be inf
        added = (sub[sup] & ~sub[T]).astype(float) @ c[V]
        ratio[sup] = (g[sup] - g[T]) / added
        theta = ratio.min()
        hit = ratio <= theta + TIE_TOL * max(1.0, abs(theta))
        U = int(np.bitwise_or.reduce(codes[hit]))
        new = sub[U] & ~sub[T]
        members = V[new]
        # the union of minimisers is a minimiser (submodularity); recompute its exact level
        theta = (g[U] - g[T]) / float(c[V][sub[U] & ~sub[T]].sum())
        r[members] = c[members] * theta
        levels.append(theta)
        blocks.append(members)
        T = U
    return ChainSolution(r, np.asarray(levels), tuple(blocks), "polymatroid-enumeration")


# Membership and support
@dataclass(frozen=True)
class Violation:
    value: float  # max_U r(U) - g(U) >= 0 (the empty set gives 0); r >= 0 is in R iff value == 0
    set: np.ndarray  # bool mask of a maximiser
    method: str
    ratio: float = float("nan")  # max_U r(U) / g(U) over g(U) > 0 (inf if r(U) > 0 = g(U)); r / ratio is in R


def max_violation(rank: RankFunction, r: np.ndarray) -> Violation:
    """max over U of r(U) - g(U), with a maximiser (exact)."""
    r = np.asarray(r, dtype=float)
    if isinstance(rank, RankOneRank):
        best = np.zeros(rank.n, dtype=bool)
        total, rho = 0.0, 0.0
        for blk in rank.blocks:
            rb, qb = r[blk.index], blk.q
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(qb > 0, rb / np.where(qb > 0, qb, 1), np.where(rb > 0, np.inf, 0.0))
            order = np.argsort(-ratio, kind="stable")
            G = rank.block_prefix_ranks(blk, qb[order])
            R = np.concatenate([[0.0], np.cumsum(rb[order])])
            gap = R - G
            m = int(np.argmax(gap))
            if gap[m] > 0:
                total += gap[m]
                best[blk.index[order[:m]]] = True
            # max r(U)/g(U) is attained on the same prefixes (Dinkelbach: maximisers of r - lambda g are
            # prefixes of this order); g is additive over blocks, so the max over blocks is the max
            rho = max(rho, _max_ratio(R[1:], G[1:]))
        return Violation(float(total), best, "prefix", rho)
    if rank.n > ENUM_MAX_CLIENTS + 4:
        raise UserInputError(f"exact membership for a correlated law is limited to {ENUM_MAX_CLIENTS + 4} clients")
    masks = _all_masks(rank.n)
    rs, gs = masks.astype(float) @ r, rank.rank_sets(masks)
    gap = rs - gs
    m = int(np.argmax(gap))
    return Violation(float(gap[m]), masks[m], "enumeration", _max_ratio(rs, gs))


def _max_ratio(num: np.ndarray, den: np.ndarray) -> float:
    if np.any((den <= 0) & (num > 0)):
        return float("inf")
    pos = den > 0
    return float(np.max(num[pos] / den[pos])) if pos.any() else 0.0


def support(rank: RankFunction, d: np.ndarray) -> tuple[float, np.ndarray]:
    """h(d) = max_{x in R} d.x and a maximiser (greedy vertex: Edmonds)."""
    d = np.asarray(d, dtype=float)
    pos = np.flatnonzero(d > 0)
    order = pos[np.argsort(-d[pos], kind="stable")]
    G = rank.prefix_ranks(order)
    x = np.zeros(rank.n)
    x[order] = np.diff(G)
    return float(d @ x), x


def extreme_points(rank: RankFunction) -> np.ndarray:
    """All greedy vertices (every order, every prefix length); for plotting small N (<= 6)."""
    import itertools

    if rank.n > 6:
        raise UserInputError(f"extreme points are enumerated for at most 6 clients (got {rank.n})")
    pts = {tuple(np.zeros(rank.n))}
    for perm in itertools.permutations(range(rank.n)):
        G = rank.prefix_ranks(np.array(perm))
        for j in range(1, rank.n + 1):
            x = np.zeros(rank.n)
            x[list(perm[:j])] = np.diff(G[: j + 1])
            pts.add(tuple(np.round(x, 12)))
    return np.array(sorted(pts))
