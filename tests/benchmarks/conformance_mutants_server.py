"""Issue 41's mutants: the server step, server optimisers, the proximal term, control variates, an aggregate
not reset and a saturating secure sum (one bug each); the registry with their report classes:
``conformance_mutants.py``."""

from __future__ import annotations

import numpy as np
import torch
from conformance_mutants_release import _fedavg, _mean_update, _x_of

from verify.conformance import examples as ex
from verify.conformance.examples import local_steps, torch_local_steps

# Server side, proximal term, control variates, accumulation, secure aggregation (issue 41's classes)

SECAGG_SCALE, SECAGG_BOUND = 2**12, 2**12  # fixed point with 12 fractional bits; the sum saturates at +-1.0


def _secagg_mean(updates):
    """The mean of the updates through a fixed-point sum that saturates (BUG where the sum leaves the range)."""
    q = np.rint(np.asarray(updates) * SECAGG_SCALE).sum(0)
    return np.clip(q, -SECAGG_BOUND, SECAGG_BOUND - 1) / SECAGG_SCALE / len(updates)


def fn_server_lr_twice(x, cohort, K, rng, state):
    s = cohort.setting
    return x + s.eta_g * s.eta_g * ex.mean_update(x, cohort, K)  # BUG: the server step size applied twice


def fn_fedavgm_update_for_momentum(x, cohort, K, rng, state):
    s = cohort.setting
    delta = ex.mean_update(x, cohort, K)
    state["v"] = s.beta * state.get("v", 0.0) + delta
    return x + s.eta_g * delta  # BUG: the update where the momentum belongs


def fn_fedavgm_stale_momentum(x, cohort, K, rng, state):
    s = cohort.setting
    v_old = state.get("v", np.zeros_like(x))
    state["v"] = s.beta * v_old + ex.mean_update(x, cohort, K)
    return x + s.eta_g * v_old  # BUG: the momentum of the previous round used, before this round's update


def _fedopt_update_for_momentum(x, cohort, K, state, rule):
    s, t = cohort.setting, cohort.round + 1
    delta = ex.mean_update(x, cohort, K)
    state["m"] = s.beta_1 * state.get("m", 0.0) + (1 - s.beta_1) * delta
    v = state.get("v", np.zeros_like(x))
    if rule == "adam":
        v = s.beta_2 * v + (1 - s.beta_2) * delta**2
        eta_t = s.eta_g * np.sqrt(1 - s.beta_2 ** (t + 1)) / (1 - s.beta_1 ** (t + 1))
    else:
        v = v - (1 - s.beta_2) * delta**2 * np.sign(v - delta**2)
        eta_t = s.eta_g
    state["v"] = v
    return x + eta_t * delta / (np.sqrt(v) + s.tau)  # BUG: the update Delta where the momentum m belongs


def fn_fedadam_update_for_momentum(x, cohort, K, rng, state):
    return _fedopt_update_for_momentum(x, cohort, K, state, "adam")


def fn_fedyogi_update_for_momentum(x, cohort, K, rng, state):
    return _fedopt_update_for_momentum(x, cohort, K, state, "yogi")


def fn_fedadagrad_server_twice(x, cohort, K, rng, state):
    s = cohort.setting
    delta = ex.mean_update(x, cohort, K)
    v = state["v"] = state.get("v", 0.0) + delta**2
    return x + s.eta_g * s.eta_g * delta / (np.sqrt(v) + s.tau)  # BUG: the server step size applied twice


def fn_aggregate_not_reset(x, cohort, K, rng, state):
    s = cohort.setting
    acc = state.setdefault("acc", np.zeros_like(x))
    acc += ex.mean_update(x, cohort, K)  # BUG: the running aggregate is never reset between rounds
    return x + s.eta_g * acc


def fn_secagg_saturates(x, cohort, K, rng, state):
    s = cohort.setting
    if len(cohort) == 0:
        return x
    return x + s.eta_g * _secagg_mean([local_steps(x, cl, K, s.eta)[0] - x for cl in cohort])


