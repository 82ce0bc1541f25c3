"""Last release's mutants of the correct implementations of :mod:`verify.conformance.examples` (one bug each,
in the form where it can live); the registry with their report classes: ``conformance_mutants.py``."""

from __future__ import annotations

import random
from typing import Any

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


