"""What an implementation claims, and the settings it is checked on.

**Setting**: a claim is an algorithm name and a participation-law name (:data:`ALGORITHMS`, :data:`LAWS`).
The check runs the implementation on a fixed list of :class:`Scenario` per law: quadratic clients of three
families (shared Hessian ``quadratic``, per-client ``diagonal`` and ``rotated`` Hessians), heterogeneous
(zeta = 1), with and without gradient noise, small and large cohorts, and cohort sizes that change from round
to round under the Bernoulli and static-policy laws. Every scenario uses d = 2, local step eta = 0.25, K = 3
local steps and server step eta_g = 1 (Flower's FedAvg has none); FedProx mu = 0.5; the amplified methods
gamma = 1.5 over windows of P = 2 rounds.
**Algorithm** (the reference, :mod:`quadratics.local_methods`): FedAvg, FedProx, SCAFFOLD (option II), FAST
(FedAvg under FAST's snapshot law), F3AST (weights p_k / r_k of a static policy), Amplified FedAvg and
Amplified SCAFFOLD (Amplified SCAFFOLD Algorithm 1, control-variate weights as its line 18).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from bounds.core.errors import UserInputError, unknown

# the server optimisers (FedAvgM: linear, exact moments; FedAdam, FedYogi, FedAdagrad: non-linear, a two-sample
# test against convbound's reference implementation of Flower's update rule, :mod:`verify.conformance.server`)
SERVER_OPTIMISERS = ("fedavgm", "fedadam", "fedyogi", "fedadagrad")
ADAPTIVE = ("fedadam", "fedyogi", "fedadagrad")
ALGORITHMS = ("fedavg", "fedprox", "scaffold", "fast", "f3ast", "amplified_fedavg", "amplified_scaffold",
              *SERVER_OPTIMISERS)
LAWS = ("uniform", "bernoulli", "cyclic", "fast-snapshot", "static-policy")
# the laws each algorithm is defined under (FAST is its snapshot law; F3AST's weights need known rates; the
# server optimisers as Flower runs them: uniform sampling of a fixed cohort)
PAIRS = {"fast": ("fast-snapshot",), "f3ast": ("static-policy", "bernoulli"),
         **{a: ("uniform",) for a in SERVER_OPTIMISERS}}
DEFAULT_LAWS = ("uniform", "bernoulli", "cyclic")

ETA, K, ETA_G, MU_PROX, GAMMA, WINDOW = 0.25, 3, 1.0, 0.5, 1.5, 2
# a server step other than 1 in the last scenario of the uniform and Bernoulli laws: a server step ignored or
# applied twice (eta_g^2) is invisible at eta_g = 1 (last: a check that stops at its first departing scenario
# has then seen the eta_g = 1 scenarios, which tells a server-step bug from others)
ETA_G_SCENARIO = 0.5
# server optimisers: FedAvgM's momentum and step; FedOpt's (Flower's names: eta = our eta_g, beta_1, beta_2,
# tau); a larger server step than FedAvg's default so that five rounds move the model
BETA, ETA_G_MOMENTUM = 0.9, 0.5
ETA_G_ADAPTIVE, BETA_1, BETA_2, TAU = 0.3, 0.9, 0.99, 1e-2


@dataclass(frozen=True)
class Setting:
    """What an implementation is told about a scenario (the claimed law's parameters and the step sizes).

    ``M`` clients; ``K`` local steps of size ``eta``; server step ``eta_g``; ``mu_prox`` (FedProx);
    ``gamma``, ``P`` (amplified window); ``beta`` (FedAvgM's server momentum), ``beta_1``, ``beta_2``, ``tau``
    (FedAdam, FedYogi, FedAdagrad as Flower names them; Flower's ``eta`` is ``eta_g``); ``x0`` (the initial model,
    which Flower's server optimisers need as ``initial_parameters``); the law: ``law`` and its parameters ``S`` (cohort of uniform and
    cyclic), ``groups`` and ``period`` (cyclic: round r uses group (r mod period) // (period / groups)),
    ``q`` and ``m`` (FAST: a snapshot round with probability q draws m of M uniformly, else all M),
    ``subsets`` and ``probs`` (static policy and Bernoulli: the configurations and their probabilities),
    ``rates`` (r_k = P(k selected)) and ``p`` (objective weights, 1/M).
    """

    law: str
    M: int
    K: int = K
    eta: float = ETA
    eta_g: float = ETA_G
    mu_prox: float = 0.0
    gamma: float = 1.0
    P: int = 1
    beta: float = 0.0
    beta_1: float = 0.0
    beta_2: float = 0.0
    tau: float = 0.0
    x0: tuple[float, ...] = field(default=())
    S: int | None = None
    groups: int | None = None
    period: int | None = None
    q: float | None = None
    m: int | None = None
    subsets: tuple[tuple[int, ...], ...] | None = None
    probs: tuple[float, ...] | None = None
    rates: tuple[float, ...] | None = None
    p: tuple[float, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()
                if v is not None and k not in ("subsets",)} | (
            {"configurations": len(self.subsets)} if self.subsets else {})


@dataclass(frozen=True)
class Scenario:
    """One instance of the check: a problem family and its sizes, the setting and the horizon."""

    name: str
    family: str
    sigma: float
    setting: Setting
    rounds: int = 6
    seed: int = 0

    def problem(self) -> Any:
        from quadratics import diagonal_quadratic, heterogeneous_quadratic, rotated_quadratic

        kw: dict[str, Any] = dict(L=1.0, mu=0.2, d=2, M=self.setting.M, zeta=1.0, sigma=self.sigma, D0=1.0,
                                  seed=self.seed)
        if self.family == "quadratic":
            return heterogeneous_quadratic(**kw)
        return (diagonal_quadratic if self.family == "diagonal" else rotated_quadratic)(mix=1.0, **kw)


def _bernoulli(probs: tuple[float, ...]) -> tuple[tuple[tuple[int, ...], ...], tuple[float, ...]]:
    """Every subset of M clients with its probability when client i takes part with probability probs[i]."""
    rows = tuple(itertools.product((0, 1), repeat=len(probs)))
    pr = np.asarray(probs)
    return rows, tuple(float(np.prod(np.where(np.asarray(r) == 1, pr, 1 - pr))) for r in rows)


def _policy(law: str, M: int, subsets: Any, probs: Any) -> dict[str, Any]:
    X = np.asarray(subsets, dtype=float)
    w = np.asarray(probs, dtype=float) / np.sum(probs)
    return {"subsets": tuple(tuple(int(v) for v in r) for r in X), "probs": tuple(float(v) for v in w),
            "rates": tuple(float(v) for v in w @ X), "law": law, "M": M}


def _law_settings(law: str) -> list[tuple[str, str, float, dict[str, Any]]]:
    """(name, family, sigma, law parameters) of the scenarios of ``law``."""
    if law == "uniform":
        return [("small cohort", "quadratic", 0.0, dict(M=4, S=2)),
                ("noisy, rotated Hessians", "rotated", 0.5, dict(M=6, S=3)),
                ("large cohort", "diagonal", 0.0, dict(M=10, S=8)),
                (f"full participation, server step {ETA_G_SCENARIO}", "quadratic", 0.3,
                 dict(M=3, S=3, eta_g=ETA_G_SCENARIO))]
    if law == "bernoulli":
        return [(f"Bernoulli {pr}" + (f", server step {eg}" if eg != ETA_G else ""), fam, sg,
                 _policy(law, len(pr), *_bernoulli(pr)) | {"eta_g": eg})
                for fam, sg, pr, eg in (("quadratic", 0.0, (0.9, 0.7, 0.5, 0.3), ETA_G),
                                        ("rotated", 0.5, (0.8, 0.5, 0.5, 0.2), ETA_G),
                                        ("diagonal", 0.0, (0.95, 0.9, 0.6, 0.4, 0.2), ETA_G_SCENARIO))]
    if law == "cyclic":
        return [("2 groups, 1 of 2", "quadratic", 0.0, dict(M=4, S=1, groups=2, period=4)),
                ("3 groups, noisy", "rotated", 0.5, dict(M=6, S=1, groups=3, period=3)),
                ("whole groups", "diagonal", 0.0, dict(M=8, S=4, groups=2, period=2))]
    if law == "fast-snapshot":
        return [("q = 0.5, m = 2 of 4", "quadratic", 0.0, dict(M=4, m=2, q=0.5)),
                ("q = 0.7, noisy", "rotated", 0.5, dict(M=6, m=3, q=0.7)),
                ("q = 0.3, m = 4 of 8", "diagonal", 0.0, dict(M=8, m=4, q=0.3))]
    if law == "static-policy":
        return [("4 configurations", "quadratic", 0.0,
                 _policy(law, 4, [[1, 1, 0, 0], [0, 1, 1, 1], [1, 0, 0, 1], [0, 0, 1, 0]], [0.4, 0.3, 0.2, 0.1])),
                ("noisy, rotated", "rotated", 0.5,
                 _policy(law, 5, [[1, 0, 1, 0, 0], [0, 1, 0, 1, 1], [1, 1, 1, 0, 0], [0, 0, 0, 0, 1]], [0.3, 0.3, 0.2, 0.2])),
                ("sizes 1 to 4", "diagonal", 0.0,
                 _policy(law, 6, [[1, 0, 0, 0, 0, 0], [0, 1, 1, 0, 0, 0], [0, 0, 1, 1, 1, 0], [1, 0, 0, 1, 1, 1]],
                         [0.25, 0.25, 0.25, 0.25]))]
    raise unknown("participation law", law, LAWS)


def check_claim(algorithm: str, law: str) -> None:
    """UserInputError unless the claimed algorithm and law exist and go together."""
    if algorithm not in ALGORITHMS:
        raise unknown("claimed algorithm", algorithm, ALGORITHMS)
    if law not in LAWS:
        raise unknown("claimed participation law", law, LAWS)
    allowed = PAIRS.get(algorithm)
    if allowed and law not in allowed:
        raise UserInputError(f"{algorithm} is defined under the {' or '.join(allowed)} law, not {law!r}")
    if law == "fast-snapshot" and algorithm != "fast":
        raise UserInputError("the fast-snapshot law is FAST's: claim algorithm 'fast' with it")


def scenarios(algorithm: str, law: str, rounds: int = 6) -> list[Scenario]:
    """The scenarios a claim is checked on (see the module docstring)."""
    check_claim(algorithm, law)
    extra: dict[str, Any] = {}
    if algorithm == "fedprox":
        extra["mu_prox"] = MU_PROX
    if algorithm.startswith("amplified"):
        extra.update(gamma=GAMMA, P=WINDOW)
    if algorithm == "fedavgm":
        extra.update(beta=BETA, eta_g=ETA_G_MOMENTUM)
    if algorithm in ADAPTIVE:
        extra.update(eta_g=ETA_G_ADAPTIVE, tau=TAU, beta_1=0.0 if algorithm == "fedadagrad" else BETA_1,
                     beta_2=0.0 if algorithm == "fedadagrad" else BETA_2)
    out = []
    for i, (name, family, sigma, params) in enumerate(_law_settings(law)):
        params = {"law": law} | params | extra
        if algorithm in SERVER_OPTIMISERS or algorithm == "fedprox":
            # the optimisers have their own server step; FedProx (Li et al. 2020, Algorithm 2) has none
            name = name.replace(f", server step {ETA_G_SCENARIO}", "")
            params["eta_g"] = extra.get("eta_g", ETA_G)
        params["p"] = tuple([1.0 / params["M"]] * params["M"])
        sc = Scenario(name, family, sigma, Setting(**params), rounds=rounds, seed=i)
        x0 = tuple(float(v) for v in sc.problem().x0)
        out.append(replace(sc, setting=replace(sc.setting, x0=x0)))
    return out


def reference_pattern(s: Setting) -> Any:
    """The claimed law as a :class:`quadratics.participation.Pattern` (what the harness and the reference draw)."""
    import quadratics as qd

    if s.law == "uniform":
        return qd.uniform(s.M, int(s.S or s.M))
    if s.law == "cyclic":
        return qd.cyclic(s.M, int(s.S or 1), int(s.period or 1), int(s.groups or 1))
    if s.law == "fast-snapshot":
        return qd.fast_mixture(s.M, int(s.m or s.M), s.M, q=s.q)
    return qd.static_policy(np.asarray(s.subsets), np.asarray(s.probs), np.asarray(s.p))
