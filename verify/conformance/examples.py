"""Correct implementations of the claimed algorithms in the three forms (to copy from, and the benchmark's
unmutated originals).

**Algorithm**: as :mod:`quadratics.local_methods` writes them: K local steps y <- y - eta (g + correction +
mu_prox (y - x)); FedAvg/FedProx/FAST x <- x + eta_g (1/|S|) sum_{i in S} (y_i - x); SCAFFOLD (option II)
correction c - c_i, c_i <- mean of the K raw gradients of a participant, c = (1/M) sum_i c_i; F3AST
x <- x + eta_g sum_{k in S} (p_k / r_k) (y_k - x); the amplified methods apply x <- anchor + gamma (x - anchor)
at the end of every window of P rounds (Amplified SCAFFOLD refreshes its control variates there, weighted by
the rounds' aggregation weights, ASCAF.ALG1 line 18).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import torch

# Plain functions: round_fn(x, cohort, K, rng, state) -> new x


def local_steps(x: np.ndarray, client: Any, K: int, eta: float, correction: Any = 0.0,
                mu_prox: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """K local steps of one client from x; returns (y_K, sum of the raw gradients)."""
    y, gsum = x.copy(), np.zeros_like(x)
    for _ in range(K):
        g = client.grad(y)
        gsum += g
        y = y - eta * (g + correction + mu_prox * (y - x))
    return y, gsum


def fedavg_round(x: np.ndarray, cohort: Any, K: int, rng: Any, state: dict) -> np.ndarray:
    """FedAvg (FedProx when the setting has mu_prox > 0): equal weights 1/|S|; an empty cohort keeps x."""
    s = cohort.setting
    if len(cohort) == 0:
        return x
    ys = [local_steps(x, cl, K, s.eta, mu_prox=s.mu_prox)[0] for cl in cohort]
    return x + s.eta_g * np.mean([y - x for y in ys], axis=0)


def scaffold_round(x: np.ndarray, cohort: Any, K: int, rng: Any, state: dict) -> np.ndarray:
    """SCAFFOLD, option II control variates, c = mean over all M clients of c_i."""
    s = cohort.setting
    ci = state.setdefault("ci", np.zeros((cohort.M, x.size)))
    c = ci.mean(0)
    if len(cohort) == 0:
        return x
    deltas = []
    for cl in cohort:
        y, gsum = local_steps(x, cl, K, s.eta, correction=c - ci[cl.id])
        deltas.append(y - x)
        state.setdefault("new", {})[cl.id] = gsum / K
    for i, v in state.pop("new").items():
        ci[i] = v
    return x + s.eta_g * np.mean(deltas, axis=0)


def f3ast_round(x: np.ndarray, cohort: Any, K: int, rng: Any, state: dict) -> np.ndarray:
    """F3AST's aggregation: weights p_k / r_k (the static policy's rates), not normalised."""
    s = cohort.setting
    out = x.copy()
    for cl in cohort:
        y, _ = local_steps(x, cl, K, s.eta)
        out += s.eta_g * cl.p / cl.rate * (y - x)
    return out


def amplified_fedavg_round(x: np.ndarray, cohort: Any, K: int, rng: Any, state: dict) -> np.ndarray:
    """Amplified FedAvg: FedAvg rounds, x <- anchor + gamma (x - anchor) at the end of each window of P rounds."""
    s = cohort.setting
    anchor = state.setdefault("anchor", x.copy())
    new = fedavg_round(x, cohort, K, rng, state)
    if (cohort.round + 1) % s.P == 0:
        new = anchor + s.gamma * (new - anchor)
        state["anchor"] = new.copy()
    return new


def amplified_scaffold_round(x: np.ndarray, cohort: Any, K: int, rng: Any, state: dict) -> np.ndarray:
    """Amplified SCAFFOLD (ASCAF.ALG1): control variates fixed over a window, refreshed at its end with
    c_i = sum_s q_s^i gsum_s^i / (K sum_s q_s^i) over the window's rounds (q = 1/|S|), c = mean_i c_i."""
    s = cohort.setting
    ci = state.setdefault("ci", np.zeros((cohort.M, x.size)))
    num, den = state.setdefault("num", np.zeros_like(ci)), state.setdefault("den", np.zeros(cohort.M))
    anchor = state.setdefault("anchor", x.copy())
    c = ci.mean(0)
    new = x.copy()
    for cl in cohort:
        y, gsum = local_steps(x, cl, K, s.eta, correction=c - ci[cl.id])
        new += s.eta_g * (y - x) / len(cohort)
        num[cl.id] += gsum / len(cohort)
        den[cl.id] += 1.0 / len(cohort)
    if (cohort.round + 1) % s.P == 0:
        new = anchor + s.gamma * (new - anchor)
        state["anchor"] = new.copy()
        seen = den > 0
        ci[seen] = num[seen] / (K * den[seen, None])
        num[:], den[:] = 0.0, 0.0
    return new


