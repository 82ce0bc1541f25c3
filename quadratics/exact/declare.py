"""What an algorithm, a participation pattern, a problem and a measure declare so that the exact path can
score them: the declaration API (the exact path reads nothing else; see docs/plugins.md).

**Setting**: M clients; round r draws client weights q_i >= 0 (client i takes part iff q_i > 0) and
the client features u = (1, q_1..q_M, 1_1..1_M) (1_i = 1{q_i > 0}); the whole algorithm state z (model
x, control variates, an anchor, ...) is a vector of D numbers, centred as e = z - z_ref.

**Declarations**:

* ``Algorithm.linear(problem, aux) -> RoundMap | str``: the round is e' = B(u) e + c(u) + n with
  B(u) = sum_f u_f B_f, c(u) = sum_f u_f c_f and a zero-mean noise n = sum_i (q_i nu_i + 1_i nu'_i),
  independent across clients and rounds, whose per-client covariance blocks E[nu_a nu_b^T] (a, b in
  {q, 1}) are ``noise[i, a, b]``; or a string saying why the round is not affine (then it is simulated).
  ``aux`` is the law's ``aux`` (what the pattern hands the algorithm each round, e.g. static rates).
* ``Pattern.law(M) -> Law | MarkovLaw | PerTrialLaw | str``: the law of u in each round, rounds independent
  (or driven by a Markov chain over participation states, :func:`markov_law`):
  E[u] and E[u u^T] (first- and second-order inclusion probabilities scaled by the weights), which may
  depend on the round through ``key(r)`` with period ``period``; :func:`uniform_law`,
  :func:`bernoulli_law`, :func:`enumerated_law`, :func:`mixture_law`, :func:`cyclic_law` build them.
  A :class:`PerTrialLaw` says rounds are independent only given a per-trial draw.
* ``Problem.affine_gradients() -> AffineGradients | None``: client gradients A_i y + h_i plus noise of
  covariance ``noise_cov`` per local step.
* a measure's ``quadratic(**keywords) -> QuadraticMeasure | str`` (on the measure, or on the function of a
  ``functools.partial`` measure): E[e_x^T Q e_x + c^T e_x + s] with e_x = x - x*, at one round or averaged.

**Why E[u u^T] suffices**: B(u) is affine in u, so E[B(u) (x) B(u)] = sum_{f,g} E[u_f u_g] B_f (x) B_g; a
law gives E[u u^T] as :class:`Pairwise` (same-client 2 x 2 blocks + V W V^T between clients), so for
uniform m-of-M (W one number: the pairwise inclusion probability) the cost grows with M, not M^2.
Coefficients are torch tensors (float64) so that they can be differentiated in the point's parameters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

__all__ = ["AffineGradients", "DiagonalCoefficients", "Law", "MarkovLaw", "Pairwise", "PerTrialLaw", "QuadraticMeasure", "RoundCoefficients",
           "RoundMap", "bernoulli_law", "cyclic_law", "enumerated_law", "fixed_law", "markov_law", "mixture_law",
           "uniform_law"]

U = 2.0**-53


def _gamma(n: int) -> float:
    return n * U / (1 - n * U)


@dataclass(frozen=True)
class AffineGradients:
    """Client i's stochastic gradient at y: A[i] y + h[i] + xi, xi zero-mean with covariance ``noise_cov``
    [d, d] (None: no noise), independent across steps and clients. A [M, d, d], h [M, d] (torch float64)."""

    A: torch.Tensor
    h: torch.Tensor
    noise_cov: torch.Tensor | None


@dataclass(frozen=True)
class RoundCoefficients:
    """One round's affine map: B [F, D, D], c [F, D] over the features f = 0 (constant), 1..M (q_i),
    M+1..2M (1_i); ``noise`` [M, 2, 2, D, D] per-client covariance blocks (None: noiseless); ``scale``: the
    magnitude of the numbers the coefficients were computed from (their rounding is ``terms`` units of
    roundoff relative to it); ``structural_zeros``: a feature whose B and c are all exactly 0 is 0 by
    construction (no rounding to bound there; a probed map cannot say so)."""

    B: torch.Tensor
    c: torch.Tensor
    noise: torch.Tensor | None
    scale: float
    terms: int
    structural_zeros: bool = False


@dataclass(frozen=True)
class DiagonalCoefficients:
    """One round's affine map where every coefficient is diagonal: the diagonals B [F, D] and c [F, D] over the
    features of :class:`RoundCoefficients`, per-client noise variances ``noise`` [M, 2, 2, D] (the diagonals of
    its blocks; None: noiseless); ``scale``, ``terms``, ``structural_zeros`` as there."""

    B: torch.Tensor
    c: torch.Tensor
    noise: torch.Tensor | None
    scale: float
    terms: int
    structural_zeros: bool = False


@dataclass(frozen=True)
class RoundMap:
    """An algorithm's declared round: state ``layout`` ((block name, size), ...; a block named ``"x"`` holds
    the model), initial state ``z0`` [D], centre ``z_ref`` [D] (e = z - z_ref), and ``coefficients(r)``.
    Rounds with equal ``phase(r)`` have equal coefficients; ``phase`` has period ``period`` (None: every round
    differs, e.g. a step schedule)."""

    layout: tuple[tuple[str, int], ...]
    z0: torch.Tensor
    z_ref: torch.Tensor
    coefficients: Callable[[int], RoundCoefficients]
    phase: Callable[[int], Hashable] = field(default=lambda r: 0)
    period: int | None = 1
    describe: str = ""
    #: optional: the same round declared coordinate by coordinate (state ``x`` only; every B_f and noise block
    #: diagonal), read by :mod:`quadratics.exact.diagonal` after checking it against the engine's own round
    diagonal: Callable[[int], DiagonalCoefficients] | None = None

    @property
    def D(self) -> int:
        return int(sum(n for _, n in self.layout))

    def block(self, name: str) -> slice:
        start = 0
        for key, n in self.layout:
            if key == name:
                return slice(start, start + n)
            start += n
        raise KeyError(name)


@dataclass(frozen=True)
class Pairwise:
    """E[u u^T] over the 2M client features (order q_1..q_M, 1_1..1_M): between clients i != j it is
    (V W V^T)[f, g]; for the same client the 2 x 2 block ``same[i]`` (rows/columns q_i, 1_i).
    V [2M, r], W [r, r], same [M, 2, 2] (numpy float64)."""

    same: np.ndarray
    V: np.ndarray
    W: np.ndarray

    @property
    def M(self) -> int:
        return int(self.same.shape[0])

    def _own(self, i: np.ndarray) -> np.ndarray:
        """(V W V^T) restricted to each client's own 2 x 2 block [M, 2, 2]."""
        M = self.M
        R = np.stack([self.V[:M], self.V[M:]], 1)  # [M, 2, r]
        return np.einsum("iar,rs,ibs->iab", R, self.W, R)

    def apply(self, X: np.ndarray) -> np.ndarray:
        """E[u u^T] @ X for X [2M, ...] (O(M r) per column, never the 2M x 2M matrix)."""
        from .moments import _mm  # (one torch thread for large products: OpenBLAS's threads stall on a loaded machine)

        M = self.M
        flat = X.reshape(2 * M, -1)
        out = _mm(self.V, _mm(self.W, _mm(np.ascontiguousarray(self.V.T), flat)))
        delta = self.same - self._own(np.arange(M))  # [M, 2, 2]
        top, bot = flat[:M], flat[M:]  # each client's own 2 x 2 block, written out: the same two-term sums as
        # an einsum over a stacked [M, 2, k] copy (bitwise), without the copy (a third of apply's time at M = 1,000)
        out[:M] += delta[:, 0, 0, None] * top + delta[:, 0, 1, None] * bot
        out[M:] += delta[:, 1, 0, None] * top + delta[:, 1, 1, None] * bot
        return out.reshape(X.shape)

    def dense(self) -> np.ndarray:
        return self.apply(np.eye(2 * self.M))

    def abs(self) -> Pairwise:
        """An entrywise upper bound of ``|E[u u^T]|`` in the same form."""
        own = np.abs(self._own(np.arange(self.M)))
        return Pairwise(np.maximum(np.abs(self.same), own), np.abs(self.V), np.abs(self.W))

    def scaled(self, s: float) -> Pairwise:
        return Pairwise(self.same * s, self.V, self.W * s)

    @staticmethod
    def from_dense(Euu: np.ndarray) -> Pairwise:
        M = Euu.shape[0] // 2
        i = np.arange(M)
        same = np.stack([np.stack([Euu[i, i], Euu[i, M + i]], 1), np.stack([Euu[M + i, i], Euu[M + i, M + i]], 1)], 1)
        return Pairwise(same, np.eye(2 * M), np.asarray(Euu, dtype=float))


