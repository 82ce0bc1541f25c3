"""The moment recursion of one exact evaluation: the declared law and round map, each round's moment matrix
with its rounding bound, and a state advanced through rounds.

**Setting**: an affine problem, an algorithm that declares its round as an affine map of its state
(``Algorithm.linear``) and a pattern that declares its participation law (``Pattern.law``).
**Quantity**: :class:`_Plan` holds the state's first and second moments (order 1 + D + D(D+1)/2, times the
chain's states for a Markov law) and advances them round by round or by squaring over a period; each
product carries its floating-point bound (:mod:`quadratics.exact.moments`). :mod:`quadratics.exact.evaluate`
turns a plan into the recorded expectations.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bounds.core.errors import UserInputError

from .declare import Law, MarkovLaw, PerTrialLaw, RoundMap
from .laws import lcm
from .moments import (
    NUMPY_MAX_WORK,
    Tracked,
    U,
    assemble,
    augmented,
    form_rows,
    gamma,
    matrix_power,
    matvec,
    power_apply,
    vech_index,
)
from .probe import DeclarationError, Remembered, _Declined, _TooLarge

# exact powers need the moment matrix (1 + D + D(D+1)/2)^2 in memory and log2(R) products of it, each
# with its bound 4 products (~0.6 s at order 600 on this machine): SCAFFOLD's state d (M + 2) limits it
MAX_ORDER = 600
# a step schedule changes the maps every round: each round is probed and advanced on its own
# (about 50 ms a round at M = 4, d = 3 on this machine; its bound grows like |T|^k along the chain, see
# quadratics.exact.moments), so schedules are exact only for short horizons
MAX_SCHEDULED_ROUNDS = 1000


def metric_forms(problem: Any) -> dict[str, tuple[np.ndarray, np.ndarray, float]]:
    """The three metrics as quadratic forms of e = x - x*: ||e||^2, e^T H e / 2, ||H e||^2 (H the Hessian)."""
    H = np.asarray(problem.hessian(), dtype=float)
    d = H.shape[0]
    zero = np.zeros(d)
    diag = np.diagonal(H)
    # a diagonal H (the shared-Hessian families): H^T H is diag(h^2), the same float64 numbers as the product (every
    # other term of each sum is an exact 0) at O(d^2) instead of O(d^3), which the orders rays pay at every point
    HtH = np.diag(diag * diag) if not np.any(H - np.diag(diag)) else H.T @ H
    return {"dist_sq": (np.eye(d), zero, 0.0), "gap": (0.5 * H, zero, 0.0), "grad_sq": (HtH, zero, 0.0)}


def declared_law(pattern: Any) -> Law | PerTrialLaw | str:
    """What ``pattern`` declares about its law (``Pattern.law(M)``), or why there is nothing."""
    declare = getattr(pattern, "law", None)
    if declare is None:
        return (f"participation pattern {getattr(pattern, 'name', type(pattern).__name__)!r} declares no law "
                "(Pattern.law): simulated")
    try:
        law = declare(int(pattern.M))
    except Exception as e:  # a user's declaration that fails: said, and the point is simulated
        return f"participation pattern {pattern.name!r}: its law declaration failed ({type(e).__name__}: {e})"
    if law is None:
        return f"participation pattern {pattern.name!r} declares that it has no law here (Pattern.law -> None)"
    return law


def declared_round(problem: Any, algorithm: Any, aux: dict) -> RoundMap | str:
    """What ``algorithm`` declares about its round on ``problem`` (``Algorithm.linear(problem, aux)``)."""
    declare = getattr(algorithm, "linear", None)
    if declare is None:
        return (f"algorithm {getattr(algorithm, 'name', type(algorithm).__name__)!r} declares no affine round "
                "(Algorithm.linear): simulated")
    try:
        rm = declare(problem, dict(aux))
    except Exception as e:  # a user's declaration that fails: said, and the point is simulated
        return f"algorithm {algorithm.name!r}: its round declaration failed ({type(e).__name__}: {e})"
    if rm is None:
        return f"algorithm {algorithm.name!r} declares that its round is not affine here (Algorithm.linear -> None)"
    return rm


class _Round:
    """A declared round map as numpy, cached per phase."""

    def __init__(self, rm: RoundMap):
        self.rm = rm
        self.D = rm.D
        self.z0 = rm.z0.detach().cpu().numpy().astype(float)
        self.z_ref = rm.z_ref.detach().cpu().numpy().astype(float)
        self.scheduled = rm.period is None
        self.window = 1 if rm.period is None else int(rm.period)
        self._cache: dict[Any, tuple[np.ndarray, np.ndarray, np.ndarray | None, float, int, np.ndarray]] = {}

    def phase(self, r: int) -> Any:
        return r if self.scheduled else self.rm.phase(r)

    def maps(self, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, float, int, np.ndarray]:
        """(B, c, noise, scale, terms, live) of round r; ``live`` [F]: 1 for the features whose coefficients
        carry a rounding error (0 for structural zeros)."""
        key = self.phase(r)
        if key not in self._cache:
            try:
                co = self.rm.coefficients(r)
            except DeclarationError as e:
                raise _Declined(str(e)) from None
            np_ = lambda t: None if t is None else t.detach().cpu().numpy().astype(float)  # noqa: E731
            B, c, noise = np_(co.B), np_(co.c), np_(co.noise)
            assert B is not None and c is not None
            if B.shape[1:] != (self.D, self.D) or c.shape != (B.shape[0], self.D):
                raise _Declined(f"the declared round map has B {B.shape}, c {c.shape} for a state of {self.D}")
            F = B.shape[0]
            live = np.ones(F)
            if co.structural_zeros:
                live = (np.abs(B).reshape(F, -1).max(1) + np.abs(c).max(1) > 0).astype(float)
            self._cache[key] = (B, c, noise, float(co.scale), int(co.terms), live)
        return self._cache[key]


# the last few declared rounds, by the identity of their (problem, algorithm, pattern): one evaluation asks
# applies(), the moments and the record's curve of the same objects
_ROUNDS = Remembered(4)  # the last four round declarations (a few MB at M = 1,000)


def _round_of(problem: Any, algorithm: Any, pattern: Any, law: Law | MarkovLaw) -> _Round:
    def declare() -> _Round:
        rm = declared_round(problem, algorithm, law.aux)
        if isinstance(rm, str):
            raise _Declined(rm)
        return _Round(rm)

    return _ROUNDS.get((problem, algorithm, pattern), declare)


def resolve_law(problem: Any, pattern: Any, law: Law | MarkovLaw | None) -> Law | MarkovLaw:
    """``law``, or the one ``pattern`` declares (a per-trial law or none: _Declined with the reason)."""
    if pattern.M != problem.M:
        raise UserInputError(f"pattern has M={pattern.M} clients but the problem has M={problem.M}")
    if law is None:
        found = declared_law(pattern)
        if isinstance(found, PerTrialLaw):
            raise _Declined(found.why)
        if isinstance(found, str):
            raise _Declined(found)
        law = found
    if law.M != problem.M:
        raise _Declined(f"the declared law has M={law.M} clients, the problem M={problem.M}")
    return law


def tracked_round(maps: Any, law: Law, law_key: Any, assemble_fn: Any) -> Tracked:
    """One round's moment matrix, ``assemble_fn(B, c, noise, Eu, pairs)`` (``moments.assemble``, or the
    per-coordinate ``diagonal.assemble_diagonal``), from the round's probed ``maps`` and ``law``'s moments at
    ``law_key``, with its rounding bound."""
    B, c, noise, scale, terms, live = maps
    Eu, pairs = law.moments(law_key)
    Eu = np.asarray(Eu, dtype=float)
    if Eu.shape != (B.shape[0] - 1,):
        raise _Declined(f"the law's features ({Eu.shape[0]}) do not match the round map's "
                        f"({B.shape[0] - 1} = 2M)")
    T = assemble_fn(B, c, noise, Eu, pairs)
    if not np.isfinite(T).all():
        raise _Declined("the round's moment matrix is not finite (overflow in the round maps or the law)")
    # rounding bound of the assembly: the coefficients' uncertainty (``terms`` units of roundoff of their
    # scale, x4 as a coefficient may combine up to four computed numbers) and the moments' relative error
    # enter through the same formula with absolute values (first order), plus the sums' own rounding
    eps = 4 * gamma(terms) * scale
    aB, ac, aN, aEu, aP = np.abs(B), np.abs(c), None if noise is None else np.abs(noise), np.abs(Eu), pairs.abs()
    T_abs = assemble_fn(aB, ac, aN, aEu, aP)
    on = live.reshape((-1,) + (1,) * (B.ndim - 1))  # per feature, over B's [D, D] or the diagonal's [D]
    T_pert = assemble_fn(aB + eps * on, ac + eps * live[:, None], None if aN is None else aN + eps,
                         aEu * (1 + law.rel_err), aP.scaled(1 + law.rel_err))
    F = B.shape[0]
    err = (T_pert - T_abs) + gamma(2 * F + 4 * law.M + 8) * T_abs
    return Tracked(T, np.abs(err))


class _Plan:
    """Everything one exact evaluation needs: the declared law and round, and the cached moment matrices.
    ``forms``: the quadratic forms evaluated (name -> (Q, c, s) on e = x - x*; default the three metrics)."""

    def __init__(self, problem: Any, algorithm: Any, pattern: Any, law: Law | MarkovLaw | None = None,
                 forms: dict[str, tuple[Any, Any, float]] | None = None):
        resolved = resolve_law(problem, pattern, law)
        self.law: Law | MarkovLaw = resolved
        self.prober = _round_of(problem, algorithm, pattern, resolved)
        D = self.prober.D
        self.D = D
        self.order = 1 + D + D * (D + 1) // 2
        self.chain = len(resolved.laws) if isinstance(resolved, MarkovLaw) else 1  # joint (chain state, moments)
        self.order *= self.chain
        if self.order > MAX_ORDER:
            raise _TooLarge(f"the moment recursion has order {self.order} (state of {D} numbers) > {MAX_ORDER}")
        self.forms = dict(metric_forms(problem) if forms is None else forms)
        self.names = tuple(self.forms)
        try:
            x_block = self.prober.rm.block("x")
        except KeyError:
            raise _Declined("the declared round map has no state block named 'x' (the model)") from None
        plain = lambda t: np.asarray(t.detach().cpu() if hasattr(t, "detach") else t, dtype=float)  # noqa: E731
        self.L = form_rows(D, x_block, [(plain(Q), plain(cv), float(s)) for Q, cv, s in self.forms.values()])
        self.L = np.tile(self.L, (1, self.chain))  # a metric sums over the chain's states
        self.use(resolved)

    def use(self, law: Law | MarkovLaw) -> None:
        """Evaluate under ``law`` from now on (the probed round maps are kept: they do not depend on it)."""
        self.law = law
        self.period = None if self.prober.scheduled else lcm(self.prober.window, law.period)
        self._G: dict[Any, Tracked] = {}
        self._W: Tracked | None = None

    def stack(self, laws: list[Law]) -> bool:
        """Evaluate under every one of ``laws`` at once from now on: each round's matrix is the laws' matrices
        stacked on a leading axis (``Tracked.lead``), so :meth:`advance` takes a stacked vector and makes one
        batched product per step instead of one per law, each stacked product computed as it would be alone.
        False (and nothing changed) where they cannot be stacked: a step schedule, a chain law, laws whose rounds
        differ in period or pattern, or matrices large enough that a product goes to torch (there a stacked
        product would not be computed as the law's own is).

        Why: the per-trial laws of FAST (``per_trial_moments``) share one pattern of rounds and differ only in
        their moments; advancing hundreds of small recursions one by one spent most of the time in Python."""
        if self.prober.scheduled or not laws or any(isinstance(law, MarkovLaw) for law in laws):
            return False
        shape = self.matrix_shape()
        if shape[0] * shape[1] * shape[-1] >= NUMPY_MAX_WORK:  # one law's products would go to torch
            return False
        period = lcm(self.prober.window, laws[0].period)
        if any(lcm(self.prober.window, law.period) != period for law in laws):
            return False
        keys = [laws[0].key(r) for r in range(period)]
        if any([law.key(r) for r in range(period)] != keys for law in laws[1:]):
            return False
        per_key: dict[Any, list[Tracked]] = {}
        for law in laws:
            self.use(law)  # (its own matrices: G caches them by key for this law only)
            seen: set[Any] = set()
            for r in range(period):
                if self.key(r) not in seen:
                    seen.add(self.key(r))
                    per_key.setdefault(self.key(r), []).append(self.G(r))
        self.use(laws[0])
        self._G = {key: Tracked(np.stack([g.val for g in gs]), np.stack([g.err for g in gs]), 1)
                   for key, gs in per_key.items()}
        return True

    def matrix_shape(self) -> tuple[int, ...]:
        """The shape of one round's matrix: [n, n], n the recursion's order plus one running sum per form."""
        n = self.order + len(self.names)
        return (n, n)

    def key(self, r: int) -> tuple[Any, Any]:
        return (self.prober.phase(r), self.law.key(r))

    def G(self, r: int) -> Tracked:
        key = self.key(r)
        if key not in self._G:
            if isinstance(self.law, MarkovLaw):  # w'(c') = sum_c P[c, c'] T_c w(c) (declare.MarkovLaw)
                P = np.asarray(self.law.transition, dtype=float)
                parts = [self._T(r, sub, sub.key(r)) for sub in self.law.laws]
                n0 = parts[0].val.shape[0]
                C = len(parts)
                val, err = np.zeros((C * n0, C * n0)), np.zeros((C * n0, C * n0))
                for c, part in enumerate(parts):
                    for c2 in range(C):
                        blk = P[c, c2] * part.val
                        val[c2 * n0:(c2 + 1) * n0, c * n0:(c + 1) * n0] = blk
                        err[c2 * n0:(c2 + 1) * n0, c * n0:(c + 1) * n0] = P[c, c2] * part.err + U * np.abs(blk)
                self._G[key] = augmented(Tracked(val, err), self.L)
            else:
                self._G[key] = augmented(self._T(r, self.law, key[1]), self.L)
        return self._G[key]

    def _T(self, r: int, law: Law, law_key: Any) -> Tracked:
        """The moment matrix of round r under ``law`` (its moments at ``law_key``) with its rounding bound."""
        return tracked_round(self.prober.maps(r), law, law_key, assemble)

    def segment(self, r0: int, count: int) -> Tracked:
        """The product of the matrices of rounds r0 .. r0 + count - 1 (count >= 1).

        Runs of equal matrices (a cyclic group's g rounds, a law of period 1) are powered by squaring. Why
        not round by round: the bound of a product, |A| E_B + E_A |B|, grows like |G|^k along a chain of
        k single rounds but like |G^k| along squarings, and |G|^k explodes where G mixes signs (SCAFFOLD's
        control variates: measured 4e77 after 1000 single rounds against 3e-11 by squaring)."""
        W: Tracked | None = None
        r, end = r0, r0 + count
        while r < end:
            key, run = self.key(r), 1
            while r + run < end and self.key(r + run) == key:
                run += 1
            block = matrix_power(self.G(r), run)
            W = block if W is None else block @ W
            r += run
        assert W is not None
        return W

    def window(self) -> Tracked:
        if self._W is None:
            assert self.period is not None
            self._W = self.segment(0, self.period)
        return self._W

    def advance(self, v: Tracked, r0: int, count: int) -> Tracked:
        """v after rounds r0 .. r0 + count - 1."""
        if count <= 0:
            return v
        if self.period is None:
            if count > MAX_SCHEDULED_ROUNDS:
                raise _Declined(f"a step schedule changes the round every round: {count} rounds > "
                                f"{MAX_SCHEDULED_ROUNDS} advanced one by one")
            for r in range(r0, r0 + count):  # all rounds differ: a chain of matrix-vector steps (n^2 each)
                v = matvec(self.G(r), v)
            return v
        r, end = r0, r0 + count
        head = min(end, -(-r // self.period) * self.period) - r  # rounds up to the next whole period
        if head:
            v, r = matvec(self.segment(r, head), v), r + head
        whole = (end - r) // self.period
        if whole:
            v = power_apply(self.window(), whole, v)
            r += whole * self.period
        if r < end:
            v = matvec(self.segment(r, end - r), v)
        return v

    def start(self) -> Tracked:
        e0 = self.prober.z0 - self.prober.z_ref
        iu, ju = vech_index(self.D)
        v = np.concatenate([[1.0], e0, np.outer(e0, e0)[iu, ju]])
        err = 4 * U * np.abs(v) + 2 * U * np.abs(np.concatenate([[0.0], self.prober.z_ref,
                                                                  np.zeros(v.size - 1 - self.D)]))
        if isinstance(self.law, MarkovLaw):  # w_0(c) = initial[c] v_0
            p0 = np.asarray(self.law.initial, dtype=float)
            v, err = np.kron(p0, v), np.kron(p0, err) + U * np.abs(np.kron(p0, v))
        k = len(self.names)
        return Tracked(np.concatenate([v, np.zeros(k)]), np.concatenate([err, np.zeros(k)]))

    def open_sums(self, v: Tracked, include_current: bool) -> Tracked:
        """A copy of ``v`` whose running sums restart: at the metrics of ``v`` itself (``include_current``: the
        mean counts the round ``v`` is at) or at 0; the restarted sums carry no rounding bound of their own."""
        n = self.order
        out = Tracked(v.val.copy(), v.err.copy())
        out.val[n:] = self.metrics(v)[0] if include_current else 0.0
        out.err[n:] = 0.0
        return out

    def sums(self, v: Tracked) -> tuple[np.ndarray, np.ndarray]:
        """(running sums, their bound), one per form."""
        return v.val[self.order:], v.err[self.order:]

    def metrics(self, v: Tracked) -> tuple[np.ndarray, np.ndarray]:
        n = self.order
        val = self.L @ v.val[:n]
        err = np.abs(self.L) @ v.err[:n] + gamma(n) * (np.abs(self.L) @ np.abs(v.val[:n]))
        return val, err
