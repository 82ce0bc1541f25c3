"""Every round-level method as one round function with variations: FedAvg, FedProx, SCAFFOLD, F3AST
aggregation, FAST (a base + snapshots), Amplified FedAvg and Amplified SCAFFOLD.

**Algorithm** (one round r in window [r0, r0+P) with weights q_r^i): every participating client runs K
local steps from x_r (:func:`quadratics.algorithm.local_sgd`, the one local step) with direction
g - G^i + G (control variates; none without ``control``) + mu_prox (y - x_r) (FedProx), Delta_i =
y_K^i - x_r, and the server sets x_{r+1} = x_r + eta_g sum_i w_r^i Delta_i with w = q
(FedAvg/FedProx/SCAFFOLD, ASCAF.ALG1 line 12 with unnormalised q) or w_i = 1{q_i > 0} p_i / r_i(t)
(F3AST.ALG1 line 9, rates from the pattern). At the window's last round r = r0 + P - 1:
x_{r0+P} = x_{r0} + gamma (x_{r0+P} - x_{r0}) (ASCAF.ALG1 line 15; skipped when gamma = 1) and the
control variates are refreshed (lines 17-21): qbar^i = (1/P) sum_s w_s^i and, where qbar^i > 0,
G^i = sum_s sum_k w_s^i g^i_{s,k} / (K P qbar^i) with w_s^i = q_s^i (variant "paper", line 18) or
1{q_s^i > 0} (variant "code", LB.ALG step 5: the unweighted mean of the raw gradients); else G^i is
kept; G = (1/M) sum_i G^i; G_0^i = 0.
SCAFFOLD (option II, LB.ALG step 4) is the case P = 1, gamma = 1, variant "code": after each round
every participant sets G^i to the mean of its K raw gradients. FAST (FAST.ALG1) is any base run under
the :func:`quadratics.snapshot.fast_mixture` pattern.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from bounds.core.errors import UserInputError, unknown

from .algorithm import Algorithm, State, active, aggregate, local_sgd
from .problem import check_count
from .schedule import StepSchedule, step_schedule

VARIANTS = ("paper", "code")


def _check(eta: Any, K: int, eta_g: float) -> int:
    scheduled = callable(eta) or isinstance(eta, StepSchedule) or getattr(eta, "ndim", 0) > 0
    if not ((scheduled or eta > 0) and eta_g > 0):
        raise UserInputError(f"step sizes must be positive (eta={eta}, eta_g={eta_g})")
    return check_count("K", K)


def local_method(name: str, eta: Any, K: int, eta_g: float = 1.0, mu_prox: float = 0.0,
                 control: bool = False, importance: bool = False, P: int = 1, gamma: float = 1.0,
                 variant: str = "code", window_params: bool = False) -> Algorithm:
    """The round of every method (see the module docstring); the named builders below pick the variation.

    ``eta``: a positive number, or a local step schedule (a :class:`quadratics.schedule.StepSchedule`,
    a callable eta(t, i) or a table [rounds, K]; see :func:`quadratics.schedule.step_schedule`).
    ``control``: control variates; ``P``, ``gamma``, ``variant``: the window, its amplification and
    the control-variate weights; ``importance``: F3AST's aggregation weights; ``window_params``:
    report gamma, P and variant among the parameters (the amplified methods).
    """
    K = _check(eta, K, eta_g)
    P = check_count("P", P)
    if not (gamma > 0 and math.isfinite(gamma)):
        raise UserInputError(f"gamma={gamma} must be a positive finite number")
    if variant not in VARIANTS:
        raise unknown("control-variate variant", variant, VARIANTS)
    constant = isinstance(eta, (int, float)) or getattr(eta, "ndim", 1) == 0
    schedule = None if constant else step_schedule(eta, K)
    eta = float(eta) if constant else eta
    if mu_prox < 0:
        raise UserInputError(f"mu_prox={mu_prox} must be >= 0")
    amplify = gamma != 1.0

    def init(bound: Any, x0: torch.Tensor, M: int) -> State:
        T, d = x0.shape
        state = {"x": x0.clone()}
        if amplify:
            state["anchor"] = x0.clone()
        if control:
            z = torch.zeros((T, M, d), dtype=x0.dtype, device=x0.device)
            state.update(ci=z, c=torch.zeros_like(x0), sum_w=torch.zeros((T, M), dtype=x0.dtype, device=x0.device),
                         sum_wg=z.clone())
        return state

    def round_(state: State, bound: Any, q: torch.Tensor, r: int, gen: Any,
               aux: Mapping[str, Any]) -> State:
        x = state["x"]
        d = x.shape[1]
        idx, qa = active(q, aux)
        corr = ex = None
        if control:
            ex = idx[..., None].expand(-1, -1, d)
            corr = state["c"][:, None, :] - torch.gather(state["ci"], 1, ex)
        step = eta if schedule is None else schedule.steps(r)
        y, gsum = local_sgd(bound, x, idx, K, step, gen, corr, mu_prox, keep_grad_sum=control)
        if importance:
            if "rates" not in aux:
                raise UserInputError("the f3ast algorithm needs an availability pattern that tracks rates r_k(t)")
            p = aux["p"] if "p" in aux else 1.0 / q.shape[1]
            w = (qa > 0).to(x.dtype) * torch.gather(torch.as_tensor(p * 1.0 / aux["rates"], device=x.device,
                                                                    dtype=x.dtype).expand_as(q), 1, idx)
        else:  # one participant: its weight already spread over the coordinates when the engine gives it
            w = aux["wd"] if "wd" in aux and y.shape[1] == 1 else qa
        x_new = aggregate(x, y, w, eta_g)
        new = dict(state)
        if control:
            assert gsum is not None and ex is not None  # (kept when control)
            cw = qa if variant == "paper" else (qa > 0).to(x.dtype)
            new["sum_w"] = state["sum_w"].scatter_add(1, idx, cw)
            new["sum_wg"] = state["sum_wg"].scatter_add(1, ex, cw[..., None] * gsum)
        if (r + 1) % P == 0:
            if amplify:
                x_new = state["anchor"] + gamma * (x_new - state["anchor"])
                new["anchor"] = x_new
            if control:
                sw = new["sum_w"][..., None]
                new["ci"] = torch.where(sw > 0, new["sum_wg"] / (K * sw.clamp_min(1e-300)), state["ci"])
                new["c"] = new["ci"].mean(1)
                new["sum_w"] = torch.zeros_like(new["sum_w"])
                new["sum_wg"] = torch.zeros_like(new["sum_wg"])
        new["x"] = x_new
        return new

    described = eta if schedule is None else schedule.describe
    if window_params:
        params = {"eta": described, "K": K, "gamma": gamma, "P": P, "eta_g": eta_g, "variant": variant if control else None}
    else:
        params = {"eta": described, "K": K, "eta_g": eta_g, "mu_prox": mu_prox}
    def linear(problem: Any, aux: Mapping[str, Any]) -> Any:
        """This round's declaration: affine in the state given the participating set, except SCAFFOLD's
        control variates over a window P > 1 (divided by the window's random participation count) and F3AST's
        weights when the pattern's rates come from the run."""
        if control and P > 1:
            return ("amplified SCAFFOLD with a window P > 1 divides its control variates by the window's random "
                    "participation count (not affine in the participation)")
        if importance and "rates" not in aux:
            return ("F3AST's weights p_k / r_k(t) need known rates (a static policy); this pattern's rates come from "
                    "the run")
        if control or importance or schedule is not None:  # affine, coefficients read off this round function
            from .exact.probe import probed_round_map

            return probed_round_map(alg, problem, dict(aux))
        from .exact.closed_form import state_x_round_map

        return state_x_round_map(problem, float(eta), K, eta_g, mu_prox, gamma, P)

    alg = Algorithm(name, params, K, init, round_, linear)
    return alg


def fedavg(eta: float, K: int, eta_g: float = 1.0) -> Algorithm:
    """FedAvg: local SGD, server x + eta_g sum_i q_i Delta_i."""
    return local_method("fedavg", eta, K, eta_g)


def fedprox(eta: float, K: int, mu_prox: float, eta_g: float = 1.0) -> Algorithm:
    """FedProx: FedAvg with the proximal term mu_prox (y - x_r) in each local direction."""
    return local_method("fedprox", eta, K, eta_g, mu_prox=mu_prox)


def scaffold(eta: float, K: int, eta_g: float = 1.0) -> Algorithm:
    """SCAFFOLD with option-II control variates (per round), as in LB.ALG step 4: the window P = 1,
    gamma = 1, unweighted ("code") control-variate means."""
    return local_method("scaffold", eta, K, eta_g, control=True)


def f3ast(eta: Any, K: int, eta_g: float = 1.0) -> Algorithm:
    """F3AST aggregation: importance weights p_k / r_k(t) with the pattern's rates (F3AST.ALG1 line 9).

    ``eta`` may be a local step schedule, e.g. :func:`quadratics.schedule.f3ast_steps` (Theorem III.5)."""
    return local_method("f3ast", eta, K, eta_g, importance=True)


def fast(eta: float, K: int, eta_g: float = 1.0, base: str = "fedavg", mu_prox: float = 0.0) -> Algorithm:
    """FAST = a base method run under the FAST snapshot pattern ("FAST+" with base fedprox/scaffold)."""
    bases: dict[str, dict[str, Any]] = {"fedavg": {}, "fedprox": {"mu_prox": mu_prox}, "scaffold": {"control": True}}
    if base not in bases:
        raise unknown("FAST base algorithm", base, bases)
    return local_method(f"fast+{base}", eta, K, eta_g, **bases[base])
