"""Exact expectations of the engine's metrics on affine problems: what applies, and the evaluation.

``applies(problem, algorithm, pattern)`` says whether the exact path covers an instance (and why not);
``exact_moments(problem, algorithm, pattern, rounds)`` returns E||x_R - x*||^2, E[F(x_R) - F*],
E||grad F(x_R)||^2, their averages over rounds first..R, and a floating-point bound on each
(:mod:`quadratics.exact.moments`); ``exact_curve`` the same metrics at every round (short horizons);
``expectations`` picks the exact path when it applies and a Monte Carlo run of the engine otherwise.
The moment recursion they read (declared law and round, moment matrices, advancing) is
:mod:`quadratics.exact.plan`.
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

from .declare import Law, PerTrialLaw
from .diagonal import _DiagonalPlan, diagonal_plan
from .moments import Tracked, U
from .plan import MAX_ORDER, MAX_SCHEDULED_ROUNDS, _Plan, declared_law, declared_round, metric_forms  # noqa: F401 (MAX_ORDER, declared_round re-exported)
from .probe import Remembered, _Declined

METRICS = ("dist_sq", "gap", "grad_sq")
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



# the plans the questions below built last (applies, exact_shape), by identity of (problem, algorithm, pattern):
# a search point asks both, and then scoring asks applies again, of the same objects; building the plan (the
# declared law, the checked round, the metrics' forms) four times a point took 45 of the 132 s that `orders FAST.T1
# --no-term-bases` spent on 1,664 exact points (profiled). The questions only read a plan; evaluations build their
# own (they switch laws and forms).
_ASKED = Remembered(2)


def _asked_plan(problem: Any, algorithm: Any, pattern: Any) -> _Plan:
    """The plan of (problem, algorithm, pattern) with round 0's maps probed, or _Declined (both remembered)."""

    def build() -> _Plan:
        plan = diagonal_plan(problem, algorithm, pattern)
        plan.prober.maps(0)
        return plan

    return _ASKED.get((problem, algorithm, pattern), build)


def applies(problem: Any, algorithm: Any, pattern: Any, rounds: int | None = None) -> tuple[bool, str]:
    """(True, the law used) when :func:`exact_moments` covers the instance (for ``rounds`` rounds when given:
    a step schedule that changes every round is advanced one round at a time, at most MAX_SCHEDULED_ROUNDS),
    else (False, why not)."""
    try:
        plan = _asked_plan(problem, algorithm, pattern)
    except _Declined as e:
        return False, str(e)
    if rounds is not None and plan.period is None and rounds > MAX_SCHEDULED_ROUNDS:
        return False, (f"a step schedule changes the round every round: {rounds} rounds > {MAX_SCHEDULED_ROUNDS} "
                       "advanced one by one")
    return True, plan.law.describe


def exact_order(problem: Any, algorithm: Any, pattern: Any) -> int:
    """The order 1 + D + D(D+1)/2 of the dense moment recursion of an instance :func:`applies` covers (its state
    has D numbers), or 3 where it is scored coordinate by coordinate (:mod:`quadratics.exact.diagonal`); a
    Markov law multiplies it by its states. :func:`exact_shape` adds how many such blocks are advanced."""
    return exact_shape(problem, algorithm, pattern)[0]


def exact_shape(problem: Any, algorithm: Any, pattern: Any) -> tuple[int, int]:
    """(order, blocks): one exact evaluation powers ``blocks`` moment matrices of ``order`` (dense: one block of
    order (1 + D + D(D+1)/2) C; coordinate by coordinate: d blocks of order 3 C; C the Markov law's states, else
    1): its cost grows like blocks x order^3."""
    plan = _asked_plan(problem, algorithm, pattern)
    return plan.order, (plan.D if isinstance(plan, _DiagonalPlan) else 1)


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
        plan = diagonal_plan(problem, algorithm, pattern, forms=forms)
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
    init, _ = plan.metrics(v0)
    if first == 0:
        head, start_round = plan.open_sums(v0, True), 0
    else:
        head, start_round = plan.open_sums(plan.advance(v0, 0, first - 1), False), first - 1
    return (init, *_finish(plan, plan.advance(head, start_round, rounds - start_round), rounds, first))


def _finish(plan: _Plan, tail: Tracked, rounds: int, first: int) -> tuple[np.ndarray, ...]:
    """(final, final bound, mean over first..rounds, its bound) from the state after the last round."""
    fin, fin_err = plan.metrics(tail)
    total, total_err = plan.sums(tail)
    count = rounds - first + 1
    return fin, fin_err, total / count, total_err / count * (1 + 2 * U)


#: At most this many bytes in one stacked matrix (:func:`_evaluate_each`); an advance holds about ten at once.
STACK_BYTES = 16 << 20


