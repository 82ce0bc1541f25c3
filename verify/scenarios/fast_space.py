"""FAST Theorems 1 and 2: their search spaces and the words their axes share (split from ``verify.scenarios.fast``).

Each axis ends where its theorem or the domain ends it; its ``source`` says which.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from verify.scenario import Param
from verify.scenarios.families import FAMILY_AXES, SMOOTH, STRONGLY_CONVEX

# q = 1 is the one q decidable for Theorem 1 without the appendix constants G1..G3 (see G_ASSUMED).
G_ASSUMED = ("q = 1 meets every threshold q_min(G1,G2,G3) <= 1; a threshold above 1 would leave the theorem "
             "with no admissible q at all, so q = 1 is the one choice decidable without the appendix constants")
Q_MIN = "snapshot probability q >= q_min(G1,G2,G3)"


def client_count(frac: float, M: int) -> int:
    """A client count as a fraction of M (at least 1, at most M)."""
    return int(min(M, max(1, round(frac * M))))


# The end of an axis the theorem leaves unbounded (rounds, clients, local steps, dimension): a log axis stops
# a few decades out; what a point costs is handled at the point (verify.search.cost), never by ending the axis.
PER_POINT = ("each point's cost is handled at the point (verify.search.cost): scored exactly at any size where the exact "
             "path applies, a simulated point past the per-point budget is cut and counted")

# What the dimension costs, by family (true of FAST.T1 and FAST.T2; verify.search.cost sizes each point).
DIMENSION = ("the shared-Hessian quadratic is scored from moments at any d (FAST.T1: exactly; FAST.T2: per-trial "
             "exactly where its M axis says), coordinate by coordinate (its Hessian and noise are diagonal and FAST's "
             "round is checked separable: d recursions of 3 numbers, quadratics.exact.diagonal); the other families are scored as before at every d (simulated, or for "
             "FAST.T2 per-trial exact where their declarations allow it); the distinct-Hessian and logistic "
             "families are built up to d = 32 (their builds grow steeply with d: 13-17 s measured at d = 32-100; "
             "verify.scenarios.families.BUILT_D_MAX), a point of theirs beyond is counted as cut; ")

# Theorem 1 ---------------------------------------------------------------------------------------

T1_SPACE = (
    Param("problem", default="nonconvex", choices=SMOOTH,
          source="the engine's families whose F_i are L-smooth (A1; verify.scenarios.families.SMOOTH)", doc="objective family: cosine non-convex (exact L, sigma_G, inf F), shared-Hessian quadratic, distinct "
              "client Hessians (diagonal, rotated: sigma_G on a ball, see verify.scenarios.families) or logistic"),
    Param("M", 2, 1000, 10, integer=True, log=True, doc="clients",
          source="2: the fewest clients with heterogeneity (zeta > 0 needs M >= 2); Theorem 1 bounds no M: the log "
                 "axis stops at 1000; " + PER_POINT, end="stand-in"),
    Param("m_frac", 0.05, 1.0, 0.5, doc="snapshot clients m as a fraction of M (n = m: q = 1)",
          source="1 <= m <= M (domain): m = round(m_frac M) clipped to [1, M], so 0.05 reaches m = 1 for M <= 30"),
    Param("K", 1, 1000, 5, integer=True, log=True, doc="local steps per round",
          source="1: domain K >= 1; Theorem 1 bounds no K (its step cap scales as 1/K): the log axis stops at 1000; "
                 + PER_POINT, end="stand-in"),
    Param("R", 1, 10**6, 400, integer=True, log=True, doc="rounds",
          source="1: domain R >= 1; Theorem 1 bounds no R: the log axis stops at 10^6; " + PER_POINT, end="stand-in"),
    Param("d", 1, 1000, 10, integer=True, log=True, doc="dimension",
          source="1: domain; Theorem 1 bounds no d: the log axis stops at 1000; " + DIMENSION + PER_POINT, end="stand-in"),
    Param("mu_frac", 0.05, 1.0, 0.2, doc="smallest curvature as a fraction of its largest allowed value",
          source="a knob of the family (curvature spread), not an input of Theorem 1; (0, 1] by construction"),
    Param("beta", 0.05, 0.9, 0.5, doc="cosine amplitude (non-convexity; nonconvex family only)",
          source="the cosine family's own range (beta < 1 keeps it L-smooth with L = 1)", families=("nonconvex",)),
    Param("zeta", 1e-6, 10.0, 1.0, log=True, doc="heterogeneity (largest client-gradient deviation)",
          source="sigma_G >= 0 (domain): 1e-6 stands for 0 on a log scale; 10: 10x the default scale 1 of x0"),
    Param("sigma", 0.0, 4.0, 1.0, doc="stochastic-gradient noise std. dev.",
          source="sigma >= 0 (domain; linear so 0 itself is drawn); 4: 4x the default scale of the gradients"),
    Param("x0_scale", 1e-4, 10.0, 3.0, log=True,
          source="Delta >= 0 (domain): 1e-4 stands for 0 (x0 at the optimum) on a log scale; 10: 10x the default "
                 "scale, relative to L = 1",
          doc="x0 distance: spread of the optimum's entries (nonconvex), sqrt(D0) (quadratic families; "
              "logistic: unused, x0 = 0 and x* is the data's)"),
    Param("eta_frac", 1e-4, 1.0, 1.0, log=True, doc="step as a fraction of the cap min(1/(8LK), 1/(5mLK)) at q = 1",
          source="Theorem 1's step hypotheses: from 1e-4 of the cap up to the cap"),
    Param("draw", 0, 999, 0, integer=True, doc="seed of the problem's random directions and shifts",
          source="the family's random draw (any seed)"),
    *FAMILY_AXES,
)


# Theorem 2 ---------------------------------------------------------------------------------------

T2_SPACE = (
    Param("problem", default="quadratic", choices=STRONGLY_CONVEX, searched=("quadratic",),
          source="the engine's families whose every F_i is mu-strongly convex (A4; STRONGLY_CONVEX)", doc="objective family (every F_i strongly convex): shared-Hessian quadratic (A3 globally), distinct client "
              "Hessians (A3 on a ball, see verify.scenarios.families), logistic (A3 by a global data bound). "
              "Searched by default: the quadratic only. A violation on a distinct-Hessian family could only be "
              "'unverified' (A3 holds there on a ball that local models are assumed, not seen, to stay in), and a "
              "logistic point at FAST.T2's horizons costs 10-50x a quadratic one; with all four, seed 0 at budget "
              "500 found no violation (0.877 best; tests/benchmarks/falsify_runs/REPORT.md). "
              "falsify --problems all searches every family"),
    Param("M", 2, 1000, 4, integer=True, log=True, doc="clients",
          source="2: the fewest clients with heterogeneity (sigma_G > 0 needs M >= 2); Theorem 2 bounds no M: the log "
                 "axis stops at 1000 (the per-trial exact path takes M <= 16: its law enumerates 2^M sets; larger M "
                 "is simulated); " + PER_POINT, end="stand-in"),
    Param("m_frac", 0.05, 1.0, 0.5, doc="snapshot clients m as a fraction of M",
          source="1 <= m <= M (domain): m = round(m_frac M) clipped to [1, M]"),
    Param("n_frac", 0.05, 1.0, 0.5, doc="ACP clients n as a fraction of M",
          source="1 <= n <= M (domain): n = round(n_frac M) clipped to [1, M]"),
    Param("K", 1, 1000, 2, integer=True, log=True, doc="local steps per round",
          source="1: domain K >= 1; Theorem 2 bounds no K (its step cap scales as 1/K): the log axis stops at 1000; "
                 + PER_POINT, end="stand-in"),
    Param("horizon", 1.0, 30.0, 2.5, log=True,
          doc="contraction e-folds mu K eta R of the RHS's first term (R = horizon / (mu K eta), not capped)",
          source="R >= 1 (domain) has no upper bound in the theorem; e-folds 1..30 take the contraction term from "
                 "e^-1 to e^-30 of kappa (beyond, it is below float noise of the others); " + PER_POINT, end="stand-in"),
    Param("d", 2, 1000, 4, integer=True, log=True, doc="dimension",
          source="2: the smallest d with mu < L for the quadratic; Theorem 2 bounds no d: the log axis stops at "
                 "1000; " + DIMENSION + PER_POINT, end="stand-in"),
    Param("mu_frac", 0.05, 1.0, 0.5, doc="mu / L",
          source="0 < mu <= L (A1, A4): 0.05 (condition number 20) is where the axis stops on its scale"),
    Param("het", 1e-2, 1e4, 16.0, log=True,
          doc="heterogeneity sigma_G^2 relative to the q-threshold's scale s = (mu K eta - 16 L^2 K^2 eta^2)/4: "
              "the printed threshold is 1 - 1/het (the hypothesis's own coordinate, like a step's fraction of "
              "its cap); distinct-Hessian families: zeta^2 at x* (their sigma_G^2 on the ball is larger, so the "
              "threshold is higher); logistic: unused (spread sets heterogeneity)",
          source="sigma_G >= 0 (domain): 1e-2 (threshold below 0: any q) up to 1e4 (threshold 1 - 1e-4: q near 1)"),
    Param("sigma", 1e-4, 2.0, 1.0, log=True, doc="stochastic-gradient noise std. dev. (1e-4: all but noiseless)",
          source="sigma >= 0 (domain): 1e-4 stands for 0 on a log scale; 2: twice the gradient scale L sqrt(D0)"),
    Param("D0", 1e-3, 10.0, 1.0, log=True, doc="||x0 - x*||^2 (logistic: unused, the data's)",
          source="kappa >= 0 (domain; the family needs > 0): a scale, 1e-3..10 against the other terms"),
    Param("eta_frac", 1e-4, 1.0, 1.0, log=True, doc="step as a fraction of the cap 1/(20 max(m,n) L K)",
          source="the step-cap hypotheses eta_c <= 1/(20 m L K), 1/(20 n L K): from 1e-4 of the cap up to the cap"),
    Param("q_frac", 0.0, 1.0, 0.5, doc="q = t + q_frac (1 - t), t = the printed threshold clipped to [0, 1]",
          source="the snapshot-probability hypothesis q >= threshold, and q <= 1 (a probability)"),
    Param("acp_a", 0.02, 5.0, 0.5, log=True, doc="ACP propensities Beta(a, a): small a favours few clients",
          source="'otherwise n clients chosen by any process' admits any propensities; Beta(a, a), a in 0.02..5 "
                 "spans near-deterministic to near-uniform choice"),
    Param("draw", 0, 999, 0, integer=True, doc="seed of the problem's random directions and shifts",
          source="the family's random draw (any seed)"),
    *FAMILY_AXES,
)


def t2_het_scale(point: Mapping[str, Any]) -> float:
    """The scale s = |mu K eta - 16 L^2 K^2 eta^2| / 4 that ``het`` multiplies (zeta^2 = het s), at the nominal step
    eta = eta_frac / (20 max(m, n) L K), L = 1 (the step run is re-read from the built L). s = 0: no q < 1 admissible."""
    M, K = int(point["M"]), int(point["K"])
    eta = point["eta_frac"] / (20 * max(client_count(point["m_frac"], M), client_count(point["n_frac"], M)) * K)
    return abs(float(point["mu_frac"]) * K * eta - 16 * K**2 * eta**2) / 4