def mean_update(x: np.ndarray, cohort: Any, K: int) -> np.ndarray:
    """Delta = (1/|S|) sum_{i in S} (y_i - x) after FedAvg's local steps (0 for an empty cohort)."""
    if len(cohort) == 0:
        return np.zeros_like(x)
    return np.mean([local_steps(x, cl, K, cohort.setting.eta)[0] - x for cl in cohort], axis=0)


def fedavgm_round(x: np.ndarray, cohort: Any, K: int, rng: Any, state: dict) -> np.ndarray:
    """FedAvgM: server momentum v <- beta v + Delta, x <- x + eta_g v."""
    s = cohort.setting
    v = state["v"] = s.beta * state.get("v", 0.0) + mean_update(x, cohort, K)
    return x + s.eta_g * v


def fedopt_round(x: np.ndarray, cohort: Any, K: int, rng: Any, state: dict) -> np.ndarray:
    """FedAdam, FedYogi or FedAdagrad (which one: ``state["rule"]``, set by :func:`fedadam_round` and its
    siblings), as Flower writes them (see :mod:`verify.conformance.server`)."""
    s, rule = cohort.setting, state["rule"]
    t = cohort.round + 1  # Flower's server round
    delta = mean_update(x, cohort, K)
    m = state["m"] = s.beta_1 * state.get("m", 0.0) + (1 - s.beta_1) * delta
    v = state.get("v", np.zeros_like(x))
    if rule == "adam":
        v = s.beta_2 * v + (1 - s.beta_2) * delta**2
        eta_t = s.eta_g * np.sqrt(1 - s.beta_2 ** (t + 1)) / (1 - s.beta_1 ** (t + 1))
    elif rule == "yogi":
        v = v - (1 - s.beta_2) * delta**2 * np.sign(v - delta**2)
        eta_t = s.eta_g
    else:
        v = v + delta**2
        eta_t = s.eta_g
    state["v"] = v
    return x + eta_t * m / (np.sqrt(v) + s.tau)


def fedadam_round(x: np.ndarray, cohort: Any, K: int, rng: Any, state: dict) -> np.ndarray:
    state["rule"] = "adam"
    return fedopt_round(x, cohort, K, rng, state)


def fedyogi_round(x: np.ndarray, cohort: Any, K: int, rng: Any, state: dict) -> np.ndarray:
    state["rule"] = "yogi"
    return fedopt_round(x, cohort, K, rng, state)


def fedadagrad_round(x: np.ndarray, cohort: Any, K: int, rng: Any, state: dict) -> np.ndarray:
    state["rule"] = "adagrad"
    return fedopt_round(x, cohort, K, rng, state)


FUNCTIONS = {"fedavg": fedavg_round, "fedprox": fedavg_round, "fast": fedavg_round, "scaffold": scaffold_round,
             "f3ast": f3ast_round, "amplified_fedavg": amplified_fedavg_round,
             "amplified_scaffold": amplified_scaffold_round, "fedavgm": fedavgm_round, "fedadam": fedadam_round,
             "fedyogi": fedyogi_round, "fedadagrad": fedadagrad_round}

# Torch steps: step(x [T, d], cohort, K, generator, state) -> new x [T, d]