def _evaluate_each(plan: _Plan, laws: list[Law], rounds: int, first: int,
                   curve: bool) -> tuple[list[tuple[np.ndarray, ...]], list[Any]] | None:
    """``_evaluate(plan, rounds, first)[1:]`` under each of ``laws``, their recursions advanced together
    (:meth:`_Plan.stack`: the same products as one by one, stacked), in chunks of at most :data:`STACK_BYTES` a
    stacked matrix, and with ``curve`` each law's matrices of one period; None where they cannot be stacked."""
    size = max(1, STACK_BYTES // (8 * math.prod(plan.matrix_shape())))
    rows: list[tuple[np.ndarray, ...]] = []
    mats: list[Any] = []
    for at in range(0, len(laws), size):
        part = laws[at:at + size]
        if not plan.stack(part):
            return None
        rows += _advance_stacked(plan, len(part), rounds, first)
        if curve:  # the stacked matrices: [period, trials, ...] to [trials, period, ...]
            assert plan.period is not None
            n = plan.order
            mats += list(np.moveaxis(np.array([plan.G(r).val[..., :n, :n] for r in range(plan.period)]), 0, 1))
    return rows, mats


def _advance_stacked(plan: _Plan, n: int, rounds: int, first: int) -> list[tuple[np.ndarray, ...]]:
    """:func:`_evaluate`'s steps on the ``n`` laws ``plan`` has stacked, one result per law."""
    stacked = lambda v: Tracked(np.broadcast_to(v.val, (n, *v.val.shape)).copy(),  # noqa: E731
                                np.broadcast_to(v.err, (n, *v.err.shape)).copy(), 1)
    each = lambda v, t: Tracked(v.val[t], v.err[t])  # noqa: E731
    v0 = plan.start()  # the laws' common start (no chain law is stacked)
    if first == 0:
        head, start_round = stacked(plan.open_sums(v0, True)), 0
    else:
        moved = plan.advance(stacked(v0), 0, first - 1)
        heads = [plan.open_sums(each(moved, t), False) for t in range(n)]
        head = Tracked(np.stack([h.val for h in heads]), np.stack([h.err for h in heads]), 1)
        start_round = first - 1
    tail = plan.advance(head, start_round, rounds - start_round)
    return [_finish(plan, each(tail, t), rounds, first) for t in range(n)]


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
        plan = diagonal_plan(problem, algorithm, pattern, law=laws[0])
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
    UserInputError when it does not apply. Nine parameters, why: :func:`exact_moments`'s (instance, horizon,
    forms) and the per-trial draw (trials, seed) with the curve asked for; callers name the last four."""
    rounds, first = int(rounds), int(first)
    if rounds < 1 or not 0 <= first <= rounds:
        raise UserInputError(f"rounds={rounds} must be >= 1 and first={first} in [0, rounds]")
    t0 = time.perf_counter()
    laws = per_trial_laws(pattern, trials, seed)
    if isinstance(laws, str):
        raise UserInputError(f"per-trial exact evaluation does not apply: {laws}")
    try:
        plan = diagonal_plan(problem, algorithm, pattern, law=laws[0],
                             forms=None if forms is None else {**forms, **({} if curve is None else
                                                                          {curve: metric_forms(problem)[curve]})})
        n = plan.order
        blocks = plan.D if isinstance(plan, _DiagonalPlan) else 1  # by coordinate: [d, n, n] per round
        keep = (curve is not None and plan.period is not None
                and rounds * len(laws) * n * n * blocks <= CURVE_MAX_WORK
                and len(laws) * plan.period * n * n * blocks <= 5e7)
        together = _evaluate_each(plan, laws, rounds, first, keep)
        rows, mats = ([], []) if together is None else together
        for law in laws if together is None else ():
            plan.use(law)
            rows.append(_evaluate(plan, rounds, first)[1:])
            if keep:
                assert plan.period is not None
                mats.append([plan.G(r).val[..., :n, :n] for r in range(plan.period)])
    except _Declined as e:
        raise UserInputError(f"per-trial exact evaluation does not apply: {e}") from None
    mean_curve = None
    if keep:
        # every trial's moments advanced together, one batched product per round (no rounding bound carried)
        G = np.array(mats)  # [trials, period, (d,) n, n]
        start = plan.start().val[..., :n]
        if isinstance(plan, _DiagonalPlan):
            row = plan.Lb[plan.names.index(str(curve))]          # [d, n]
        else:
            row = plan.L[plan.names.index(str(curve)), :n]
        v = np.broadcast_to(start, (len(laws),) + start.shape)
        value = lambda w: float(np.mean((w * row).reshape(len(laws), -1).sum(1)))  # noqa: E731
        out = [value(v)]
        for r in range(rounds):
            v = np.einsum("t...ij,t...j->t...i", G[:, r % G.shape[1]], v)
            out.append(value(v))
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
        plan = diagonal_plan(problem, algorithm, pattern)
        v = plan.start()
        rows = [plan.metrics(v)[0]]
        for r in range(int(rounds)):  # (batched over coordinates where the plan is by coordinate)
            v = Tracked(np.einsum("...ij,...j->...i", plan.G(r).val, v.val), v.err)
            rows.append(plan.metrics(v)[0])
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
