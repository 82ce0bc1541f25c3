"""The performance-estimation SDP of a :class:`~verify.pep.setting.Setting`, written directly in cvxpy.

Why not PEPit here: PEPit builds one Python expression object per interpolation inequality and has no
notion of an expectation over participation patterns or of noise; the direct form below states each
client's interpolation inequalities as one matrix inequality, so cvxpy compiles it in one piece
(measured in tests/benchmarks/bench_pep.py), and the multipliers come back as matrices for the exact
recheck in :mod:`verify.pep.exact`. PEPit stays as an independent cross-check (tests/verify/test_pep.py).

**Coordinates**: x* = 0. The Gram basis holds e0 = x_0 - x*, s_i = grad f_i(x*) for i < M (s_M = -sum
of the others, since grad F(x*) = 0; none when zeta = 0), one vector per gradient evaluation and one
per noise draw. Every iterate is a linear combination of the basis (a :class:`Vec`), every function
value f_i(y) - f_i(x*) a scalar variable; G (Gram matrix, PSD) and F (values) are the unknowns.
**Interpolation** (Taylor, Hendrickx & Glineur 2017): for each client, all pairs of its points
(including (x*, s_i, 0)) satisfy f_j >= f_k + <g_k, x_j - x_k> + kappa (||g_j - g_k||^2 / L
+ mu ||x_j - x_k||^2 - 2 (mu/L) <g_j - g_k, x_j - x_k>), kappa = 1 / (2 (1 - mu/L)): necessary and
sufficient, so the SDP value is the exact worst case. mu = L (the class is the quadratics L/2||x - a||^2):
the gradient is L (y - x*) + s_i exactly, so no gradient vector and no inequality is needed.
**Participation**: the rounds form a tree, one branch per pattern; the same functions serve every
branch (the adversary does not see the coins), and the objective is the probability-weighted sum of the
branches' measures: the worst case of the expectation, exact for the finite law.
**Noise** (an upper bound, exact for a single noisy step): xi is a basis vector with G[xi, xi] <=
sigma^2 and G[xi, v] = 0 for every basis vector v created before it. G is then the expectation of the
Gram matrix over the noise; every realisation satisfies the interpolation inequalities, hence so does
the expectation: every noise law with E[xi | past] = 0 and E||xi||^2 <= sigma^2, drawn independently
across clients (and, for the branches of a random law, across branches: a coupling that does not change
any branch's own law), gives a feasible G.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from verify.pep.gram import Client, Problem, Solved, Vec, dense, objective_matrix, vec_sum
from verify.pep.setting import Setting, swap_mirror

__all__ = ["Client", "Problem", "Solved", "Vec", "build", "dense", "interp_expression", "objective_matrix",
           "solve_sdp", "swap_basis"]

def build(s: Setting, *, exact: bool = False, relaxed: bool = False) -> Problem:
    """The PEP of ``s`` (validated beforehand): coefficients as Fractions when ``exact`` (for the recheck);
    ``relaxed``: the participation law by its moments (see :func:`_relaxed_rounds`), size linear in R."""
    pb = Problem(s, exact)
    if s.mu != s.L:
        pb.kappa = 1 / (2 * (1 - pb.num(s.mu) / pb.num(s.L)))
    e0 = pb.new_vec()
    pb.bounds.append(("initial distance", e0, e0, pb.num(s.D0)))
    oracle = _Oracle(pb, _heterogeneity(pb, s))
    pb.clients = [Client([Vec()], [oracle.s_vecs[i]], [-1]) for i in range(s.M)]
    pb.keys = [[((), -1)] for _ in range(s.M)]
    if relaxed:
        return _relaxed_rounds(pb, s, e0, oracle.grad, oracle.noise)
    _measure(pb, s, _tree_rounds(pb, s, e0, oracle), oracle)
    return pb


def _heterogeneity(pb: Problem, s: Setting) -> list[Vec]:
    """s_i = grad f_i(x*): M - 1 basis vectors and s_M = -(their sum), each ||s_i||^2 <= zeta^2 (zeros when
    zeta = 0)."""
    M = s.M
    if not s.zeta > 0:
        return [Vec() for _ in range(M)]
    s_vecs = [pb.new_vec() for _ in range(M - 1)]
    pb.odd = [1] if M == 2 else []  # s_2 = -s_1: the swap maps s_1 to -s_1
    s_vecs.append(Vec().__sub__(vec_sum(s_vecs)) if M > 1 else Vec())
    for i, v in enumerate(s_vecs):
        pb.bounds.append((f"heterogeneity of client {i}", v, v, pb.num(s.zeta) ** 2))
    return s_vecs


class _Oracle:
    """The clients' gradients and noise draws, each a new basis vector with its interpolation point recorded
    (for quadratics, mu = L: the gradient L y + s_i itself, no vector)."""

    def __init__(self, pb: Problem, s_vecs: list[Vec]) -> None:
        self.pb, self.s_vecs = pb, s_vecs
        self.quadratic = pb.setting.mu == pb.setting.L
        self.L = pb.num(pb.setting.L)

    def grad(self, i: int, y: Vec, path: tuple[int, ...] = (), step: int = 0) -> Vec:
        pb = self.pb
        pb.gradients += 1
        if self.quadratic:
            return y.scale(self.L) + self.s_vecs[i]
        g = pb.new_vec()
        c = pb.clients[i]
        pb.owner[pb.d - 1] = (i, path, step)
        pb.keys[i].append((path, step))
        c.xs.append(y)
        c.gs.append(g)
        c.fs.append(pb.nf)
        pb.nf += 1
        return g

    def noise(self) -> Vec:
        pb = self.pb
        before = pb.d
        xi = pb.new_vec()
        pb.zero_after.append((before, before))
        pb.bounds.append(("noise variance", xi, xi, pb.num(pb.setting.sigma) ** 2))
        return xi


Node = tuple[Fraction, Vec, list[Vec], Vec, tuple[int, ...]]  # (probability, x, control variates c_i, mean, path)


def _tree_rounds(pb: Problem, s: Setting, e0: Vec, oracle: _Oracle) -> list[Node]:
    """The rounds as a tree, one branch per participation pattern; returns the leaves."""
    num = pb.num
    nodes: list[Node] = [(Fraction(1), e0, [Vec() for _ in range(s.M)], Vec(), ())]
    for r in range(s.R):
        patterns = s.round_patterns(r)
        used = sorted({i for _, ids in patterns for i in ids})
        children: list[Node] = []
        for prob, x, cs, cbar, path in nodes:
            moves, new_c = _local_steps(pb, s, oracle, used, (x, cs, cbar, path))
            for j, (p, ids) in enumerate(patterns):
                if not ids:
                    children.append((prob * p, x, cs, cbar, path + (j,)))
                    continue
                step = vec_sum([moves[i] for i in ids]).scale(num(s.eta_g) * num(Fraction(1, len(ids))))
                if s.method == "scaffold":
                    c2 = [new_c[i] if i in ids else ci for i, ci in enumerate(cs)]
                    children.append((prob * p, x + step, c2, vec_sum(c2).scale(num(Fraction(1, s.M))), path + (j,)))
                else:
                    children.append((prob * p, x + step, cs, cbar, path + (j,)))
        nodes = children
    return nodes


def _local_steps(pb: Problem, s: Setting, oracle: _Oracle, used: list[int],
                 at: tuple[Vec, list[Vec], Vec, tuple[int, ...]]) -> tuple[dict[int, Vec], dict[int, Vec]]:
    """Each used client's K local steps from the node's x: its move and its new control variate."""
    x, cs, cbar, path = at
    eta = pb.num(s.eta)
    moves, new_c = {}, {}
    for i in used:
        y, gsum = x, Vec()
        for k in range(s.K):
            g = oracle.grad(i, y, path, k)
            if s.sigma > 0:
                g = g + oracle.noise()
            gsum = gsum + g
            y = y - (g - cs[i] + cbar if s.method == "scaffold" else g).scale(eta)
        moves[i] = y - x
        new_c[i] = gsum.scale(pb.num(Fraction(1, s.K)))
    return moves, new_c


def _measure(pb: Problem, s: Setting, nodes: list[Node], oracle: _Oracle) -> None:
    """The objective: the probability-weighted measure of every leaf."""
    for prob, x, _, _, path in nodes:
        w = pb.num(prob)
        if s.measure == "dist_sq":
            pb.norms.append((w, x))
        elif oracle.quadratic:
            # F(x) - F* = L/2 ||x||^2 exactly (the s_i average to zero)
            pb.norms.append((w * oracle.L / 2, x))
        else:
            for i in range(s.M):
                pb.gradients -= 1  # evaluations for the measure only, not the method
                oracle.grad(i, x, path, -2)
                pb.values[pb.nf - 1] = pb.values.get(pb.nf - 1, 0) + w * pb.num(Fraction(1, s.M))


def _relaxed_rounds(pb: Problem, s: Setting, e0: Vec, grad: Any, noise: Any) -> Problem:
    """Random participation by its first two moments: an upper bound whose size is linear in R.

    Every client runs its K local steps from the state x_r each round (a non-participant's steps are
    discarded, which changes nothing), moves m_i; the next state is a new basis vector x' whose expected
    Gram entries are fixed by the law's moments, as the weights w_i (1/|S| for i in S, else 0) are drawn
    independently of everything before: E<x', v> = <x + eta_g sum E[w_i] m_i, v> for every earlier v, and
    E||x'||^2 = ||x||^2 + 2 eta_g sum E[w_i] <x, m_i> + eta_g^2 sum E[w_i w_j] <m_i, m_j>. G is then the
    expected Gram matrix; every realisation satisfies the interpolation inequalities, so every run of the
    method is feasible and the value bounds the worst case of the expectation from above. Exact for R = 1
    (nothing random is evaluated after the draw). Methods whose state is x alone (local GD, FAST).
    """
    num = pb.num
    M, eta, eta_g = s.M, num(s.eta), num(s.eta_g)
    pats = s.round_patterns(0)
    Ew = [sum((num(p) * num(Fraction(1, len(ids))) for p, ids in pats if i in ids), num(0)) for i in range(M)]
    Eww = [[sum((num(p) * num(Fraction(1, len(ids) ** 2)) for p, ids in pats if i in ids and j in ids), num(0))
            for j in range(M)] for i in range(M)]
    x = e0
    for r in range(s.R):
        moves = []
        for i in range(M):
            y = x
            for k in range(s.K):
                g = grad(i, y, (), r * s.K + k)
                if s.sigma > 0:
                    g = g + noise()
                y = y - g.scale(eta)
            moves.append(y - x)
        n = pb.d
        u = pb.new_vec()
        xbar = x + vec_sum([m.scale(eta_g * Ew[i]) for i, m in enumerate(moves)])
        terms = [(num(1), x, x)] + [(2 * eta_g * Ew[i], x, m) for i, m in enumerate(moves)] + \
            [(eta_g * eta_g * Eww[i][j], moves[i], moves[j]) for i in range(M) for j in range(M) if Eww[i][j]]
        pb.moments.append((n, xbar, terms))
        x = u
    if s.measure == "dist_sq":
        pb.norms.append((num(1), x))
    else:
        for i in range(M):
            pb.gradients -= 1
            grad(i, x, (), -2)
            pb.values[pb.nf - 1] = num(Fraction(1, M))
    return pb


def swap_basis(pb: Problem) -> tuple[np.ndarray, np.ndarray, list[list[int]]] | None:
    """(Q+, Q-, where): columns spanning the +1 and -1 eigenspaces of the exchange of two clients, and for
    client 1 the position of the mirror of each of client 0's points; None when the problem is not invariant
    (not two clients, noise, or a law that treats the clients differently)."""
    if pb.setting.M != 2 or pb.zero_after or pb.moments:
        return None
    mirror = swap_mirror(pb.setting)
    if mirror is None:
        return None
    flip = (lambda path: tuple(mirror[j] for j in path))
    index = {key: idx for idx, key in pb.owner.items()}
    plus, minus = [], []
    eye = np.eye(pb.d)
    mine = set(pb.owner) | set(pb.odd)
    plus += [eye[k] for k in range(pb.d) if k not in mine]
    minus += [eye[k] for k in pb.odd]
    for (i, path, step), a in sorted(index.items(), key=lambda kv: kv[1]):
        if i != 0:
            continue
        b = index.get((1, flip(path), step))
        if b is None:
            return None
        plus.append(eye[a] + eye[b])
        minus.append(eye[a] - eye[b])
    if len(plus) + len(minus) != pb.d:
        return None
    pos1 = {key: j for j, key in enumerate(pb.keys[1])}
    where = [pos1[(flip(path), step)] for path, step in pb.keys[0]]
    qm = np.array(minus).T if minus else np.zeros((pb.d, 0))  # no minus space: nobody ever computes (p = 0)
    return np.array(plus).T, qm, [where]


def solve_sdp(pb: Problem, solver: str = "CLARABEL", delta: float = 1e-8, tol: float = 1e-8,
              symmetric: bool = False) -> Solved:
    """Solve the PEP, maximising objective + delta * trace(G).

    The small ``delta`` makes the dual residual matrix S positive definite (S >= delta I at the optimum),
    so that rounding the multipliers to rationals keeps it PSD and the exact recheck can succeed; the
    returned ``primal`` is the original objective at the solution (a value attained up to solver accuracy)
    and the dual value bounds the original objective from above (the perturbation only adds delta tr(G)).
    """
    import cvxpy as cp

    nf = max(pb.nf, 1)
    F = cp.Variable(nf)
    gram = _Gram.make(cp, pb, symmetric)
    C = objective_matrix(pb)
    fobj = np.zeros(nf)
    for k, w in pb.values.items():
        fobj[k] = float(w)
    interp = _interp_constraints(cp, pb, gram, F)
    bound_cons = [dense([u], pb.d)[0] @ gram.G @ dense([v], pb.d)[0] <= float(rhs) for _, u, v, rhs in pb.bounds]
    cons: list[Any] = [c for c in interp if c is not None] + bound_cons
    cons += [gram.G[idx, :n] == 0 for idx, n in pb.zero_after if n]
    moment_cons = _moment_constraints(pb, gram.G)
    cons += [c for pair in moment_cons for c in pair]
    obj, psd = gram.objective(cp, pb, C, fobj, F, delta, cons)
    prob = cp.Problem(obj, cons)
    said, failed = _run(cp, prob, solver, tol)
    if failed is not None:
        return Solved(failed, None, None, None, None, [], [], None, delta, solver.upper())
    status = str(prob.status)
    if gram.G.value is None or prob.value is None or status not in ("optimal", "optimal_inaccurate"):
        return Solved(status, None, None, None, None, [], [], None, delta, solver.upper(), said)
    Gv = gram.value()
    Fv = np.asarray(F.value) if F.value is not None else np.zeros(nf)
    primal = float(np.sum(C * Gv) + fobj @ Fv)
    duals, bduals, Sdual = _certificate(gram, interp, bound_cons, psd, delta, pb.d)
    mduals = [(np.asarray(row.dual_value, dtype=float).reshape(-1), float(np.asarray(diag.dual_value).reshape(-1)[0]))
              for row, diag in moment_cons]
    return Solved(status, float(prob.value), primal, Gv, Fv, duals, bduals, Sdual, delta, solver.upper(), said,
                  mduals)


@dataclass
class _Gram:
    """The Gram matrix as the SDP sees it: one PSD variable, or two blocks under the swap of two clients.

    Agent symmetry (Colla & Hendrickx, arXiv 2403.11724): swapping the two clients maps the PEP to itself, so
    an optimal (G, F) may be taken invariant: G = Q+ G+ Q+^T + Q- G- Q-^T with two PSD blocks of about half the
    size, F equal across clients, and client 1's inequalities implied by client 0's.
    """

    G: Any
    swap: tuple[np.ndarray, np.ndarray, list[list[int]]] | None = None
    Gp: Any = None
    Gm: Any = None

    @classmethod
    def make(cls, cp: Any, pb: Problem, symmetric: bool) -> _Gram:
        swap = swap_basis(pb) if symmetric else None
        if swap is None:
            return cls(cp.Variable((pb.d, pb.d), symmetric=True))
        Qp, Qm, _ = swap
        Gp = cp.Variable((Qp.shape[1], Qp.shape[1]), symmetric=True)
        Gm = cp.Variable((Qm.shape[1], Qm.shape[1]), symmetric=True)
        return cls(Qp @ Gp @ Qp.T + (Qm @ Gm @ Qm.T if Qm.shape[1] else 0), swap, Gp, Gm)

    def objective(self, cp: Any, pb: Problem, C: np.ndarray, fobj: np.ndarray, F: Any, delta: float,
                  cons: list[Any]) -> tuple[Any, Any]:
        """The perturbed objective; appends the PSD constraints (and the swap's ties of F) to ``cons``;
        returns it with the full G's PSD constraint (None under the swap)."""
        if self.swap is None:
            psd = self.G >> 0
            cons.append(psd)
            return cp.Maximize(cp.sum(cp.multiply(C + delta * np.eye(pb.d), self.G)) + fobj @ F), psd
        Qp, Qm, (where,) = self.swap
        c0, c1 = pb.clients
        ties = [(a, c1.fs[where[j]]) for j, a in enumerate(c0.fs) if a >= 0]
        if ties:
            cons.append(F[[b for _, b in ties]] == F[[a for a, _ in ties]])
        cons += [self.Gp >> 0] + ([self.Gm >> 0] if Qm.shape[1] else [])
        trace = cp.trace(Qp.T @ Qp @ self.Gp) + (cp.trace(Qm.T @ Qm @ self.Gm) if Qm.shape[1] else 0)
        return cp.Maximize(cp.sum(cp.multiply(C, self.G)) + delta * trace + fobj @ F), None

    def value(self) -> np.ndarray:
        if self.swap is None:
            return np.asarray(self.G.value)
        Qp, Qm, _ = self.swap
        return np.asarray((Qp @ self.Gp.value @ Qp.T) + (Qm @ self.Gm.value @ Qm.T if Qm.shape[1] else 0))


def _interp_constraints(cp: Any, pb: Problem, gram: _Gram, F: Any) -> list[Any]:
    """One matrix inequality per client with two points or more (None for the others, and for client 1 under
    the swap, whose inequalities client 0's imply)."""
    L, mu, kappa = float(pb.setting.L), float(pb.setting.mu), float(pb.kappa)
    nf = max(pb.nf, 1)
    interp: list[Any] = []
    for ci, c in enumerate(pb.clients):
        p = len(c.xs)
        if p < 2 or (gram.swap is not None and ci == 1):
            interp.append(None)
            continue
        X, Gr = dense(c.xs, pb.d), dense(c.gs, pb.d)
        Fsel = np.zeros((p, nf))
        for j, k in enumerate(c.fs):
            if k >= 0:
                Fsel[j, k] = 1.0
        interp.append(interp_expression(cp, gram.G, F, X, Gr, Fsel, L, mu, kappa) <= 0)
    return interp


def _moment_constraints(pb: Problem, G: Any) -> list[tuple[Any, Any]]:
    """The relaxed law's moment equalities: E<x', v> (a row of G) and E||x'||^2 (its diagonal entry)."""
    out = []
    for n, xbar, terms in pb.moments:
        xb = dense([xbar], pb.d)[0]
        row = G[n, :n] - xb @ G[:, :n] == 0
        quad = sum(float(c) * (dense([a], pb.d)[0] @ G @ dense([b], pb.d)[0]) for c, a, b in terms)
        out.append((row, G[n, n] - quad == 0))
    return out


def _run(cp: Any, prob: Any, solver: str, tol: float) -> tuple[tuple[str, ...], str | None]:
    """Solve; returns the solver's warnings (recorded in the WorstCase's notes, not printed) and, when the
    solver gave up, the status that says so (reported, not raised)."""
    opts: dict[str, Any] = {}
    if solver.upper() == "CLARABEL":
        opts = dict(tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol, max_iter=400)
    elif solver.upper() == "SCS":
        opts = dict(eps_abs=1e-9, eps_rel=1e-9, max_iters=200000)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            prob.solve(solver=solver.upper(), **opts)
        except (cp.error.SolverError, ArithmeticError, ValueError) as exc:
            return (), f"solver error: {str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__}"
    return tuple(dict.fromkeys(str(w.message) for w in caught)), None


def _certificate(gram: _Gram, interp: list[Any], bound_cons: list[Any], psd: Any, delta: float,
                 d: int) -> tuple[list[np.ndarray], list[float], np.ndarray]:
    """The multipliers (interpolation, scalar bounds) and the dual residual matrix S."""
    duals = [np.asarray(c.dual_value) if c is not None else np.zeros((1, 1)) for c in interp]
    bduals = [float(np.asarray(c.dual_value).reshape(-1)[0]) for c in bound_cons]
    if gram.swap is None:
        # the solver's residual matrix (dual of G >> 0) for the perturbed objective; the exact recheck
        # recomputes it from the multipliers and takes from it only the entries the orthogonality equalities free
        return duals, bduals, np.asarray(psd.dual_value) + delta * np.eye(d)
    # the invariant certificate of the full problem: half of client 0's multipliers on each client, and the
    # two clients' heterogeneity bounds (indices 1, 2) sharing their multipliers equally
    (where,) = gram.swap[2]
    lam0 = duals[0] / 2
    lam1 = np.zeros_like(lam0)
    lam1[np.ix_(where, where)] = lam0  # the mirror of pair (j, k) of client 0 is (where[j], where[k]) of client 1
    if len(bduals) == 3:
        bduals[1] = bduals[2] = (bduals[1] + bduals[2]) / 2
    return [lam0, lam1], bduals, np.zeros((d, d))  # no orthogonality equalities here: nothing is read from S


def interp_expression(cp: Any, G: Any, F: Any, X: np.ndarray, Gr: np.ndarray, Fsel: np.ndarray, L: float,
                      mu: float, kappa: float) -> Any:
    """phi[j, k] <= 0 for every ordered pair: the interpolation inequality of one client as one matrix.

    The reason for nine parameters: the solver module ``cp``, the unknowns (G, F), one client's points
    (X, Gr, Fsel) and the class's constants (L, mu, kappa) are the inequality's own terms.
    """
    p = X.shape[0]
    one = np.ones((p, 1))
    IP = X @ G @ Gr.T  # <x_j, g_k>
    GG = Gr @ G @ Gr.T
    XX = X @ G @ X.T
    fv = Fsel @ F
    dIP, dGG, dXX = cp.diag(IP), cp.diag(GG), cp.diag(XX)
    row = (lambda v: one @ cp.reshape(v, (1, p), order="F"))  # M[j, k] = v[k]
    col = (lambda v: cp.reshape(v, (p, 1), order="F") @ one.T)  # M[j, k] = v[j]
    inner = IP - row(dIP)  # <g_k, x_j - x_k>
    gdiff = col(dGG) + row(dGG) - GG - GG.T
    xdiff = col(dXX) + row(dXX) - XX - XX.T
    cross = col(dIP) - IP.T - IP + row(dIP)  # <g_j - g_k, x_j - x_k>
    return row(fv) - col(fv) + inner + kappa * (gdiff / L + mu * xdiff - 2 * (mu / L) * cross)
