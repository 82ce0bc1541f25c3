"""FAST's participation: snapshot rounds of uniform sampling mixed into arbitrary participation.

**Setting** (FAST.ALG1): a snapshot round draws m of M clients uniformly without replacement; any
other round is an arbitrary (ACP) round of n clients drawn by successive sampling proportional to
client propensities (see :func:`quadratics.participation.arbitrary`); weights 1/|S_r|.
Round type: every I rounds (r mod I = 0, q = 1/I), or a Bernoulli(q) coin per round and trial,
or adaptive (FAST.ALG2): q_0 = 0, q_{r+1} = clip_[0,1](q_r + lam (acc_{r-1} - acc_r)), acc_{-1} = 0.
**Accuracy signal** (ours; FAST uses training accuracy, UNRECOVERED scale): acc_r =
1 / (1 + (F(x_{r+1}) - F*) / (F(x_0) - F*)), a number in (0, 1] that rises as the model improves;
q_r is the snapshot probability of round r.
**Constants**: m, n, q (None when adaptive), I, lam.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from bounds.core.errors import UserInputError

from . import guarantees as grt
from .participation import (
    Pattern,
    rng_for,
    sample_subsets,
    weighted_subsets,
    weights_from_ids,
)
from .problem import check_count
from .propensity import check_law, propensities


class SnapshotState(NamedTuple):
    seed: int
    trials: int
    logw: np.ndarray      # [T, M] log propensities
    q: np.ndarray         # [T] snapshot probability of the next round
    acc_prev: np.ndarray  # [T] acc_{r-1}
    snapshots: np.ndarray  # [T] snapshot rounds so far


def fast_mixture(M: int, m: int, n: int, q: float | None = None, I: int | None = None,
                 adaptive: bool = False, lam: float = 1.0, dist: str = "beta",
                 a: float = 0.5, b: float = 0.5) -> Pattern:
    """The FAST pattern; give exactly one of q (Bernoulli), I (interval) or adaptive=True.

    Ten parameters, why: they are FAST's participation constants (M, m, n; the snapshot rule q, I or adaptive
    with its gain lam; the propensity law dist, a, b), one per registry key.
    """
    M, m, n = check_count("M", M), check_count("m", m), check_count("n", n)
    if m > M or n > M:
        raise UserInputError(f"m={m} and n={n} must not exceed M={M}")
    modes = (q is not None) + (I is not None) + bool(adaptive)
    if modes != 1:
        raise UserInputError("FAST pattern needs exactly one of q=PROB, I=INTERVAL or adaptive=1")
    if q is not None and not 0.0 <= q <= 1.0:
        raise UserInputError(f"q={q} is a probability; it must lie in [0, 1]")
    if I is not None:
        I = check_count("I", I)
    if lam < 0:
        raise UserInputError(f"lam={lam} must be >= 0")
    check_law(dist, a, b)
    pool = np.arange(M)
    q0 = 1.0 / I if I is not None else (0.0 if adaptive or q is None else float(q))

    def init(trials: int, seed: int) -> SnapshotState:
        logw = np.log(propensities(dist, a, b, M, trials, seed))
        return SnapshotState(seed, trials, logw, np.full(trials, q0), np.zeros(trials), np.zeros(trials, int))

    def draw(state: SnapshotState, r: int) -> tuple[np.ndarray, dict, SnapshotState]:
        rng = rng_for(state.seed, 6, r)
        coin = rng.random(state.trials)
        snap = np.full(state.trials, r % I == 0) if I is not None else coin < state.q
        qs = np.zeros((state.trials, M))
        if snap.any():
            qs[snap] = weights_from_ids(sample_subsets(rng, pool, m, int(snap.sum())), M)
        if (~snap).any():
            qs[~snap] = weights_from_ids(weighted_subsets(rng, state.logw[~snap], n), M)
        return qs, {"snapshot": snap}, state._replace(snapshots=state.snapshots + snap)

    def observe(state: SnapshotState, r: int, signal: Mapping[str, np.ndarray]) -> SnapshotState:
        if not adaptive:
            return state
        acc = 1.0 / (1.0 + signal["gap"] / signal["gap0"])
        acc = np.where(np.isfinite(acc), acc, 0.0)
        q_next = np.clip(state.q + lam * (state.acc_prev - acc), 0.0, 1.0)
        return state._replace(q=q_next, acc_prev=acc)

    constants: dict[str, Any] = {"m": m, "n": n, "q": None if adaptive else q0, "I": I,
                                 "adaptive": bool(adaptive), "lam": lam, "dist": dist, "a": a, "b": b,
                                 "P": None, "p_min": None}
    # which assumptions this process meets: the Bernoulli-q mixture is FAST's snapshot process (not the
    # every-I-rounds or adaptive variants); every client takes part in every round only when both kinds
    # of round take all M (or the one kind that ever happens does)
    always = I == 1 or (I is None and not adaptive and q0 == 1.0)  # every round a snapshot round
    never = I is None and not adaptive and q0 == 0.0  # no snapshot round ever
    everyone = (m == M or never) and (n == M or always)
    mode = "interval" if I is not None else "adaptive" if adaptive else "mixture"
    guarantees = {"full": grt.full(everyone, f"FAST's {mode} pattern with m = {m}, n = {n} of M = {M}")}
    if I is None and not adaptive:
        guarantees["snapshot"] = grt.snapshot(q0, m, n, "the engine's FAST mixture draws a uniform m-of-M snapshot "
                                                       "round with probability q each round, independently")
    def law(n: int) -> Any:
        from .exact.laws import fast_law

        return fast_law(M, constants)

    return Pattern("fast", M, constants, init, draw, observe if adaptive else None, None, guarantees, law)
