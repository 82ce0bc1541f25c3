"""Amplified FedAvg and Amplified SCAFFOLD (Amplified SCAFFOLD Algorithm 1, ASCAF.ALG1).

**Algorithm** (per round r in window [r0, r0+P)): clients run K local steps from x_r with direction
g - G^i_{r0} + G_{r0} (control variates fixed for the window; none for Amplified FedAvg);
x_{r+1} = x_r + eta_g sum_i q_r^i Delta_r^i (line 12), u accumulates the same increment (line 13).
At r = r0 + P - 1: x_{r0+P} = x_{r0} + gamma u (line 15, amplification); control variates
(lines 17-21): qbar^i = (1/P) sum_s q_s^i and, where qbar^i > 0,
  variant "paper" (default, line 18): G^i = sum_s sum_k q_s^i g^i_{s,k} / (K P qbar^i),
  variant "code" (LB.ALG step 5): G^i = unweighted mean of all raw gradients client i computed;
else G^i is kept; G = (1/M) sum_i G^i. G_0^i = 0 (LB.DIFF 4; the paper's init is unrecovered).
The two variants agree whenever a client's weight is the same in every round it takes part.
**Notation**: paper I (local steps) = our K; eta = local step (code lr/gamma); gamma = amplification.
With P = 1 and gamma = 1 this is SCAFFOLD (window = round).
"""

from __future__ import annotations

from bounds.core.errors import UserInputError, unknown

from .algorithm import Algorithm
from .local_methods import VARIANTS, Aggregation, ControlVariates, LocalSteps, Window, local_method

__all__ = ["VARIANTS", "amplified", "amplified_fedavg", "amplified_scaffold"]


def amplified(name: str, eta: float, K: int, gamma: float, P: int, control: bool,
              eta_g: float = 1.0, variant: str = "paper") -> Algorithm:
    """The amplified window (P, gamma) over the one local-method round (:func:`quadratics.local_methods.local_method`)."""
    if not (eta > 0 and eta_g > 0 and gamma > 0):
        raise UserInputError(f"eta={eta}, eta_g={eta_g} and gamma={gamma} must be positive")
    alg = local_method(name, LocalSteps(eta, K), Aggregation(eta_g), ControlVariates(variant) if control else None,
                       Window(P, gamma))
    if variant not in VARIANTS:  # without control variates the variant selects nothing, but a wrong one is refused
        raise unknown("control-variate variant", variant, VARIANTS)
    return alg


def amplified_fedavg(eta: float, K: int, gamma: float, P: int, eta_g: float = 1.0) -> Algorithm:
    """Amplified FedAvg: Algorithm 1 without control variates."""
    return amplified("amplified_fedavg", eta, K, gamma, P, control=False, eta_g=eta_g)


def amplified_scaffold(eta: float, K: int, gamma: float, P: int, eta_g: float = 1.0,
                       variant: str = "paper") -> Algorithm:
    """Amplified SCAFFOLD, Algorithm 1 line by line (variant "paper") or the reference code ("code")."""
    return amplified("amplified_scaffold", eta, K, gamma, P, control=True, eta_g=eta_g, variant=variant)
