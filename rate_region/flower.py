"""Flower (flwr 1.41) client selection that does what the theorems assume, and a participation logger.

**Setting**: a Flower server; a client is *available* in a round when it is registered with the
``ClientManager`` (connected); the strategy's ``configure_fit`` picks the round's participants.
**Algorithm**: ``F3ASTStrategy`` (F3AST Algorithm 1, eqs. 4-5 via ``rate_region.sampler``): among the
available clients pick the k with the largest utility w_k / r_k(t)^2, then r(t+1) = (1 - beta) r(t)
+ beta 1_S (beta = 1e-3, the paper's value: over 10 seeds of 2000 rounds on 20 clients it kept every
client within 0.017 of r*, while beta = 1e-2 drifted to 0.029); with ``model`` given, r(0) = r* of that model (``min_variance_rates``), so the realised
rates start where they converge. ``FASTStrategy`` (FAST Algorithm 1, probabilistic variant): with
probability q a snapshot round, m clients uniformly without replacement among the connected clients
(uniform over all M clients when all are connected, as FAST requires; the log shows whether they
were); otherwise the wrapped strategy's own selection (an "arbitrary" round). ``LoggedStrategy``
wraps any Flower strategy and logs its selections. ``ParticipationLogger`` writes the audit's log
format (``rate_region.logs``).
**Statement**: **limit**, F3AST Theorem III.3: realised rates -> r* as beta -> 0.
flwr is imported here only; nothing else in convbound imports this module at start-up.
Install: ``pip install -e ".[flower]"`` (flwr==1.41.0).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from flwr.common import FitIns, Parameters
from flwr.server.client_manager import ClientManager
from flwr.server.client_proxy import ClientProxy
from flwr.server.strategy import FedAvg, Strategy

from bounds.core import seeds
from bounds.core.errors import UserInputError
from rate_region.sampler import f3ast_select, update_rates


class ParticipationLogger:
    """Collects (round, available, selected[, snapshot]) and writes the audit's log format."""

    def __init__(self, client_ids: Sequence[str], weights=None):
        self.client_ids = [str(c) for c in client_ids]
        self._index = {c: i for i, c in enumerate(self.client_ids)}
        self.weights = None if weights is None else np.asarray(weights, dtype=float)
        self._rounds: list[int] = []
        self._avail: list[np.ndarray] = []
        self._sel: list[np.ndarray] = []
        self._snap: list[bool] = []
        self._has_snap = False

    def mask(self, cids) -> np.ndarray:
        m = np.zeros(len(self.client_ids), bool)
        idx = [self._index[c] for c in cids if c in self._index]
        m[idx] = True
        return m

    def record(self, server_round: int, available: np.ndarray, selected: np.ndarray, snapshot: bool | None = None):
        self._rounds.append(int(server_round))
        self._avail.append(np.asarray(available, bool))
        self._sel.append(np.asarray(selected, bool))
        self._snap.append(bool(snapshot))
        self._has_snap |= snapshot is not None

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """(round ids [T], available [T, N], selected [T, N], snapshot [T] or None)."""
        A = np.array(self._avail, dtype=bool).reshape(-1, len(self.client_ids))
        S = np.array(self._sel, dtype=bool).reshape(-1, len(self.client_ids))
        return np.array(self._rounds), A, S, (np.array(self._snap) if self._has_snap else None)

    def write(self, path):
        from rate_region.logs import write_log

        rounds, A, S, snap = self.arrays()
        return write_log(path, A, S, self.weights, snap, rounds, np.array(self.client_ids))


def _selected(client_manager: ClientManager, mask: np.ndarray, client_ids: list[str]) -> list[ClientProxy]:
    avail = client_manager.all()
    return [avail[client_ids[i]] for i in np.flatnonzero(mask)]


class F3ASTStrategy(FedAvg):
    """FedAvg whose fit clients are chosen by F3AST's availability-aware greedy rule (eqs. 4-5)."""

    def __init__(self, client_ids: Sequence[str], k: int, weights=None, beta: float = 1e-3, objective: str = "p2",
                 model=None, r0=None, logger: ParticipationLogger | None = None, **fedavg_kwargs):
        super().__init__(**fedavg_kwargs)
        self.client_ids = [str(c) for c in client_ids]
        N = len(self.client_ids)
        if int(k) < 1:
            raise UserInputError(f"k={k} must be a positive integer")
        if not 0 < beta < 1:
            raise UserInputError(f"beta={beta} must lie in (0, 1)")
        self.k, self.beta, self.objective = int(k), float(beta), objective
        self.p = np.full(N, 1.0 / N) if weights is None else np.asarray(weights, dtype=float)
        self.rstar = None
        if model is not None:
            from rate_region.optimum import min_variance_rates

            self.rstar = min_variance_rates(model, self.k, self.p, objective).r_star
        start = r0 if r0 is not None else (self.rstar if self.rstar is not None else np.full(N, min(1.0, self.k / N)))
        self.rates = np.clip(np.asarray(start, dtype=float), 1e-6, 1.0)
        self.logger = logger

    def configure_fit(self, server_round: int, parameters: Parameters,
                      client_manager: ClientManager) -> list[tuple[ClientProxy, FitIns]]:
        config = self.on_fit_config_fn(server_round) if self.on_fit_config_fn is not None else {}
        avail = np.isin(self.client_ids, list(client_manager.all()))
        sel = f3ast_select(avail[None], self.rates[None], self.p, self.k, self.objective)[0]
        self.rates = update_rates(self.rates, sel, self.beta)
        if self.logger is not None:
            self.logger.record(server_round, avail, sel)
        fit_ins = FitIns(parameters, config)
        return [(c, fit_ins) for c in _selected(client_manager, sel, self.client_ids)]