Moments = tuple[np.ndarray, Pairwise]


@dataclass(frozen=True)
class Law:
    """A participation law: round r's features have mean ``moments(key(r))[0]`` [2M] and second moment
    ``moments(key(r))[1]`` (:class:`Pairwise`), rounds independent; ``key`` has period ``period``; ``aux``:
    the constant per-round ``aux`` the pattern hands the algorithm; ``rel_err``: relative rounding bound of
    the moments; ``describe``: one line for records."""

    M: int
    moments: Callable[[Hashable], Moments]
    key: Callable[[int], Hashable] = field(default=lambda r: 0)
    period: int = 1
    aux: dict = field(default_factory=dict)
    rel_err: float = _gamma(8)
    describe: str = ""


@dataclass(frozen=True)
class MarkovLaw:
    """Participation driven by a Markov chain over C states (e.g. availability sets): c_0 ~ ``initial``,
    c_{r+1} ~ ``transition[c_r]``; given c_r, round r's features are drawn afresh from ``laws[c_r]``.
    **Why it stays exact**: with w_r(c) = E[v_r 1{c_r = c}] (v the moment vector), w_{r+1}(c') =
    sum_c transition[c, c'] T_c w_r(c), T_c the moment matrix of a round under ``laws[c]``: one linear
    recursion of C times the order."""

    transition: np.ndarray
    laws: tuple[Law, ...]
    initial: np.ndarray
    describe: str = ""

    def __post_init__(self) -> None:
        P, p0 = np.asarray(self.transition, dtype=float), np.asarray(self.initial, dtype=float)
        C = len(self.laws)
        if P.shape != (C, C) or p0.shape != (C,):
            raise ValueError(f"a Markov law over {C} states needs a {C} x {C} transition matrix and {C} initial "
                             f"probabilities (got {P.shape} and {p0.shape})")
        if (P < 0).any() or (p0 < 0).any() or np.abs(P.sum(1) - 1).max() > 1e-12 or abs(p0.sum() - 1) > 1e-12:
            raise ValueError("transition rows and initial probabilities must be non-negative and sum to 1")
        if len({law.M for law in self.laws}) != 1:
            raise ValueError("every state's law must be over the same M clients")

    @property
    def M(self) -> int:
        return self.laws[0].M

    @property
    def period(self) -> int:
        return math.lcm(*(law.period for law in self.laws))

    def key(self, r: int) -> Hashable:
        return tuple(law.key(r) for law in self.laws)

    @property
    def aux(self) -> dict:
        out: dict = {}
        for law in self.laws:
            out.update(law.aux)
        return out

    @property
    def rel_err(self) -> float:
        return max(law.rel_err for law in self.laws)


