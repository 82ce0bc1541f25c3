"""Participation patterns: per-round client weights q_r^i for every trial, with their constants.

**Setting** (Amplified SCAFFOLD framework): round r gives weights q_r^i >= 0; a client with weight
0 does not participate. Assumption 2 constants: sum_i q_r^i = 1, sum_i (q_r^i)^2 <= rho^2, window
average (1/P) sum_{window} q_r^i has mean 1/M, Pr(client participates in a window) >= p_min.
FAST constants: m (snapshot cohort), n (arbitrary cohort), q (snapshot probability).

A stateless pattern is a pure function ``weights(seed, r, trials) -> [trials, M]`` (numpy; the
random stream of round r is the ``pattern`` stream of ``seed`` keyed by the pattern's tag and r
(``bounds.core.seeds``: never the gradient noise's stream), so rerunning a round gives the same
weights). Every pattern also exposes ``init(trials, seed) -> state`` and
``draw(state, r) -> (q, aux, state)`` (stateful patterns carry explicit state) and
``observe(state, r, signal) -> state`` for patterns that adapt to the run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from bounds.core import seeds
from bounds.core.errors import UserInputError
from bounds.core.face import clip

from . import guarantees as grt
from .guarantees import Guarantee
from .problem import check_count
from .propensity import check_law, propensities


class Pattern(NamedTuple):
    """A participation pattern over M clients: per-round client weights for every trial (a pure function
    of seed and round), with its constants (rho^2, P, p_min, m, n, q) in ``constants`` and the
    participation assumptions it guarantees in ``guarantees`` (kind -> decision, see
    :mod:`quadratics.guarantees`; ask with :meth:`meets`). ``law(M) -> Law | PerTrialLaw | str``
    (optional): the declared law of its rounds (:mod:`quadratics.exact.declare`), which the exact path
    scores; a string says why there is none; absent: simulated."""

    name: str
    M: int
    constants: Mapping[str, Any]
    init: Callable[[int, int], Any]
    draw: Callable[[Any, int], tuple[np.ndarray, dict, Any]]
    observe: Callable[[Any, int, Mapping[str, np.ndarray]], Any] | None = None
    weights: Callable[[int, int, int], np.ndarray] | None = None
    guarantees: Mapping[str, Guarantee] | None = None
    law: Callable[[int], Any] | None = None

    def meets(self, assumption: Any, values: Mapping[str, Any]) -> tuple[bool, str] | None:
        """Whether this pattern's process meets ``assumption`` (a ``ParticipationAssumption``, or its kind)
        at a result's input ``values``: ``(True|False, why)``, or None when the pattern does not decide it."""
        kind = getattr(assumption, "kind", assumption)
        decide = (self.guarantees or {}).get(kind)
        return decide(values) if decide is not None else None

    def __repr__(self) -> str:
        shown = {k: v for k, v in self.constants.items() if not isinstance(v, (list, tuple, np.ndarray))}
        return clip(f"Pattern({self.name}, M={self.M}, {shown}, guarantees: {', '.join(self.guarantees or {}) or 'none'})")


def _exact() -> Any:
    # the law declarations only (they import torch: imported when a law is asked for), not quadratics.exact's
    # evaluation, which runs the engine and so imports this module
    import quadratics.exact.declare as declare

    return declare


def _exact_laws() -> Any:
    import quadratics.exact.laws as laws

    return laws


class _Seeded(NamedTuple):
    seed: int
    trials: int


def _stateless(name: str, M: int, constants: Mapping[str, Any],
               weights: Callable[[int, int, int], np.ndarray],
               guarantees: Mapping[str, Guarantee] | None = None, law: Callable[[int], Any] | None = None) -> Pattern:
    def init(trials: int, seed: int) -> _Seeded:
        return _Seeded(seed, trials)

    def draw(state: _Seeded, r: int) -> tuple[np.ndarray, dict, _Seeded]:
        return weights(state.seed, r, state.trials), {}, state

    return Pattern(name, M, dict(constants), init, draw, None, weights, guarantees, law)


def rng_for(seed: int, tag: int, r: int) -> np.random.Generator:
    """Round r's generator of the pattern with key ``tag`` (a sub-key of the ``pattern`` stream)."""
    return seeds.rng(int(seed), "pattern", tag, int(r))