def torch_local_steps(x: torch.Tensor, cohort: Any, K: int, correction: Any = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    """K local steps of every slot from x [T, d] by autograd on ``cohort.loss``; (y [T, n, d], gradient sum)."""
    s = cohort.setting
    x0 = x[:, None, :].expand(-1, cohort.idx.shape[1], -1)
    y, gsum = x0.clone(), torch.zeros_like(x0)
    for _ in range(K):
        y.requires_grad_(True)
        (g,) = torch.autograd.grad(cohort.loss(y).sum(), y)
        gsum = gsum + g
        y = (y - s.eta * (g + correction + s.mu_prox * (y - x0))).detach()
    return y, gsum


def fedavg_step(x: torch.Tensor, cohort: Any, K: int, generator: Any, state: dict) -> torch.Tensor:
    """FedAvg/FedProx over all trials: the masked slots' mean update."""
    y, _ = torch_local_steps(x, cohort, K)
    w = cohort.mask.to(x.dtype)
    w = w / w.sum(1, keepdim=True).clamp_min(1.0)
    return x + cohort.setting.eta_g * (w[..., None] * (y - x[:, None, :])).sum(1)


def scaffold_step(x: torch.Tensor, cohort: Any, K: int, generator: Any, state: dict) -> torch.Tensor:
    """SCAFFOLD over all trials: control variates ci [T, M, d] in ``state``."""
    T, d = x.shape
    ci = state.setdefault("ci", torch.zeros(T, cohort.M, d, dtype=x.dtype))
    ex = cohort.idx[..., None].expand(-1, -1, d)
    mine = torch.gather(ci, 1, ex)
    y, gsum = torch_local_steps(x, cohort, K, correction=ci.mean(1, keepdim=True) - mine)
    keep = cohort.mask[..., None]
    state["ci"] = ci.scatter(1, ex, torch.where(keep, gsum / K, mine))
    w = cohort.mask.to(x.dtype)
    w = w / w.sum(1, keepdim=True).clamp_min(1.0)
    return x + cohort.setting.eta_g * (w[..., None] * (y - x[:, None, :])).sum(1)


def torch_mean_update(x: torch.Tensor, cohort: Any, K: int) -> torch.Tensor:
    """Delta [T, d]: the masked slots' mean update after FedAvg's local steps (0 where a trial has nobody)."""
    y, _ = torch_local_steps(x, cohort, K)
    w = cohort.mask.to(x.dtype)
    w = w / w.sum(1, keepdim=True).clamp_min(1.0)
    return (w[..., None] * (y - x[:, None, :])).sum(1)


def fedavgm_step(x: torch.Tensor, cohort: Any, K: int, generator: Any, state: dict) -> torch.Tensor:
    """FedAvgM over all trials: v [T, d] in ``state``."""
    s = cohort.setting
    v = state["v"] = s.beta * state.get("v", torch.zeros_like(x)) + torch_mean_update(x, cohort, K)
    return x + s.eta_g * v


def fedadam_step(x: torch.Tensor, cohort: Any, K: int, generator: Any, state: dict) -> torch.Tensor:
    """FedAdam over all trials (Flower's bias-corrected step)."""
    s, t = cohort.setting, cohort.round + 1
    delta = torch_mean_update(x, cohort, K)
    m = state["m"] = s.beta_1 * state.get("m", torch.zeros_like(x)) + (1 - s.beta_1) * delta
    v = state["v"] = s.beta_2 * state.get("v", torch.zeros_like(x)) + (1 - s.beta_2) * delta**2
    eta_t = s.eta_g * (1 - s.beta_2 ** (t + 1)) ** 0.5 / (1 - s.beta_1 ** (t + 1))
    return x + eta_t * m / (v.sqrt() + s.tau)


STEPS = {"fedavg": fedavg_step, "fedprox": fedavg_step, "fast": fedavg_step, "scaffold": scaffold_step,
         "fedavgm": fedavgm_step, "fedadam": fedadam_step}

# Flower: make_strategy(setting) -> Strategy


def _sampling(setting: Any) -> dict[str, Any]:
    """Flower's keywords for a uniform cohort of S of M clients (no evaluation)."""
    return dict(fraction_fit=setting.S / setting.M, min_fit_clients=setting.S, min_available_clients=setting.M,
                fraction_evaluate=0.0)


def _initial(setting: Any) -> Any:
    """The setting's x0 as Flower parameters (the server optimisers keep the current model from it)."""
    from flwr.common import ndarrays_to_parameters

    return ndarrays_to_parameters([np.asarray(setting.x0, dtype=float)])


def fedavg_strategy(setting: Any) -> Any:
    """Flower's own FedAvg sampling S of M clients (FedProx with the setting's mu when it has one); where the
    server step eta_g is not 1, Flower's FedAvgM with momentum 0 (Flower's FedAvg has no server step)."""
    from flwr.server.strategy import FedAvg, FedAvgM, FedProx

    kw = _sampling(setting)
    if setting.mu_prox:
        return FedProx(proximal_mu=setting.mu_prox, **kw)
    if setting.eta_g != 1.0:
        return FedAvgM(initial_parameters=_initial(setting), server_learning_rate=setting.eta_g,
                       server_momentum=0.0, **kw)
    return FedAvg(**kw)


def fedavgm_strategy(setting: Any) -> Any:
    """Flower's own FedAvgM (server momentum beta, server step eta_g)."""
    from flwr.server.strategy import FedAvgM

    return FedAvgM(initial_parameters=_initial(setting), server_learning_rate=setting.eta_g,
                   server_momentum=setting.beta, **_sampling(setting))


def fedopt_strategy(setting: Any, name: str) -> Any:
    """Flower's own FedAdam, FedYogi or FedAdagrad with the setting's eta_g (Flower's eta), betas and tau."""
    from flwr.server import strategy as st

    kw = dict(initial_parameters=_initial(setting), eta=setting.eta_g, eta_l=setting.eta, tau=setting.tau,
              **_sampling(setting))
    if name == "fedadagrad":
        return st.FedAdagrad(**kw)
    cls = st.FedAdam if name == "fedadam" else st.FedYogi
    return cls(beta_1=setting.beta_1, beta_2=setting.beta_2, **kw)


def fedadam_strategy(setting: Any) -> Any:
    """Flower's own FedAdam."""
    return fedopt_strategy(setting, "fedadam")


def fedyogi_strategy(setting: Any) -> Any:
    """Flower's own FedYogi."""
    return fedopt_strategy(setting, "fedyogi")


def fedadagrad_strategy(setting: Any) -> Any:
    """Flower's own FedAdagrad."""
    return fedopt_strategy(setting, "fedadagrad")


def _fedavg_base() -> type:
    from flwr.server.strategy import FedAvg

    return FedAvg


def fast_strategy(setting: Any) -> Any:
    """FAST's snapshot rule in Flower: with probability q, m clients uniformly without replacement (Flower's
    sampler), else every client; FedAvg's aggregation."""
    from flwr.server.strategy import FedAvg

    class FastSnapshot(FedAvg):
        def configure_fit(self, server_round: int, parameters: Any, client_manager: Any) -> list:
            fit_ins = super().configure_fit(server_round, parameters, client_manager)[0][1]
            if random.random() < setting.q:
                chosen = client_manager.sample(num_clients=setting.m)
            else:
                chosen = list(client_manager.all().values())
            return [(c, fit_ins) for c in chosen]

    return FastSnapshot(fraction_fit=1.0, min_available_clients=setting.M, fraction_evaluate=0.0)


def f3ast_strategy(setting: Any) -> Any:
    """A static F3AST policy in Flower: a configuration drawn with its probability, weights p_k / r_k."""
    from flwr.common import ndarrays_to_parameters, parameters_to_ndarrays
    from flwr.server.strategy import FedAvg

    class StaticF3AST(FedAvg):
        def configure_fit(self, server_round: int, parameters: Any, client_manager: Any) -> list:
            self.x = parameters_to_ndarrays(parameters)[0]
            fit_ins = super().configure_fit(server_round, parameters, client_manager)[0][1]
            row = random.choices(range(len(setting.probs)), weights=setting.probs)[0]
            clients = client_manager.all()
            return [(clients[str(i)], fit_ins) for i, on in enumerate(setting.subsets[row]) if on]

        def aggregate_fit(self, server_round: int, results: list, failures: list) -> tuple:
            new = self.x.copy()
            for proxy, res in results:
                k = int(proxy.cid)
                new += setting.eta_g * setting.p[k] / setting.rates[k] * (parameters_to_ndarrays(res.parameters)[0] - self.x)
            return ndarrays_to_parameters([new]), {}

    return StaticF3AST(fraction_fit=1.0, min_available_clients=setting.M, fraction_evaluate=0.0)


STRATEGIES = {"fedavg": fedavg_strategy, "fedprox": fedavg_strategy, "fast": fast_strategy, "f3ast": f3ast_strategy,
              "fedavgm": fedavgm_strategy, "fedadam": fedadam_strategy, "fedyogi": fedyogi_strategy,
              "fedadagrad": fedadagrad_strategy}
