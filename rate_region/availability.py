"""Availability models and communication caps (F3AST Assumption 1, Section IV models).

**Setting**: N clients; in round t the available set A_t is random; the server may select at most
K_t of them (fixed k, or a random cap with a given law, independent of A_t). The configuration
C_t = {S subset of A_t : |S| <= K_t}.
**Quantity**: each model samples A_t (``sample``) and states its stationary law of A_t, either as an
explicit table of sets (``explicit_law``) or, for product laws, as a *rank-one mixture*
Pr(client i available | phase j) = f_j q_i with phase probabilities w_j (``rank_one_blocks``).
**Statement**: F3AST Assumption 1 (irreducible Markov chain on configurations, stationary law pi);
Section IV / Appendix C-B models (Scarce, Home-devices, Smartphones, Uneven, Always).
**Notation**: paper q_k -> ``q``; f_t -> ``f``; K_t -> ``Cap`` (:mod:`rate_region.caps`, re-exported here).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from bounds.core.errors import UserInputError
from rate_region.caps import PROB_TOL, Cap, _check_q, check_probabilities, make_cap  # noqa: F401 (PROB_TOL: re-exported)


@dataclass(frozen=True)
class RankOneBlock:
    """Clients ``index`` with Pr(i available | phase j) = f[j] q[i], phase j w.p. w[j], independent given j."""

    index: np.ndarray
    q: np.ndarray
    w: np.ndarray
    f: np.ndarray

    def marginals(self) -> np.ndarray:
        return float(self.w @ self.f) * self.q


# Models
class AvailabilityModel:
    """Base: ``n_clients``, ``cap``, ``weights`` (default p), ``sample``; stationary law accessors."""

    name: str = "model"
    n_clients: int
    cap: Cap
    weights: np.ndarray

    def stream(self, rng: np.random.Generator, runs: int, chunk: int, t0: int | None = None) -> Iterator[np.ndarray]:
        """Successive availability blocks [runs, chunk, N]; t0 fixes the first round index of periodic models
        (None: a uniformly random phase per run, i.e. started in stationarity)."""
        raise NotImplementedError

    def sample(self, rng: np.random.Generator, rounds: int, runs: int, *, t0: int | None = None) -> np.ndarray:
        """Availability [runs, rounds, N] (bool), runs independent, started in stationarity (or at round t0)."""
        it = self.stream(rng, runs, max(int(rounds), 1), t0)
        return next(it)[:, :rounds]

    def marginals(self) -> np.ndarray:
        """Stationary Pr(client i available)."""
        raise NotImplementedError

    def rank_one_blocks(self) -> list[RankOneBlock] | None:
        """Direct-sum decomposition into rank-one product mixtures, or None."""
        return None

    def explicit_law(self, max_states: int = 1 << 16) -> tuple[np.ndarray, np.ndarray] | None:
        """Stationary law as (sets [M, N] bool, probs [M]), or None when too large."""
        return None

    def describe(self) -> dict:
        return {"name": self.name, "n_clients": self.n_clients, "cap": self.cap.to_dict()}

    def covariance(self, max_states: int = 1 << 16) -> np.ndarray | None:
        """Stationary covariance of the availability indicators [N, N] (None when the law is too large).

        What F3AST eq. (7) assumes away: Cov(A_i, A_j) <= 0 for i != j (uncorrelated or negatively
        correlated availability).

        >>> from rate_region.models import named_model
        >>> float(named_model("uneven", clients=3).covariance()[0, 1]) == 0.0  # independent clients
        True
        """
        law = self.explicit_law(max_states)
        if law is None:
            return None
        sets, probs = np.asarray(law[0], float), np.asarray(law[1], float)
        mean = probs @ sets
        return (sets * probs[:, None]).T @ sets - np.outer(mean, mean)

    def uncorrelated(self) -> tuple[bool | None, str]:
        """(verdict, reason) on "availability uncorrelated or negatively correlated": every Cov(A_i, A_j) <= 0
        for i != j (to 1e-12), or None when the law is too large to compute."""
        cov = self.covariance()
        if cov is None:
            return None, f"the availability law of model {self.name} is too large to compute its covariance"
        worst = float((cov - np.diag(np.diag(cov))).max()) if cov.shape[0] > 1 else 0.0
        return worst <= 1e-12, (f"largest availability covariance between two clients of model {self.name}: "
                                f"{worst:.3g} (needs <= 0)")


def _default_weights(n: int, weights) -> np.ndarray:
    if weights is None:
        return np.full(n, 1.0 / n)
    p = np.asarray(weights, dtype=float)
    if p.shape != (n,):
        raise UserInputError(f"weights p have {p.size} entries but the model has {n} clients")
    return check_probabilities(p, "weights p")


def _all_sets(n: int) -> np.ndarray:
    codes = np.arange(1 << n)
    return ((codes[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)


def _mixture_law(blocks: list[RankOneBlock], n: int, max_states: int):
    if n > 22 or (1 << n) > max_states:
        return None
    sets = _all_sets(n)
    probs = np.ones(len(sets))
    for b in blocks:
        a = sets[:, b.index]  # [M, nb]
        mix = np.zeros(len(sets))
        for wj, fj in zip(b.w, b.f):  # one phase at a time keeps memory at [M, nb]
            pj = fj * b.q
            mix += wj * np.where(a, pj, 1.0 - pj).prod(-1)
        probs *= mix
    keep = probs > 0
    return sets[keep], probs[keep] / probs[keep].sum()


@dataclass(frozen=True, eq=False)
class JointTable(AvailabilityModel):
    """Explicit i.i.d.-in-time law over availability sets (like F3AST Table I)."""

    sets: np.ndarray
    probs: np.ndarray
    cap: Cap
    weights: np.ndarray
    name: str = "table"

    @staticmethod
    def build(sets, probs, cap, weights=None, name="table") -> JointTable:
        sets = np.asarray(sets)
        if sets.ndim != 2 or sets.shape[0] == 0:
            raise UserInputError("table sets must be a non-empty list of 0/1 rows, one entry per client")
        if not np.isin(sets, (0, 1)).all():
            raise UserInputError("table sets must contain only 0 and 1 (1 = available)")
        probs = np.asarray(probs, dtype=float)
        if probs.shape != (sets.shape[0],):
            raise UserInputError(f"table has {sets.shape[0]} sets but {probs.size} probabilities")
        probs = check_probabilities(probs, "availability table")
        n = sets.shape[1]
        return JointTable(sets.astype(bool), probs, make_cap(cap), _default_weights(n, weights), name)

    @property
    def n_clients(self) -> int:  # type: ignore[override]
        return self.sets.shape[1]

    def stream(self, rng, runs, chunk, t0=None):
        while True:
            idx = rng.choice(len(self.probs), size=(runs, chunk), p=self.probs)
            yield self.sets[idx]

    def marginals(self):
        return self.probs @ self.sets

    def explicit_law(self, max_states: int = 1 << 16):
        keep = self.probs > 0
        return self.sets[keep], self.probs[keep]

    def rank_one_blocks(self):
        # an exact product law is recognised so the scalable method also applies (Table I is one)
        n = self.n_clients
        if n > 14:
            return None
        q = self.marginals()
        law = _mixture_law([RankOneBlock(np.arange(n), q, np.ones(1), np.ones(1))], n, 1 << 20)
        dense = np.zeros(1 << n)
        codes = self.sets.astype(np.int64) @ (1 << np.arange(n))
        np.add.at(dense, codes, self.probs)
        ref = np.zeros(1 << n)
        ref[law[0].astype(np.int64) @ (1 << np.arange(n))] = law[1]
        if np.max(np.abs(dense - ref)) <= 1e-12:
            return [RankOneBlock(np.arange(n), q, np.ones(1), np.ones(1))]
        return None


@dataclass(frozen=True, eq=False)
class Independent(AvailabilityModel):
    """Client i available w.p. q_i, independently across clients and rounds (Scarce, Home-devices, Uneven)."""

    q: np.ndarray
    cap: Cap
    weights: np.ndarray
    name: str = "independent"

    @staticmethod
    def build(q, cap, weights=None, name="independent") -> Independent:
        q = _check_q(q)
        return Independent(q, make_cap(cap), _default_weights(q.size, weights), name)

    @property
    def n_clients(self) -> int:  # type: ignore[override]
        return self.q.size

    def stream(self, rng, runs, chunk, t0=None):
        while True:
            yield rng.random((runs, chunk, self.q.size)) < self.q

    def marginals(self):
        return self.q.copy()

    def rank_one_blocks(self):
        return [RankOneBlock(np.arange(self.q.size), self.q, np.ones(1), np.ones(1))]

    def explicit_law(self, max_states: int = 1 << 16):
        return _mixture_law(self.rank_one_blocks(), self.q.size, max_states)


@dataclass(frozen=True, eq=False)
class Periodic(AvailabilityModel):
    """q_{i,t} = f_{phase(t)} q_i with phase(t) = t mod P (Smartphones: f over 24 phases).

    The round index is drawn uniformly at the start of each run, so the process is stationary and the
    stationary law of A_t is the uniform mixture over phases (Assumption 1 on the chain (phase, A)).
    """

    q: np.ndarray
    f: np.ndarray
    cap: Cap
    weights: np.ndarray
    name: str = "periodic"

    @staticmethod
    def build(q, f, cap, weights=None, name="periodic") -> Periodic:
        q = _check_q(q)
        f = _check_q(f, "f (phase multipliers)")
        return Periodic(q, f, make_cap(cap), _default_weights(q.size, weights), name)

    @property
    def n_clients(self) -> int:  # type: ignore[override]
        return self.q.size

    def stream(self, rng, runs, chunk, t0=None):
        # round t uses f[t mod P], i.e. the spec's j = (t mod 24) + 1 with f listed for j = 1..24
        phase = rng.integers(0, self.f.size, size=runs) if t0 is None else np.full(runs, int(t0) % self.f.size)
        while True:
            t = (phase[:, None] + np.arange(chunk)[None, :]) % self.f.size
            prob = self.f[t][:, :, None] * self.q[None, None, :]
            yield rng.random((runs, chunk, self.q.size)) < prob
            phase = (phase + chunk) % self.f.size

    def marginals(self):
        return self.f.mean() * self.q

    def rank_one_blocks(self):
        P = self.f.size
        return [RankOneBlock(np.arange(self.q.size), self.q, np.full(P, 1.0 / P), self.f)]

    def explicit_law(self, max_states: int = 1 << 16):
        return _mixture_law(self.rank_one_blocks(), self.q.size, max_states)


@dataclass(frozen=True, eq=False)
class CyclicGroups(AvailabilityModel):
    """Clients in G groups; in round t only group (t mod G) may be available, each member w.p. q_i."""

    groups: np.ndarray  # group id per client
    q: np.ndarray
    cap: Cap
    weights: np.ndarray
    name: str = "cyclic"

    @staticmethod
    def build(groups, cap, q=None, weights=None, name="cyclic") -> CyclicGroups:
        groups = np.asarray(groups)
        if groups.ndim != 1 or groups.size == 0 or not np.issubdtype(groups.dtype, np.integer) or groups.min() < 0:
            raise UserInputError("groups must list a non-negative integer group id for each client")
        _, groups = np.unique(groups, return_inverse=True)
        q = np.ones(groups.size) if q is None else _check_q(q)
        if q.size != groups.size:
            raise UserInputError(f"q has {q.size} entries but groups has {groups.size}")
        return CyclicGroups(groups, q, make_cap(cap), _default_weights(groups.size, weights), name)

    @property
    def n_clients(self) -> int:  # type: ignore[override]
        return self.groups.size

    @property
    def n_groups(self) -> int:
        return int(self.groups.max()) + 1

    def stream(self, rng, runs, chunk, t0=None):
        G = self.n_groups
        phase = rng.integers(0, G, size=runs) if t0 is None else np.full(runs, int(t0) % G)
        while True:
            t = (phase[:, None] + np.arange(chunk)[None, :]) % G
            on = t[:, :, None] == self.groups[None, None, :]
            yield on & (rng.random((runs, chunk, self.groups.size)) < self.q)
            phase = (phase + chunk) % G

    def marginals(self):
        return self.q / self.n_groups

    def rank_one_blocks(self):
        # only one group is present per round, so the rank function is a direct sum over groups
        G = self.n_groups
        w = np.array([1.0 / G, 1.0 - 1.0 / G])
        f = np.array([1.0, 0.0])
        return [RankOneBlock(np.flatnonzero(self.groups == g), self.q[self.groups == g], w, f) for g in range(G)]

    def explicit_law(self, max_states: int = 1 << 16):
        n = self.n_clients
        if n > 22 or (1 << n) > max_states:
            return None
        sets = _all_sets(n)
        probs = np.zeros(len(sets))
        for g in range(self.n_groups):
            inside = self.groups == g
            ok = ~sets[:, ~inside].any(1)
            a = sets[:, inside]
            qg = self.q[inside]
            probs += ok * np.where(a, qg, 1 - qg).prod(1) / self.n_groups
        keep = probs > 0
        return sets[keep], probs[keep] / probs[keep].sum()


@dataclass(frozen=True, eq=False)
class MarkovChain(AvailabilityModel):
    """A_t a Markov chain over explicit availability sets with transition matrix P (Assumption 1)."""

    states: np.ndarray
    transition: np.ndarray
    stationary: np.ndarray
    cap: Cap
    weights: np.ndarray
    name: str = "markov"

    @staticmethod
    def build(states, transition, cap, weights=None, name="markov") -> MarkovChain:
        states = np.asarray(states)
        if states.ndim != 2 or states.shape[0] == 0 or not np.isin(states, (0, 1)).all():
            raise UserInputError("markov states must be a non-empty list of 0/1 rows, one entry per client")
        P = np.asarray(transition, dtype=float)
        M = states.shape[0]
        if P.shape != (M, M):
            raise UserInputError(f"transition matrix must be {M}x{M} (one row and column per state), got {P.shape}")
        for i in range(M):
            check_probabilities(P[i], "transition matrix", row=i)
        P = P / P.sum(1, keepdims=True)
        check_irreducible(P)
        pi = stationary_distribution(P)
        n = states.shape[1]
        return MarkovChain(states.astype(bool), P, pi, make_cap(cap), _default_weights(n, weights), name)

    @property
    def n_clients(self) -> int:  # type: ignore[override]
        return self.states.shape[1]

    def stream(self, rng, runs, chunk, t0=None):
        cum = np.cumsum(self.transition, axis=1)
        cum[:, -1] = 1.0
        s = rng.choice(len(self.stationary), size=runs, p=self.stationary)
        while True:
            out = np.empty((runs, chunk), dtype=np.int64)
            u = rng.random((runs, chunk))
            for t in range(chunk):  # a chain is sequential in time; vectorised over runs
                out[:, t] = s
                s = (cum[s] < u[:, t][:, None]).sum(1)
            yield self.states[out]

    def marginals(self):
        return self.stationary @ self.states

    def explicit_law(self, max_states: int = 1 << 16):
        # merge duplicate states: the region depends only on the stationary law of A_t
        codes = self.states.astype(np.int64) @ (1 << np.arange(self.n_clients, dtype=np.int64)) if self.n_clients < 62 else None
        if codes is None:
            return self.states, self.stationary
        uniq, first, inv = np.unique(codes, return_index=True, return_inverse=True)
        probs = np.zeros(uniq.size)
        np.add.at(probs, inv, self.stationary)
        keep = probs > 0
        return self.states[first][keep], probs[keep]


def check_irreducible(P: np.ndarray) -> None:
    """Raise UserInputError unless the chain with transition matrix P is irreducible."""
    M = P.shape[0]
    reach = (P > 0) | np.eye(M, dtype=bool)
    # transitive closure by repeated squaring (boolean)
    for _ in range(int(np.ceil(np.log2(max(M, 2)))) + 1):
        reach = (reach.astype(np.int64) @ reach.astype(np.int64)) > 0
    if not reach.all():
        i, j = map(int, np.argwhere(~reach)[0])
        raise UserInputError(
            f"the Markov chain is reducible: state {j} cannot be reached from state {i}; "
            "Assumption 1 needs an irreducible chain"
        )


def stationary_distribution(P: np.ndarray) -> np.ndarray:
    """pi with pi P = pi, sum pi = 1 (unique for an irreducible chain)."""
    M = P.shape[0]
    A = np.vstack([P.T - np.eye(M), np.ones((1, M))])
    b = np.zeros(M + 1)
    b[-1] = 1.0
    pi, *_ = np.linalg.lstsq(A, b, rcond=None)
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()