def sample_subsets(rng: np.random.Generator, pool: np.ndarray, S: int, trials: int) -> np.ndarray:
    """[trials, S] client ids, S distinct uniform draws from ``pool`` per trial (random keys, smallest S)."""
    keys = rng.random((trials, pool.size))
    pick = np.argpartition(keys, S - 1, axis=1)[:, :S] if S < pool.size else np.tile(np.arange(pool.size), (trials, 1))
    return pool[pick]


def weights_from_ids(ids: np.ndarray, M: int) -> np.ndarray:
    q = np.zeros((ids.shape[0], M))
    np.put_along_axis(q, ids, 1.0 / ids.shape[1], axis=1)
    return q


def uniform(M: int, S: int) -> Pattern:
    """i.i.d. sampling of S of M clients without replacement, q = 1/S (ASCAF.PAT.IID; FedAvg's uniform).

    **Constants**: rho^2 = 1/S, P = 1, p_min = S/M; FAST m = S.
    """
    M, S = check_count("M", M), check_count("S", S)
    if S > M:
        raise UserInputError(f"S={S} clients per round cannot exceed M={M}")
    pool = np.arange(M)

    def weights(seed: int, r: int, trials: int) -> np.ndarray:
        return weights_from_ids(sample_subsets(rng_for(seed, 1, r), pool, S, trials), M)

    what = f"uniform S = {S} of M = {M}"
    return _stateless("uniform", M, {"S": S, "m": S, "rho2": 1.0 / S, "P": 1, "p_min": S / M}, weights, {
        "full": grt.full(S == M, what),
        "iid": grt.iid(S, M),
        # every round is a snapshot round: FAST's mixture with q = 1 and m = S
        "snapshot": grt.snapshot(1.0, S, None, f"{what} every round is FAST's mixture with q = 1, m = S"),
        "regularized": grt.assumption2(1, S / M, 1.0 / S, "uniform"),
    }, law=lambda n: _exact().uniform_law(M, S))


def cyclic(M: int, S: int, P: int, groups: int) -> Pattern:
    """Cyclic groups with availability time g = P/groups (ASCAF.PAT.CYC, PAT.EXP; LB.PART).

    Group j = clients with i mod groups = j; round r uses group floor((r mod P)/g) and samples S of
    its M/groups clients without replacement, q = 1/S.
    **Constants**: P, rho^2 = 1/S, exact p_min = 1 - (1 - S groups/M)^g (window inclusion),
    p_min_printed = S/M (the paper's printed value, flag #23), g.
    Raises UserInputError unless P and M are multiples of groups and S <= M/groups.
    """
    M, S, P, groups = (check_count(k, v) for k, v in (("M", M), ("S", S), ("P", P), ("groups", groups)))
    if P % groups:
        raise UserInputError(f"P={P} must be a multiple of the number of groups ({groups})")
    if M % groups:
        raise UserInputError(f"M={M} must be a multiple of the number of groups ({groups})")
    size = M // groups
    if S > size:
        raise UserInputError(f"S={S} is larger than a group ({size} clients = M/groups)")
    g = P // groups
    p_min = 1.0 - (1.0 - S / size) ** g

    full = [weights_from_ids(np.arange(j, M, groups)[None, :], M)[0] for j in range(groups)]
    tiled: dict[tuple[int, int], np.ndarray] = {}

    def weights(seed: int, r: int, trials: int) -> np.ndarray:
        j = (r % P) // g
        if S == size:  # the whole group takes part: no randomness to draw
            key = (j, trials)
            if key not in tiled:  # built once; callers get a copy they may change
                tiled[key] = np.tile(full[j], (trials, 1))
            return tiled[key].copy()
        return weights_from_ids(sample_subsets(rng_for(seed, 2, r), np.arange(j, M, groups), S, trials), M)

    constants = {"S": S, "P": P, "groups": groups, "g": g, "rho2": 1.0 / S, "p_min": p_min,
                 "p_min_printed": S / M, "regularized": p_min == 1.0}
    return _stateless("cyclic", M, constants, weights, {
        "full": grt.full(groups == 1 and S == M, f"cyclic groups ({groups} groups, S = {S} of M = {M})"),
        "cyclic": grt.cyclic(groups, S, M),
        "regularized": grt.assumption2(P, p_min, 1.0 / S, "cyclic"),
    }, law=lambda n: _exact_laws().cyclic_pattern_law(M, S, P, groups, g))


