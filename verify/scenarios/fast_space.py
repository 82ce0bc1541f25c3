"""FAST Theorem 1's search space and the words its axes share (split from ``verify.scenarios.fast``).

Each axis ends where Theorem 1 or the domain ends it; its ``source`` says which.
"""

from __future__ import annotations

from verify.scenario import Param
from verify.scenarios.families import FAMILY_AXES, SMOOTH

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
          source="the cosine family's own range (beta < 1 keeps it L-smooth with L = 1)"),
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
