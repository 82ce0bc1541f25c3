"""F3AST Theorem III.7's burn-in threshold, checked by exact enumeration of an availability chain's total variation.

**Setting**: an availability (configuration) Markov chain on ``states`` configurations whose transition rows are
drawn from a Dirichlet(``concentration``) law (seed ``draw``); every entry is positive, so the chain is irreducible
and aperiodic (the theorem's Assumption 1 and its implicit aperiodicity, decided by construction). Its distance to
stationarity d(t) = max_x ||P^t(x, .) - pi||_TV is non-increasing in t.
**Quantity**: the mixing constants the theorem names: alpha = lambda* + slack (1 - lambda*), lambda* the second
largest eigenvalue modulus of P (no alpha below it admits a constant), and C = sup_t d(t) / alpha^t, the least
constant valid for that alpha (up to float64 rounding of d(t), bounded in :func:`mixing`). The supremum is exact: d(t) is enumerated by matrix powers up to the T where the
spectral bound d(t) <= C_spec lambda*^t (C_spec = (1/2) max_x sum_k |v_k(x)| ||u_k||_1 over P's non-unit eigenpairs,
P diagonalisable) shows no later t can exceed the maximum found, since C_spec (lambda*/alpha)^t decreases.
The LHS is the last round still farther than eps, t_bad = max {t : d(t) > eps}: the threshold claims every
t >= t0 is within eps, i.e. t_bad < t0; the check is t_bad <= t0 (as an upper bound; t_bad = t0 exactly has
measure zero in the continuous axes).
**Statement**: the corrected threshold log(eps/C)/log(alpha) holds at every point (d(t) <= C alpha^t <= eps past
it); the printed log(eps)/log(alpha) drops C and fails wherever C > 1 and the chain's distance follows C alpha^t
closely enough, which a 3-state chain with a rare configuration reaches (pi_min small makes C > 1).
Why a scenario and not a formula: the theorem's constants are properties of the chain, so the check computes them
from a chain, exactly, and compares the round the chain really needs with the threshold that claims to suffice.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import partial
from types import SimpleNamespace
from typing import Any

import numpy as np

from bounds.core.errors import End, PointRefused, SizeRefused
from verify.scenario import Instance, Param, Scenario

#: the eigenvector matrix's condition number past which the spectral constant is not trusted (a nearly defective P)
MAX_CONDITION = 1e8
#: the most rounds the enumeration walks (the tail bound's T, or t_bad): past it the point is refused for its cost
MAX_ROUNDS = 200_000
BLOCK = 256  # rounds enumerated per batched product (:func:`_distances`)
FLOOR = 1e-12  # the least transition probability (:func:`chain`)
CHAIN = "configuration chain irreducible and aperiodic"

SPACE = (
    Param("states", 2, 6, 3, integer=True, doc="configurations of the availability chain",
          source="2: the fewest configurations with a transition; 6: a stand-in (the theorem holds for any finite "
                 "chain; the enumeration is exact at any size)", end=End.STAND_IN),
    Param("concentration", 0.05, 5.0, 0.3, log=True,
          doc="Dirichlet concentration of each transition row (small: sticky chains with rare configurations)",
          source="any concentration > 0 gives positive rows (irreducible, aperiodic); 0.05..5 spans sparse to "
                 "near-uniform rows"),
    Param("eps", 1e-4, 0.5, 0.01, log=True, doc="target total-variation distance",
          source="0 < eps; 0.5: d(0) >= 1/2 for every chain of >= 2 states, so a larger eps needs no burn-in"),
    Param("slack", 1e-3, 0.5, 0.01, log=True, doc="alpha = lambda* + slack (1 - lambda*)",
          source="alpha in (lambda*, 1): below lambda* no constant C exists; slack 1e-3 is near the least alpha"),
    Param("draw", 0, 999, 0, integer=True, doc="seed of the transition rows' draw",
          source="the chain's random draw (any seed)"),
)


def _stationary(P: np.ndarray) -> np.ndarray:
    n = P.shape[0]
    A = np.vstack([P.T - np.eye(n), np.ones(n)])
    pi = np.linalg.lstsq(A, np.r_[np.zeros(n), 1.0], rcond=None)[0]
    return pi / pi.sum()


def _distances(P: np.ndarray, pi: np.ndarray, rounds: int) -> np.ndarray:
    """d(0..rounds): a first block of BLOCK rounds by repeated multiplication, then each next block at once as P^BLOCK
    times the last (each row of P^t - 1 pi sums to 0; TV is half its l1 norm). Why blocks: a walk of 10^5 rounds of a
    6 x 6 product is 10^5 Python steps one at a time, a few hundred batched products this way."""
    n = P.shape[0]
    first = [np.eye(n) - pi[None, :]]
    for _ in range(min(rounds, BLOCK - 1)):
        first.append(P @ first[-1])
    block, step = np.stack(first), np.linalg.matrix_power(P, len(first))
    out = [0.5 * np.abs(block).sum(axis=2).max(axis=1)]
    while sum(o.size for o in out) < rounds + 1:
        block = step @ block
        out.append(0.5 * np.abs(block).sum(axis=2).max(axis=1))
    return np.concatenate(out)[:rounds + 1]


def mixing(P: np.ndarray, slack: float, eps: float) -> dict[str, Any]:
    """The chain's exact burn-in and its mixing constants (module docstring): ``t_bad``, ``alpha``, ``C``,
    ``lambda_star``, ``C_spectral``, ``pi``, ``rounds`` (enumerated). Refused (:class:`PointRefused`) where P is
    nearly defective, and (:class:`SizeRefused`) where the enumeration would pass :data:`MAX_ROUNDS`."""
    pi = _stationary(P)
    w, V = np.linalg.eig(P)
    if np.linalg.cond(V) > MAX_CONDITION:
        raise PointRefused(f"the transition matrix is nearly defective (eigenvector condition number "
                           f"{np.linalg.cond(V):.3g} > {MAX_CONDITION:g}): its spectral constant is not trusted")
    U = np.linalg.inv(V)  # rows: left eigenvectors, scaled so that P = V diag(w) U
    unit = int(np.argmin(np.abs(w - 1.0)))
    others = [k for k in range(len(w)) if k != unit]
    lam = float(max(abs(w[k]) for k in others))
    c_spec = 0.5 * max(sum(abs(V[x, k]) * np.abs(U[k]).sum() for k in others) for x in range(len(w)))
    alpha = lam + slack * (1.0 - lam)
    if lam == 0.0:  # P^1 = 1 pi already: d(t) = 0 for t >= 1
        rounds = 1
    else:
        # the tail t > T cannot beat max_{t <= T} d(t)/alpha^t >= d(0) once C_spec (lam/alpha)^T <= d(0)
        d0 = 1.0 - float(pi.min())
        rounds = max(1, math.ceil(math.log(d0 / c_spec) / math.log(lam / alpha))) if c_spec > d0 else 1
    d = _distances(P, pi, min(rounds, MAX_ROUNDS + 1))
    while d[-1] > eps and d.size <= MAX_ROUNDS:  # t_bad lies past the tail's T: walk on until within eps
        d = _distances(P, pi, 2 * (d.size - 1))
    if d.size > MAX_ROUNDS + 1 or rounds > MAX_ROUNDS:
        raise SizeRefused(f"the enumeration would walk past {MAX_ROUNDS} rounds (lambda* = {lam:.6g}, "
                          f"slack {slack:g}): refused for its cost")
    # d(t) in float64 carries an absolute error of at most about 2 (t + 1) states u (a product a round, or a block's
    # power and its product, each within states ulps of entries <= 1); where that error dominates, the spectral
    # bound C_spec lambda*^t is the sharper valid upper bound. C is the supremum of the smaller of the two over
    # alpha^t (in logs: alpha^t underflows long before the walk ends): a valid constant, every true d(t) lies below
    # it, and the least one up to that rounding.
    t = np.arange(d.size)
    upper = np.minimum(d + 2 * (t + 1) * P.shape[0] * np.finfo(float).eps, c_spec * lam ** t)
    with np.errstate(divide="ignore"):
        C = float(np.exp(np.max(np.log(upper) - t * math.log(alpha))))
    t_bad = int(np.nonzero(d > eps)[0].max())
    return {"t_bad": t_bad, "alpha": alpha, "C": C, "lambda_star": lam, "C_spectral": float(c_spec),
            "pi": pi, "rounds": int(d.size - 1), "d": d}


def chain(states: int, concentration: float, draw: int) -> np.ndarray:
    """The transition matrix: rows Dirichlet(concentration) from the ``instance`` stream of ``draw`` (keyed by the
    family's name, as every instance draw is), each entry at least :data:`FLOOR` (then the row renormalised): a small
    concentration underflows entries to exact zeros, and a zero could make the chain reducible or periodic, outside
    the theorem; floored, every transition is possible, so the chain is irreducible and aperiodic by construction
    (the floored matrix is the chain checked, not an approximation of another)."""
    from bounds.core.seeds import key, rng

    P = np.maximum(rng(draw, "instance", key("f3ast burn-in chain")).dirichlet(np.full(states, concentration),
                                                                              size=states), FLOOR)
    return P / P.sum(axis=1, keepdims=True)


def _constant_draws(trials: int, seed: int, *, value: float) -> Any:
    """The enumerated LHS as ``trials`` identical samples (exact: the interval is the value itself)."""
    return SimpleNamespace(metrics={"t_bad": np.full(trials, float(value))})


def build(point: Mapping[str, Any]) -> Instance:
    """Theorem III.7 at one chain (either variant: the result key decides the RHS)."""
    from verify.scenarios.f3ast import draws_of  # the measure that reads a run's metric, as F3AST's lemmas do

    P = chain(int(point["states"]), float(point["concentration"]), int(point["draw"]))
    m = mixing(P, float(point["slack"]), float(point["eps"]))
    values = {"alpha": m["alpha"], "eps": float(point["eps"]), "C": m["C"]}
    return Instance(problem=None, algorithm=None, pattern=None, rounds=0, values=values,
                    measure=partial(draws_of, metric="t_bad"),
                    decided={CHAIN: (True, "every transition probability is positive: irreducible and aperiodic")},
                    run=partial(_constant_draws, value=m["t_bad"]), exact_lhs=lambda: (float(m["t_bad"]), 0.0),
                    describe={"P": P.tolist(), "pi": m["pi"].tolist(), "lambda_star": m["lambda_star"],
                              "alpha": m["alpha"], "C": m["C"], "C_spectral": m["C_spectral"],
                              "t_bad": m["t_bad"], "rounds_enumerated": m["rounds"],
                              "measure": "t_bad = the last round t with max_x ||P^t(x,.) - pi||_TV > eps"},
                    notes=("t_bad is an exact enumeration: the run path carries it as identical copies, one per "
                           "'trial' (an interval of zero width), not as Monte Carlo draws",))


SCENARIOS = [
    Scenario("F3AST.T3.7@corrected", "F3AST.T3.7@corrected", "F3AST Theorem III.7 burn-in, exact enumeration",
             SPACE, build, ("C is the least constant for alpha; t_bad the chain's own last round farther than eps",)),
    Scenario("F3AST.T3.7@printed", "F3AST.T3.7@printed", "F3AST Theorem III.7 burn-in as printed, exact enumeration",
             SPACE, build, ("the printed threshold omits C; C > 1 where a configuration is rare",)),
]
