"""Exact expectations of the engine's metrics on affine problems: what applies, and the evaluation.

``applies(problem, algorithm, pattern)`` says whether the exact path covers an instance (and why not);
``exact_moments(problem, algorithm, pattern, rounds)`` returns E||x_R - x*||^2, E[F(x_R) - F*],
E||grad F(x_R)||^2, their averages over rounds first..R, and a floating-point bound on each
(:mod:`quadratics.exact.moments`); ``exact_curve`` the same metrics at every round (short horizons);
``expectations`` picks the exact path when it applies and a Monte Carlo run of the engine otherwise.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from bounds.core.errors import UserInputError
from bounds.core.stats import MEAN_LEVEL

from .declare import Law, MarkovLaw, PerTrialLaw, RoundMap
from .laws import lcm
from .moments import Tracked, U, assemble, augmented, form_rows, gamma, matrix_power, matvec, power_apply, vech_index
from .probe import DeclarationError, _Declined

METRICS = ("dist_sq", "gap", "grad_sq")
# exact powers need the moment matrix (1 + D + D(D+1)/2)^2 in memory and log2(R) products of it, each
# with its bound 4 products (~0.6 s at order 600 on this machine): SCAFFOLD's state d (M + 2) limits it
MAX_ORDER = 600
# a step schedule changes the maps every round: each round is probed and advanced on its own
# (about 50 ms a round at M = 4, d = 3 on this machine; its bound grows like |T|^k along the chain, see
# quadratics.exact.moments), so schedules are exact only for short horizons
MAX_SCHEDULED_ROUNDS = 1000
# per-trial mean curves advance every trial's moments round by round: at most this many multiply-adds
CURVE_MAX_WORK = 2e9


@dataclass(frozen=True)
class ExactMoments:
    """Exact expectations over participation and noise (no sampling error) with rounding bounds.

    ``final[m]`` = E metric at round ``rounds``; ``mean[m]`` = (1/(R - first + 1)) sum_{r=first..R} E metric_r;
    ``initial[m]`` at round 0; ``*_err[m]`` an upper bound on the floating-point error of each value
    (derivation: :mod:`quadratics.exact.moments`); ``law`` describes the participation law used.
    """

    rounds: int
    first: int
    final: dict[str, float]
    final_err: dict[str, float]
    mean: dict[str, float]
    mean_err: dict[str, float]
    initial: dict[str, float]
    law: str
    order: int
    wall_seconds: float
    versions: dict[str, str] = field(default_factory=dict)

    def value(self, metric: str, kind: str = "final") -> tuple[float, float]:
        """(value, rounding bound) of ``metric`` at the final round (``kind='final'``) or averaged (``'mean'``)."""
        if metric not in self.final:
            raise UserInputError(f"metric {metric!r} has no exact value; valid: {', '.join(self.final)}")
        if kind == "final":
            return self.final[metric], self.final_err[metric]
        if kind == "mean":
            return self.mean[metric], self.mean_err[metric]
        raise UserInputError(f"kind={kind!r}; valid: final, mean")

    def to_dict(self) -> dict[str, Any]:
        return {"method": "exact", "rounds": self.rounds, "first": self.first, "final": self.final,
                "final_err": self.final_err, "mean": self.mean, "mean_err": self.mean_err,
                "initial": self.initial, "law": self.law, "order": self.order,
                "wall_seconds": self.wall_seconds, "versions": self.versions}


def metric_forms(problem: Any) -> dict[str, tuple[np.ndarray, np.ndarray, float]]:
    """The three metrics as quadratic forms of e = x - x*: ||e||^2, e^T H e / 2, ||H e||^2 (H the Hessian)."""
    H = np.asarray(problem.hessian(), dtype=float)
    d = H.shape[0]
    zero = np.zeros(d)
    return {"dist_sq": (np.eye(d), zero, 0.0), "gap": (0.5 * H, zero, 0.0), "grad_sq": (H.T @ H, zero, 0.0)}


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


# the last few declared rounds, by the identity of their (problem, algorithm, aux): one evaluation asks
# applies(), the moments and the record's curve of the same objects
_ROUNDS: list[tuple[Any, Any, Any, _Round]] = []


def _round_of(problem: Any, algorithm: Any, pattern: Any, law: Law) -> _Round:
    for pb, alg, pat, rnd in _ROUNDS:
        if pb is problem and alg is algorithm and pat is pattern:
            return rnd
    rm = declared_round(problem, algorithm, law.aux)
    if isinstance(rm, str):
        raise _Declined(rm)
    rnd = _Round(rm)
    _ROUNDS.insert(0, (problem, algorithm, pattern, rnd))  # the last four are kept (a few MB at M = 1,000)
    del _ROUNDS[4:]
    return rnd


class _Plan:
    """Everything one exact evaluation needs: the declared law and round, and the cached moment matrices.
    ``forms``: the quadratic forms evaluated (name -> (Q, c, s) on e = x - x*; default the three metrics)."""

    def __init__(self, problem: Any, algorithm: Any, pattern: Any, law: Law | None = None,
                 forms: dict[str, tuple[Any, Any, float]] | None = None):
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
        self.law: Law | MarkovLaw = law
        self.prober = _round_of(problem, algorithm, pattern, law)
        D = self.prober.D
        self.D = D
        self.order = 1 + D + D * (D + 1) // 2
        self.chain = len(law.laws) if isinstance(law, MarkovLaw) else 1  # joint (chain state, moments) recursion
        self.order *= self.chain
        if self.order > MAX_ORDER:
            raise _Declined(f"the moment recursion has order {self.order} (state of {D} numbers) > {MAX_ORDER}")
        self.forms = dict(metric_forms(problem) if forms is None else forms)
        self.names = tuple(self.forms)
        try:
            x_block = self.prober.rm.block("x")
        except KeyError:
            raise _Declined("the declared round map has no state block named 'x' (the model)") from None
        plain = lambda t: np.asarray(t.detach().cpu() if hasattr(t, "detach") else t, dtype=float)  # noqa: E731
        self.L = form_rows(D, x_block, [(plain(Q), plain(cv), float(s)) for Q, cv, s in self.forms.values()])
        self.L = np.tile(self.L, (1, self.chain))  # a metric sums over the chain's states
        self.use(law)

    def use(self, law: Law | MarkovLaw) -> None:
        """Evaluate under ``law`` from now on (the probed round maps are kept: they do not depend on it)."""
        self.law = law
        self.period = None if self.prober.scheduled else lcm(self.prober.window, law.period)
        self._G: dict[Any, Tracked] = {}
        self._W: Tracked | None = None

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
        B, c, noise, scale, terms, live = self.prober.maps(r)
        Eu, pairs = law.moments(law_key)
        Eu = np.asarray(Eu, dtype=float)
        if Eu.shape != (B.shape[0] - 1,):
            raise _Declined(f"the law's features ({Eu.shape[0]}) do not match the round map's "
                            f"({B.shape[0] - 1} = 2M)")
        T = assemble(B, c, noise, Eu, pairs)
        if not np.isfinite(T).all():
            raise _Declined("the round's moment matrix is not finite (overflow in the round maps or the law)")
        # rounding bound of the assembly: the coefficients' uncertainty (``terms`` units of roundoff of their
        # scale, x4 as a coefficient may combine up to four computed numbers) and the moments' relative error
        # enter through the same formula with absolute values (first order), plus the sums' own rounding
        eps = 4 * gamma(terms) * scale
        aB, ac, aN, aEu, aP = np.abs(B), np.abs(c), None if noise is None else np.abs(noise), np.abs(Eu), pairs.abs()
        T_abs = assemble(aB, ac, aN, aEu, aP)
        T_pert = assemble(aB + eps * live[:, None, None], ac + eps * live[:, None],
                          None if aN is None else aN + eps, aEu * (1 + law.rel_err),
                          aP.scaled(1 + law.rel_err))
        F = B.shape[0]
        err = (T_pert - T_abs) + gamma(2 * F + 4 * law.M + 8) * T_abs
        return Tracked(T, np.abs(err))

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

    def metrics(self, v: Tracked) -> tuple[np.ndarray, np.ndarray]:
        n = self.order
        val = self.L @ v.val[:n]
        err = np.abs(self.L) @ v.err[:n] + gamma(n) * (np.abs(self.L) @ np.abs(v.val[:n]))
        return val, err


def applies(problem: Any, algorithm: Any, pattern: Any, rounds: int | None = None) -> tuple[bool, str]:
    """(True, the law used) when :func:`exact_moments` covers the instance (for ``rounds`` rounds when given:
    a step schedule that changes every round is advanced one round at a time, at most MAX_SCHEDULED_ROUNDS),
    else (False, why not)."""
    try:
        plan = _Plan(problem, algorithm, pattern)
        plan.prober.maps(0)
    except _Declined as e:
        return False, str(e)
    if rounds is not None and plan.period is None and rounds > MAX_SCHEDULED_ROUNDS:
        return False, (f"a step schedule changes the round every round: {rounds} rounds > {MAX_SCHEDULED_ROUNDS} "
                       "advanced one by one")
    return True, plan.law.describe


def exact_order(problem: Any, algorithm: Any, pattern: Any) -> int:
    """The order 1 + D + D(D+1)/2 of the moment recursion of an instance :func:`applies` covers (its state has D
    numbers): what one exact evaluation's cost grows with (cubically)."""
    D = _Plan(problem, algorithm, pattern).D
    return 1 + D + D * (D + 1) // 2


