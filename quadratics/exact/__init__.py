"""Exact moments of the engine's linear instances: mean and second moment of the whole state, propagated
through the participation law and the gradient noise with no sampling error.

Covered: whatever declares itself (:mod:`quadratics.exact.declare`: ``Problem.affine_gradients``,
``Algorithm.linear``, ``Pattern.law``; no name is recognised). The built-ins declare: the quadratic families;
FedAvg, FedProx, FAST (fedavg/fedprox base) and Amplified FedAvg in closed form, SCAFFOLD (P = 1), FAST+SCAFFOLD
and F3AST weights under a static policy by probing their own round; uniform, cyclic, FAST's snapshot mixture,
static-policy and i.i.d.-availability laws (:mod:`quadratics.exact.laws`). :func:`applies` says whether an
instance is covered and, if not, which declaration is missing or what it says.
FAST's mixture and arbitrary participation draw client propensities once per trial, which couples all
rounds: :func:`per_trial_moments` integrates participation and noise exactly given each trial's draw
(the same draw the engine makes), leaving a Monte Carlo mean over the propensities only.

>>> from quadratics import fedavg, heterogeneous_quadratic, uniform
>>> from quadratics.exact import exact_moments
>>> pb = heterogeneous_quadratic(L=1.0, mu=1.0, d=1, M=2, zeta=0.0, sigma=0.0, D0=1.0)
>>> exact_moments(pb, fedavg(eta=0.5, K=1), uniform(M=2, S=2), rounds=3).final["dist_sq"]  # (1/2)^(2*3)
0.015625
"""

from .evaluate import (
    METRICS,
    ExactMoments,
    PerTrialMoments,
    applies,
    exact_curve,
    exact_moments,
    expectations,
    per_trial_applies,
    per_trial_moments,
)

__all__ = ["METRICS", "ExactMoments", "PerTrialMoments", "applies", "exact_curve", "exact_moments", "expectations",
           "per_trial_applies", "per_trial_moments"]
