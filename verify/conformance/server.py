"""The server optimisers as reference algorithms (batched over trials, as :mod:`quadratics.local_methods`).

**Setting**: a round of FedAvg's local steps from the server model x (K steps of size eta per participant,
uniform cohort), Delta = (1/|S|) sum_{i in S} (y_i - x) the average update (Flower: minus the pseudo-gradient).
**Algorithm** (as Flower 1.41's strategies write them; t = the server round, 1-based):

* FedAvgM (Hsu et al. 2019; Flower ``FedAvgM``): v <- beta v + Delta (v = Delta at t = 1), x <- x + eta_g v.
  Affine in the state (x, v) given the cohort: the exact path scores it (probed round maps).
* FedAdam (Reddi et al. 2021, Algorithm 2; Flower ``FedAdam``): m <- beta_1 m + (1 - beta_1) Delta,
  v <- beta_2 v + (1 - beta_2) Delta^2, x <- x + eta_t m / (sqrt(v) + tau) with Flower's bias-corrected
  eta_t = eta_g sqrt(1 - beta_2^(t+1)) / (1 - beta_1^(t+1)).
* FedYogi: v <- v - (1 - beta_2) Delta^2 sign(v - Delta^2), x <- x + eta_g m / (sqrt(v) + tau).
* FedAdagrad: m = Delta (beta_1 = 0), v <- v + Delta^2, x <- x + eta_g m / (sqrt(v) + tau).

The adaptive three divide coordinate-wise by sqrt(v): not affine, so no exact moment recursion exists; the check
is then a two-sample test of the implementation's trials against a simulation of this reference implementation
(its standard errors enter every z), and the record says so (:data:`NONLINEAR`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from .claims import ADAPTIVE, Setting

# why the exact path declines the adaptive optimisers (the record's ``why_not_exact``)
NONLINEAR = ("{name}'s server step divides by sqrt(v) coordinate-wise, not affine: the reference is convbound's "
             "implementation of Flower's {name} update rule")
NAMES = {"fedavgm": "FedAvgM", "fedadam": "FedAdam", "fedyogi": "FedYogi", "fedadagrad": "FedAdagrad"}


def _average_update(base: Any, state: Mapping[str, torch.Tensor], bound: Any, q: torch.Tensor, r: int, gen: Any,
                    aux: Mapping[str, Any]) -> torch.Tensor:
    """Delta [T, d]: the q-weighted local update of FedAvg's local steps from state["x"] (server step 1)."""
    x = state["x"]
    return base.round({"x": x}, bound, q, r, gen, aux)["x"] - x


def _adaptive_step(algorithm: str, s: Setting, m: torch.Tensor, v: torch.Tensor, delta: torch.Tensor,
                   t: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(m', v', server increment) of one adaptive round (see the module docstring)."""
    m = s.beta_1 * m + (1 - s.beta_1) * delta
    sq = delta * delta
    if algorithm == "fedadam":
        v = s.beta_2 * v + (1 - s.beta_2) * sq
        eta_t = s.eta_g * math.sqrt(1 - s.beta_2 ** (t + 1)) / (1 - s.beta_1 ** (t + 1))
    elif algorithm == "fedyogi":
        v = v - (1 - s.beta_2) * sq * torch.sign(v - sq)
        eta_t = s.eta_g
    else:
        v = v + sq
        eta_t = s.eta_g
    return m, v, eta_t * m / (torch.sqrt(v) + s.tau)


def server_optimiser(algorithm: str, s: Setting) -> Any:
    """The reference :class:`quadratics.Algorithm` of a server optimiser claim (FedAvgM declares its round affine;
    the adaptive ones decline the exact path with :data:`NONLINEAR`)."""
    import quadratics as qd
    from quadratics.algorithm import Algorithm

    base = qd.fedavg(s.eta, s.K, 1.0)

    def init(bound: Any, x0: torch.Tensor, M: int) -> dict[str, torch.Tensor]:
        state = {"x": x0.clone(), "v": torch.zeros_like(x0)}
        if algorithm in ADAPTIVE:
            state["m"] = torch.zeros_like(x0)
        return state

    def round_(state: dict[str, torch.Tensor], bound: Any, q: torch.Tensor, r: int, gen: Any,
               aux: Mapping[str, Any]) -> dict[str, torch.Tensor]:
        delta = _average_update(base, state, bound, q, r, gen, aux)
        if algorithm == "fedavgm":
            v = s.beta * state["v"] + delta
            return {"x": state["x"] + s.eta_g * v, "v": v}
        m, v, step = _adaptive_step(algorithm, s, state["m"], state["v"], delta, r + 1)
        return {"x": state["x"] + step, "m": m, "v": v}

    def linear(problem: Any, aux: Mapping[str, Any]) -> Any:
        if algorithm in ADAPTIVE:
            return NONLINEAR.format(name=NAMES[algorithm])
        from quadratics.exact.probe import probed_round_map  # affine: coefficients read off this round

        return probed_round_map(alg, problem, dict(aux))

    params = {"eta": s.eta, "K": s.K, "eta_g": s.eta_g, "beta": s.beta, "beta_1": s.beta_1, "beta_2": s.beta_2,
              "tau": s.tau}
    alg = Algorithm(algorithm, params, s.K, init, round_, linear)
    return alg