class FASTStrategy(FedAvg):
    """FedAvg with FAST's snapshot rounds: w.p. q, m clients uniformly; else FedAvg's own sampling."""

    def __init__(self, client_ids: Sequence[str], q: float, m: int, seed: int = 0,
                 logger: ParticipationLogger | None = None, **fedavg_kwargs):
        super().__init__(**fedavg_kwargs)
        if not 0 <= q <= 1:
            raise UserInputError(f"q={q} must lie in [0, 1]")
        self.client_ids = [str(c) for c in client_ids]
        self.q, self.m = float(q), int(m)
        self.rng = seeds.rng(int(seed), "pattern")
        self.logger = logger

    def configure_fit(self, server_round: int, parameters: Parameters,
                      client_manager: ClientManager) -> list[tuple[ClientProxy, FitIns]]:
        avail = np.isin(self.client_ids, list(client_manager.all()))
        snapshot = bool(self.rng.random() < self.q)
        if snapshot:
            config = self.on_fit_config_fn(server_round) if self.on_fit_config_fn is not None else {}
            idx = np.flatnonzero(avail)
            pick = self.rng.choice(idx, size=min(self.m, idx.size), replace=False)
            sel = np.zeros(avail.size, bool)
            sel[pick] = True
            fit_ins = FitIns(parameters, config)
            out = [(c, fit_ins) for c in _selected(client_manager, sel, self.client_ids)]
        else:
            out = super().configure_fit(server_round, parameters, client_manager)
            sel = np.isin(self.client_ids, [c.cid for c, _ in out])
        if self.logger is not None:
            self.logger.record(server_round, avail, sel, snapshot)
        return out


class LoggedStrategy(Strategy):
    """Any Flower strategy, with each round's available and selected clients written to a logger."""

    def __init__(self, strategy: Strategy, logger: ParticipationLogger):
        self.strategy, self.logger = strategy, logger

    def configure_fit(self, server_round, parameters, client_manager):
        avail = self.logger.mask(list(client_manager.all()))
        out = self.strategy.configure_fit(server_round, parameters, client_manager)
        self.logger.record(server_round, avail, self.logger.mask([c.cid for c, _ in out]))
        return out

    def initialize_parameters(self, client_manager):
        return self.strategy.initialize_parameters(client_manager)

    def aggregate_fit(self, server_round, results, failures):
        return self.strategy.aggregate_fit(server_round, results, failures)

    def configure_evaluate(self, server_round, parameters, client_manager):
        return self.strategy.configure_evaluate(server_round, parameters, client_manager)

    def aggregate_evaluate(self, server_round, results, failures):
        return self.strategy.aggregate_evaluate(server_round, results, failures)

    def evaluate(self, server_round, parameters):
        return self.strategy.evaluate(server_round, parameters)


def flower_default_strategy(k: int, **fedavg_kwargs) -> FedAvg:
    """Flower's FedAvg sampling exactly k of the connected clients uniformly (its default sampler), for
    comparisons; ``min_available_clients=1`` so that a round with fewer than k connected does not block."""
    import logging

    logging.getLogger("flwr").setLevel(logging.ERROR)  # FedAvg warns about min_available_clients < k
    return FedAvg(fraction_fit=0.0, min_fit_clients=int(k), min_available_clients=1, **fedavg_kwargs)


class _IdleProxy(ClientProxy):
    """A connected client that is never asked to train (selection-only runs)."""

    def _no(self, *args, **kwargs):
        raise NotImplementedError("selection-only proxy: no training in drive_selection")

    get_properties = get_parameters = fit = evaluate = reconnect = _no  # type: ignore[assignment]


def drive_selection(strategy: Strategy, availability: np.ndarray, client_ids: Sequence[str],
                    client_manager: ClientManager | None = None) -> ClientManager:
    """Flower's own selection path without training: each round, connect exactly the available clients
    (register/unregister with the client manager) and call ``strategy.configure_fit``.

    Rounds with nobody available skip ``configure_fit`` (Flower's ``sample`` would block waiting) and are
    logged as such when the strategy has a logger; Flower's
    client objects are per client, so the registration step is a loop over clients by necessity.
    """
    from flwr.server.client_manager import SimpleClientManager

    cm = client_manager if client_manager is not None else SimpleClientManager()
    ids = [str(c) for c in client_ids]
    proxies = {c: _IdleProxy(c) for c in ids}
    params = Parameters(tensors=[], tensor_type="")
    A = np.asarray(availability, bool)
    connected = np.zeros(len(ids), bool)
    for t in range(A.shape[0]):  # rounds are sequential
        for i in np.flatnonzero(A[t] & ~connected):
            cm.register(proxies[ids[i]])
        for i in np.flatnonzero(~A[t] & connected):
            cm.unregister(proxies[ids[i]])
        connected = A[t].copy()
        if connected.any():
            strategy.configure_fit(t + 1, params, cm)
        elif getattr(strategy, "logger", None) is not None:  # keep the round in the log: nobody available
            lg = strategy.logger  # type: ignore[attr-defined]
            lg.record(t + 1, connected, connected, False if lg._has_snap else None)
    return cm