def fn_fedprox_zero_alias(x, cohort, K, rng, state):
    s = cohort.setting
    if len(cohort) == 0:
        return x
    ys = []
    for cl in cohort:
        y = x.copy()
        anchor = y  # BUG: the anchor is the local model itself (no copy): the proximal term is always 0
        for _ in range(K):
            y -= s.eta * (cl.grad(y) + s.mu_prox * (y - anchor))
        ys.append(y)
    return x + s.eta_g * np.mean([y - x for y in ys], axis=0)


def fn_fedprox_not_squared(x, cohort, K, rng, state):
    s = cohort.setting
    if len(cohort) == 0:
        return x
    ys = []
    for cl in cohort:
        y = x.copy()
        for _ in range(K):
            dist = np.linalg.norm(y - x)
            # BUG: the gradient of (mu / 2) ||y - x|| (not squared)
            prox = 0.5 * s.mu_prox * (y - x) / dist if dist > 0 else 0.0
            y = y - s.eta * (cl.grad(y) + prox)
        ys.append(y)
    return x + s.eta_g * np.mean([y - x for y in ys], axis=0)


def _scaffold_with_server_c(x, cohort, K, state, new_ci, server_c):
    """SCAFFOLD with the server's c kept apart (as a server does): new_ci(c_i, c, y, gsum) -> c_i+,
    server_c(c, {i: (c_i, c_i+)}) -> c+."""
    s = cohort.setting
    ci = state.setdefault("ci", np.zeros((cohort.M, x.size)))
    c = state.setdefault("c", np.zeros(x.size))
    deltas, sent = [], {}
    for cl in cohort:
        y, gsum = local_steps(x, cl, K, s.eta, correction=c - ci[cl.id])
        deltas.append(y - x)
        sent[cl.id] = (ci[cl.id].copy(), new_ci(ci[cl.id], c, x, y, gsum, s))
    for i, (_, new) in sent.items():
        ci[i] = new
    state["c"] = server_c(c, sent, cohort.M)
    return x + s.eta_g * np.mean(deltas, axis=0) if deltas else x


def _option2(ci, c, x, y, gsum, s):
    return ci - c + (x - y) / (s.K * s.eta)


def fn_scaffold_sends_ci(x, cohort, K, rng, state):
    # BUG: the client sends c_i+ and the server adds it as if it were the change c_i+ - c_i
    return _scaffold_with_server_c(x, cohort, K, state, _option2,
                                   lambda c, sent, M: c + sum(new for _, new in sent.values()) / M)