def _versions() -> dict[str, str]:
    return {"numpy": np.__version__, "torch": torch.__version__, "dtype": "float64", "device": "cpu"}


def exact_moments(problem: Any, algorithm: Any, pattern: Any, rounds: int, first: int = 1,
                  forms: dict[str, tuple[Any, Any, float]] | None = None) -> ExactMoments:
    """Exact E of the three metrics (or of ``forms``: name -> (Q, c, s), a quadratic form of e = x - x*, see
    :class:`quadratics.exact.declare.QuadraticMeasure`) at round ``rounds`` and averaged over rounds
    ``first``..``rounds``.

    Raises UserInputError when exact evaluation does not apply (the message says why; see :func:`applies`).
    """
    rounds, first = int(rounds), int(first)
    if rounds < 1 or not 0 <= first <= rounds:
        raise UserInputError(f"rounds={rounds} must be >= 1 and first={first} in [0, rounds]")
    t0 = time.perf_counter()
    try:
        plan = _Plan(problem, algorithm, pattern, forms=forms)
        init, fin, fin_err, mean, mean_err = _evaluate(plan, rounds, first)
    except _Declined as e:
        raise UserInputError(f"exact evaluation does not apply: {e}") from None
    mk = lambda a: {k: float(x) for k, x in zip(plan.names, a)}  # noqa: E731
    return ExactMoments(rounds=rounds, first=first, final=mk(fin), final_err=mk(fin_err), mean=mk(mean),
                        mean_err=mk(mean_err), initial=mk(init), law=plan.law.describe, order=plan.order,
                        wall_seconds=time.perf_counter() - t0, versions=_versions())