def markov_law(transition: Any, laws: Sequence[Law], initial: Any, describe: str = "") -> MarkovLaw:
    """A Markov chain over ``len(laws)`` states with the given transition matrix and initial distribution."""
    return MarkovLaw(np.asarray(transition, dtype=float), tuple(laws), np.asarray(initial, dtype=float),
                     describe or f"Markov chain over {len(laws)} participation states")


@dataclass(frozen=True)
class PerTrialLaw:
    """Rounds independent only given a per-trial draw (propensities drawn once per trial): ``laws(trials,
    seed) -> [Law per trial] | str`` (the engine's own draw for that seed); ``why`` says why no single law
    describes the rounds."""

    laws: Callable[[int, int], list[Law] | str]
    why: str


@dataclass(frozen=True)
class QuadraticMeasure:
    """A measure as a quadratic form of the model: E[e^T Q e + c^T e + s] with e = x_r - x*, at round
    ``first`` (``kind="final"``, first = last) or averaged over rounds first..last (``kind="mean"``);
    ``form(problem) -> (Q [d, d], c [d], s)`` (numpy or torch)."""

    kind: str
    first: int
    last: int
    form: Callable[[Any], tuple[Any, Any, float]]
    describe: str


def fixed_law(M: int, mean: np.ndarray, pairs: Pairwise, describe: str, rel_err: float = _gamma(8),
              aux: dict | None = None) -> Law:
    """The same law every round."""
    mom = (np.asarray(mean, dtype=float), pairs)
    return Law(M, lambda key: mom, aux=dict(aux or {}), rel_err=rel_err, describe=describe)


def _alpha(weight: float) -> np.ndarray:
    return np.array([weight, 1.0])


def uniform_law(M: int, m: int, pool: Sequence[int] | np.ndarray | None = None, weight: float | None = None) -> Law:
    """m distinct clients drawn uniformly from ``pool`` (default: all M), each with weight ``weight``
    (default 1/m): inclusion probability m/|pool|, pairwise m(m-1)/(|pool|(|pool|-1)) (one number)."""
    return fixed_law(M, *uniform_moments(M, m, pool, weight), f"uniform {m} of {M if pool is None else len(pool)}")


