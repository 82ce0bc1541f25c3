"""A Flower strategy driven in-process on quadratic clients (the ``flower`` form of the conformance check).

**Setting**: M in-process clients (``ClientProxy`` subclasses registered with Flower's own
``SimpleClientManager``); the strategy under test samples them in ``configure_fit`` and combines their
results in ``aggregate_fit``, round after round, as Flower's server does (a ``None`` aggregate keeps the
model, as there). A client's ``fit`` runs local SGD from the model it receives: ``local_steps`` steps
(config key, default the scenario's K) of size ``lr`` (default eta) on its stochastic gradients, with
FedProx's pull ``proximal_mu`` (y - x) when the config has it (Flower's ``FedProx`` sends it), and returns
its local model with ``num_examples = 1`` (the same for every client: FedAvg as claimed weights clients
equally) and ``metrics = {"data_size": ..., "client": i}``.
**Randomness**: Flower's ``SimpleClientManager.sample`` draws from Python's global ``random``; each trial
seeds it from the check's seed and the trial, and the caller's ``random`` state is restored afterwards.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from bounds.core import seeds
from bounds.core.errors import UserInputError

from .claims import Scenario
from .limits import ROUND_SECONDS, describe_failure, time_limit
from .oracles import DATA_SIZES, affine_clients
from .reference import quantities


def _proxy_class() -> type:
    from flwr.common import Code, FitRes, Status, ndarrays_to_parameters, parameters_to_ndarrays
    from flwr.server.client_proxy import ClientProxy

    class QuadraticClient(ClientProxy):
        """Client i: local SGD on F_i (gradients H_i y + c_i + noise)."""

        def __init__(self, i: int, H: np.ndarray, c: np.ndarray, std: np.ndarray, run: dict):
            super().__init__(str(i))
            self.i, self.H, self.c, self.std, self.run = i, H, c, std, run

        def fit(self, ins: Any, timeout: Any, group_id: Any) -> Any:
            s = self.run["setting"]
            blob = ins.parameters.tensors[0] if ins.parameters.tensors else None
            cached = self.run.get("received")
            if cached is not None and blob is not None and cached[0] is blob:
                x = cached[1]  # the same message as the previous client's (FedAvg sends one FitIns to all)
            else:
                x = np.asarray(parameters_to_ndarrays(ins.parameters)[0], dtype=float)
                self.run["received"] = (blob, x)
            cfg = ins.config or {}
            K, eta, mu = int(cfg.get("local_steps", s.K)), float(cfg.get("lr", s.eta)), float(cfg.get("proximal_mu", 0.0))
            y = x.copy()
            rng = self.run["noise"]
            for _ in range(K):
                g = self.H @ y + self.c
                if self.std.any():
                    g = g + self.std * rng.standard_normal(g.shape[0])
                y = y - eta * (g + mu * (y - x))
            return FitRes(Status(Code.OK, ""), ndarrays_to_parameters([y]), 1,
                          {"data_size": DATA_SIZES[self.i % len(DATA_SIZES)], "client": self.i})

        def get_properties(self, ins: Any, timeout: Any, group_id: Any) -> Any:
            raise NotImplementedError("the conformance harness's clients only fit")

        get_parameters = evaluate = get_properties

        def reconnect(self, ins: Any, timeout: Any, group_id: Any) -> Any:
            raise NotImplementedError("the conformance harness's clients only fit")

    return QuadraticClient


def _fail(what: str, e: BaseException, scenario: Scenario, r: int) -> UserInputError:
    return UserInputError(f"the strategy failed at round {r} of scenario {scenario.name!r}: "
                          f"{describe_failure(what, e)}")


def _trial(make_strategy: Callable, scenario: Scenario, problem: Any, clients: list, run: dict) -> np.ndarray:
    seconds = run.get("seconds", ROUND_SECONDS)
    from flwr.common import ndarrays_to_parameters, parameters_to_ndarrays
    from flwr.server.client_manager import SimpleClientManager
    from flwr.server.strategy import Strategy

    try:
        with time_limit(seconds):
            strategy = make_strategy(scenario.setting)
    except BaseException as e:  # noqa: BLE001 (a user's code: exits included)
        raise _fail("make_strategy(setting)", e, scenario, 0) from None
    if not isinstance(strategy, Strategy):
        raise UserInputError(f"make_strategy(setting) returned {type(strategy).__name__}, not a flwr Strategy")
    cm = SimpleClientManager()
    for cl in clients:
        cm.register(cl)
    x = np.asarray(problem.x0, dtype=float).copy()
    params = ndarrays_to_parameters([x])
    rows = [x]
    for r in range(scenario.rounds):
        try:
            with time_limit(seconds):
                todo = strategy.configure_fit(server_round=r + 1, parameters=params, client_manager=cm)
                results = [(proxy, proxy.fit(ins, None, None)) for proxy, ins in todo]
                new, _ = strategy.aggregate_fit(r + 1, results, [])
        except BaseException as e:  # noqa: BLE001 (a user's code)
            raise _fail("configure_fit/aggregate_fit", e, scenario, r) from None
        if new is not None:  # Flower's server keeps the model when the strategy returns none
            params = new
            try:
                x = np.asarray(parameters_to_ndarrays(new)[0], dtype=float)
            except BaseException as e:  # noqa: BLE001 (what a user's aggregate_fit returned)
                raise _fail("reading aggregate_fit's parameters", e, scenario, r) from None
            if x.shape != (problem.d,):
                raise UserInputError(f"the strategy's aggregate has shape {x.shape} at round {r}; expected "
                                     f"({problem.d},)")
        rows.append(x)
    return np.array(rows)


def run_flower(make_strategy: Callable, scenario: Scenario, problem: Any, trials: int, seed: int,
               seconds: float = ROUND_SECONDS) -> np.ndarray:
    """Quantities [R + 1, T, Q] of ``trials`` independent Flower runs of the strategy on the scenario (each
    round of each run under a limit of ``seconds``)."""
    H, c, std = affine_clients(problem)
    run: dict[str, Any] = {"setting": scenario.setting, "seconds": seconds}
    proxy = _proxy_class()
    clients = [proxy(i, H[i], c[i], std, run) for i in range(problem.M)]
    saved, log = random.getstate(), logging.getLogger("flwr")
    level = log.level
    log.setLevel(logging.ERROR)  # Flower warns once per run about metrics aggregation: T times here
    out = []
    try:
        for t in range(trials):
            random.seed(seeds.word(seed, "pattern", 29, scenario.seed, t))
            run["noise"] = seeds.rng(seed, "noise", 29, scenario.seed, t)
            out.append(_trial(make_strategy, scenario, problem, clients, run))
    finally:
        random.setstate(saved)
        log.setLevel(level)
    return quantities(np.array(out).transpose(1, 0, 2) - np.asarray(problem.x_star, dtype=float))
