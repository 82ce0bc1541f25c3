"""Democratic FL (asynchronous, client/server-autonomous FL), seed 002: Theorem 1.

Setting: C clients, asynchronous rounds; the server selects up to K clients per round and
aggregates K updates; clients run Q_r^k local epochs (at most Q_max) on models up to Gamma_max
rounds stale. The theory is stated loosely (spec README typo #28), so only the shape of the rate is
encoded: every constant (L, sigma_L, f(w_0) - f*, ...) is hidden in the O's.
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp

from bounds.pep_cover import WHY_AVG0, Cover, NonconvexSetting, PepRule
from bounds.result import (
    Citation,
    Hypothesis,
    Kind,
    ParticipationAssumption,
    Provenance,
    Result,
    Status,
    Term,
    at_least,
    at_most,
    build_all,
)
from bounds.symbols import Domain, SymbolInfo, sym

SEED = "002_64b3fc4e83f014cc.txt"
PAPER = "Democratic FL"
#: From the seed text's first lines (it states no venue or year).
CITATION = Citation("Ningxin Su, Baochun Li and Bo Li", "Democratizing the Federation in Federated Learning",
                    "venue and year not stated in the seed text")

K = sym("K", Domain.POSITIVE_INTEGER)
Q_max = sym("Q_max", Domain.POSITIVE_INTEGER)
Q_min = sym("Q_min", Domain.POSITIVE_INTEGER)
R = sym("R", Domain.POSITIVE_INTEGER)
Gamma_max = sym("Gamma_max", Domain.NONNEGATIVE_INTEGER)
sigma_G = sym("sigma_G", Domain.NONNEGATIVE)
eta_0 = sym("eta_0")


def theorem1() -> Result:
    """Ergodic non-convex rate of Democratic FL under staleness and varying local epochs.

    **Setting**: A1-A3 (smoothness, unbiased gradients, local variance sigma_L^2 and dissimilarity
    sigma_G^2); staleness bounded; initial step eta_0 >= 1/Q_r^k (a lower bound, as printed).
    **Quantity** (INFERRED): (1/R) sum_{r=0..R-1} E||grad f(w_r)||^2, f = sum_k p_k f_k.
    **Statement** (**order**, Democratic FL Theorem 1, Eq. (2)): = O(K^{1/2}/(Q_max^{1/2} R^{1/2}))
    + O(Gamma_max^2/(R Q_max)) + O(K^2 Q_max^{1/2}/R) + O(sigma_G^2); the last term is a floor.
    **Notation**: K = largest number of clients selected per round (not local steps); Q_max =
    maximum local epochs; Gamma_max = maximum staleness; R = rounds (the discussion writes T).
    """
    return Result(
        id="DFL.T1",
        title="Ergodic convergence of Democratic FL",
        paper=PAPER,
        kind=Kind.ORDER,
        lhs="(1/R) sum_{r=0..R-1} E||grad f(w_r)||^2: squared norm of the full gradient of f = sum_k p_k f_k at the "
            "global model after each round, averaged over rounds and runs (INFERRED: the paper does not state it)",
        lhs_latex=r"\frac{1}{R}\sum_{r=0}^{R-1}\mathbb{E}\|\nabla f(\mathbf{w}_r)\|^2",
        terms=(
            Term("transient", sp.sqrt(K) / (sp.sqrt(Q_max) * sp.sqrt(R)), "leading R^{-1/2} term"),
            Term("staleness", Gamma_max**2 / (R * Q_max), "stale updates"),
            Term("clients x epochs", K**2 * sp.sqrt(Q_max) / R, "more selected clients or epochs hurt"),
            Term("heterogeneity floor", sigma_G**2, "bias of unbalanced client contributions; does not vanish"),
        ),
        hypotheses=(
            Hypothesis("initial step eta_0 >= 1/Q_min (printed eta_0 >= 1/Q_r^k)", at_least(eta_0, 1 / Q_min),
                       "a lower bound as printed; descent lemmas need an upper bound (FLAG)"),
            Hypothesis("staleness bound as printed: Gamma_max <= Q_max", at_most(Gamma_max, Q_max),
                       "printed 'tau_r^k <= Q_max'; presumably tau_r^k <= Gamma_max, which holds by definition (FLAG)"),
        ),
        symbols=(
            SymbolInfo("K", "largest number of clients selected per round", Domain.POSITIVE_INTEGER),
            SymbolInfo("Q_max", "maximum local epochs of any client in any round", Domain.POSITIVE_INTEGER),
            SymbolInfo("R", "communication rounds (T in the discussion)", Domain.POSITIVE_INTEGER),
            SymbolInfo("Gamma_max", "maximum staleness (rounds)", Domain.NONNEGATIVE_INTEGER),
            SymbolInfo("sigma_G", "gradient dissimilarity bound (A3: ||g_k(w) - g(w)||^2 <= sigma_G^2)",
                       Domain.NONNEGATIVE, squared_input=True),
            SymbolInfo("eta_0", "initial local step size", Domain.POSITIVE, prefer="min"),
            SymbolInfo("Q_min", "smallest local epochs Q_r^k of any client in any round", Domain.POSITIVE_INTEGER),
        ),
        provenance=Provenance(SEED, "Theorem 1", "(2)", "democratic_fl.md DFL.T1; README typo #28", CITATION),
        participation=(ParticipationAssumption(
            "asynchronous", ("K", "Gamma_max"),
            "asynchronous rounds: the server selects at most K clients per round and aggregates K updates, each "
            "computed on a model at most Gamma_max rounds stale"),),
        status=(Status.PUBLISHED, Status.FLAG, Status.INFERRED),
        flags=("hypothesis eta_0 >= 1/Q_r^k is a lower bound on the step size (unusual; an upper bound is needed)",
               "staleness bound printed as tau_r^k <= Q_max, presumably tau_r^k <= Gamma_max",
               "lemma chain has gaps (A1 mixes g and its mean, L1 drops a square, L4 uses sum p^2 for Jensen, "
               "45 vs 30): only the shape of the rate is encoded",
               "LHS is INFERRED from the proof's telescoping; the paper states only the rate"),
        rate=(("R", sp.Rational(-1, 2)),),
        # spec worked example; eta_0 and Q_min are not in it (chosen so the printed hypothesis holds)
        example=(("K", 10), ("Q_max", 5), ("R", 1000), ("Gamma_max", 3), ("sigma_G", 0.1**0.5), ("eta_0", 0.5),
                 ("Q_min", 2)),
        notes="the sigma_G^2 term is a floor: the bound does not vanish as R -> infinity",
    )


def builders() -> list[Callable[[], Result | list[Result]]]:
    """One function per result, in registration order."""
    return [theorem1]


def results() -> list[Result]:
    return build_all(builders())


def _t1_at(s: NonconvexSetting) -> Cover:
    """Theorem 1 without staleness (Gamma_max = 0), every client Q = K local steps, all M selected: FedAvg; its
    measure averages a uniformly chosen iterate (at a strongly convex setting the declared convention answers)."""
    if s.method == "local_gd" and s.measure == "avg_grad_sq0" and s.full():
        vals = {"K": s.M, "Q_max": s.K, "Q_min": s.K, "R": s.R, "Gamma_max": 0, "sigma_G": s.zeta,
                "eta_0": s.eta} if s.sigma == 0 else None
        return Cover("order" if vals else "no", "Democratic FL without staleness (Gamma_max = 0), every client K "
                                                "local steps, all M selected: FedAvg", vals)
    return Cover("no", "Democratic FL at Gamma_max = 0: local_gd, no noise, " + WHY_AVG0)


def pep_rule(key: str) -> PepRule | None:
    """Democratic FL's results at a worst-case setting (:mod:`bounds.pep_cover`)."""
    return PepRule(nonconvex=_t1_at) if key == "DFL.T1" else None
