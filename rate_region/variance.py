"""Sampling variance of F3AST's importance-weighted aggregate: H(r), Sigma, Tr(Y Y^T Sigma), bounds (6)/(7).

**Setting**: N clients with weights p_k (sum 1); a static policy selects S with indicator X in {0,1}^N,
E X = r (F3AST Def. III.1, eq. 2); aggregate Delta = sum_{k in S} (p_k / r_k) v_k.
**Quantity**: H(r) (eq. 3): sum_k p_k^2 / r_k ("p2", availabilities not positively correlated) or
sum_k p_k / r_k ("p", always valid). Exact variance (Lemma B.5): E||Delta - vbar||^2 = Tr(Y Y^T Sigma),
Y row k = (p_k / r_k) v_k, Sigma = Cov(X).
**Statement**: **identity**, F3AST Lemma B.5; **upper**, Lemma III.4 eqs. (6) and (7), normalised by
eta^2 (spec flag 12): E||Delta - vbar||^2 / eta^2 <= 4 E^2 G^2 (sum p/r - 1)   (6, flag: proof gap, the
proof yields sum p/r); <= 4 E^2 G^2 (sum p^2/r + sum p^2)   (7, needs non-positive correlation).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bounds.core import seeds
from bounds.core.errors import UserInputError

OBJECTIVES = ("p2", "p")


def check_objective(objective: str) -> str:
    if objective not in OBJECTIVES:
        from bounds.core.errors import unknown

        raise unknown("objective", str(objective), OBJECTIVES)
    return objective


def objective_weights(p: np.ndarray, objective: str = "p2") -> np.ndarray:
    """w with H(r) = sum w_k / r_k: p^2 for 'p2', p for 'p'."""
    check_objective(objective)
    p = np.asarray(p, dtype=float)
    return p**2 if objective == "p2" else p.copy()


def H(r, p, objective: str = "p2") -> np.ndarray:
    """H(r) of eq. (3), over the last axis (leading axes broadcast); +inf where r_k = 0 < p_k."""
    w = objective_weights(p, objective)
    r = np.asarray(r, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(w > 0, w / r, 0.0)
    terms = np.where((w > 0) & (r <= 0), np.inf, terms)
    return terms.sum(-1)


def grad_H(r, p, objective: str = "p2") -> np.ndarray:
    """dH/dr_k = -w_k / r_k^2 (the F3AST utilities are its negative, eq. 4)."""
    w = objective_weights(p, objective)
    r = np.asarray(r, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(w > 0, -w / r**2, 0.0)


def selection_moments(subsets: np.ndarray, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """r = E X and Sigma = E[X X^T] - r r^T for a law putting mass probs[l] on indicator subsets[l]."""
    X = np.asarray(subsets, dtype=float)
    q = np.asarray(probs, dtype=float)
    r = q @ X
    second = (X * q[:, None]).T @ X
    return r, second - np.outer(r, r)


def exact_sampling_variance(Sigma: np.ndarray, r: np.ndarray, p: np.ndarray, V: np.ndarray) -> float:
    """Tr(Y Y^T Sigma), Y row k = (p_k / r_k) v_k (Lemma B.5); clients with p_k = 0 contribute 0."""
    r, p = np.asarray(r, float), np.asarray(p, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(p > 0, p / r, 0.0)
    if np.any((p > 0) & (r <= 0)):
        return float("inf")
    Y = scale[:, None] * np.asarray(V, dtype=float)
    return float(np.trace(Y @ Y.T @ Sigma))


def factor_eq6(r, p) -> np.ndarray:
    """sum p/r - 1, eq. (6) as published (flag: proof gap)."""
    return H(r, p, "p") - 1.0


def factor_eq6_proof(r, p) -> np.ndarray:
    """sum p/r, what the proof of eq. (6) actually yields (corrected variant)."""
    return H(r, p, "p")


def factor_eq7(r, p) -> np.ndarray:
    """sum p^2/r + sum p^2, eq. (7) as published."""
    p = np.asarray(p, float)
    return H(r, p, "p2") + (p**2).sum(-1)


@dataclass(frozen=True)
class VarianceComparison:
    """Exact E||Delta - vbar||^2 of a policy against eta^2 * 4 E^2 G^2 * factor, eqs. (6)/(7)."""

    exact: float
    monte_carlo: float | None
    bound6: float
    bound6_proof: float
    bound7: float
    G2: float
    E: int
    eta: float
    holds6: bool
    holds7: bool
    flags: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def compare_with_bounds(
    subsets: np.ndarray,
    probs: np.ndarray,
    p: np.ndarray,
    V: np.ndarray,
    E: int = 1,
    eta: float = 1.0,
    G2: float | None = None,
    mc_draws: int = 0,
    seed: int = 0,
) -> VarianceComparison:
    """Lemma B.5 exact variance of a selection law vs the bounds (6) and (7) (unnormalised by eta^2).

    G2 defaults to the instance-level max_k ||v_k||^2 / (4 E^2 eta^2) (spec, operational LHS).
    Nine parameters, why: the selection law (subsets, probs), p, V, E, eta and G^2 are Lemma B.5's and
    Lemma III.4's own symbols; ``mc_draws`` and ``seed`` the optional Monte Carlo check of the exact value.
    """
    p = np.asarray(p, float)
    V = np.asarray(V, float)
    if V.ndim != 2 or V.shape[0] != p.size:
        raise UserInputError(f"updates V must be an [N, d] array with N={p.size} rows")
    r, Sigma = selection_moments(subsets, probs)
    exact = exact_sampling_variance(Sigma, r, p, V)
    if G2 is None:
        G2 = float((V**2).sum(1).max() / (4 * E**2 * eta**2))
    scale = 4 * E**2 * G2 * eta**2
    mc = None
    if mc_draws:
        rng = seeds.rng(int(seed), "sample")
        idx = rng.choice(len(probs), size=mc_draws, p=np.asarray(probs) / np.sum(probs))
        X = np.asarray(subsets, float)[idx]
        with np.errstate(divide="ignore", invalid="ignore"):
            coef = np.where(p > 0, p / r, 0.0)
        delta = (X * coef) @ V
        mc = float(((delta - p @ V) ** 2).sum(1).mean())
    b6 = float(scale * factor_eq6(r, p))
    b7 = float(scale * factor_eq7(r, p))
    return VarianceComparison(
        exact=exact,
        monte_carlo=mc,
        bound6=b6,
        bound6_proof=float(scale * factor_eq6_proof(r, p)),
        bound7=b7,
        G2=float(G2),
        E=int(E),
        eta=float(eta),
        holds6=bool(exact <= b6 * (1 + 1e-12) + 1e-15),
        holds7=bool(exact <= b7 * (1 + 1e-12) + 1e-15),
        flags=("eq6: proof gap (proof yields sum p/r without -1)", "eq7: needs non-positively correlated availability"),
    )