def uniform_moments(M: int, m: int, pool: Sequence[int] | np.ndarray | None = None,
                    weight: float | None = None) -> Moments:
    on = np.zeros(M)
    on[np.arange(M) if pool is None else np.asarray(pool, dtype=int)] = 1.0
    a = int(on.sum())
    if not 0 <= m <= a:
        raise ValueError(f"cannot draw m={m} of {a} clients")
    if m == 0:
        return np.zeros(2 * M), Pairwise(np.zeros((M, 2, 2)), np.zeros((2 * M, 1)), np.zeros((1, 1)))
    w = 1.0 / m if weight is None else float(weight)
    p1 = m / a
    p2 = m * (m - 1) / (a * (a - 1)) if a > 1 else 0.0
    al = _alpha(w)
    same = on[:, None, None] * p1 * np.outer(al, al)[None]
    V = np.concatenate([on * w, on])[:, None]
    return np.concatenate([on * w * p1, on * p1]), Pairwise(same, V, np.array([[p2]]))


def bernoulli_law(probs: Sequence[float] | np.ndarray, weights: Sequence[float] | np.ndarray) -> Law:
    """Client i takes part independently with probability probs[i], with weight weights[i]."""
    p, w = np.asarray(probs, dtype=float), np.asarray(weights, dtype=float)
    M = p.size
    same = p[:, None, None] * np.stack([np.stack([w * w, w], 1), np.stack([w, np.ones(M)], 1)], 1)
    V = np.concatenate([p * w, p])[:, None]
    return fixed_law(M, V[:, 0].copy(), Pairwise(same, V, np.ones((1, 1))), f"Bernoulli participation of {M}")


def enumerated_law(q_rows: np.ndarray, probs: np.ndarray, aux: dict | None = None, describe: str = "") -> Law:
    """Finitely many weight vectors q_rows [C, M] with probabilities probs [C] (summing to 1)."""
    q = np.asarray(q_rows, dtype=float)
    pr = np.asarray(probs, dtype=float)
    M = q.shape[1]
    Uf = np.concatenate([q, (q > 0).astype(float)], 1)  # [C, 2M]
    same = np.einsum("c,cai,cbi->iab", pr, np.stack([q, (q > 0).astype(float)], 1),
                     np.stack([q, (q > 0).astype(float)], 1))
    return fixed_law(M, pr @ Uf, Pairwise(same, Uf.T, np.diag(pr)),
                     describe or f"{pr.size} configurations", _gamma(pr.size + 4), aux)


def mix_moments(parts: Sequence[tuple[float, Moments]]) -> Moments:
    mean = sum(w * m for w, (m, _) in parts)
    same = sum(w * p.same for w, (_, p) in parts)
    V = np.concatenate([p.V for _, (_, p) in parts], 1)
    blocks = [w * p.W for w, (_, p) in parts]
    W = np.zeros((V.shape[1], V.shape[1]))
    at = 0
    for b in blocks:
        W[at:at + b.shape[0], at:at + b.shape[0]] = b
        at += b.shape[0]
    return np.asarray(mean), Pairwise(np.asarray(same), V, W)


def mixture_law(parts: Sequence[tuple[float, Law]], describe: str = "") -> Law:
    """Each round, independently, law k with probability w_k (the weights sum to 1)."""
    laws = [law for _, law in parts]
    period = math.lcm(*(law.period for law in laws))
    aux: dict = {}
    for law in laws:
        aux.update(law.aux)

    def moments(key: Any) -> Moments:
        return mix_moments([(w, law.moments(k)) for (w, law), k in zip(parts, key)])

    return Law(laws[0].M, moments, lambda r: tuple(law.key(r) for law in laws), period, aux,
               max(law.rel_err for law in laws) + _gamma(2 * len(laws)),
               describe or " or ".join(f"{w:g}: {law.describe}" for w, law in parts))


def cyclic_law(laws: Sequence[Law], length: int = 1, describe: str = "") -> Law:
    """Round r follows laws[(r // length) mod len(laws)] (cyclic groups; period len(laws) * length); each
    of ``laws`` must be the same every round."""
    period = len(laws) * int(length)
    return Law(laws[0].M, lambda j: laws[int(j)].moments(0), lambda r: (r % period) // int(length),  # type: ignore[call-overload]
               period,
               {}, max(law.rel_err for law in laws), describe or f"cyclic over {len(laws)} laws, {length} rounds each")
