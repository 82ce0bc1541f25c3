"""The rows of the non-convex PEP (verify.pep.nonconvex): iterates, evaluation points, constraints, measure.

**Algorithm**: the participation tree of verify.pep.sdp: a node is a global model x (its parent's plus the
round's server move); at every node every client is evaluated (grad F(x) for the measure, the dissimilarity and
the F_inf condition), each client runs its K local steps from it, and one child per pattern aggregates the
participants' moves. Points are kept relative to their node, so a difference of two points of adjacent rounds
is a short combination of that round's gradients: with a window, every row touches one or two rounds' vectors
(a band), which is what the chordal route of verify.pep.nonconvex_solve needs.
Rows of equal shape (the same coefficients on basis vectors shifted by a constant) are computed once in
rational arithmetic and shifted (exact either way; this saves the Fraction arithmetic at long horizons).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from verify.pep.banded_build import Key, _lin, _quad
from verify.pep.nonconvex import NCProblem, NCSetting, Point, Vec, frac

ONE = Fraction(1)


class Builder:
    """Builds an :class:`~verify.pep.nonconvex.NCProblem` (one use: ``Builder(s, window).run()``)."""

    def __init__(self, s: NCSetting, window: int | None) -> None:
        self.s = s
        self.window = window
        self.pb = NCProblem(s, window)
        self.L, self.eta, self.eta_g = frac(s.L), frac(s.eta), frac(s.eta_g)
        self.points: list[list[Point]] = [[] for _ in range(s.M)]
        self.nodes: list[tuple[int, Vec, int]] = [(-1, {}, 0)]  # (parent, move from the parent, depth)
        self.node_prob: list[Fraction] = [ONE]
        self.node_grads: list[list[Vec]] = []  # per node: the M clients' gradients at x_node
        self.node_vals: list[list[int]] = []  # per node: the M value indices at x_node
        self.memo: dict[Any, dict[Key, Fraction]] = {}

    # points and differences
    def diff_nodes(self, a: int, b: int) -> Vec:
        """x_a - x_b (walks both up to their common ancestor)."""
        up_a: list[Vec] = []
        up_b: list[Vec] = []
        while a != b:
            if self.nodes[a][2] >= self.nodes[b][2]:
                up_a.append(self.nodes[a][1])
                a = self.nodes[a][0]
            else:
                up_b.append(self.nodes[b][1])
                b = self.nodes[b][0]
        return _lin(*((ONE, v) for v in up_a), *((-ONE, v) for v in up_b))

    def evaluate(self, i: int, node: int, rel: Vec, prev: list[int], gauge: bool = False) -> int:
        """Client i's gradient at x_node + rel (a new basis vector); returns the point's index."""
        g = self.pb.vec()
        f = -1 if gauge else self.pb.scalar()
        self.points[i].append(Point(node, rel, g, f, prev))
        return len(self.points[i]) - 1

    def site(self, node: int, rel: Vec, prevs: list[list[int]], gauge: bool = False) -> list[int]:
        """Every client evaluated at one point; the dissimilarity and F_inf rows there."""
        s, pb = self.s, self.pb
        idx = [self.evaluate(i, node, rel, prevs[i], gauge) for i in range(s.M)]
        grads = [self.points[i][p].g for i, p in enumerate(idx)]
        mean = _lin(*((frac(Fraction(1, s.M)), g) for g in grads))
        if s.M > 1:
            for i, g in enumerate(grads):
                q: dict[Key, Fraction] = {}
                dv = _lin((ONE, g), (-ONE, mean))
                _quad(dv, dv, ONE, q)
                pb.add(f"dissimilarity of client {i}", q, {}, frac(s.zeta) ** 2)
        if s.initial == "F_inf":
            q = {}
            _quad(mean, mean, 1 / (2 * self.L), q)
            scal = {self.points[i][p].f: -Fraction(1, s.M) for i, p in enumerate(idx) if self.points[i][p].f >= 0}
            scal[pb.finf] = ONE
            pb.add("F >= F_inf", q, scal, Fraction(0))
        return idx

    # the method
    def run(self) -> NCProblem:
        s, pb = self.s, self.pb
        if s.initial == "F_inf":
            pb.finf = pb.scalar()
            init = pb.add("initial gap F(x0) - F_inf", {}, {pb.finf: -ONE}, frac(s.Delta))
            pb.solve_for.append((pb.finf, [init]))
        frontier: list[tuple[int, list[Vec], Vec]] = [(0, [{} for _ in range(s.M)], {})]  # (node, control variates, their mean)
        root = self.site(0, {}, [[] for _ in range(s.M)], gauge=True)
        self.node_grads.append([self.points[i][p].g for i, p in enumerate(root)])
        self.node_vals.append([self.points[i][p].f for i, p in enumerate(root)])
        here = {0: root}
        pats = s.patterns()
        for _ in range(s.R):
            nxt = []
            for node, cs, cbar in frontier:
                moves, ends, new_c = self.local_steps(node, here[node], cs, cbar)
                for p, ids in pats:
                    step = _lin(*((self.eta_g * frac(Fraction(1, len(ids))), moves[i]) for i in ids)) if ids else {}
                    child = len(self.nodes)
                    self.nodes.append((node, step, self.nodes[node][2] + 1))
                    self.node_prob.append(self.node_prob[node] * p)
                    here[child] = self.site(child, {}, ends)
                    self.node_grads.append([self.points[i][q].g for i, q in enumerate(here[child])])
                    self.node_vals.append([self.points[i][q].f for i, q in enumerate(here[child])])
                    if s.method == "scaffold":
                        c2 = [new_c[i] if i in ids else c for i, c in enumerate(cs)]
                        nxt.append((child, c2, _lin(*((frac(Fraction(1, s.M)), c) for c in c2))))
                    else:
                        nxt.append((child, cs, cbar))
            frontier = nxt
        self.interpolation()
        self.measure([n for n, _, _ in frontier])
        pb.points, pb.nodes = self.points, self.nodes
        return pb

    def local_steps(self, node: int, at_node: list[int], cs: list[Vec], cbar: Vec) -> tuple[list[Vec], list[list[int]],
                                                                                             list[Vec]]:
        """Every client's K steps from x_node: (moves, per client its chain ends, new control variates)."""
        s, pb = self.s, self.pb
        moves, new_c = [], []
        ends: list[list[int]] = [[] for _ in range(s.M)]
        for i in range(s.M):
            y: Vec = {}
            last = list(at_node)  # per client j, its previous point on client i's trajectory
            g = self.points[i][at_node[i]].g
            gsum: Vec = {}
            for k in range(s.K):
                if k:
                    if s.hetero == "evaluated":
                        last = self.site(node, y, [[p] for p in last])
                    else:
                        last[i] = self.evaluate(i, node, y, [last[i]])
                    g = self.points[i][last[i]].g
                pb.gradients += 1
                gsum = _lin((ONE, gsum), (ONE, g))
                used = g
                if s.sigma > 0:
                    xi = pb.vec()
                    n = next(iter(xi))
                    pb.noise.append(n)
                    for b in range(n):
                        pb.add("noise orthogonal to the past", {(b, n): ONE}, {}, Fraction(0), eq=True)
                    pb.add("noise variance", {(n, n): ONE}, {}, frac(s.sigma) ** 2)
                    used = _lin((ONE, g), (ONE, xi))
                if s.method == "scaffold":
                    used = _lin((ONE, used), (-ONE, cs[i]), (ONE, cbar))
                y = _lin((ONE, y), (-self.eta, used))
            moves.append(y)
            new_c.append(_lin((frac(Fraction(1, s.K)), gsum)))
            for j in range(s.M):
                if s.hetero == "evaluated" or j == i:
                    ends[j].append(last[j])
        return moves, ends, new_c

    def pairs(self, pts: list[Any]) -> list[tuple[int, int]]:
        """Ordered pairs kept: all of them, or each point with its chain ancestors at most ``window`` links back."""
        n = len(pts)
        if self.window is None:
            return [(p, q) for p in range(n) for q in range(n) if p != q]
        out: set[tuple[int, int]] = set()
        for p in range(n):
            seen: set[int] = set()
            layer = {p}
            for _ in range(self.window):
                layer = {a for b in layer for a in pts[b].prev} - seen
                seen |= layer
            for a in seen:
                out.add((p, a))
                out.add((a, p))
        return sorted(out)

    def interpolation(self) -> None:
        """Taylor-Hendrickx-Glineur's smooth (non-convex) interpolation for the kept pairs of every client."""
        pb = self.pb
        dcache: dict[tuple[int, int], Vec] = {}
        for i, pts in enumerate(self.points):
            kept = self.pairs(pts)
            pb.pairs_kept += len(kept)
            pb.pairs_full += len(pts) * (len(pts) - 1)
            where: dict[tuple[int, int], int] = {}
            for p, q in kept:
                a, b = pts[p], pts[q]
                if (a.node, b.node) not in dcache:
                    dcache[(a.node, b.node)] = self.diff_nodes(a.node, b.node)
                dx = _lin((ONE, dcache[(a.node, b.node)]), (ONE, a.rel), (-ONE, b.rel))
                q_ = self.shape(dx, a.g, b.g)
                scal = {}
                if a.f >= 0:
                    scal[a.f] = -ONE
                if b.f >= 0:
                    scal[b.f] = ONE
                where[(p, q)] = pb.add(f"smooth interpolation, client {i}", q_, scal, Fraction(0))
            for p, a in enumerate(pts):
                if a.f >= 0:
                    prev = a.prev[0]
                    pb.chain[a.f] = (where[(prev, p)], where[(p, prev)])

    def shape(self, dx: Vec, gp: Vec, gq: Vec) -> dict[Key, Fraction]:
        """Gram coefficients of -L/4 ||dx||^2 + 1/2 <gp + gq, dx> + 1/(4L) ||gp - gq||^2, memoised by shape."""
        m = min(min(v) for v in (dx, gp, gq) if v)
        key = tuple(tuple(sorted((k - m, c) for k, c in v.items())) for v in (dx, gp, gq))
        base = self.memo.get(key)
        if base is None:
            rel = [{k - m: c for k, c in v.items()} for v in (dx, gp, gq)]
            q: dict[Key, Fraction] = {}
            _quad(rel[0], rel[0], -self.L / 4, q)
            _quad(_lin((ONE, rel[1]), (ONE, rel[2])), rel[0], Fraction(1, 2), q)
            dg = _lin((ONE, rel[1]), (-ONE, rel[2]))
            _quad(dg, dg, 1 / (4 * self.L), q)
            base = self.memo[key] = {k: c for k, c in q.items() if c}
        return {(a + m, b + m): c for (a, b), c in base.items()} if m else dict(base)

    def measure(self, leaves: list[int]) -> None:
        """The objective (module doc of verify.pep.nonconvex) and, for F_R, the initial condition per branch."""
        s, pb = self.s, self.pb
        inv_m = Fraction(1, s.M)

        def grad_sq(n: int, coef: Fraction, out: dict[Key, Fraction]) -> None:
            mean = _lin(*((inv_m, g) for g in self.node_grads[n]))
            _quad(mean, mean, coef, out)

        if s.measure in ("avg_grad_sq", "avg_grad_sq0"):
            lo, hi = (1, s.R) if s.measure == "avg_grad_sq" else (0, s.R - 1)
            for n, (_, _, depth) in enumerate(self.nodes):
                if lo <= depth <= hi:
                    grad_sq(n, self.node_prob[n] / s.R, pb.obj_gram)
        for leaf in leaves:
            prob = self.node_prob[leaf]
            if s.initial == "F_R":
                pb.add("initial gap F(x0) - F(x_R)", {}, {f: -inv_m for f in self.node_vals[leaf]}, frac(s.Delta))
            if s.measure == "gap":
                for f in self.node_vals[leaf]:
                    pb.obj_scal[f] = pb.obj_scal.get(f, 0) + prob * inv_m
                pb.obj_scal[pb.finf] = pb.obj_scal.get(pb.finf, 0) - prob
            if s.measure == "min_grad_sq":
                t = pb.scalar()
                pb.obj_scal[t] = prob
                rows, n = [], leaf
                while n >= 0:
                    q: dict[Key, Fraction] = {}
                    grad_sq(n, -ONE, q)
                    rows.append(pb.add("min epigraph t <= ||grad F(x_r)||^2", q, {t: ONE}, Fraction(0)))
                    n = self.nodes[n][0]
                pb.solve_for.append((t, rows))


def build_nc(s: NCSetting, window: int | None = None) -> NCProblem:
    """The PEP of ``s`` with exact coefficients; ``window``: keep the interpolation pairs at most this many
    steps apart along each client's chain of points (None: every pair, the full PEP)."""
    return Builder(s, window).run()