def regularized(M: int, S: int, P: int) -> Pattern:
    """Regularized participation: every client's window-average weight is exactly 1/M (ASCAF.PAT.REG).

    **Definition**: per window m (rounds mP..mP+P-1) and trial draw a client permutation pi and a
    round order sigma; the window's P x S slots are filled with pi repeated c = S P / M times in
    order, the slot row sigma(s) going to round mP+s. Each client then appears in exactly c
    distinct rounds (S <= M makes each row distinct) with weight 1/S.
    **Constants**: P, rho^2 = 1/S, p_min = 1, c. Needs S <= M and S*P a multiple of M.
    """
    M, S, P = check_count("M", M), check_count("S", S), check_count("P", P)
    if S > M:
        raise UserInputError(f"S={S} clients per round cannot exceed M={M}")
    if (S * P) % M:
        raise UserInputError(f"regularized participation needs S*P a multiple of M (S={S}, P={P}, M={M})")
    cols = np.arange(S)

    def weights(seed: int, r: int, trials: int) -> np.ndarray:
        w, s = divmod(r, P)
        rng = rng_for(seed, 3, w)
        perm = np.argsort(rng.random((trials, M)), axis=1)
        order = np.argsort(rng.random((trials, P)), axis=1)
        row = order[:, s]
        ids = np.take_along_axis(perm, (row[:, None] * S + cols[None, :]) % M, axis=1)
        return weights_from_ids(ids, M)

    return _stateless("regularized", M, {"S": S, "P": P, "rho2": 1.0 / S, "p_min": 1.0, "c": S * P // M}, weights, {
        "full": grt.full(S == M, f"regularized participation with S = {S} of M = {M}"),
        "regularized": grt.assumption2(P, 1.0, 1.0 / S, "regularized"),
    }, law=lambda n: _exact_laws().full_law(M) if S == M else
        f"regularized participation with S={S} < M={M}: the rounds of a window are drawn jointly (a permutation "
        "per window), not independently")


def weighted_subsets(rng: np.random.Generator, logw: np.ndarray, S: int) -> np.ndarray:
    """S distinct ids per row, successive sampling proportional to exp(logw) (Gumbel top-S)."""
    keys = logw + rng.gumbel(size=logw.shape)
    return np.argpartition(-keys, S - 1, axis=1)[:, :S] if S < logw.shape[1] else np.tile(np.arange(logw.shape[1]), (logw.shape[0], 1))


def arbitrary(M: int, S: int, dist: str = "beta", a: float = 0.5, b: float = 0.5) -> Pattern:
    """Arbitrary (ACP) participation driven by client propensities (FAST's Beta/Gamma/Weibull cases).

    **Definition** (ours; the paper's parameters are UNRECOVERED): each trial draws propensities
    w_i once (see :func:`propensities`); every round S distinct clients are drawn by successive
    sampling proportional to w (the first pick is client i with probability w_i / sum_j w_j),
    q = 1/S. Participation is biased towards high-propensity clients (no unbiasedness).
    **Constants**: n = S, rho^2 = 1/S; no window P / p_min guarantee.
    """
    M, S = check_count("M", M), check_count("S", S)
    if S > M:
        raise UserInputError(f"S={S} clients per round cannot exceed M={M}")
    check_law(dist, a, b)

    class _State(NamedTuple):
        seed: int
        trials: int
        logw: np.ndarray

    def init(trials: int, seed: int) -> _State:
        return _State(seed, trials, np.log(propensities(dist, a, b, M, trials, seed)))

    def draw(state: _State, r: int) -> tuple[np.ndarray, dict, _State]:
        ids = weighted_subsets(rng_for(state.seed, 5, r), state.logw, S)
        return weights_from_ids(ids, M), {}, state

    constants = {"S": S, "n": S, "rho2": 1.0 / S, "P": None, "p_min": None, "dist": dist, "a": a, "b": b}
    return Pattern("arbitrary", M, constants, init, draw,
                   guarantees={"full": grt.full(S == M, f"arbitrary participation of S = {S} of M = {M}")},
                   law=lambda n: _exact_laws().arbitrary_law(M, constants))
