"""Participation driven by an availability model of ``rate_region`` with F3AST or naive selection.

**Setting** (F3AST A1, Section IV): each round the model yields the available set A_t (per trial,
a Markov/periodic stream started in stationarity); the server selects at most K_t clients
(``S`` if given, else the model's cap) — F3AST greedy (eq. 4, pre-update rates, ties lowest
index) or naive (p-proportional without replacement) — and every trial tracks the rates
r(t+1) = (1 - beta) r(t) + beta 1_{S_t} (eq. 5) from r(0) = min(1, K/M).
**Quantity**: weights q = 1/|S_t| on selected clients (0 when nobody is available); ``aux["rates"]``
carries r_k(t) after the update (F3AST Algorithm 1 line 9, the literal "post" reading) or before
it (``rates="pre"``) for the :func:`quadratics.local_methods.f3ast` aggregation p_k / r_k(t).
p = the problem's objective weights (uniform 1/M here), not the model's data weights.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

from bounds.core import seeds
from bounds.core.errors import UserInputError, unknown

from . import guarantees as grt
from .participation import Pattern, rng_for
from .problem import check_count

SELECTIONS = ("f3ast", "naive")
CHUNK = 256


class AvailabilityState(NamedTuple):
    stream: Iterator[np.ndarray]
    buffer: np.ndarray      # [T, chunk, M] availability not yet used
    used: int
    rates: np.ndarray       # [T, M] r(t)
    rng: np.random.Generator  # naive selection and random caps


def availability(model: str, M: int, S: int | None = None, selection: str = "f3ast", beta: float = 1e-3,
                 objective: str = "p2", rates: str = "post", model_seed: int = 0) -> Pattern:
    """Availability-driven pattern; ``model`` is a name of ``rate_region.models.MODEL_NAMES``."""
    from rate_region.availability import make_cap
    from rate_region.models import named_model
    from rate_region.sampler import f3ast_select, naive_select, update_rates

    M = check_count("M", M)
    if selection not in SELECTIONS:
        raise unknown("selection", selection, SELECTIONS)
    if rates not in ("post", "pre"):
        raise unknown("rates reading", rates, ("post", "pre"))
    if not 0 < beta <= 1:
        raise UserInputError(f"beta={beta} must lie in (0, 1]")
    av = named_model(model, clients=M, seed=model_seed)
    if av.n_clients != M:
        raise UserInputError(f"availability model {model!r} has {av.n_clients} clients but the problem has M={M}")
    cap = make_cap(S) if S is not None else av.cap
    p = np.full(M, 1.0 / M)
    r0 = min(1.0, cap.kmax / M)

    def init(trials: int, seed: int) -> AvailabilityState:
        rng = seeds.rng(int(seed), "pattern", 7)
        stream = av.stream(rng, trials, CHUNK)
        return AvailabilityState(stream, np.zeros((trials, 0, M), bool), 0, np.full((trials, M), r0),
                                 seeds.rng(int(seed), "pattern", 8))

    def draw(state: AvailabilityState, r: int) -> tuple[np.ndarray, dict, AvailabilityState]:
        buffer, used = state.buffer, state.used
        if used >= buffer.shape[1]:
            buffer, used = np.asarray(next(state.stream), bool), 0
        avail = buffer[:, used]
        trials = avail.shape[0]
        k = cap.values[0] if cap.is_fixed else state.rng.choice(np.asarray(cap.values), size=trials, p=np.asarray(cap.probs))
        if selection == "f3ast":
            sel = f3ast_select(avail, state.rates, p, k, objective=objective)
        else:
            sel = naive_select(avail, p, k, state.rng)
        new_rates = update_rates(state.rates, sel, beta)
        size = sel.sum(1, keepdims=True)
        q = np.where(sel, 1.0 / np.maximum(size, 1), 0.0)
        aux: dict[str, Any] = {"rates": new_rates if rates == "post" else state.rates, "p": p[None, :],
                               "available": avail}
        return q, aux, state._replace(buffer=buffer, used=used + 1, rates=new_rates)

    constants = {"model": model, "selection": selection, "beta": beta, "objective": objective,
                 "cap": list(cap.values), "rates": rates, "P": None, "p_min": None,
                 "marginals": [float(v) for v in np.asarray(av.marginals())]}
    def law(n: int) -> Any:
        from .exact.laws import availability_law

        return availability_law(av, cap, M, model, selection)

    return Pattern(f"availability:{model}", M, constants, init, draw, law=law)


class _StaticState(NamedTuple):
    seed: int
    trials: int


def static_policy(subsets: np.ndarray, probs: np.ndarray, p: np.ndarray | None = None) -> Pattern:
    """Selection by a fixed static policy f^r (F3AST Def. III.1) with i.i.d. configurations.

    **Setting** (F3AST Lemma B.1 / Theorem III.5): each round, independently, the selected set S is
    subsets[c] with probability probs[c] (the policy's selection law, e.g.
    ``rate_region.policy.priority_policy(...).selection_law()``); its rate is known exactly,
    r_k = sum_c probs[c] 1{k in subsets[c]}.
    **Quantity**: weights q = 1/|S| on the selected clients (0 if S is empty); ``aux["rates"]`` = the
    true r and ``aux["p"]`` = p, so :func:`quadratics.local_methods.f3ast` aggregates with p_k / r_k.
    Args: subsets [C, M] 0/1 rows; probs [C] >= 0 (normalised here); p: objective weights (default 1/M).
    """
    X = np.asarray(subsets, dtype=float)
    law = np.asarray(probs, dtype=float).reshape(-1)
    if X.ndim != 2 or X.shape[0] != law.size or not np.all((X == 0) | (X == 1)):
        raise UserInputError("static policy: subsets must be a [C, M] 0/1 array with one probability per row")
    if not (np.all(law >= 0) and np.isfinite(law).all() and law.sum() > 0):
        raise UserInputError("static policy: probabilities must be non-negative with a positive sum")
    law = law / law.sum()
    M = X.shape[1]
    rates = law @ X
    if np.any(rates <= 0):
        raise UserInputError(f"static policy never selects clients {np.flatnonzero(rates <= 0).tolist()}: "
                             "every rate r_k must be positive for the weights p_k / r_k")
    pw = np.full(M, 1.0 / M) if p is None else np.asarray(p, dtype=float).reshape(-1)
    if pw.shape != (M,) or np.any(pw < 0) or not np.isclose(pw.sum(), 1.0):
        raise UserInputError(f"static policy: p must be {M} non-negative weights summing to 1")
    q_rows = np.where(X > 0, 1.0 / np.maximum(X.sum(1, keepdims=True), 1), 0.0)
    aux = {"rates": rates[None, :], "p": pw[None, :]}

    def weights(seed: int, r: int, trials: int) -> np.ndarray:
        return q_rows[rng_for(seed, 61, r).choice(law.size, size=trials, p=law)]

    def init(trials: int, seed: int) -> _StaticState:
        return _StaticState(int(seed), trials)

    def draw(state: _StaticState, r: int) -> tuple[np.ndarray, dict, _StaticState]:
        return weights(state.seed, r, state.trials), dict(aux), state

    constants = {"rates": rates.tolist(), "p": pw.tolist(), "configurations": int(law.size), "P": None,
                 "p_min": None}
    def declared(n: int) -> Any:
        from .exact.declare import enumerated_law

        return enumerated_law(q_rows, law, dict(aux), f"static policy over {len(law)} configurations")

    return Pattern("static-policy", M, constants, init, draw, None, weights, {
        "static-rate": grt.static_rate(rates),
        "full": grt.full(bool(np.all(rates >= 1.0)), f"a static policy with rates in [{rates.min():.3g}, {rates.max():.3g}]"),
    }, declared)
