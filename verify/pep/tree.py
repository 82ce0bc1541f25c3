"""A certified upper bound on the finite-R worst case under a random participation law: the tree PEP, chordal.

**Setting**: local GD (or FAST's snapshot law) on L-smooth mu-strongly convex clients, mu < L, a participation
law drawn independently every round (uniform m of M, Bernoulli, snapshot: ``Setting.law``), no noise, measure
``dist_sq``. The exact PEP of :mod:`verify.pep.sdp` branches over the law's outcomes: a tree with P^r nodes in
round r, each running K local steps per client; the objective is the probability-weighted sum of
||x_leaf - x*||^2 over the leaves.
**Quantity**: the same PEP keeping, of each client's interpolation inequalities (Taylor, Hendrickx & Glineur),
only those between points on one root-to-leaf path (and those with x*). Dropping constraints of a maximisation
can only raise its value, so the value is an upper bound on the worst case (the adversary may use, per leaf, a
different function that agrees on the shared prefix). It is also at most the per-round bound of
:mod:`verify.pep.lyapunov` (whose one-round certificate holds for any data that satisfies one node's
inequalities, which every kept path does): worst case <= this value <= ``horizon_bound``. How far the value lies
above the exact (dense) worst case is measured (tests/verify/test_pep_tree.py, the R = 4 benchmark record), not
proved.
**Sparsity**: every kept inequality, the objective and the bounds touch only the Gram vectors of one path (e0,
the s_i and the gradients of the path's nodes), so the aggregate sparsity pattern is the union of the paths'
cliques: chordal, with deepest nodes eliminated first as a perfect order. A partial Gram matrix whose clique
blocks are PSD has a PSD completion (Grone et al. 1984), so the SDP has one PSD cone of 1 + (M - 1) + R K used
rows per node of the last computing round (P^(R-1) cones) instead of one dense cone of all the tree's
gradients. Clarabel is called directly with the cones of :func:`verify.pep.psd.clique_cones`.
**Certificate**: the multipliers rounded to 2^-40 (value balance restored exactly), S = sum lambda A + sum beta
B - C formed in exact integers from the exact problem data (constants read as decimals), proved PSD on the
chordal pattern by :func:`verify.pep.psd.prove_psd`. Then the objective <= sum beta_b b_b for every instance.
**Notation**: basis of :func:`verify.pep.sdp.build` (e0, s_1..s_{M-1}, gradients node by node), reversed so
that the deepest nodes come first.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from bounds.core.errors import UserInputError
from verify.pep.setting import Setting, validate
from verify.pep.size import MAX_SECONDS

GRID = 2**40  # multipliers are rounded to this grid (as verify.pep.exact and verify.pep.banded_sdp)
DELTA = 3e-9  # trace weight: S >= DELTA I at the solver's optimum, the margin the exact check needs
RETRY_DELTAS = (1e-8, 1e-7, 1e-6)
TOL = 1e-8  # Clarabel's gap and feasibility tolerances
SUPPORTED = ("the tree route supports method local_gd or fast with a random law (--participation uniform:m, "
             "bernoulli:p, snapshot:...) drawn every round, sigma = 0, mu < L and measure dist_sq")

Key = tuple[int, int]
# Cost model, fitted to the measured record (tests/benchmarks/results/pep_tree_r5.json: FedAvg K = 5, uniform 1 of
# 2, R = 3, 4, 5 at d = 72, 152, 312 Gram rows): CPU 3.0, 17.4, 130 s (about d^2.4 then d^2.8) and peak memory
# 0.18, 0.48, 1.85 GB (about d^1.9); the larger exponents are used beyond d = 312
_SECONDS_AT_312, _SECONDS_EXPONENT = 130.0, 2.8
_GB_AT_312, _GB_EXPONENT = 1.85, 1.9


def tree_estimate(s: Setting) -> tuple[float, float, float]:
    """(Gram rows d, estimated CPU seconds, estimated GB) of the tree route for ``s``, from its numbers alone."""
    from verify.pep.size import estimate

    d = estimate(s).gram_rows
    return d, _SECONDS_AT_312 * (d / 312) ** _SECONDS_EXPONENT, _GB_AT_312 * (d / 312) ** _GB_EXPONENT


def supports(s: Setting) -> str | None:
    """None when the tree route covers ``s``, else what it supports (one line)."""
    random_law = s.schedule is None and s.I is None and s.law is not None and s.law.pattern_count(s.M) > 1
    if s.method == "scaffold" or s.sigma != 0 or s.measure != "dist_sq" or not s.mu < s.L or not random_law:
        return SUPPORTED
    return None


@dataclass
class TreePEP:
    """The path-restricted PEP with integer coefficients over ``den``.

    ``rows``: per kept inequality ``phi <= 0``: (client, point j, point k) with point 0 = x*; ``cols[r]``,
    ``vals[r]``: its Gram coefficients (integer numerators over ``den``, positions in ``keys``); ``fv[r]``:
    {value index: +-1}. ``bounds``: (name, {key: Fraction}, rhs); ``objective``: {key: Fraction}.
    ``cliques``: the chordal pattern's maximal cliques; ``keys``: its filled entries (a <= b), sorted.
    """

    setting: Setting
    d: int
    nf: int
    den: int
    keys: list[Key]
    cliques: list[list[int]]
    rows: list[tuple[int, int, int]] = field(default_factory=list)
    cols: list[np.ndarray] = field(default_factory=list)
    vals: list[np.ndarray] = field(default_factory=list)
    fv: list[dict[int, int]] = field(default_factory=list)
    bounds: list[tuple[str, dict[Key, Fraction], Fraction]] = field(default_factory=list)
    objective: dict[Key, Fraction] = field(default_factory=dict)
    pairs_full: int = 0
    nodes: int = 0

    def size(self) -> dict[str, Any]:
        """What was built: Gram rows, kept and full pairs, clique sizes, constraint-matrix nonzeros."""
        widths = [len(c) for c in self.cliques]
        return {"gram_rows": self.d, "inequalities": len(self.rows), "inequalities_dense": self.pairs_full,
                "branch_nodes": self.nodes, "cliques": len(self.cliques), "largest_clique": max(widths),
                "gram_entries": len(self.keys), "psd_cone_rows": sum(w * (w + 1) // 2 for w in widths),
                "nonzeros": int(sum(len(c) for c in self.cols)), "values": self.nf}


def _ints(vecs: list[Any], d: int, perm: np.ndarray) -> tuple[np.ndarray, int]:
    """(int64 rows over a common denominator, the denominator) of Vecs of Fractions, columns permuted."""
    den = math.lcm(1, *(Fraction(c).denominator for v in vecs for c in v.values()))
    out = np.zeros((len(vecs), d), dtype=np.int64)
    for r, v in enumerate(vecs):
        for k, c in v.items():
            c = Fraction(c)
            out[r, perm[k]] = c.numerator * (den // c.denominator)
    return out, den


def _sym(T: np.ndarray) -> np.ndarray:
    """Upper-triangle coefficients of <T, G> for symmetric G: T[a, b] + T[b, a] off the diagonal."""
    U = T + np.swapaxes(T, -1, -2)
    idx = np.arange(T.shape[-1])
    U[..., idx, idx] = T[..., idx, idx]
    return U


def build_tree(s: Setting) -> TreePEP:
    """The path-restricted PEP of ``s`` (validated and supported; units L = D0 = 1 or not), exact coefficients."""
    from verify.pep.banded_build import chordal_cliques
    from verify.pep.sdp import build

    pb = build(s, exact=True)
    d = pb.d
    change = _difference_basis(pb, Fraction(repr(float(s.eta))))
    for c in pb.clients:
        c.xs, c.gs = [change(v) for v in c.xs], [change(v) for v in c.gs]
    pb.norms = [(w, change(x)) for w, x in pb.norms]
    perm = np.arange(d)[::-1]  # deepest nodes first (the dense basis is created root first): a perfect order
    F = (lambda v: Fraction(repr(v)) if isinstance(v, float) else Fraction(v))
    L, mu = F(s.L), F(s.mu)
    kappa = 1 / (2 * (1 - mu / L))
    entries: set[Key] = set()
    raw: list[tuple[tuple[int, int, int], np.ndarray, np.ndarray, dict[int, int]]] = []
    coef = None
    nodes: set[tuple[int, ...]] = set()
    for i, c in enumerate(pb.clients):
        X, dx = _ints(c.xs, d, perm)
        G, dg = _ints(c.gs, d, perm)
        # phi = f_k - f_j + <g_k, x_j - x_k> + kappa (||g_j - g_k||^2 / L + mu ||x_j - x_k||^2
        #       - 2 mu / L <g_j - g_k, x_j - x_k>), each term's constant over the common denominator
        consts = [Fraction(1, dg * dx), kappa / (L * dg * dg), kappa * mu / (dx * dx), -2 * kappa * mu / (L * dg * dx)]
        den = math.lcm(*(q.denominator for q in consts))
        cur = [int(q * den) for q in consts]
        if coef is not None and (den, cur) != coef:  # pragma: no cover - every client shares the basis scale
            raise AssertionError("clients with different coefficient scales")
        coef = (den, cur)
        paths = [path for path, _ in pb.keys[i]]
        nodes |= {p for p in paths[1:]}
        raw_i = _client_rows(i, X, G, c.fs, paths, cur)
        raw += raw_i
        for _, cols, _, _ in raw_i:
            a, b = np.triu_indices(len(cols))
            entries |= set(zip(cols[a].tolist(), cols[b].tolist()))
    den, _ = coef  # type: ignore[misc]
    bounds = []
    for name, u, v, rhs in pb.bounds:
        q: dict[Key, Fraction] = {}
        _outer({perm[k]: Fraction(x) for k, x in u.items()}, {perm[k]: Fraction(x) for k, x in v.items()}, 1, q)
        bounds.append((name, q, F(rhs)))
        entries |= set(q)
    objective: dict[Key, Fraction] = {}
    for w, x in pb.norms:
        xp = {perm[k]: Fraction(v) for k, v in x.items()}
        _outer(xp, xp, Fraction(w), objective)
    entries |= set(objective)
    cliques, filled = chordal_cliques(d, sorted(entries))
    keys = sorted(filled)
    col = {k: j for j, k in enumerate(keys)}
    tree = TreePEP(s, d, pb.nf, den, keys, cliques, bounds=bounds, objective=objective, nodes=len(nodes))
    tree.pairs_full = sum(len(c.xs) * (len(c.xs) - 1) for c in pb.clients)
    for ijk, cols, vals, fv in raw:
        a, b = np.triu_indices(len(cols))
        m = vals[a, b] != 0
        tree.rows.append(ijk)
        tree.cols.append(np.array([col[(int(x), int(y))] for x, y in zip(cols[a][m], cols[b][m])], dtype=np.int64))
        tree.vals.append(vals[a, b][m])
        tree.fv.append(fv)
    return tree


def _difference_basis(pb: Any, eta: Fraction) -> Any:
    """The map of a Vec to the basis where each gradient is replaced by its increment over its predecessor on the
    path, divided by eta: g = g_pred + eta h (g_pred: the same client's previous local step, or for a first step
    its first step at the parent node; the root's first steps are kept).

    Why: with a small step the gradients along a path are nearly equal, so in the gradient basis every
    inequality is a small difference of large Gram entries and Clarabel's dual misses the exact recheck's margin
    (measured: R = 4 under 1 of 2 needed trace weight 1e-7); the increments are of the size of their own terms.
    The change is triangular along each path (a vector is a combination of its ancestors' vectors only), so the
    cliques and the perfect elimination order are those of the gradient basis, and PSD-ness is unchanged."""
    index = {key: b for b, key in pb.owner.items()}
    T: dict[int, dict[int, Fraction]] = {}
    for b in sorted(pb.owner):  # created root first: a predecessor is mapped before its successor
        i, path, step = pb.owner[b]
        pred = index.get((i, path, step - 1)) if step > 0 else index.get((i, path[:-1], 0)) if path else None
        T[b] = {b: Fraction(1)} if pred is None else {**T[pred], b: eta}

    def change(v: Any) -> dict[int, Fraction]:
        out: dict[int, Fraction] = {}
        for k, c in v.items():
            for kk, cc in T.get(k, {k: Fraction(1)}).items():
                out[kk] = out.get(kk, 0) + Fraction(c) * cc
        return {k: c for k, c in out.items() if c}

    return change


def _client_rows(i: int, X: np.ndarray, G: np.ndarray, fs: list[int], paths: list[tuple[int, ...]],
                 cur: list[int]) -> list[tuple[tuple[int, int, int], np.ndarray, np.ndarray, dict[int, int]]]:
    """The kept rows of one client, grouped by node pair (one support per group, computed on it in batch)."""
    by_node: dict[tuple[int, ...], list[int]] = {}
    for t in range(1, len(paths)):
        by_node.setdefault(paths[t], []).append(t)
    groups: list[tuple[list[int], list[int]]] = []
    for t in range(1, len(paths)):
        groups.append(([0], [t]))
        groups.append(([t], [0]))
    for a, ta in by_node.items():
        for b, tb in by_node.items():
            if a == b or b[: len(a)] == a or a[: len(b)] == b:  # one path holds both nodes
                groups.append((ta, tb))
    out = []
    for js, ks in groups:
        pts = sorted(set(js) | set(ks))
        cols = np.flatnonzero(np.any(X[pts] != 0, axis=0) | np.any(G[pts] != 0, axis=0))
        Xs, Gs = X[:, cols], G[:, cols]
        J = np.array([j for j in js for k in ks if j != k])
        K = np.array([k for j in js for k in ks if j != k])
        if not len(J):
            continue
        dX, dG = Xs[J] - Xs[K], Gs[J] - Gs[K]
        T = cur[0] * np.einsum("na,nb->nab", Gs[K], dX) + cur[1] * np.einsum("na,nb->nab", dG, dG)
        if cur[2]:
            T += cur[2] * np.einsum("na,nb->nab", dX, dX) + cur[3] * np.einsum("na,nb->nab", dG, dX)
        U = _sym(T)
        for n, (j, k) in enumerate(zip(J.tolist(), K.tolist())):
            fv = {}
            if fs[k] >= 0:
                fv[fs[k]] = 1
            if fs[j] >= 0:
                fv[fs[j]] = -1
            out.append(((i, j, k), cols, U[n], fv))
    return out


def _outer(u: dict[int, Fraction], v: dict[int, Fraction], coef: Fraction | int, out: dict[Key, Fraction]) -> None:
    """out += coef <u, G v> as coefficients of the upper-triangle entries."""
    for a, ca in u.items():
        for b, cb in v.items():
            k = (a, b) if a <= b else (b, a)
            out[k] = out.get(k, 0) + coef * ca * cb


@dataclass
class TreeSolved:
    """Clarabel's answer: ``value`` (objective + delta trace), ``primal`` (objective at its point), multipliers."""

    status: str
    value: float | None
    primal: float | None
    lam: np.ndarray | None
    beta: np.ndarray | None
    seconds: float
    delta: float


def solve_tree_sdp(t: TreePEP, delta: float = DELTA) -> TreeSolved:
    """Maximise <C, G> + delta tr(G) over the kept inequalities, each clique block PSD (Clarabel, directly)."""
    import clarabel
    import scipy.sparse as sp

    from verify.pep.psd import clarabel_min, clique_cones

    t0 = time.perf_counter()
    col = {k: j for j, k in enumerate(t.keys)}
    ng, nrows = len(t.keys), len(t.rows)
    nv = ng + t.nf
    lens = np.array([len(c) for c in t.cols])
    ri = [np.repeat(np.arange(nrows), lens)]
    ci = [np.concatenate(t.cols)] if nrows else [np.zeros(0, dtype=np.int64)]
    vals = [np.concatenate(t.vals).astype(float) / t.den] if nrows else [np.zeros(0)]
    fr = [(r, ng + f, float(c)) for r, fv in enumerate(t.fv) for f, c in fv.items()]
    ri.append(np.array([r for r, _, _ in fr], dtype=np.int64))
    ci.append(np.array([c for _, c, _ in fr], dtype=np.int64))
    vals.append(np.array([v for _, _, v in fr]))
    b = [0.0] * nrows
    rl, cl, vl = [], [], []
    row = nrows
    for _, q, rhs in t.bounds:
        for k, c in q.items():
            rl.append(row)
            cl.append(col[k])
            vl.append(float(c))
        b.append(float(rhs))
        row += 1
    nlin = row
    row, cones = clique_cones(t.cliques, col, row, rl, cl, vl, b)
    ri.append(np.array(rl, dtype=np.int64))
    ci.append(np.array(cl, dtype=np.int64))
    vals.append(np.array(vl))
    A = sp.csc_matrix((np.concatenate(vals), (np.concatenate(ri), np.concatenate(ci))), shape=(row, nv))
    qvec = np.zeros(nv)
    for key, c in t.objective.items():
        qvec[col[key]] -= float(c)
    for a in range(t.d):
        qvec[col[(a, a)]] -= delta
    sol = clarabel_min(qvec, A, b, [clarabel.NonnegativeConeT(nlin), *cones], TOL)
    status = str(sol.status)
    if "Solved" not in status:
        return TreeSolved(status, None, None, None, None, time.perf_counter() - t0, delta)
    xv, z = np.asarray(sol.x), np.asarray(sol.z)
    primal = float(sum(float(c) * xv[col[k]] for k, c in t.objective.items()))
    return TreeSolved("optimal" if status == "Solved" else "optimal_inaccurate", float(-sol.obj_val), primal,
                      z[:nrows], z[nrows:nlin], time.perf_counter() - t0, delta)


def recheck_tree(t: TreePEP, sol: TreeSolved) -> dict[str, Any]:
    """Round the multipliers, restore the value balance exactly, form S in integers, prove it PSD (module doc)."""
    from verify.pep.psd import float_above, prove_psd

    t0 = time.perf_counter()
    out: dict[str, Any] = {"ok": False, "bound": None}
    if sol.lam is None or sol.beta is None:
        return {**out, "reason": "the solver returned no multipliers"}
    most_negative = float(min(np.min(sol.lam), np.min(sol.beta)))
    lam = [round(max(float(v), 0.0) * GRID) for v in sol.lam]  # integers over GRID
    # (1) value balance: every value's net coefficient must be 0 (the objective has none): raise a pair with x*
    net: dict[int, int] = {}
    down: dict[int, int] = {}  # f_t -> row of pair (t, x*), where f_t has coefficient -1
    up: dict[int, int] = {}  # f_t -> row of pair (x*, t), where it has +1
    for r, ((_, j, k), fv) in enumerate(zip(t.rows, t.fv)):
        for f, cf in fv.items():
            net[f] = net.get(f, 0) + cf * lam[r]
        if k == 0:
            down[next(iter(fv))] = r
        if j == 0:
            up[next(iter(fv))] = r
    fix = 0
    for f, v in net.items():
        if v > 0:
            lam[down[f]] += v
        elif v < 0:
            lam[up[f]] -= v
        fix = max(fix, abs(v))
    # (2) S over the common denominator DEN = D * GRID (D: the rows', the bounds' and the objective's)
    D = math.lcm(t.den, *(c.denominator for _, q, _ in t.bounds for c in q.values()),
                 *(c.denominator for c in t.objective.values()))
    acc = np.zeros(len(t.keys), dtype=object)
    acc[:] = 0
    scale = D // t.den
    for r, li in enumerate(lam):
        if li:
            acc[t.cols[r]] += (li * scale) * t.vals[r].astype(object)
    col = {k: j for j, k in enumerate(t.keys)}
    tau = Fraction(0)
    for (_, q, rhs), bv in zip(t.bounds, sol.beta):
        bi = round(max(float(bv), 0.0) * GRID)
        tau += Fraction(bi, GRID) * rhs
        for key, c in q.items():
            acc[col[key]] += bi * (c.numerator * (D // c.denominator))
    for key, c in t.objective.items():
        acc[col[key]] -= c.numerator * (D // c.denominator) * GRID
    S = {key: int(v) for key, v in zip(t.keys, acc) if v}
    out.update(balance_fix=fix / GRID, negative_multipliers=most_negative)
    ok, info = prove_psd(S, D * GRID, t.d, t.keys, sol.delta)  # exact, in integers (verify.pep.psd)
    out.update(info, seconds=time.perf_counter() - t0)
    if not ok:
        return out
    bound = float_above(tau)
    return {**out, "ok": True, "bound": bound, "tau": tau}


def solve_tree(s: Setting, recheck: bool = True, max_seconds: float = MAX_SECONDS) -> dict[str, Any]:
    """The tree PEP of ``s`` solved and rechecked (the trace weight raised until the recheck passes), as a dict:
    ``bound`` (proved upper bound, or None), ``value`` and ``primal`` (the solver's), ``certificate``, ``size``,
    ``seconds`` (build, solve, recheck), ``notes``. Refused up front, with the estimate, when the estimated CPU
    time exceeds ``max_seconds`` or the memory half the machine's."""
    from verify.pep.core import normalise
    from verify.pep.size import _machine_gb

    validate(s)
    why = supports(s)
    if why is not None:
        raise UserInputError(f"{why}; got method={s.method}, participation={s.to_dict()['participation']}, "
                             f"sigma={s.sigma}, mu={s.mu}, L={s.L}, measure={s.measure}")
    d, sec, gb = tree_estimate(s)
    if sec > max_seconds or gb > _machine_gb() / 2:
        raise UserInputError(f"this tree PEP is too large: {d:.3g} Gram rows, estimated {sec:.3g} s of CPU and "
                             f"{gb:.3g} GB (fitted to the measured R = 3..5 record), over {max_seconds:g} s or "
                             f"{_machine_gb() / 2:.3g} GB; fewer rounds or local steps would fit")
    unit, factor = normalise(s)
    t0 = time.perf_counter()
    t = build_tree(unit)
    build_s = time.perf_counter() - t0
    sol = solve_tree_sdp(t)
    rc: dict[str, Any] = recheck_tree(t, sol) if recheck else {"ok": False, "reason": "not requested"}
    notes = []
    for delta in RETRY_DELTAS:
        if not recheck or sol.value is None or rc.get("ok"):
            break
        notes.append(f"trace weight {sol.delta:g} missed the exact recheck ({rc.get('reason')}); solved again with "
                     f"{delta:g}")
        sol = solve_tree_sdp(t, delta)
        rc = recheck_tree(t, sol)
    bound = rc.get("bound") if rc.get("ok") else None
    scale = (lambda v: None if v is None else v * factor)
    up = (lambda v: None if v is None else math.nextafter(v * factor, math.inf) if factor != 1.0 else v)
    return {"bound": up(bound), "value": scale(sol.value), "primal": scale(sol.primal), "solver_status": sol.status,
            "certificate": {"status": "certified" if bound is not None else "failed" if sol.value is None
                            else "approximate", "trace_weight": sol.delta,
                            **{k: rc[k] for k in ("reason", "t", "frobenius_residual", "balance_fix",
                                                  "negative_multipliers", "min_eig_float", "seconds") if k in rc}},
            "size": t.size(), "seconds": {"build": round(build_s, 3), "solve": round(sol.seconds, 3),
                                          "total": round(time.perf_counter() - t0, 3)},
            "notes": notes}
