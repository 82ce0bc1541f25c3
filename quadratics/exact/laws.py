"""Participation laws of the built-in patterns as declarations (:class:`quadratics.exact.declare.Law`): each
pattern constructor attaches ``law=`` built here from its own constants, so nothing is read back from a
pattern's name or closures.

**Why these moments suffice**: every supported round is affine in the state with coefficients that are
affine in u (the aggregation weights q_i and the participation indicators), so the expectation of the
state's mean needs E[u] and that of its second moment needs E[u u^T] (pairwise inclusion probabilities,
never an enumeration of the selected sets).
**Laws built here** (anything else is declined with the reason):
* uniform (S of M), cyclic (S of the round's group; period P), regularized and arbitrary only when S = M
  (every client every round; otherwise rounds of a window are dependent, resp. the per-trial propensities
  couple all rounds: arbitrary then declares a per-trial law);
* FAST with probability q or interval I: snapshot rounds are uniform m of M; the arbitrary rounds are
  exact only when n = M (or when none occurs: q = 1, I = 1), else per trial; the adaptive rule depends on
  the run;
* static policy: its configurations and their probabilities (F3AST's static selection law);
* availability with naive selection over a model with an explicit i.i.d. law and its cap: availability
  sets of the model's explicit law (at most 2^16), within each a uniform min(|A|, k)-subset; F3AST's greedy
  selection depends on the run's rates and Markov/periodic models couple rounds: declined.
"""


from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from ..propensity import propensities
from .declare import (
    Law,
    Moments,
    Pairwise,
    PerTrialLaw,
    cyclic_law,
    fixed_law,
    mix_moments,
    mixture_law,
    uniform_law,
)


def _gamma(n: int) -> float:
    u = 2.0**-53
    return n * u / (1 - n * u)


def within(pool: np.ndarray, s: int, M: int) -> tuple[np.ndarray, np.ndarray]:
    """Moments of u when s distinct clients are drawn uniformly from ``pool`` (a bool mask [M]) and each
    selected one gets q = 1/s (s <= |pool|; s = 0: nobody)."""
    Eu, Euu = np.zeros(2 * M), np.zeros((2 * M, 2 * M))
    a = int(pool.sum())
    if s == 0 or a == 0:
        return Eu, Euu
    p1 = s / a                                        # P(i selected), i in pool
    p2 = s * (s - 1) / (a * (a - 1)) if a > 1 else 0.0  # P(i, j selected), i != j in pool
    on = pool.astype(float)
    pair = np.outer(on, on) * p2
    np.fill_diagonal(pair, on * p1)
    Eu[:M], Eu[M:] = on * p1 / s, on * p1
    Euu[:M, :M], Euu[:M, M:], Euu[M:, :M], Euu[M:, M:] = pair / s**2, pair / s, pair / s, pair
    return Eu, Euu