def fn_scaffold_epoch_scale(x, cohort, K, rng, state):
    epochs = 3  # K local steps as 3 epochs of K / 3 steps

    def new_ci(ci, c, x, y, gsum, s):
        return ci - c + (x - y) / (max(1, s.K // epochs) * s.eta)  # BUG: one epoch's steps, not all K

    return _scaffold_with_server_c(x, cohort, K, state, new_ci,
                                   lambda c, sent, M: c + sum(new - old for old, new in sent.values()) / M)


def fn_scaffold_random_init(x, cohort, K, rng, state):
    if "ci" not in state:
        state["ci"] = rng.standard_normal((cohort.M, x.size))  # BUG: control variates initialised at random
        state["c"] = state["ci"].mean(0)
    return _scaffold_with_server_c(x, cohort, K, state, _option2,
                                   lambda c, sent, M: c + sum(new - old for old, new in sent.values()) / M)


def t_server_lr_twice(x, cohort, K, generator, state):
    s = cohort.setting
    return x + s.eta_g * s.eta_g * ex.torch_mean_update(x, cohort, K)  # BUG: the server step size twice


def t_fedavgm_update_for_momentum(x, cohort, K, generator, state):
    s = cohort.setting
    delta = ex.torch_mean_update(x, cohort, K)
    state["v"] = s.beta * state.get("v", torch.zeros_like(x)) + delta
    return x + s.eta_g * delta  # BUG: the update where the momentum belongs


def t_fedadam_update_for_momentum(x, cohort, K, generator, state):
    s, t = cohort.setting, cohort.round + 1
    delta = ex.torch_mean_update(x, cohort, K)
    state["m"] = s.beta_1 * state.get("m", torch.zeros_like(x)) + (1 - s.beta_1) * delta
    v = state["v"] = s.beta_2 * state.get("v", torch.zeros_like(x)) + (1 - s.beta_2) * delta**2
    eta_t = s.eta_g * (1 - s.beta_2 ** (t + 1)) ** 0.5 / (1 - s.beta_1 ** (t + 1))
    return x + eta_t * delta / (v.sqrt() + s.tau)  # BUG: the update where the momentum belongs


def t_aggregate_not_reset(x, cohort, K, generator, state):
    acc = state["acc"] = state.get("acc", torch.zeros_like(x)) + ex.torch_mean_update(x, cohort, K)  # BUG: no reset
    return x + cohort.setting.eta_g * acc


def t_secagg_saturates(x, cohort, K, generator, state):
    y, _ = torch_local_steps(x, cohort, K)
    w = cohort.mask.to(x.dtype)
    q = torch.round((w[..., None] * (y - x[:, None, :])) * SECAGG_SCALE).sum(1)
    total = q.clamp(-SECAGG_BOUND, SECAGG_BOUND - 1) / SECAGG_SCALE  # BUG: the fixed-point sum saturates
    return x + cohort.setting.eta_g * total / w.sum(1, keepdim=True).clamp_min(1.0)


def _t_prox_steps(x, cohort, K, prox):
    s = cohort.setting
    x0 = x[:, None, :].expand(-1, cohort.idx.shape[1], -1)
    y = x0.clone()
    for _ in range(K):
        y.requires_grad_(True)
        (g,) = torch.autograd.grad(cohort.loss(y).sum() + prox(y, x0, s.mu_prox), y)
        y = (y - s.eta * g).detach()
    return _mean_update(x, cohort, y)


def t_fedprox_not_detached(x, cohort, K, generator, state):
    # BUG: the anchor is the live parameter (not a detached copy of the global model): the term is always 0
    return _t_prox_steps(x, cohort, K, lambda y, x0, mu: 0.5 * mu * ((y - y) ** 2).sum())


def t_fedprox_not_squared(x, cohort, K, generator, state):
    # BUG: (mu / 2) ||y - x|| (not squared)
    return _t_prox_steps(x, cohort, K, lambda y, x0, mu: 0.5 * mu * (y - x0).norm(dim=-1).sum())


def _t_scaffold(x, cohort, K, state, sends_ci):
    T, d = x.shape
    ci = state.setdefault("ci", torch.zeros(T, cohort.M, d, dtype=x.dtype))
    c = state.setdefault("c", torch.zeros(T, 1, d, dtype=x.dtype))
    ex_ = cohort.idx[..., None].expand(-1, -1, d)
    mine = torch.gather(ci, 1, ex_)
    y, gsum = torch_local_steps(x, cohort, K, correction=c - mine)
    keep = cohort.mask[..., None]
    new = torch.where(keep, gsum / K, mine)
    state["ci"] = ci.scatter(1, ex_, new)
    sent = new if sends_ci else new - mine  # BUG where sends_ci: c_i+ added as if it were its change
    state["c"] = c + (torch.where(keep, sent, 0.0).sum(1, keepdim=True)) / cohort.M
    return _mean_update(x, cohort, y)


def t_scaffold_sends_ci(x, cohort, K, generator, state):
    return _t_scaffold(x, cohort, K, state, sends_ci=True)


def t_scaffold_random_init(x, cohort, K, generator, state):
    if "ci" not in state:
        T, d = x.shape
        # BUG: control variates initialised at random
        state["ci"] = torch.randn(T, cohort.M, d, generator=generator, dtype=x.dtype)
        state["c"] = state["ci"].mean(1, keepdim=True)
    return _t_scaffold(x, cohort, K, state, sends_ci=False)


def w_server_lr_twice(setting):
    from flwr.common import ndarrays_to_parameters
    from flwr.server.strategy import FedAvgM

    class Mutant(FedAvgM):
        def configure_fit(self, server_round, parameters, client_manager):
            self.x = _x_of(parameters)
            return super().configure_fit(server_round, parameters, client_manager)

        def aggregate_fit(self, server_round, results, failures):
            new, m = super().aggregate_fit(server_round, results, failures)
            # BUG: FedAvgM already applied the server step; it is applied again
            out = self.x + setting.eta_g * (_x_of(new) - self.x)
            self.initial_parameters = ndarrays_to_parameters([out])
            return ndarrays_to_parameters([out]), m

    return Mutant(initial_parameters=ex._initial(setting), server_learning_rate=setting.eta_g, server_momentum=0.0,
                  **ex._sampling(setting))


def w_fedavgm_update_for_momentum(setting):
    from flwr.common import ndarrays_to_parameters
    from flwr.server.strategy import FedAvgM

    class Mutant(FedAvgM):
        def aggregate_fit(self, server_round, results, failures):
            x = _x_of(self.initial_parameters)
            avg = np.mean([_x_of(res.parameters) for _, res in results], axis=0)
            super().aggregate_fit(server_round, results, failures)  # keeps its momentum vector
            out = x + self.server_learning_rate * (avg - x)  # BUG: the update where the momentum belongs
            self.initial_parameters = ndarrays_to_parameters([out])
            return ndarrays_to_parameters([out]), {}

    return Mutant(initial_parameters=ex._initial(setting), server_learning_rate=setting.eta_g,
                  server_momentum=setting.beta, **ex._sampling(setting))


def _w_fedopt_update_for_momentum(setting, cls_name):
    from flwr.common import ndarrays_to_parameters

    base = ex.fedopt_strategy(setting, cls_name.lower())
    cls = type(base)

    def aggregate_fit(self, server_round, results, failures):
        x = self.current_weights[0].copy()
        cls.aggregate_fit(self, server_round, results, failures)  # m_t, v_t as Flower keeps them
        delta = np.mean([_x_of(res.parameters) for _, res in results], axis=0) - x
        eta_t = self.eta
        if cls_name == "FedAdam":
            eta_t = self.eta * np.sqrt(1 - self.beta_2 ** (server_round + 1.0)) / (1 - self.beta_1 ** (server_round + 1.0))
        out = x + eta_t * delta / (np.sqrt(self.v_t[0]) + self.tau)  # BUG: Delta where m_t belongs
        self.current_weights = [out]
        return ndarrays_to_parameters([out]), {}

    base.aggregate_fit = aggregate_fit.__get__(base)
    return base


def w_fedadam_update_for_momentum(setting):
    return _w_fedopt_update_for_momentum(setting, "FedAdam")


def w_fedyogi_update_for_momentum(setting):
    return _w_fedopt_update_for_momentum(setting, "FedYogi")


def w_fedadagrad_server_twice(setting):
    from dataclasses import replace

    return ex.fedopt_strategy(replace(setting, eta_g=setting.eta_g**2), "fedadagrad")  # BUG: eta applied twice


def w_aggregate_not_reset(setting):
    from flwr.common import ndarrays_to_parameters

    def aggregate_fit(self, server_round, results, failures):
        x = self.__dict__.setdefault("x", np.asarray(setting.x0, dtype=float))
        acc = self.__dict__.setdefault("acc", np.zeros_like(x))
        acc += np.mean([_x_of(res.parameters) for _, res in results], axis=0) - x  # BUG: never reset
        self.x = x + acc
        return ndarrays_to_parameters([self.x]), {}

    return _fedavg(setting, {"aggregate_fit": aggregate_fit})


def w_secagg_saturates(setting):
    from flwr.common import ndarrays_to_parameters

    def configure_fit(self, server_round, parameters, client_manager):
        from flwr.server.strategy import FedAvg

        self.x = _x_of(parameters)
        return FedAvg.configure_fit(self, server_round, parameters, client_manager)

    def aggregate_fit(self, server_round, results, failures):
        mean = _secagg_mean([_x_of(res.parameters) - self.x for _, res in results])  # BUG: saturating sum
        return ndarrays_to_parameters([self.x + mean]), {}

    return _fedavg(setting, {"configure_fit": configure_fit, "aggregate_fit": aggregate_fit})


def w_fedprox_mu_not_sent(setting):
    from flwr.server.strategy import FedProx

    class Mutant(FedProx):
        def configure_fit(self, server_round, parameters, client_manager):
            todo = super().configure_fit(server_round, parameters, client_manager)
            for _, ins in todo:  # BUG: the config key is renamed: the clients' proximal term is 0
                ins.config = {("mu" if k == "proximal_mu" else k): v for k, v in ins.config.items()}
            return todo

    return Mutant(proximal_mu=setting.mu_prox, **ex._sampling(setting))


