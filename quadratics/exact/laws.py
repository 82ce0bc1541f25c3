"""Participation laws as the moments the exact recursion needs: per round, E[u] and E[u u^T] of the
client features u = (q_1..q_M, 1{q_1 > 0}..1{q_M > 0}).

**Why these moments suffice**: every supported round is affine in the state with coefficients that are
affine in u (the aggregation weights q_i and the participation indicators), so the expectation of the
state's mean needs E[u] and that of its second moment needs E[u u^T] (pairwise inclusion probabilities,
never an enumeration of the selected sets). Random normalisation (q = 1/|S| with |S| random) is handled
by conditioning on the selected count.
**Laws decided here** (anything else is declined with the reason):
* ``uniform`` (S of M), ``cyclic`` (S of the round's group; period P), ``regularized`` and ``arbitrary``
  only when S = M (every client every round; otherwise rounds of a window are dependent, resp. the
  per-trial propensities couple all rounds);
* ``fast`` with probability q or interval I: snapshot rounds are uniform m of M; the arbitrary rounds are
  exact only when n = M (or when none occurs: q = 1, I = 1); the adaptive rule depends on the run;
* ``static-policy``: its configurations and their probabilities (F3AST's static selection law);
* ``availability`` with naive selection over a model with an explicit i.i.d. law (``always``, ``scarce``,
  ``home-devices``, ``uneven``, ``table1``) and its cap: availability sets of the model's explicit law
  (at most 2^16), within each a uniform min(|A|, k)-subset (the problem's p is uniform); F3AST's greedy
  selection depends on the run's rates and Markov/periodic models couple rounds: declined.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class RoundLaw:
    """Moments of the round features as a function of the round index.

    ``period``: the law of round r depends only on ``key(r)`` and ``key`` has period ``period``;
    ``moments(key) -> (Eu [2M], Euu [2M, 2M])``; ``aux``: the constant per-round ``aux`` the pattern
    hands the algorithm (static policies' rates and weights), or {}; ``rel_err``: relative rounding
    error bound of the moments (a few units of roundoff: sums of at most ``terms`` products).
    """

    M: int
    period: int
    key: Callable[[int], Any]
    moments: Callable[[Any], tuple[np.ndarray, np.ndarray]]
    aux: dict
    rel_err: float
    describe: str


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


def _closure(fn: Callable, name: str) -> Any:
    # the built-in patterns keep their law in the closure of their draw functions (a Pattern declares only
    # its constants); reading it there keeps the exact path on the very objects the engine samples from
    return inspect.getclosurevars(fn).nonlocals.get(name)


def round_law(pattern: Any) -> RoundLaw | str:
    """The law of one round of ``pattern`` as feature moments, or the reason it is not available."""
    name, M, c = pattern.name, int(pattern.M), dict(pattern.constants)
    everyone = np.ones(M, bool)

    def fixed(Eu: np.ndarray, Euu: np.ndarray, what: str, err: float = _gamma(4)) -> RoundLaw:
        return RoundLaw(M, 1, lambda r: 0, lambda k: (Eu, Euu), {}, err, what)

    if name == "uniform":
        S = int(c["S"])
        return fixed(*within(everyone, S, M), f"uniform {S} of {M}")
    if name == "cyclic":
        S, P, G, g = int(c["S"]), int(c["P"]), int(c["groups"]), int(c["g"])
        laws = {j: within(np.arange(M) % G == j, S, M) for j in range(G)}
        return RoundLaw(M, P, lambda r: (r % P) // g, lambda j: laws[j], {}, _gamma(4),
                        f"cyclic: {S} of group (r mod {P}) // {g} of {G}")
    if name in ("regularized", "arbitrary"):
        if int(c["S"]) != M:
            return (f"{name} participation with S={c['S']} < M={M}: "
                    + ("the rounds of a window are drawn jointly (a permutation per window), not independently"
                       if name == "regularized" else
                       "the propensities are drawn once per trial, so every round depends on the same random draw"))
        return fixed(*_constant(M, np.full(M, 1.0 / M)), f"{name} with S = M: every client every round")
    if name == "fast":
        if c.get("adaptive"):
            return "FAST's adaptive snapshot probability follows the run's accuracy (state-dependent participation)"
        m, n = int(c["m"]), int(c["n"])
        snap = within(everyone, m, M)
        full = _constant(M, np.full(M, 1.0 / M))
        I = c.get("I")
        if I is not None:
            I = int(I)
            if I > 1 and n != M:
                return (f"FAST arbitrary rounds (n={n} < M={M}) sample by propensities drawn once per trial, "
                        "which couples every round; exact only with n = M")
            return RoundLaw(M, I, lambda r: r % I == 0, lambda s: snap if s else full, {}, _gamma(4),
                            f"FAST: snapshot every {I} rounds")
        q = float(c["q"])
        if q < 1.0 and n != M:
            return (f"FAST arbitrary rounds (n={n} < M={M}, snapshot probability q={q:g} < 1) sample by "
                    "propensities drawn once per trial, which couples every round; exact only with q = 1 or n = M")
        if q >= 1.0:
            return fixed(*snap, f"FAST with q = 1: uniform {m} of {M} every round")
        return fixed(q * snap[0] + (1 - q) * full[0], q * snap[1] + (1 - q) * full[1],
                     f"FAST: uniform {m} of {M} with probability {q:g}, else all", _gamma(8))
    if name == "static-policy":
        q_rows, law = _closure(pattern.weights, "q_rows"), _closure(pattern.weights, "law")
        if q_rows is None or law is None:
            return "static policy without a readable selection law"
        U = np.concatenate([q_rows, (q_rows > 0).astype(float)], axis=1)
        Eu, Euu = law @ U, np.einsum("c,ci,cj->ij", law, U, U)
        draw_aux = pattern.draw(pattern.init(1, 0), 0)[1]
        return RoundLaw(M, 1, lambda r: 0, lambda k: (Eu, Euu), dict(draw_aux), _gamma(len(law) + 4),
                        f"static policy over {len(law)} configurations")
    if name.startswith("availability:"):
        return _availability(pattern, M, c)
    return f"participation pattern {name!r} has no exact law here (known: uniform, cyclic, fast, static-policy, " \
           "availability with naive selection; regularized/arbitrary with S = M)"


def _availability(pattern: Any, M: int, c: dict) -> RoundLaw | str:
    if c.get("selection") != "naive":
        return "F3AST greedy selection depends on the run's rates r(t) (state-dependent participation)"
    av, cap = _closure(pattern.init, "av"), _closure(pattern.draw, "cap")
    if av is None or cap is None:
        return "availability pattern without a readable model"
    kind = type(av).__name__
    if kind not in ("Independent", "JointTable"):
        return f"availability model {c.get('model')!r} ({kind}) couples rounds (Markov or periodic availability)"
    law = av.explicit_law(max_states=1 << 16)
    if law is None:
        return f"availability model {c.get('model')!r} has no explicit law within 2^16 availability sets"
    sets, probs = np.asarray(law[0], bool), np.asarray(law[1], float)
    Eu, Euu = np.zeros(2 * M), np.zeros((2 * M, 2 * M))
    ks, kp = np.asarray(cap.values, int), np.asarray(cap.probs, float)
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
            off = ~np.eye(M, dtype=bool)
            for (bi, bj) in ((0, 0), (0, 1), (1, 0), (1, 1)):
                blk_same = e2[bi * a, bj * a]
                blk_pair = e2[bi * a, bj * a + 1] if a > 1 else 0.0
                Euu[bi * M:(bi + 1) * M, bj * M:(bj + 1) * M] += np.where(off, p_pair * blk_pair,
                                                                          np.diag(p_on) * blk_same)
            Eu[:M] += p_on * e1[0]
            Eu[M:] += p_on * e1[a]
    return RoundLaw(M, 1, lambda r: 0, lambda k: (Eu, Euu), {}, _gamma(len(probs) * len(kp) + 8),
                    f"availability {c.get('model')!r}, naive selection, cap {[int(k) for k in ks]}: "
                    f"{len(probs)} availability sets")


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


Moments = tuple[np.ndarray, np.ndarray]


def _always(mom: Moments) -> Callable[[Any], Moments]:
    return lambda key: mom


def _every(I: int) -> Callable[[int], bool]:
    return lambda r: r % I == 0


def _by_snapshot(snap: Moments, arb: Moments) -> Callable[[Any], Moments]:
    return lambda is_snapshot: snap if is_snapshot else arb


def per_trial_laws(pattern: Any, trials: int, seed: int) -> list[RoundLaw] | str:
    """For a pattern whose rounds are independent only given a per-trial draw (FAST's mixture and arbitrary
    participation: client propensities drawn once per trial), the law of each trial's rounds given the
    engine's own draw for that trial (the same propensities a simulation with ``seed`` and ``trials`` uses);
    or why not."""
    from ..participation import propensities

    name, M, c = pattern.name, int(pattern.M), dict(pattern.constants)
    if name not in ("fast", "arbitrary") or c.get("adaptive"):
        return f"pattern {name!r} has no per-trial conditional law here"
    if M > 16:
        return f"successive sampling over M={M} > 16 clients (2^M sets)"
    W = propensities(c["dist"], c["a"], c["b"], M, int(trials), int(seed))
    everyone = np.ones(M, bool)
    out = []
    for t in range(int(trials)):
        w = W[t] / W[t].max()  # the law is invariant to the scale; this keeps the sums well conditioned
        if not (np.all(w > 0) and np.isfinite(w).all()):
            return f"trial {t}'s propensities underflow after scaling (min {W[t].min():.3g}, max {W[t].max():.3g})"
        if name == "arbitrary":
            mom = successive(w, int(c["S"]))
            out.append(RoundLaw(M, 1, lambda r: 0, _always(mom), {}, _gamma((1 << M) + 8),
                                f"arbitrary: {c['S']} of {M} by the trial's propensities"))
            continue
        snap, arb = within(everyone, int(c["m"]), M), successive(w, int(c["n"]))
        if c.get("I") is not None:
            I = int(c["I"])
            out.append(RoundLaw(M, I, _every(I), _by_snapshot(snap, arb),
                                {}, _gamma((1 << M) + 8), f"FAST every {I} rounds, arbitrary rounds by the trial's "
                                                           "propensities"))
            continue
        q = float(c["q"])
        mix = (q * snap[0] + (1 - q) * arb[0], q * snap[1] + (1 - q) * arb[1])
        out.append(RoundLaw(M, 1, lambda r: 0, _always(mix), {}, _gamma((1 << M) + 12),
                            f"FAST q={q:g}, arbitrary rounds by the trial's propensities"))
    return out