def _evaluate(plan: _Plan, rounds: int, first: int) -> tuple[np.ndarray, ...]:
    """(initial, final, final bound, mean over first..rounds, its bound), each [len(forms)] in plan.names order."""
    v0 = plan.start()
    n = plan.order
    init, _ = plan.metrics(v0)
    if first == 0:
        head = Tracked(v0.val.copy(), v0.err.copy())
        head.val[n:], head.err[n:] = init, 0.0
        start_round = 0
    else:
        head = plan.advance(v0, 0, first - 1)
        head = Tracked(head.val.copy(), head.err.copy())
        start_round = first - 1
        head.val[n:], head.err[n:] = 0.0, 0.0
    tail = plan.advance(head, start_round, rounds - start_round)
    fin, fin_err = plan.metrics(tail)
    count = rounds - first + 1
    return init, fin, fin_err, tail.val[n:] / count, tail.err[n:] / count * (1 + 2 * U)


@dataclass(frozen=True)
class PerTrialMoments:
    """Exact expectations given each trial's own random draw (``per_trial_laws``): arrays [trials] per metric
    (``final``, ``mean`` over rounds first..R, and their rounding bounds); the average over trials is a Monte
    Carlo mean over that draw only (participation and noise are integrated out exactly)."""

    rounds: int
    first: int
    trials: int
    seed: int
    final: dict[str, np.ndarray]
    final_err: dict[str, np.ndarray]
    mean: dict[str, np.ndarray]
    mean_err: dict[str, np.ndarray]
    law: str
    wall_seconds: float
    versions: dict[str, str] = field(default_factory=dict)
    curve: np.ndarray | None = None


def per_trial_laws(pattern: Any, trials: int, seed: int) -> list[Law] | str:
    """The laws of each trial's rounds given its own draw, where ``pattern`` declares a :class:`PerTrialLaw`."""
    found = declared_law(pattern)
    if isinstance(found, str):
        return found
    if not isinstance(found, PerTrialLaw):
        return f"pattern {pattern.name!r} declares one law for every trial (no per-trial conditioning needed)"
    try:
        return found.laws(int(trials), int(seed))
    except Exception as e:  # a user's declaration that fails: said, and the point is simulated
        return f"pattern {pattern.name!r}: its per-trial law failed ({type(e).__name__}: {e})"


def per_trial_applies(problem: Any, algorithm: Any, pattern: Any) -> tuple[bool, str]:
    """(True, what is conditioned on) when :func:`per_trial_moments` covers the instance, else (False, why)."""
    laws = per_trial_laws(pattern, 1, 0)
    if isinstance(laws, str):
        return False, laws
    try:
        plan = _Plan(problem, algorithm, pattern, law=laws[0])
        plan.prober.maps(0)
    except _Declined as e:
        return False, str(e)
    return True, laws[0].describe


