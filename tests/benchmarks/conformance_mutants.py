"""Mutants of the correct implementations of :mod:`verify.conformance.examples`: one bug each, in the form
where it can live (sampling bugs only where the implementation samples: the Flower form).

Each entry (:class:`Mutant`): name, form, claimed algorithm, claimed law, implementation, bug, and the class of
public bug report it reproduces (:data:`REPORTS`: the class and the repository/issue where a report of it was
found, or none located: then the class is from issue 41's list of commonly reported bugs).
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

import numpy as np
import torch

from verify.conformance import examples as ex
from verify.conformance.examples import local_steps, torch_local_steps

# Plain functions


def fn_scaffold_sign(x, cohort, K, rng, state):
    s = cohort.setting
    ci = state.setdefault("ci", np.zeros((cohort.M, x.size)))
    c, deltas, new = ci.mean(0), [], {}
    for cl in cohort:
        y, gsum = local_steps(x, cl, K, s.eta, correction=ci[cl.id] - c)  # BUG: sign flipped
        deltas.append(y - x)
        new[cl.id] = gsum / K
    for i, v in new.items():
        ci[i] = v
    return x + s.eta_g * np.mean(deltas, axis=0) if deltas else x


def fn_scaffold_zero_delta(x, cohort, K, rng, state):
    s = cohort.setting
    ci = state.setdefault("ci", np.zeros((cohort.M, x.size)))
    c = state.setdefault("c", np.zeros(x.size))
    deltas = []
    for cl in cohort:
        y, gsum = local_steps(x, cl, K, s.eta, correction=c - ci[cl.id])
        deltas.append(y - x)
        ci[cl.id] = gsum / K
        c += (ci[cl.id] - ci[cl.id]) / cohort.M  # BUG: the delta is taken after the update: always zero
    return x + s.eta_g * np.mean(deltas, axis=0) if deltas else x


def fn_steps_samples_epochs(x, cohort, K, rng, state):
    s = cohort.setting
    if len(cohort) == 0:
        return x
    ys = [local_steps(x, cl, K * cl.data_size, s.eta)[0] for cl in cohort]  # BUG: epochs x samples steps
    return x + s.eta_g * np.mean([y - x for y in ys], axis=0)


def fn_cohort_size(x, cohort, K, rng, state):
    s = cohort.setting
    expected = max(1, round(sum(s.rates)))  # BUG: the configured (expected) cohort size, not the received one
    total = sum((local_steps(x, cl, K, s.eta)[0] - x for cl in cohort), np.zeros_like(x))
    return x + s.eta_g * total / expected


def fn_nonparticipants(x, cohort, K, rng, state):
    s = cohort.setting
    last = state.setdefault("last", {})
    for cl in cohort:
        last[cl.id] = local_steps(x, cl, K, s.eta)[0] - x
    # BUG: every client's latest update is aggregated, also of clients not in this round
    return x + s.eta_g * np.mean(list(last.values()), axis=0) if last else x


def fn_server_twice(x, cohort, K, rng, state):
    new = ex.fedavg_round(x, cohort, K, rng, state)
    return new + (new - x)  # BUG: the server step is applied twice


def fn_fedprox_sign(x, cohort, K, rng, state):
    s = cohort.setting
    if len(cohort) == 0:
        return x
    ys = [local_steps(x, cl, K, s.eta, mu_prox=-s.mu_prox)[0] for cl in cohort]  # BUG: proximal sign
    return x + s.eta_g * np.mean([y - x for y in ys], axis=0)


def fn_data_size(x, cohort, K, rng, state):
    s = cohort.setting
    if len(cohort) == 0:
        return x
    n = np.array([cl.data_size for cl in cohort], dtype=float)  # BUG: weights by data size
    ys = np.array([local_steps(x, cl, K, s.eta)[0] for cl in cohort])
    return x + s.eta_g * (n[:, None] * (ys - x)).sum(0) / n.sum()


def fn_stale_cv(x, cohort, K, rng, state):
    s = cohort.setting
    ci = state.setdefault("ci", np.zeros((cohort.M, x.size)))
    seen = state.setdefault("seen", np.zeros((cohort.M, x.size)))
    c, deltas, new = ci.mean(0), [], {}
    for cl in cohort:
        # BUG: the client corrects with the server variate it received when it last took part (stale)
        y, gsum = local_steps(x, cl, K, s.eta, correction=seen[cl.id] - ci[cl.id])
        seen[cl.id] = c
        deltas.append(y - x)
        new[cl.id] = gsum / K
    for i, v in new.items():
        ci[i] = v
    return x + s.eta_g * np.mean(deltas, axis=0) if deltas else x


def fn_f3ast_rates_stuck(x, cohort, K, rng, state):
    s = cohort.setting
    r = state.setdefault("rates", np.full(cohort.M, np.mean(s.rates)))  # BUG: initial estimate, never updated
    out = x.copy()
    for cl in cohort:
        out += s.eta_g * cl.p / r[cl.id] * (local_steps(x, cl, K, s.eta)[0] - x)
    return out


def fn_amplify_every_round(x, cohort, K, rng, state):
    new = ex.fedavg_round(x, cohort, K, rng, state)
    return x + cohort.setting.gamma * (new - x)  # BUG: amplified every round, not once per window


def fn_grad_at_server(x, cohort, K, rng, state):
    s = cohort.setting
    if len(cohort) == 0:
        return x
    ys = []
    for cl in cohort:
        y = x.copy()
        for _ in range(K):
            y = y - s.eta * cl.grad(x)  # BUG: gradient at the server model, not the local one
        ys.append(y)
    return x + s.eta_g * np.mean([y - x for y in ys], axis=0)


def fn_scaffold_sum(x, cohort, K, rng, state):
    s = cohort.setting
    ci = state.setdefault("ci", np.zeros((cohort.M, x.size)))
    c, deltas, new = ci.mean(0), [], {}
    for cl in cohort:
        y, gsum = local_steps(x, cl, K, s.eta, correction=c - ci[cl.id])
        deltas.append(y - x)
        new[cl.id] = gsum  # BUG: the sum of the K gradients, not their mean
    for i, v in new.items():
        ci[i] = v
    return x + s.eta_g * np.mean(deltas, axis=0) if deltas else x


# Torch steps


def _mean_update(x, cohort, y):
    w = cohort.mask.to(x.dtype)
    w = w / w.sum(1, keepdim=True).clamp_min(1.0)
    return x + cohort.setting.eta_g * (w[..., None] * (y - x[:, None, :])).sum(1)


def t_scaffold_sign(x, cohort, K, generator, state):
    T, d = x.shape
    ci = state.setdefault("ci", torch.zeros(T, cohort.M, d, dtype=x.dtype))
    ex_ = cohort.idx[..., None].expand(-1, -1, d)
    mine = torch.gather(ci, 1, ex_)
    y, gsum = torch_local_steps(x, cohort, K, correction=mine - ci.mean(1, keepdim=True))  # BUG: sign
    state["ci"] = ci.scatter(1, ex_, torch.where(cohort.mask[..., None], gsum / K, mine))
    return _mean_update(x, cohort, y)


def t_mask_ignored(x, cohort, K, generator, state):
    y, _ = torch_local_steps(x, cohort, K)
    return x + cohort.setting.eta_g * (y - x[:, None, :]).mean(1)  # BUG: padded non-participants averaged in


def t_cohort_size(x, cohort, K, generator, state):
    y, _ = torch_local_steps(x, cohort, K)
    w = cohort.mask.to(x.dtype) / cohort.idx.shape[1]  # BUG: divided by the slots, not the cohort's size
    return x + cohort.setting.eta_g * (w[..., None] * (y - x[:, None, :])).sum(1)


def t_no_zero_grad(x, cohort, K, generator, state):
    s = cohort.setting
    y = x[:, None, :].expand(-1, cohort.idx.shape[1], -1).clone().requires_grad_(True)
    for _ in range(K):
        cohort.loss(y).sum().backward()  # BUG: .grad accumulates over the steps (no zero_grad)
        with torch.no_grad():
            y -= s.eta * y.grad
    return _mean_update(x, cohort, y.detach())


def t_data_size(x, cohort, K, generator, state):
    y, _ = torch_local_steps(x, cohort, K)
    w = cohort.mask.to(x.dtype) * cohort.data_size  # BUG: weights by data size
    w = w / w.sum(1, keepdim=True).clamp_min(1e-300)
    return x + cohort.setting.eta_g * (w[..., None] * (y - x[:, None, :])).sum(1)


def t_fedprox_sign(x, cohort, K, generator, state):
    s = cohort.setting
    x0 = x[:, None, :].expand(-1, cohort.idx.shape[1], -1)
    y = x0.clone()
    for _ in range(K):
        y.requires_grad_(True)
        (g,) = torch.autograd.grad(cohort.loss(y).sum(), y)
        y = (y - s.eta * (g - s.mu_prox * (y - x0))).detach()  # BUG: proximal sign
    return _mean_update(x, cohort, y)


def t_cv_unmasked(x, cohort, K, generator, state):
    T, d = x.shape
    ci = state.setdefault("ci", torch.zeros(T, cohort.M, d, dtype=x.dtype))
    ex_ = cohort.idx[..., None].expand(-1, -1, d)
    y, gsum = torch_local_steps(x, cohort, K, correction=ci.mean(1, keepdim=True) - torch.gather(ci, 1, ex_))
    state["ci"] = ci.scatter(1, ex_, gsum / K)  # BUG: padded non-participants' variates overwritten too
    return _mean_update(x, cohort, y)


# Flower strategies


def _fedavg(setting, cls_body):
    from flwr.server.strategy import FedAvg

    cls = type("Mutant", (FedAvg,), cls_body)
    return cls(fraction_fit=setting.S / setting.M, min_fit_clients=setting.S, min_available_clients=setting.M,
               fraction_evaluate=0.0)


def w_replacement(setting):
    def configure_fit(self, server_round, parameters, client_manager):
        from flwr.common import FitIns

        clients = list(client_manager.all().values())
        return [(c, FitIns(parameters, {})) for c in random.choices(clients, k=setting.S)]  # BUG: with replacement

    return _fedavg(setting, {"configure_fit": configure_fit})


def _x_of(params):
    from flwr.common import parameters_to_ndarrays

    return parameters_to_ndarrays(params)[0]


def w_server_twice(setting):
    from flwr.common import ndarrays_to_parameters
    from flwr.server.strategy import FedAvg

    def configure_fit(self, server_round, parameters, client_manager):
        self.x = _x_of(parameters)
        return FedAvg.configure_fit(self, server_round, parameters, client_manager)

    def aggregate_fit(self, server_round, results, failures):
        avg, m = FedAvg.aggregate_fit(self, server_round, results, failures)
        return ndarrays_to_parameters([self.x + 2 * (_x_of(avg) - self.x)]), m  # BUG: server step twice

    return _fedavg(setting, {"configure_fit": configure_fit, "aggregate_fit": aggregate_fit})


def w_data_size(setting):
    from flwr.common import ndarrays_to_parameters

    def aggregate_fit(self, server_round, results, failures):
        n = np.array([res.metrics["data_size"] for _, res in results], dtype=float)  # BUG: data-size weights
        ys = np.array([_x_of(res.parameters) for _, res in results])
        return ndarrays_to_parameters([(n[:, None] * ys).sum(0) / n.sum()]), {}

    return _fedavg(setting, {"aggregate_fit": aggregate_fit})


def w_stale_results(setting):
    from flwr.server.strategy import FedAvg

    def aggregate_fit(self, server_round, results, failures):
        kept = self.__dict__.setdefault("kept", {})
        kept.update({proxy.cid: (proxy, res) for proxy, res in results})
        # BUG: the latest result of every client seen so far is aggregated, also of absent clients
        return FedAvg.aggregate_fit(self, server_round, list(kept.values()), failures)

    return _fedavg(setting, {"aggregate_fit": aggregate_fit})


def w_local_steps(setting):
    from flwr.server.strategy import FedAvg

    return FedAvg(fraction_fit=setting.S / setting.M, min_fit_clients=setting.S, min_available_clients=setting.M,
                  fraction_evaluate=0.0,
                  on_fit_config_fn=lambda r: {"local_steps": setting.K * 10})  # BUG: samples x epochs


def w_fedprox_sign(setting):
    from flwr.server.strategy import FedProx

    return FedProx(proximal_mu=-setting.mu_prox, fraction_fit=setting.S / setting.M,  # BUG: proximal sign
                   min_fit_clients=setting.S, min_available_clients=setting.M, fraction_evaluate=0.0)


def w_fast_not_uniform(setting):
    from flwr.common import FitIns
    from flwr.server.strategy import FedAvg

    class Mutant(FedAvg):
        def configure_fit(self, server_round, parameters, client_manager):
            clients = list(client_manager.all().values())
            if random.random() < setting.q:
                # BUG: snapshot clients drawn in proportion to their data size (not uniformly)
                sizes = {c.cid: float(c.fit.__self__.i % 10 + 1) for c in clients}
                chosen: list[Any] = []
                while len(chosen) < setting.m:
                    rest = [c for c in clients if c not in chosen]
                    chosen.append(random.choices(rest, weights=[sizes[c.cid] for c in rest])[0])
                clients = chosen
            return [(c, FitIns(parameters, {})) for c in clients]

    return Mutant(fraction_fit=1.0, min_available_clients=setting.M, fraction_evaluate=0.0)


def w_f3ast_rates_stuck(setting):
    from dataclasses import replace

    stuck = replace(setting, rates=tuple([float(np.mean(setting.rates))] * setting.M))  # BUG: rates never updated
    base = ex.f3ast_strategy(stuck)
    orig = base.configure_fit

    def configure_fit(server_round, parameters, client_manager):  # selection still follows the true policy
        return orig(server_round, parameters, client_manager)

    base.configure_fit = configure_fit
    return base


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


def _server_opt_base(setting, cls_name):
    from flwr.server import strategy as st

    return getattr(st, cls_name)


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


# The classes of public bug reports the mutants reproduce: key -> (what, where a public report of it was found;
# "" where none was located: then the class comes from the list of commonly reported bugs)
REPORTS: dict[str, tuple[str, str]] = {
    "scaffold-sign": ("SCAFFOLD correction sign flipped", "fedbiomed/fedbiomed#734"),
    "cv-delta-zero": ("control-variate change always zero", "KarhouTam/SCAFFOLD-PyTorch#1"),
    "steps-count": ("local steps counted as samples x epochs", "VectorInstitute/FL4Health#64"),
    "cohort-size": ("weights wrong when the cohort size changes", "WAFFLE#6"),
    "nonparticipants": ("non-participants' updates or state aggregated", "KarhouTam/FL-bench#19"),
    "server-step-twice": ("server step applied twice", ""),
    "prox-sign": ("proximal term with the wrong sign", ""),
    "data-size": ("weights by data size where equal weights are claimed", ""),
    "stale-cv": ("stale control variate after non-participation", ""),
    "rates-stuck": ("F3AST's rate estimates never updated", ""),
    "amplify-every-round": ("amplification every round, not once per window", ""),
    "grad-at-server": ("gradient taken at the server model", ""),
    "cv-sum": ("control variate = sum of the gradients, not their mean", ""),
    "no-zero-grad": ("gradients accumulated across steps (no zero_grad)", ""),
    "sampling": ("sampling with replacement or not uniformly", ""),
    "momentum-for-update": ("server momentum used where the update belongs (or the reverse)", ""),
    "prox-zero": ("proximal term always 0: parameters not detached or copied", "KarhouTam/FL-bench#165, "
                  "flwrlabs/flower#1654"),
    "prox-not-squared": ("proximal term not squared", "MLOPTPSU/FedTorch#11, ki-ljl/FedProx-PyTorch#1"),
    "cv-sends-ci": ("SCAFFOLD client sends c_i instead of its change", "TL-System/plato#382"),
    "cv-epoch-scale": ("SCAFFOLD c_i scaled by one epoch's steps, not all K", "TL-System/plato#382, "
                       "ki-ljl/Scaffold-Federated-Learning#1"),
    "cv-random-init": ("control variates initialised at random", "Xtra-Computing/NIID-Bench#8"),
    "aggregate-not-reset": ("aggregate accumulates across rounds (not reset)", "cisco-open/flame#95"),
    "secagg-saturates": ("secure aggregation's fixed-point sum saturates", "fedbiomed/fedbiomed#1210"),
}


class Mutant(NamedTuple):
    """One planted bug: where it lives (form), what is claimed, the implementation, the bug and its report class."""

    name: str
    form: str
    algorithm: str
    law: str
    impl: Any
    bug: str
    report: str


_OLD = [  # last release's 28 (name, form, algorithm, law, implementation, report class)
    ("fn-scaffold-sign", "function", "scaffold", "uniform", fn_scaffold_sign, "scaffold-sign"),
    ("fn-scaffold-zero-delta", "function", "scaffold", "uniform", fn_scaffold_zero_delta, "cv-delta-zero"),
    ("fn-steps-samples-epochs", "function", "fedavg", "uniform", fn_steps_samples_epochs, "steps-count"),
    ("fn-cohort-size", "function", "fedavg", "bernoulli", fn_cohort_size, "cohort-size"),
    ("fn-nonparticipants", "function", "fedavg", "uniform", fn_nonparticipants, "nonparticipants"),
    ("fn-server-twice", "function", "fedavg", "uniform", fn_server_twice, "server-step-twice"),
    ("fn-fedprox-sign", "function", "fedprox", "uniform", fn_fedprox_sign, "prox-sign"),
    ("fn-data-size", "function", "fedavg", "uniform", fn_data_size, "data-size"),
    ("fn-stale-cv", "function", "scaffold", "bernoulli", fn_stale_cv, "stale-cv"),
    ("fn-f3ast-rates-stuck", "function", "f3ast", "static-policy", fn_f3ast_rates_stuck, "rates-stuck"),
    ("fn-amplify-every-round", "function", "amplified_fedavg", "cyclic", fn_amplify_every_round, "amplify-every-round"),
    ("fn-grad-at-server", "function", "fedavg", "uniform", fn_grad_at_server, "grad-at-server"),
    ("fn-scaffold-sum", "function", "scaffold", "uniform", fn_scaffold_sum, "cv-sum"),
    ("t-scaffold-sign", "torch", "scaffold", "uniform", t_scaffold_sign, "scaffold-sign"),
    ("t-mask-ignored", "torch", "fedavg", "bernoulli", t_mask_ignored, "nonparticipants"),
    ("t-cohort-size", "torch", "fedavg", "bernoulli", t_cohort_size, "cohort-size"),
    ("t-no-zero-grad", "torch", "fedavg", "uniform", t_no_zero_grad, "no-zero-grad"),
    ("t-data-size", "torch", "fedavg", "uniform", t_data_size, "data-size"),
    ("t-fedprox-sign", "torch", "fedprox", "uniform", t_fedprox_sign, "prox-sign"),
    ("t-cv-unmasked", "torch", "scaffold", "bernoulli", t_cv_unmasked, "nonparticipants"),
    ("w-replacement", "flower", "fedavg", "uniform", w_replacement, "sampling"),
    ("w-server-twice", "flower", "fedavg", "uniform", w_server_twice, "server-step-twice"),
    ("w-data-size", "flower", "fedavg", "uniform", w_data_size, "data-size"),
    ("w-stale-results", "flower", "fedavg", "uniform", w_stale_results, "nonparticipants"),
    ("w-local-steps", "flower", "fedavg", "uniform", w_local_steps, "steps-count"),
    ("w-fedprox-sign", "flower", "fedprox", "uniform", w_fedprox_sign, "prox-sign"),
    ("w-fast-not-uniform", "flower", "fast", "fast-snapshot", w_fast_not_uniform, "sampling"),
    ("w-f3ast-rates-stuck", "flower", "f3ast", "static-policy", w_f3ast_rates_stuck, "rates-stuck"),
]

_NEW = [  # issue 41's classes: server step, server optimisers, proximal term, control variates, accumulation, secagg
    ("fn-server-lr-twice", "function", "fedavg", "uniform", fn_server_lr_twice, "server-step-twice"),
    ("t-server-lr-twice", "torch", "fedavg", "uniform", t_server_lr_twice, "server-step-twice"),
    ("w-server-lr-twice", "flower", "fedavg", "uniform", w_server_lr_twice, "server-step-twice"),
    ("fn-fedavgm-update-for-momentum", "function", "fedavgm", "uniform", fn_fedavgm_update_for_momentum,
     "momentum-for-update"),
    ("fn-fedavgm-stale-momentum", "function", "fedavgm", "uniform", fn_fedavgm_stale_momentum, "momentum-for-update"),
    ("t-fedavgm-update-for-momentum", "torch", "fedavgm", "uniform", t_fedavgm_update_for_momentum,
     "momentum-for-update"),
    ("w-fedavgm-update-for-momentum", "flower", "fedavgm", "uniform", w_fedavgm_update_for_momentum,
     "momentum-for-update"),
    ("fn-fedadam-update-for-momentum", "function", "fedadam", "uniform", fn_fedadam_update_for_momentum,
     "momentum-for-update"),
    ("t-fedadam-update-for-momentum", "torch", "fedadam", "uniform", t_fedadam_update_for_momentum,
     "momentum-for-update"),
    ("w-fedadam-update-for-momentum", "flower", "fedadam", "uniform", w_fedadam_update_for_momentum,
     "momentum-for-update"),
    ("fn-fedyogi-update-for-momentum", "function", "fedyogi", "uniform", fn_fedyogi_update_for_momentum,
     "momentum-for-update"),
    ("w-fedyogi-update-for-momentum", "flower", "fedyogi", "uniform", w_fedyogi_update_for_momentum,
     "momentum-for-update"),
    ("fn-fedadagrad-server-twice", "function", "fedadagrad", "uniform", fn_fedadagrad_server_twice,
     "server-step-twice"),
    ("w-fedadagrad-server-twice", "flower", "fedadagrad", "uniform", w_fedadagrad_server_twice, "server-step-twice"),
    ("fn-aggregate-not-reset", "function", "fedavg", "uniform", fn_aggregate_not_reset, "aggregate-not-reset"),
    ("t-aggregate-not-reset", "torch", "fedavg", "uniform", t_aggregate_not_reset, "aggregate-not-reset"),
    ("w-aggregate-not-reset", "flower", "fedavg", "uniform", w_aggregate_not_reset, "aggregate-not-reset"),
    ("fn-secagg-saturates", "function", "fedavg", "uniform", fn_secagg_saturates, "secagg-saturates"),
    ("t-secagg-saturates", "torch", "fedavg", "uniform", t_secagg_saturates, "secagg-saturates"),
    ("w-secagg-saturates", "flower", "fedavg", "uniform", w_secagg_saturates, "secagg-saturates"),
    ("fn-fedprox-zero-alias", "function", "fedprox", "uniform", fn_fedprox_zero_alias, "prox-zero"),
    ("t-fedprox-not-detached", "torch", "fedprox", "uniform", t_fedprox_not_detached, "prox-zero"),
    ("w-fedprox-mu-not-sent", "flower", "fedprox", "uniform", w_fedprox_mu_not_sent, "prox-zero"),
    ("fn-fedprox-not-squared", "function", "fedprox", "uniform", fn_fedprox_not_squared, "prox-not-squared"),
    ("t-fedprox-not-squared", "torch", "fedprox", "uniform", t_fedprox_not_squared, "prox-not-squared"),
    ("fn-scaffold-sends-ci", "function", "scaffold", "uniform", fn_scaffold_sends_ci, "cv-sends-ci"),
    ("t-scaffold-sends-ci", "torch", "scaffold", "uniform", t_scaffold_sends_ci, "cv-sends-ci"),
    ("fn-scaffold-epoch-scale", "function", "scaffold", "uniform", fn_scaffold_epoch_scale, "cv-epoch-scale"),
    ("fn-scaffold-random-init", "function", "scaffold", "uniform", fn_scaffold_random_init, "cv-random-init"),
    ("t-scaffold-random-init", "torch", "scaffold", "uniform", t_scaffold_random_init, "cv-random-init"),
]

MUTANTS: list[Mutant] = [Mutant(n, f, a, law, impl, REPORTS[rep][0], rep) for n, f, a, law, impl, rep in _OLD + _NEW]

CORRECT: list[tuple[str, str, str, str, Any]] = [
    ("fn-fedavg", "function", "fedavg", "uniform", ex.fedavg_round),
    ("fn-fedavg-bern", "function", "fedavg", "bernoulli", ex.fedavg_round),
    ("fn-fedprox", "function", "fedprox", "uniform", ex.fedavg_round),
    ("fn-scaffold", "function", "scaffold", "uniform", ex.scaffold_round),
    ("fn-scaffold-bern", "function", "scaffold", "bernoulli", ex.scaffold_round),
    ("fn-f3ast", "function", "f3ast", "static-policy", ex.f3ast_round),
    ("fn-amp-fedavg", "function", "amplified_fedavg", "cyclic", ex.amplified_fedavg_round),
    ("fn-fedavgm", "function", "fedavgm", "uniform", ex.fedavgm_round),
    ("fn-fedadam", "function", "fedadam", "uniform", ex.fedadam_round),
    ("fn-fedyogi", "function", "fedyogi", "uniform", ex.fedyogi_round),
    ("fn-fedadagrad", "function", "fedadagrad", "uniform", ex.fedadagrad_round),
    ("t-fedavg", "torch", "fedavg", "uniform", ex.fedavg_step),
    ("t-fedavg-bern", "torch", "fedavg", "bernoulli", ex.fedavg_step),
    ("t-scaffold-bern", "torch", "scaffold", "bernoulli", ex.scaffold_step),
    ("t-fedavgm", "torch", "fedavgm", "uniform", ex.fedavgm_step),
    ("t-fedadam", "torch", "fedadam", "uniform", ex.fedadam_step),
    ("w-flower-fedavg", "flower", "fedavg", "uniform", ex.fedavg_strategy),
    ("w-flower-fedprox", "flower", "fedprox", "uniform", ex.fedavg_strategy),
    ("w-flower-fedavgm", "flower", "fedavgm", "uniform", ex.fedavgm_strategy),
    ("w-flower-fedadam", "flower", "fedadam", "uniform", ex.fedadam_strategy),
    ("w-flower-fedyogi", "flower", "fedyogi", "uniform", ex.fedyogi_strategy),
    ("w-flower-fedadagrad", "flower", "fedadagrad", "uniform", ex.fedadagrad_strategy),
    ("w-fast", "flower", "fast", "fast-snapshot", ex.fast_strategy),
    ("w-f3ast", "flower", "f3ast", "static-policy", ex.f3ast_strategy),
]