def _constant(M: int, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    u = np.concatenate([q, (q > 0).astype(float)])
    return u, np.outer(u, u)


def availability_law(av: Any, cap: Any, M: int, model: str, selection: str) -> Law | str:
    """The law of naive selection over the availability model ``av`` (its explicit i.i.d. law) with ``cap``,
    or why not (F3AST's greedy selection, Markov or periodic availability, too many availability sets)."""
    if selection != "naive":
        return "F3AST greedy selection depends on the run's rates r(t) (state-dependent participation)"
    law = av.explicit_law(max_states=1 << 16) if hasattr(av, "explicit_law") else None
    if law is None:
        return (f"availability model {model!r} ({type(av).__name__}) has no explicit i.i.d. law within 2^16 "
                "availability sets (Markov or periodic availability couples rounds)")
    sets, probs = np.asarray(law[0], bool), np.asarray(law[1], float)
    Eu, Euu = np.zeros(2 * M), np.zeros((2 * M, 2 * M))
    ks, kp = np.asarray(cap.values, int), np.asarray(cap.probs, float)
    off = ~np.eye(M, dtype=bool)
    for k, pk in zip(ks, kp):
        for a in range(1, M + 1):  # availability sets grouped by size: one batched sum per size
            rows = sets.sum(1) == a
            if not rows.any():
                continue
            s = min(a, int(k))
            e1, e2 = within(np.ones(a, bool), s, a)  # moments for a pool of a clients, mapped below
            A = sets[rows].astype(float)
            w = probs[rows] * pk
            # client i's moments are e1 restricted to members; pairs use the (member, member) entries
            p_on, p_pair = np.einsum("c,ci->i", w, A), np.einsum("c,ci,cj->ij", w, A, A)
            for (bi, bj) in ((0, 0), (0, 1), (1, 0), (1, 1)):
                blk_same = e2[bi * a, bj * a]
                blk_pair = e2[bi * a, bj * a + 1] if a > 1 else 0.0
                Euu[bi * M:(bi + 1) * M, bj * M:(bj + 1) * M] += np.where(off, p_pair * blk_pair,
                                                                          np.diag(p_on) * blk_same)
            Eu[:M] += p_on * e1[0]
            Eu[M:] += p_on * e1[a]
    return fixed_law(M, Eu, Pairwise.from_dense(Euu),
                     f"availability {model!r}, naive selection, cap {[int(k) for k in ks]}: "
                     f"{len(probs)} availability sets", _gamma(len(probs) * len(kp) + 8))


def full_law(M: int) -> Law:
    """Every client every round with weight 1/M (deterministic features)."""
    u = np.concatenate([np.full(M, 1.0 / M), np.ones(M)])
    al = np.array([1.0 / M, 1.0])
    same = np.broadcast_to(np.outer(al, al), (M, 2, 2)).copy()
    return fixed_law(M, u, Pairwise(same, u[:, None], np.ones((1, 1))), f"every client of {M} every round")


def cyclic_pattern_law(M: int, S: int, P: int, groups: int, g: int) -> Law:
    """Cyclic groups: round r samples S of group (r mod P) // g (clients i with i mod groups = j)."""
    laws = [uniform_law(M, S, np.arange(j, M, groups)) for j in range(groups)]
    return cyclic_law(laws, g, f"cyclic: {S} of group (r mod {P}) // {g} of {groups}")


def fast_law(M: int, c: dict) -> Law | PerTrialLaw | str:
    """FAST's snapshot mixture (constants ``c`` of :func:`quadratics.snapshot.fast_mixture`)."""
    if c.get("adaptive"):
        return "FAST's adaptive snapshot probability follows the run's accuracy (state-dependent participation)"
    m, n, I = int(c["m"]), int(c["n"]), c.get("I")
    snap, every = uniform_law(M, m), full_law(M)
    def per_trial(exact_when: str) -> PerTrialLaw:
        return PerTrialLaw(lambda trials, seed: per_trial_laws(M, c, trials, seed),
                           f"FAST arbitrary rounds (n={n} < M={M}) sample by propensities drawn once per trial, "
                           f"which couples every round; exact only with {exact_when}")

    if I is not None:
        I = int(I)
        if I > 1 and n != M:
            return per_trial("n = M")
        return Law(M, lambda s: snap.moments(0) if s else every.moments(0), _every(I), I, {}, _gamma(4),
                   f"FAST: snapshot every {I} rounds")
    q = float(c["q"])
    if q < 1.0 and n != M:
        return per_trial("q = 1 or n = M")
    if q >= 1.0:
        return fixed_law(M, *snap.moments(0), f"FAST with q = 1: uniform {m} of {M} every round")
    return mixture_law([(q, snap), (1 - q, every)], f"FAST: uniform {m} of {M} with probability {q:g}, else all")


def arbitrary_law(M: int, c: dict) -> Law | PerTrialLaw:
    """Arbitrary participation: every client every round when S = M, else a law per trial's propensities."""
    if int(c["S"]) == M:
        return full_law(M)
    return PerTrialLaw(lambda trials, seed: per_trial_laws(M, {**c, "kind": "arbitrary"}, trials, seed),
                       f"arbitrary participation with S={c['S']} < M={M}: the propensities are drawn once per "
                       "trial, so every round depends on the same random draw")


def lcm(a: int, b: int) -> int:
    return a * b // math.gcd(a, b)


_TABLES: dict[int, tuple[np.ndarray, dict[int, np.ndarray], dict[int, np.ndarray]]] = {}


def _subset_tables(M: int, n: int) -> tuple[np.ndarray, dict[int, np.ndarray], dict[int, np.ndarray]]:
    """Membership bits [2^M, M] of every subset, the subsets of each size, and each one's parents T - {j}
    ([count, M]; T itself where j is not in T, masked out by the bits). Built once per M."""
    if M not in _TABLES:
        masks = np.arange(1 << M, dtype=np.int64)
        bits = ((masks[:, None] >> np.arange(M)) & 1).astype(bool)
        size = bits.sum(1)
        levels = {k: masks[size == k] for k in range(M + 1)}
        parents = {k: levels[k][:, None] ^ (1 << np.arange(M))[None, :] for k in range(1, M + 1)}
        _TABLES[M] = (bits, levels, parents)
    return _TABLES[M]


def successive(w: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Moments of u when n distinct clients are drawn one after another with probability proportional to
    w among those not yet drawn (the engine's Gumbel top-n, ``weighted_subsets``), q = 1/n each.

    The probability of each set of size k as the first k draws: P(T + j) = sum_{j in T+j} P(T) w_j /
    (W - w(T)), over all sets up to size n (at most 2^M, M <= 16); then pairwise inclusion
    probabilities by summing over the sets of size n. Exact up to rounding (sums of at most 2^M terms)."""
    M = w.size
    Eu, Euu = np.zeros(2 * M), np.zeros((2 * M, 2 * M))
    if n >= M:
        return _constant(M, np.full(M, 1.0 / M))
    bits, levels, parents = _subset_tables(M, n)
    # the weight not yet drawn, W - w(T), summed over the clients outside T (a difference W - w(T) can
    # cancel to 0 when the remaining propensities are below W's rounding)
    rest = np.zeros(1 << M)
    for k in range(0, n + 2):  # the sets that occur: T up to size n and T + {j} (masked below)
        if k <= M:
            rest[levels[k]] = (~bits[levels[k]]).astype(float) @ w
    prob = np.zeros(1 << M)
    prob[0] = 1.0
    for k in range(1, n + 1):  # pull from the parents T - {j} of every set T of size k: one gather per level
        level, par = levels[k], parents[k]
        with np.errstate(divide="ignore", invalid="ignore"):  # (j outside T: masked by the bits)
            step = np.where(bits[level], prob[par] * w / rest[par], 0.0)
        prob[level] = step.sum(1)
    B, p = bits[levels[n]].astype(float), prob[levels[n]]
    pair = (B * p[:, None]).T @ B
    on = np.diag(pair).copy()
    Eu[:M], Eu[M:] = on / n, on
    Euu[:M, :M], Euu[:M, M:], Euu[M:, :M], Euu[M:, M:] = pair / n**2, pair / n, pair / n, pair
    return Eu, Euu


def _always(mom: Moments) -> Callable[[Any], Moments]:
    return lambda key: mom


def _every(I: int) -> Callable[[int], bool]:
    return lambda r: r % I == 0


def _by_snapshot(snap: Moments, arb: Moments) -> Callable[[Any], Moments]:
    return lambda is_snapshot: snap if is_snapshot else arb


def per_trial_laws(M: int, c: dict, trials: int, seed: int) -> list[Law] | str:
    """For FAST's mixture (``c`` its constants) or arbitrary participation (``c["kind"] == "arbitrary"``), whose
    rounds are independent only given a per-trial draw (client propensities drawn once per trial): the law of
    each trial's rounds given the engine's own draw for that trial (the same propensities a simulation with
    ``seed`` and ``trials`` uses); or why not.

    The last few answers are kept (the laws are immutable and a pure function of the arguments): one exact
    evaluation, its applicability check and an erratum's closed form ask for the same laws, which take 30 ms
    to build at 256 trials (142 builds for 19 distinct instances in one erratum)."""
    key = (int(M), tuple(sorted(c.items())), int(trials), int(seed))
    try:
        hash(key)
    except TypeError:  # a constant that is not a plain value: built each time
        return _per_trial_laws(*key)
    got = _per_trial_laws_kept(key)
    return got if isinstance(got, str) else list(got)


@lru_cache(maxsize=8)
def _per_trial_laws_kept(key: tuple[Any, ...]) -> tuple[Law, ...] | str:
    got = _per_trial_laws(*key)
    return got if isinstance(got, str) else tuple(got)


def _per_trial_laws(M: int, items: tuple[tuple[str, Any], ...], trials: int, seed: int) -> list[Law] | str:
    c = dict(items)
    if M > 16:
        return f"successive sampling over M={M} > 16 clients (2^M sets)"
    W = propensities(c["dist"], c["a"], c["b"], M, int(trials), int(seed))
    everyone = np.ones(M, bool)
    out = []
    err = _gamma((1 << M) + 12)
    for t in range(int(trials)):
        w = W[t] / W[t].max()  # the law is invariant to the scale; this keeps the sums well conditioned
        if not (np.all(w > 0) and np.isfinite(w).all()):
            return f"trial {t}'s propensities underflow after scaling (min {W[t].min():.3g}, max {W[t].max():.3g})"
        if c.get("kind") == "arbitrary":
            mom = _dense(successive(w, int(c["S"])))
            out.append(Law(M, _always(mom), rel_err=err, describe=f"arbitrary: {c['S']} of {M} by the trial's "
                                                                   "propensities"))
            continue
        snap, arb = _dense(within(everyone, int(c["m"]), M)), _dense(successive(w, int(c["n"])))
        if c.get("I") is not None:
            I = int(c["I"])
            out.append(Law(M, _by_snapshot(snap, arb), _every(I), I, {}, err,
                           f"FAST every {I} rounds, arbitrary rounds by the trial's propensities"))
            continue
        q = float(c["q"])
        out.append(Law(M, _always(mix_moments([(q, snap), (1 - q, arb)])), rel_err=err,
                       describe=f"FAST q={q:g}, arbitrary rounds by the trial's propensities"))
    return out


def _dense(mom: tuple[np.ndarray, np.ndarray]) -> Moments:
    return mom[0], Pairwise.from_dense(mom[1])