def per_trial_moments(problem: Any, algorithm: Any, pattern: Any, rounds: int, first: int = 1, *, trials: int,
                      seed: int, curve: str | None = None,
                      forms: dict[str, tuple[Any, Any, float]] | None = None) -> PerTrialMoments:
    """The metrics' exact expectations given each of ``trials`` trials' propensities (drawn as the engine draws
    them with ``seed``): FAST's mixture and arbitrary participation, whose rounds are independent only given
    that per-trial draw. ``curve``: also the mean over trials of E[curve metric at round r | trial] for
    r = 0..rounds (``.curve``; None when the per-trial matrices would exceed CURVE_MAX_WORK operations).
    UserInputError when it does not apply."""
    rounds, first = int(rounds), int(first)
    if rounds < 1 or not 0 <= first <= rounds:
        raise UserInputError(f"rounds={rounds} must be >= 1 and first={first} in [0, rounds]")
    t0 = time.perf_counter()
    laws = per_trial_laws(pattern, trials, seed)
    if isinstance(laws, str):
        raise UserInputError(f"per-trial exact evaluation does not apply: {laws}")
    try:
        plan = _Plan(problem, algorithm, pattern, law=laws[0],
                     forms=None if forms is None else {**forms, **({} if curve is None else
                                                                  {curve: metric_forms(problem)[curve]})})
        n = plan.order
        keep = (curve is not None and plan.period is not None
                and rounds * len(laws) * n * n <= CURVE_MAX_WORK and len(laws) * plan.period * n * n <= 5e7)
        rows, mats = [], []
        for law in laws:
            plan.use(law)
            rows.append(_evaluate(plan, rounds, first)[1:])
            if keep:
                assert plan.period is not None
                mats.append([plan.G(r).val[:n, :n] for r in range(plan.period)])
    except _Declined as e:
        raise UserInputError(f"per-trial exact evaluation does not apply: {e}") from None
    mean_curve = None
    if keep:
        # every trial's moments advanced together, one batched product per round (no rounding bound carried)
        G = np.array(mats)  # [trials, period, n, n]
        row = plan.L[plan.names.index(str(curve))]
        v = np.tile(plan.start().val[:n], (len(laws), 1))
        out = [float(np.mean(v @ row))]
        for r in range(rounds):
            v = np.einsum("tij,tj->ti", G[:, r % G.shape[1]], v)
            out.append(float(np.mean(v @ row)))
        mean_curve = np.array(out)
    arr = np.array(rows)  # [trials, 4, 3]
    mk = lambda j: {k: arr[:, j, i].copy() for i, k in enumerate(plan.names)}  # noqa: E731
    return PerTrialMoments(rounds=rounds, first=first, trials=int(trials), seed=int(seed), final=mk(0),
                           final_err=mk(1), mean=mk(2), mean_err=mk(3), law=laws[0].describe,
                           wall_seconds=time.perf_counter() - t0, versions=_versions(), curve=mean_curve)


def exact_curve(problem: Any, algorithm: Any, pattern: Any, rounds: int) -> dict[str, np.ndarray]:
    """E metric_r for r = 0..rounds, round by round ([rounds + 1] per metric; for records' curves and tests;
    no rounding bound is carried here)."""
    try:
        plan = _Plan(problem, algorithm, pattern)
        v = plan.start().val
        n = plan.order
        rows = [plan.L @ v[:n]]
        for r in range(int(rounds)):
            v = plan.G(r).val @ v
            rows.append(plan.L @ v[:n])
    except _Declined as e:
        raise UserInputError(f"exact evaluation does not apply: {e}") from None
    arr = np.array(rows)
    return {k: arr[:, j] for j, k in enumerate(plan.names)}


def expectations(problem: Any, algorithm: Any, pattern: Any, rounds: int, *, trials: int = 4096, seed: int = 0,
                 level: float = MEAN_LEVEL) -> dict[str, Any]:
    """Final and round-averaged (rounds 1..R) expectations of the metrics: exact when :func:`applies`,
    else a Monte Carlo run of the engine with Student-t intervals at ``level`` (trials, seed recorded)."""
    ok, why = applies(problem, algorithm, pattern)
    if ok:
        return exact_moments(problem, algorithm, pattern, rounds).to_dict()
    from ..engine import simulate
    from ..summary import t_interval

    sim = simulate(problem, algorithm, pattern, trials=trials, rounds=rounds, seed=seed, device="cpu")
    out: dict[str, Any] = {"method": "monte-carlo", "why_not_exact": why, "rounds": rounds, "trials": trials,
                           "seed": seed, "level": level, "final": {}, "final_ci": {}, "mean": {}, "mean_ci": {},
                           "versions": dict(sim.versions)}
    for k in METRICS:
        for kind, samples in (("final", sim.metrics[k][rounds]), ("mean", sim.metrics[k][1:].mean(0))):
            m, lo, hi, _ = t_interval(np.asarray(samples, float), level)
            out[kind][k] = float(m)
            out[f"{kind}_ci"][k] = (float(lo), float(hi))
    if not all(math.isfinite(v) for v in out["final"].values()):
        out["note"] = "some trials diverged (NaN from their divergence round on); means are over the others"
    return out
