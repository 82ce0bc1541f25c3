"""Exact moments coordinate by coordinate: where the round is diagonal, d independent recursions of 3 numbers.

**Setting**: a problem that declares diagonal client Hessians A_i and a diagonal gradient-noise covariance
(``Problem.affine_gradients``, exact zeros off the diagonal: the shared-Hessian quadratic, the diagonal
distinct-Hessian one), an algorithm whose declared round (``Algorithm.linear`` -> ``RoundMap``) has the model as
its only state and offers the same round coordinate by coordinate (``RoundMap.diagonal``: the diagonals of
every B_f and noise block; the closed-form state-x rounds of FedAvg, FedProx and FAST on these bases do), and
measured forms e^T Q e + c^T e + s with Q diagonal (the three metrics: I, H/2, H^T H).
**Statement**: with every B_f and noise block diagonal, the dense recursion of :mod:`quadratics.exact.moments`
restricted to coordinate j reads only (1, m_j, S_jj):
  m_j' = sum_f Mu[0, f] (B_fj m_j + c_fj),
  S_jj' = sum_{f,g} Mu[f, g] (B_fj B_gj S_jj + (B_fj c_gj + c_fj B_gj) m_j + c_fj c_gj) + sum_i E[n_ij^2],
since (B_f S B_g^T)_jj = B_fj S_jj B_gj when B_f, B_g are diagonal; a form with Q diagonal reads only m_j and S_jj.
So the moment matrix of order 1 + d + d(d+1)/2 splits into d blocks of order 3 (3C for a Markov law over C
states), advanced together as batched [d, 3C + k, 3C + k] products (k running sums per coordinate; the constant
s of a form rides on coordinate 0). Cost O(F d) to assemble and O(d (3C + k)^3 log R) to power, not O(d^6 log R).
**Check, not trust**: the declared diagonals are checked against the engine's own round (``algorithm.round``) at
one random state and one random participation set (three clients with unequal weights, or all where M < 3) with
the noise off, the engine's bound restricted to those clients (:class:`_Participants`: cost O(K d), not O(K M d)): the full-dimensional round must equal B(u) e + c(u) formed from the diagonals, coordinate by
coordinate, within 1e-9 x (the coefficients' scale) x (1 + max |e|) (the tolerance of the dense path's additivity
check, :mod:`quadratics.exact.probe`). A round that mixes coordinates (a rotation, a coupling term) fails it for
almost every random state; one that fails it is scored by the dense path, which says why where it declines.
The noise term is read from the declaration (its variances per coordinate); the problem's noise covariance is
checked to be diagonal, so independent per-coordinate noise is what the problem declares.
**Rounding bound**: as the dense path (:mod:`quadratics.exact.moments`), entrywise and batched over coordinates;
the sums over coordinates add gamma_d of their absolute values.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from .closed_form import off_diagonal_zero
from .declare import Law, MarkovLaw
from .moments import Tracked, U, gamma, one_torch_thread
from .plan import _Plan, declared_round, metric_forms, resolve_law, tracked_round
from .probe import Remembered, _Declined, _FixedNormals, _TooLarge

__all__ = ["assemble_diagonal", "diagonal_plan"]

# the last few checked declarations, by identity of (problem, algorithm, pattern): applies() and the evaluation
# ask for the same objects, and the check runs the engine's round once
_CHECKED = Remembered(4)


def assemble_diagonal(B: np.ndarray, c: np.ndarray, noise: np.ndarray | None, Eu: np.ndarray,
                      pairs: Any) -> np.ndarray:
    """Per-coordinate moment matrices T [d, 3, 3] on (1, m_j, S_jj) (module docstring): B, c [F, d] diagonals,
    noise [M, 2, 2, d] or None, Eu [2M], pairs a ``Pairwise``. The dense ``assemble`` with each D x D matrix
    replaced by its diagonal."""
    F, d = c.shape
    C = np.empty_like(B)                                   # C_f = sum_g Mu[f, g] B_g (u_0 = 1)
    C[0] = B[0] + Eu @ B[1:]
    C[1:] = Eu[:, None] * B[0][None, :] + pairs.apply(B[1:])
    cm = np.empty_like(c)
    cm[0] = c[0] + Eu @ c[1:]
    cm[1:] = Eu[:, None] * c[0][None, :] + pairs.apply(c[1:])
    T = np.zeros((d, 3, 3))
    T[:, 0, 0] = 1.0
    T[:, 1, 0], T[:, 1, 1] = cm[0], C[0]
    const = np.einsum("fj,fj->j", c, cm)
    if noise is not None:  # client i's noise with its own features (q_i, 1_i): the same-client blocks
        const = const + np.einsum("iab,iabj->j", pairs.same, noise)
    T[:, 2, 0] = const
    T[:, 2, 1] = np.einsum("fj,fj->j", B, cm) + np.einsum("fj,fj->j", c, C)
    T[:, 2, 2] = np.einsum("fj,fj->j", B, C)
    return T


class _DiagonalRound:
    """The declared diagonal round as numpy, cached per phase (the ``_Round`` of the dense path)."""

    def __init__(self, rm: Any):
        self.rm = rm
        self.D = rm.D
        self.z0 = rm.z0.detach().cpu().numpy().astype(float)
        self.z_ref = rm.z_ref.detach().cpu().numpy().astype(float)
        self.scheduled = False
        self.window = int(rm.period)
        self._cache: dict[Any, tuple[np.ndarray, np.ndarray, np.ndarray | None, float, int, np.ndarray]] = {}

    def phase(self, r: int) -> Any:
        return self.rm.phase(r)

    def maps(self, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, float, int, np.ndarray]:
        key = self.phase(r)
        if key not in self._cache:
            co = self.rm.diagonal(r)
            np_ = lambda t: None if t is None else t.detach().cpu().numpy().astype(float)  # noqa: E731
            B, c, noise = np_(co.B), np_(co.c), np_(co.noise)
            assert B is not None and c is not None
            if B.shape[1:] != (self.D,) or c.shape != B.shape:
                raise _Declined(f"the declared diagonal round has B {B.shape}, c {c.shape} for a state of {self.D}")
            F = B.shape[0]
            live = np.ones(F)
            if co.structural_zeros:
                live = (np.abs(B).max(1) + np.abs(c).max(1) > 0).astype(float)
            self._cache[key] = (B, c, noise, float(co.scale), int(co.terms), live)
        return self._cache[key]


class _Participants:
    """A bound (the engine's Bound protocol) restricted to a few clients: every per-client datum is read through
    ``prepare(idx)``, so mapping idx to the chosen clients is the same round on them; the check's engine round
    then tabulates its K local steps for 3 clients, not M (at M = 1,000, K = 1,000, d = 1,000: 2e9 element
    operations otherwise)."""

    def __init__(self, bound: Any, clients: torch.Tensor):
        self._bound, self._clients = bound, clients
        self.M = int(clients.numel())

    def prepare(self, idx: torch.Tensor) -> Any:
        return self._bound.prepare(self._clients[idx])

    def __getattr__(self, name: str) -> Any:
        return getattr(self._bound, name)


def _check_round(problem: Any, algorithm: Any, aux: dict, rnd: _DiagonalRound) -> None:
    """The engine's full-dimensional round against the declared diagonals (module docstring), or _Declined."""
    M, D, K = int(problem.M), rnd.D, int(algorithm.K)
    rng = np.random.default_rng(20271)
    picked = np.sort(rng.choice(M, size=min(3, M), replace=False))
    q = rng.uniform(0.1, 1.0, picked.size)
    e = rng.standard_normal(D)
    bound = _Participants(problem.bind(torch.device("cpu"), torch.float64), torch.as_tensor(picked))
    init = algorithm.init(bound, torch.as_tensor(problem.x0, dtype=torch.float64).reshape(1, -1), bound.M)
    if set(init) != {"x"}:
        raise _Declined(f"the engine's state of {algorithm.name!r} is {sorted(init)}, not the model alone")
    width, scale = bound.noise_law
    rows = np.concatenate([[0], 1 + picked, 1 + M + picked])  # features (1, q_i, 1_i) of the chosen clients
    u = np.concatenate([[1.0], q, np.ones(picked.size)])
    for r in range(rnd.window):  # every phase of one period
        B, c, _, coef_scale, _, _ = rnd.maps(r)
        want = (u @ B[rows]) * e + u @ c[rows]
        gen = _FixedNormals(None if scale is None else torch.zeros((K, 1, picked.size, int(width)),
                                                                   dtype=torch.float64))
        state = {"x": torch.as_tensor(rnd.z_ref + e, dtype=torch.float64)[None]}
        with torch.inference_mode():
            new = algorithm.round(state, bound, torch.as_tensor(q, dtype=torch.float64)[None], r, gen, dict(aux))
        got = new["x"][0].numpy() - rnd.z_ref
        dev = float(np.abs(got - want).max())
        if not dev <= 1e-9 * coef_scale * (1 + np.abs(e).max()):
            raise _Declined(f"the engine's round of {algorithm.name!r} differs from its declared diagonal round by "
                            f"{dev:.3g} at a random state (it is not separable by coordinate)")


def _checked_round(problem: Any, algorithm: Any, pattern: Any, law: Law | MarkovLaw) -> _DiagonalRound:
    """The declared diagonal round of ``algorithm`` on ``problem``, checked (module docstring), or _Declined.
    Cached by the identity of (problem, algorithm, pattern), as the dense path's ``_round_of`` (a law's ``aux``
    may hold arrays, so it is not compared)."""
    return _CHECKED.get((problem, algorithm, pattern), lambda: _checked(problem, algorithm, law))


def _checked(problem: Any, algorithm: Any, law: Law | MarkovLaw) -> _DiagonalRound:
    g = problem.affine_gradients() if hasattr(problem, "affine_gradients") else None
    if g is None:
        raise _Declined("the problem declares no affine client gradients (Problem.affine_gradients)")
    if not (off_diagonal_zero(g.A) and off_diagonal_zero(g.noise_cov)):
        raise _Declined("the problem's client Hessians or noise covariance are not diagonal")
    rm = declared_round(problem, algorithm, law.aux)
    if isinstance(rm, str):
        raise _Declined(rm)
    if rm.diagonal is None or rm.period is None or rm.layout != (("x", rm.D),):
        raise _Declined(f"algorithm {algorithm.name!r} declares no diagonal round of the model alone "
                        "(RoundMap.diagonal)")
    rnd = _DiagonalRound(rm)
    with one_torch_thread():  # the engine's round on three clients: small operations
        _check_round(problem, algorithm, dict(law.aux), rnd)
    return rnd


class _DiagonalPlan(_Plan):
    """:class:`quadratics.exact.plan._Plan` coordinate by coordinate: vectors are [d, 3C + k], matrices
    [d, 3C + k, 3C + k]; ``order`` is the order of one coordinate's recursion (3C) and ``blocks`` = d."""

    def __init__(self, problem: Any, algorithm: Any, pattern: Any, law: Law | MarkovLaw | None = None,
                 forms: dict[str, tuple[Any, Any, float]] | None = None):
        law = resolve_law(problem, pattern, law)
        self.law = law
        self.prober = _checked_round(problem, algorithm, pattern, law)  # type: ignore[assignment]
        self.D = self.blocks = self.prober.D
        self.chain = len(law.laws) if isinstance(law, MarkovLaw) else 1
        self.order = 3 * self.chain
        self.forms = dict(metric_forms(problem) if forms is None else forms)
        self.names = tuple(self.forms)
        d = self.D
        rows = np.zeros((len(self.forms), d, 3))
        for k, (Q, cv, s) in enumerate(self.forms.values()):
            Qn = np.asarray(Q.detach().cpu() if hasattr(Q, "detach") else Q, dtype=float)
            cn = np.asarray(cv.detach().cpu() if hasattr(cv, "detach") else cv, dtype=float)
            if Qn.shape != (d, d) or np.count_nonzero(Qn) != np.count_nonzero(np.diagonal(Qn)):
                raise _Declined(f"the measured form {list(self.forms)[k]!r} is not diagonal in the coordinates")
            rows[k, :, 1], rows[k, :, 2], rows[k, 0, 0] = cn, np.diagonal(Qn), float(s)
        self.Lb = np.tile(rows, (1, 1, self.chain))  # [k, d, 3C]: a metric sums over the chain's states
        self.use(law)

    def matrix_shape(self) -> tuple[int, ...]:
        """[d, n, n]: one matrix per coordinate (``_Plan.matrix_shape``)."""
        n = self.order + len(self.names)
        return (self.D, n, n)

    def G(self, r: int) -> Tracked:
        key = self.key(r)
        if key not in self._G:
            if isinstance(self.law, MarkovLaw):  # w'(c') = sum_c P[c, c'] T_c w(c), per coordinate
                P = np.asarray(self.law.transition, dtype=float)
                parts = [self._T(r, sub, sub.key(r)) for sub in self.law.laws]
                C, d = len(parts), self.D
                Tv, Te = np.stack([p.val for p in parts]), np.stack([p.err for p in parts])  # [C, d, 3, 3]
                val = np.einsum("cz,cjab->jzacb", P, Tv).reshape(d, 3 * C, 3 * C)
                err = np.einsum("cz,cjab->jzacb", P, Te).reshape(d, 3 * C, 3 * C) + U * np.abs(val)
                self._G[key] = self._augmented(Tracked(val, err))
            else:
                self._G[key] = self._augmented(self._T(r, self.law, key[1]))
        return self._G[key]

    def _augmented(self, T: Tracked) -> Tracked:
        """[[T, 0], [L T, I]] per coordinate (``moments.augmented`` batched)."""
        d, n, _ = T.val.shape
        k = self.Lb.shape[0]
        L = self.Lb.transpose(1, 0, 2)                     # [d, k, n]
        LT = L @ T.val
        LTe = np.abs(L) @ T.err + gamma(n) * (np.abs(L) @ np.abs(T.val))
        G, E = np.zeros((d, n + k, n + k)), np.zeros((d, n + k, n + k))
        G[:, :n, :n], G[:, n:, :n], G[:, n:, n:] = T.val, LT, np.eye(k)
        E[:, :n, :n], E[:, n:, :n] = T.err, LTe
        return Tracked(G, E)

    def _T(self, r: int, law: Law, law_key: Any) -> Tracked:
        """Every coordinate's moment matrix of round r under ``law`` with its rounding bound (``_Plan._T``)."""
        return tracked_round(self.prober.maps(r), law, law_key, assemble_diagonal)

    def start(self) -> Tracked:
        e0 = self.prober.z0 - self.prober.z_ref
        d = self.D
        v = np.stack([np.ones(d), e0, e0 * e0], 1)            # [d, 3]
        err = 4 * U * np.abs(v)
        err[:, 1] += 2 * U * np.abs(self.prober.z_ref)
        if isinstance(self.law, MarkovLaw):  # w_0(c) = initial[c] v_0
            p0 = np.asarray(self.law.initial, dtype=float)
            v, err = np.einsum("c,ja->jca", p0, v).reshape(d, -1), np.einsum("c,ja->jca", p0, err).reshape(d, -1)
            err = err + U * np.abs(v)
        k = len(self.names)
        return Tracked(np.concatenate([v, np.zeros((d, k))], 1), np.concatenate([err, np.zeros((d, k))], 1))

    def _per_coordinate(self, v: Tracked) -> tuple[np.ndarray, np.ndarray]:
        n = self.order
        val = np.einsum("kjn,jn->kj", self.Lb, v.val[:, :n])
        err = (np.einsum("kjn,jn->kj", np.abs(self.Lb), v.err[:, :n])
               + gamma(n) * np.einsum("kjn,jn->kj", np.abs(self.Lb), np.abs(v.val[:, :n])))
        return val, err

    def metrics(self, v: Tracked) -> tuple[np.ndarray, np.ndarray]:
        val, err = self._per_coordinate(v)
        return self._total(val, err)

    def _total(self, val: np.ndarray, err: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Sums over coordinates [k, d] -> [k] with the bound of the summation (gamma_d of the absolute values)."""
        return val.sum(1), err.sum(1) * (1 + gamma(self.D)) + gamma(self.D) * np.abs(val).sum(1)

    def open_sums(self, v: Tracked, include_current: bool) -> Tracked:
        n = self.order
        out = Tracked(v.val.copy(), v.err.copy())
        out.val[:, n:] = self._per_coordinate(v)[0].T if include_current else 0.0
        out.err[:, n:] = 0.0
        return out

    def sums(self, v: Tracked) -> tuple[np.ndarray, np.ndarray]:
        n = self.order
        return self._total(v.val[:, n:].T, v.err[:, n:].T)


def diagonal_plan(problem: Any, algorithm: Any, pattern: Any, law: Law | MarkovLaw | None = None,
                  forms: dict[str, tuple[Any, Any, float]] | None = None) -> _Plan:
    """The coordinate-by-coordinate plan where it applies, else the dense one; _Declined where neither applies
    (the dense path's reason, and the diagonal path's where the dense one declines for the recursion's size)."""
    try:
        return _DiagonalPlan(problem, algorithm, pattern, law, forms)
    except _Declined as e:
        why_diag = str(e)
    try:
        return _Plan(problem, algorithm, pattern, law, forms)
    except _TooLarge as e:  # the diagonal path's reason matters only where the dense one declines for size
        raise _Declined(f"{e}; coordinate by coordinate: {why_diag}") from None

