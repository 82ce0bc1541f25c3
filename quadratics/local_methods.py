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

:func:`local_method` composes a round from its parts: :class:`LocalSteps` (eta or a schedule, K, mu_prox),
:class:`Aggregation` (eta_g; q or F3AST's importance weights), :class:`ControlVariates` (or none) and
:class:`Window` (P, gamma). What the pattern and the engine hand a round (participants, their weights,
rates r_k(t), data weights p) is read once into a :class:`RoundInputs`; no part reads the ``aux`` mapping.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
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


@dataclass(frozen=True)
class RoundInputs:
    """What the pattern and the engine hand a round besides the weights q, read once and named: the
    participants ``idx`` [T, n] and their weights ``qa``; ``wd``, one participant's weight spread over the
    coordinates (or None); ``rates`` r_k(t) and data weights ``p`` where an availability pattern tracks them."""

    idx: torch.Tensor
    qa: torch.Tensor
    wd: torch.Tensor | None = None
    rates: Any = None
    p: Any = None

    @staticmethod
    def read(q: torch.Tensor, aux: Mapping[str, Any]) -> RoundInputs:
        """The inputs of one round from the engine's ``aux`` mapping (the Algorithm protocol's last argument)."""
        idx, qa = active(q, aux)
        return RoundInputs(idx, qa, aux.get("wd"), aux.get("rates"), aux["p"] if "p" in aux else 1.0 / q.shape[1])


@dataclass(frozen=True)
class LocalSteps:
    """Each participant's K local steps from x_r (:func:`quadratics.algorithm.local_sgd`): step ``eta`` (a
    number, or a schedule: :func:`quadratics.schedule.step_schedule`) on g + correction + mu_prox (y - x_r)."""

    eta: Any
    K: int
    mu_prox: float = 0.0
    schedule: StepSchedule | None = None

    def run(self, bound: Any, x: torch.Tensor, idx: torch.Tensor, r: int, gen: Any, corr: torch.Tensor | None,
            keep_grad_sum: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(y_K [T, n, d], the raw gradient sum when ``keep_grad_sum``) of round ``r``."""
        step = self.eta if self.schedule is None else self.schedule.steps(r)
        return local_sgd(bound, x, idx, self.K, step, gen, corr, self.mu_prox, keep_grad_sum=keep_grad_sum)

    @property
    def described(self) -> Any:
        return self.eta if self.schedule is None else self.schedule.describe


@dataclass(frozen=True)
class Aggregation:
    """The server step x + eta_g sum_i w_i Delta_i: w = q, or F3AST's w_i = 1{q_i > 0} p_i / r_i(t)
    (``importance``, F3AST.ALG1 line 9, with the pattern's rates)."""

    eta_g: float = 1.0
    importance: bool = False

    def weights(self, x: torch.Tensor, y: torch.Tensor, q: torch.Tensor, inputs: RoundInputs) -> torch.Tensor:
        if self.importance:
            if inputs.rates is None:
                raise UserInputError("the f3ast algorithm needs an availability pattern that tracks rates r_k(t)")
            return (inputs.qa > 0).to(x.dtype) * torch.gather(torch.as_tensor(
                inputs.p * 1.0 / inputs.rates, device=x.device, dtype=x.dtype).expand_as(q), 1, inputs.idx)
        # one participant: its weight already spread over the coordinates when the engine gives it
        return inputs.wd if inputs.wd is not None and y.shape[1] == 1 else inputs.qa


@dataclass(frozen=True)
class ControlVariates:
    """SCAFFOLD's control variates G^i, G (state ``ci``, ``c``) and their window sums (``sum_w``, ``sum_wg``):
    the correction G - G^i of each local direction, the sums of (weight, weighted raw gradient sum) over the
    window, and the refresh at its end; weights q (variant "paper") or 1{q > 0} ("code")."""

    variant: str = "code"

    def init(self, state: State, x0: torch.Tensor, M: int) -> None:
        T, d = x0.shape
        z = torch.zeros((T, M, d), dtype=x0.dtype, device=x0.device)
        state.update(ci=z, c=torch.zeros_like(x0), sum_w=torch.zeros((T, M), dtype=x0.dtype, device=x0.device),
                     sum_wg=z.clone())

    def correction(self, state: State, idx: torch.Tensor, d: int) -> tuple[torch.Tensor, torch.Tensor]:
        """(G - G^i of each participant [T, n, d], the participants' index expanded over the coordinates)."""
        ex = idx[..., None].expand(-1, -1, d)
        return state["c"][:, None, :] - torch.gather(state["ci"], 1, ex), ex

    def accumulate(self, state: State, new: State, inputs: RoundInputs, ex: torch.Tensor, gsum: torch.Tensor) -> None:
        qa = inputs.qa
        cw = qa if self.variant == "paper" else (qa > 0).to(state["x"].dtype)
        new["sum_w"] = state["sum_w"].scatter_add(1, inputs.idx, cw)
        new["sum_wg"] = state["sum_wg"].scatter_add(1, ex, cw[..., None] * gsum)

    def refresh(self, state: State, new: State, K: int) -> None:
        """At the window's end: G^i = sum_wg / (K sum_w) where sum_w > 0 (else kept), G their mean."""
        sw = new["sum_w"][..., None]
        new["ci"] = torch.where(sw > 0, new["sum_wg"] / (K * sw.clamp_min(1e-300)), state["ci"])
        new["c"] = new["ci"].mean(1)
        new["sum_w"] = torch.zeros_like(new["sum_w"])
        new["sum_wg"] = torch.zeros_like(new["sum_wg"])


@dataclass(frozen=True)
class Window:
    """The amplified window: every P rounds x_{r0+P} = x_{r0} + gamma (x_{r0+P} - x_{r0}) (ASCAF.ALG1 line 15;
    no anchor kept when gamma = 1) and the control variates are refreshed."""

    P: int = 1
    gamma: float = 1.0

    @property
    def amplify(self) -> bool:
        return self.gamma != 1.0


def local_method(name: str, steps: LocalSteps, aggregation: Aggregation = Aggregation(),
                 control: ControlVariates | None = None, window: Window | None = None) -> Algorithm:
    """The round of every method (see the module docstring), composed of its parts: the local steps, the
    server's aggregation, control variates (or none) and the window (given: the amplified methods, which report
    gamma, P and the variant among their parameters). The named builders below pick the parts.

    ``steps.eta``: a positive number, or a local step schedule (a :class:`quadratics.schedule.StepSchedule`,
    a callable eta(t, i) or a table [rounds, K]; see :func:`quadratics.schedule.step_schedule`).
    """
    win = Window() if window is None else window
    K = _check(steps.eta, steps.K, aggregation.eta_g)
    P = check_count("P", win.P)
    if not (win.gamma > 0 and math.isfinite(win.gamma)):
        raise UserInputError(f"gamma={win.gamma} must be a positive finite number")
    if control is not None and control.variant not in VARIANTS:
        raise unknown("control-variate variant", control.variant, VARIANTS)
    eta = steps.eta
    constant = isinstance(eta, (int, float)) or getattr(eta, "ndim", 1) == 0
    steps = replace(steps, eta=float(eta) if constant else eta, K=K, schedule=None if constant else step_schedule(eta, K))
    if steps.mu_prox < 0:
        raise UserInputError(f"mu_prox={steps.mu_prox} must be >= 0")
    win = replace(win, P=P)

    def linear(problem: Any, aux: Mapping[str, Any]) -> Any:
        return _linear(alg, problem, aux, steps, aggregation, control, win)

    alg = Algorithm(name, _params(steps, aggregation, control, None if window is None else win), K, _init(win, control),
                    _round(steps, aggregation, control, win), linear)
    return alg


def _params(steps: LocalSteps, aggregation: Aggregation, control: ControlVariates | None,
            window: Window | None) -> dict[str, Any]:
    if window is not None:
        return {"eta": steps.described, "K": steps.K, "gamma": window.gamma, "P": window.P, "eta_g": aggregation.eta_g,
                "variant": control.variant if control is not None else None}
    return {"eta": steps.described, "K": steps.K, "eta_g": aggregation.eta_g, "mu_prox": steps.mu_prox}


def _init(window: Window, control: ControlVariates | None) -> Any:
    """The state at x0: the model, the window's anchor (amplified) and the control variates' state."""
    def init(bound: Any, x0: torch.Tensor, M: int) -> State:
        state = {"x": x0.clone()}
        if window.amplify:
            state["anchor"] = x0.clone()
        if control is not None:
            control.init(state, x0, M)
        return state

    return init


def _round(steps: LocalSteps, aggregation: Aggregation, control: ControlVariates | None, window: Window) -> Any:
    """One round: local steps (corrected by the control variates), aggregation, and at the window's end the
    amplification and the control variates' refresh."""
    def round_(state: State, bound: Any, q: torch.Tensor, r: int, gen: Any, aux: Mapping[str, Any]) -> State:
        x = state["x"]
        inputs = RoundInputs.read(q, aux)
        corr = ex = None
        if control is not None:
            corr, ex = control.correction(state, inputs.idx, x.shape[1])
        y, gsum = steps.run(bound, x, inputs.idx, r, gen, corr, keep_grad_sum=control is not None)
        x_new = aggregate(x, y, aggregation.weights(x, y, q, inputs), aggregation.eta_g)
        new = dict(state)
        if control is not None:
            assert gsum is not None and ex is not None  # (kept when control)
            control.accumulate(state, new, inputs, ex, gsum)
        if (r + 1) % window.P == 0:
            if window.amplify:
                x_new = state["anchor"] + window.gamma * (x_new - state["anchor"])
                new["anchor"] = x_new
            if control is not None:
                control.refresh(state, new, steps.K)
        new["x"] = x_new
        return new

    return round_


def _linear(alg: Algorithm, problem: Any, aux: Mapping[str, Any], steps: LocalSteps, aggregation: Aggregation,
            control: ControlVariates | None, window: Window) -> Any:
    """This round's declaration: affine in the state given the participating set, except SCAFFOLD's
    control variates over a window P > 1 (divided by the window's random participation count) and F3AST's
    weights when the pattern's rates come from the run.

    Seven parameters, why: the algorithm it declares and the parts it was composed of, as :func:`local_method`
    binds them."""
    if control is not None and window.P > 1:
        return ("amplified SCAFFOLD with a window P > 1 divides its control variates by the window's random "
                "participation count (not affine in the participation)")
    if aggregation.importance and "rates" not in aux:
        return ("F3AST's weights p_k / r_k(t) need known rates (a static policy); this pattern's rates come from "
                "the run")
    if control is not None or aggregation.importance or steps.schedule is not None:
        from .exact.probe import probed_round_map  # affine, coefficients read off this round function

        return probed_round_map(alg, problem, dict(aux))
    from .exact.closed_form import state_x_round_map

    return state_x_round_map(problem, float(steps.eta), steps.K, aggregation.eta_g, steps.mu_prox, window.gamma,
                             window.P)


def fedavg(eta: float, K: int, eta_g: float = 1.0) -> Algorithm:
    """FedAvg: local SGD, server x + eta_g sum_i q_i Delta_i."""
    return local_method("fedavg", LocalSteps(eta, K), Aggregation(eta_g))


def fedprox(eta: float, K: int, mu_prox: float, eta_g: float = 1.0) -> Algorithm:
    """FedProx: FedAvg with the proximal term mu_prox (y - x_r) in each local direction."""
    return local_method("fedprox", LocalSteps(eta, K, mu_prox), Aggregation(eta_g))


def scaffold(eta: float, K: int, eta_g: float = 1.0) -> Algorithm:
    """SCAFFOLD with option-II control variates (per round), as in LB.ALG step 4: the window P = 1,
    gamma = 1, unweighted ("code") control-variate means."""
    return local_method("scaffold", LocalSteps(eta, K), Aggregation(eta_g), ControlVariates("code"))


def f3ast(eta: Any, K: int, eta_g: float = 1.0) -> Algorithm:
    """F3AST aggregation: importance weights p_k / r_k(t) with the pattern's rates (F3AST.ALG1 line 9).

    ``eta`` may be a local step schedule, e.g. :func:`quadratics.schedule.f3ast_steps` (Theorem III.5)."""
    return local_method("f3ast", LocalSteps(eta, K), Aggregation(eta_g, importance=True))


def fast(eta: float, K: int, eta_g: float = 1.0, base: str = "fedavg", mu_prox: float = 0.0) -> Algorithm:
    """FAST = a base method run under the FAST snapshot pattern ("FAST+" with base fedprox/scaffold)."""
    bases = {"fedavg": (0.0, None), "fedprox": (mu_prox, None), "scaffold": (0.0, ControlVariates("code"))}
    if base not in bases:
        raise unknown("FAST base algorithm", base, bases)
    prox, control = bases[base]
    return local_method(f"fast+{base}", LocalSteps(eta, K, prox), Aggregation(eta_g), control)
