"""FAST (seed 000) scenarios: Theorem 1 (non-convex) and Theorem 2 (strongly convex), both variants.

**Setting**: FAST.ALG1 (``quadratics.fast`` under ``quadratics.fast_mixture``): snapshot rounds of m
uniform clients with probability q, otherwise n clients drawn by biased propensities Beta(a, a)
(ACP); FedAvg local steps, K per round, step eta_c.
**Space**: problem family, clients M, m and n as fractions of M, K, rounds R, dimension, curvature
ratio, heterogeneity zeta, noise sigma, x0 distance, the step as a fraction of the hypotheses' cap,
q as a fraction of the way from the printed threshold to 1 (Theorem 2), the ACP skew a, and the
problem's random draw. Every point of the box meets the decidable hypotheses by construction;
controls step outside it on purpose (``Scenario.point(..., outside=True)``).
**Quantity**: Theorem 1: (1/R) sum_{r=1..R} E||grad F(x_r)||^2; Theorem 2: E||x_R - x*||^2.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import partial
from typing import Any

import numpy as np

from verify.checks import Certify, Contrast, Control, Group, Sweep
from verify.scenario import Instance, Param, Scenario, at_round, mean_over_rounds  # noqa: F401 (re-exported)
from verify.scenarios.families import (
    ball_terms,
    own_inputs,
    refuse_costly_build,
    strongly_convex,
)
from verify.scenarios.fast_space import (  # noqa: F401 (re-exported)
    DIMENSION,
    G_ASSUMED,
    PER_POINT,
    Q_MIN,
    T1_SPACE,
    T2_SPACE,
    t2_het_scale,
)
from verify.scenarios.fast_space import client_count as _count
from verify.verdict import VIOLATED, VIOLATED_UNLESS


def build_t1(point: Mapping[str, Any], with_M: bool = False) -> Instance:
    """FAST.T1 instance at ``point`` (q = 1, n = m: q_min(G) is met by any threshold); ``with_M``: M an input too."""
    from quadratics import cosine_nonconvex, fast, fast_mixture

    M, K, R, d = int(point["M"]), int(point["K"]), int(point["R"]), int(point["d"])
    m = _count(point["m_frac"], M)
    pb: Any
    if point["problem"] == "nonconvex":
        beta = float(point["beta"])
        pb = cosine_nonconvex(L=1.0, mu=point["mu_frac"] * (1.0 - beta), beta=beta, d=d, M=M, zeta=point["zeta"],
                              sigma=point["sigma"], spread=point["x0_scale"], seed=int(point["draw"]))
    else:
        refuse_costly_build(point["problem"], d)
        pb = strongly_convex(point["problem"], point, mu=1.0 if d == 1 else point["mu_frac"], d=d, M=M,
                             zeta=point["zeta"], sigma=point["sigma"], D0=point["x0_scale"] ** 2)
    c = pb.constants
    q, n, extra = 1.0, m, ({"M": M} if with_M else {})  # FAST.T1@repaired's sampling term reads M
    cap = min(1 / (8 * c["L"] * K), (n * q + m * (1 - q)) / (5 * m * n * c["L"] * K))
    eta = point["eta_frac"] * cap
    values = own_inputs("FAST.T1", c, ("L", "sigma", "sigma_G", "zeta"), K=K, m=m, n=n, q=q, R=R, eta_c=eta, **extra)
    notes: tuple[str, ...] = ("printed sum r=1..R used (proof-style r=0..R-1 differs by the first round)",)
    if "curvature_min" in c:
        notes += (f"non-convex: smallest Hessian eigenvalue {c['curvature_min']:g} < 0",)
    ball = ball_terms(pb)
    return Instance(problem=pb, algorithm=fast(eta=eta, K=K), pattern=fast_mixture(M=M, m=m, n=n, q=q), rounds=R,
                    values=values, measure=partial(mean_over_rounds, metric="grad_sq", first=1, last=R),
                    assumed={Q_MIN: G_ASSUMED, **ball.get("assumed", {})}, run_broken=ball.get("run_broken"),
                    curve="grad_sq", notes=notes,
                    describe={"problem": pb.describe(), "algorithm": "FAST (FedAvg base)",
                              "pattern": "fast_mixture q=1", "M": M, "m": m, "n": n, "eta_c": eta,
                              **({"curvature_min": c["curvature_min"]} if "curvature_min" in c else {})})


T1_NOTES = ("q is fixed at 1: q_min(G1,G2,G3) needs appendix constants the source lost, so only q = 1 is decidable",)

# Theorem 2 ---------------------------------------------------------------------------------------

# Where a log axis of an unbounded horizon stops (six decades); the exact path scores any such R by repeated
# squaring (0.005-0.05 s a point), and a simulated point is sized and cut per point (verify.search.cost).
R_EXACT = 10**6


def t2_threshold(c: Mapping[str, float], K: int, eta: float) -> float:
    """Theorem 2's printed q-threshold 1 - (mu K eta - 16 L^2 K^2 eta^2) / (4 sigma_G^2).

    With sigma_G = 0 (no heterogeneity, or one that underflows) it is the limit: -inf when the numerator is
    positive (every q admitted), +inf otherwise (none); the result's own check decides the point either way."""
    num = c["mu"] * K * eta - 16 * c["L"] ** 2 * K**2 * eta**2
    if c["sigma_G2"] == 0:
        return -math.inf if num > 0 else math.inf
    return 1 - num / (4 * c["sigma_G2"])


def build_t2(point: Mapping[str, Any]) -> Instance:
    """FAST.T2 instance at ``point`` (both variants share it; the result key decides the RHS)."""
    from quadratics import fast, fast_mixture

    M, K = int(point["M"]), int(point["K"])
    m, n = _count(point["m_frac"], M), _count(point["n_frac"], M)
    L, mu = 1.0, float(point["mu_frac"])
    refuse_costly_build(point["problem"], int(point["d"]))
    pb = strongly_convex(point["problem"], point, L=L, mu=mu, d=int(point["d"]), M=M,
                         zeta=math.sqrt(point["het"] * t2_het_scale(point)), sigma=point["sigma"], D0=point["D0"])
    c = pb.constants
    eta = point["eta_frac"] / (20 * max(m, n) * c["L"] * K)
    R = int(max(1, round(point["horizon"] / (c["mu"] * K * eta))))  # any horizon: cost is handled per point
    thr = t2_threshold(c, K, eta)
    t = min(1.0, max(thr, 0.0))
    # q_frac < 0 (controls only, outside the box): q = (1 + q_frac) t, below the threshold
    qf = float(point["q_frac"])
    q = min(1.0, t + qf * (1 - t)) if qf >= 0 else max(0.0, (1 + qf) * t)
    a = float(point["acp_a"])
    values = own_inputs("FAST.T1", c, ("L", "mu", "sigma", "sigma_G", "kappa"), K=K, m=m, n=n, q=q, R=R, eta_c=eta)
    ball = ball_terms(pb)
    return Instance(problem=pb, algorithm=fast(eta=eta, K=K),
                    pattern=fast_mixture(M=M, m=m, n=n, q=q, dist="beta", a=a, b=a), rounds=R, values=values,
                    measure=partial(at_round, metric="dist_sq", r=R), curve="dist_sq",
                    assumed=ball.get("assumed", {}), run_broken=ball.get("run_broken"),
                    describe={"problem": pb.describe(), "algorithm": "FAST (FedAvg base)",
                              "pattern": f"fast_mixture q={q:.6g} (threshold {thr:.6g}), ACP propensities "
                                         f"beta({a:g},{a:g})", "M": M, "m": m, "n": n, "eta_c": eta, "q": q,
                              "threshold": thr})


T2_NOTES = ("q ranges from the printed threshold (clipped to [0, 1]) to 1; below it is a control, not the theorem",)

# The shipped FAST.T2.adversarial instance, as a point of the Theorem 2 space (found by reasoning, README).
T2_ADVERSARIAL = {"M": 2, "m_frac": 1.0, "n_frac": 0.5, "K": 2, "horizon": 12.5, "d": 4, "mu_frac": 0.5,
                  "het": 0.16, "sigma": 0.0, "D0": 1.0, "eta_frac": 1.0, "q_frac": 0.0, "acp_a": 0.1, "draw": 0}

SCENARIOS = [
    Scenario("FAST.T1", "FAST.T1", "FAST Thm 1: non-convex, q = 1", T1_SPACE, build_t1, T1_NOTES),
    Scenario("FAST.T2", "FAST.T2", "FAST Thm 2: strongly convex quadratic (published)", T2_SPACE, build_t2, T2_NOTES),
    Scenario("FAST.T2@corrected", "FAST.T2@corrected", "FAST Thm 2: strongly convex quadratic (corrected)",
             T2_SPACE, build_t2, T2_NOTES),
    *(Scenario(k, k, f"{k}: derived by convbound", s, b, n) for k, s, b, n in (("FAST.T1@repaired", T1_SPACE,
      partial(build_t1, with_M=True), T1_NOTES), ("FAST.T2@repaired", T2_SPACE, build_t2, T2_NOTES))),
]


# Fixed instances of the FAST check groups (each a scenario: the suite scores them through evaluate_point) --

TOY1_SPACE = (
    Param("R", 1, R_EXACT, 20000, integer=True, log=True, doc="rounds",
          source="1: domain R >= 1 (Theorem 1 has no condition on R); 10^6: the longest horizon asked of the exact "
                 "path (R_EXACT): scored per trial given each trial's propensities, at a cost that does not grow "
                 "with R (4096 trials at 10^6 rounds: 11 s measured). Widened from 20000, the spec's run length "
                 "(FAST.TOY1: the LHS tends to (1-q)^2 sigma_G^2 = 0.25 as R grows), still the default", end="stand-in"),
    Param("draw", 0, 999, 0, integer=True, doc="seed of the problem's random draw",
          source="the problem's random draw (any seed)"),
)


def build_toy1(point: Mapping[str, Any]) -> Instance:
    """FAST.TOY1: q = 0.5, ACP n = 1 of two clients with Beta(0.02, 0.02) propensities; the T1 bound fails
    unless q_min(G1,G2,G3) > 0.5, which no number here decides."""
    from quadratics import fast, fast_mixture, heterogeneous_quadratic

    pb = heterogeneous_quadratic(L=1.0, mu=1.0, d=1, M=2, zeta=1.0, sigma=0.0, D0=1e-8, seed=int(point["draw"]))
    c = pb.constants
    m, n, K, q, eta, R = 2, 1, 1, 0.5, 0.01, int(point["R"])
    values = own_inputs("FAST.T1", c, ("L", "sigma", "sigma_G", "zeta"), K=K, m=m, n=n, q=q, R=R, eta_c=eta)
    return Instance(problem=pb, algorithm=fast(eta=eta, K=K),
                    pattern=fast_mixture(M=2, m=m, n=n, q=q, dist="beta", a=0.02, b=0.02), rounds=R, values=values,
                    measure=partial(mean_over_rounds, metric="grad_sq", first=1, last=R),
                    describe={"problem": pb.describe(), "pattern": "fast_mixture q=0.5, ACP n=1 favouring one client",
                              "spec": "FAST.TOY1: LHS -> (1-q)^2 sigma_G^2 = 0.25 regardless of eta when the ACP "
                                      "always picks client 1; here each run favours one client by beta(0.02, 0.02) "
                                      "propensities, so the mean is a bit lower"},
                    notes=("the interval lies far above the RHS: the theorem can only be true here if "
                           "q_min(G1,G2,G3) > 0.5, which the missing appendix would have to show",))


# The rate checks' rounds: each corollary's own round condition at the builder's fixed m = K = 2, L = 1 (and c = 1/4,
# mu = 1) is the low end (a point below it breaks a hypothesis and is not scored); the top is a Monte Carlo cost cap.
C2_SPACE = (
    Param("R", 25, 10000, 400, integer=True, log=True, doc="rounds",
          source="25: the hypothesis R >= 25 c^2 m^3 L^2 K at the check's c = 1/4, m = K = 2, L = 1 (the other, "
                 "R >= 64 c^2 m L^2 K, asks 16); 10000: Monte Carlo cost cap (the cosine family has no exact path; a "
                 "point costs R K steps a trial), 3x the check's largest R = 3200", end="cost"),
    Param("draw", 0, 999, 0, integer=True, doc="seed of the problem's random draw",
          source="the problem's random draw (any seed)"),
)
C3_SPACE = (
    Param("R", 40, 10000, 400, integer=True, log=True, doc="rounds",
          source="40: the hypothesis R >= 20 m L/mu at the check's m = 2, L = mu = 1; 10000: Monte Carlo cost cap "
                 "(the measure ||x_R - x*||^2 / ln R is not one the exact path recognises; a point costs R K steps "
                 "a trial), 3x the check's largest R = 3200", end="cost"),
    Param("draw", 0, 999, 0, integer=True, doc="seed of the problem's random draw",
          source="the problem's random draw (any seed)"),
)


def build_c2(point: Mapping[str, Any]) -> Instance:
    """FAST.C2 (m = n, q = 1) at eta_c = c sqrt(m/(K R)) on the cosine non-convex objective."""
    from quadratics import cosine_nonconvex, fast, fast_mixture

    pb = cosine_nonconvex(L=1.0, mu=0.2, beta=0.5, d=4, M=4, zeta=0.5, sigma=1.0, seed=int(point["draw"]))
    k = pb.constants
    m, K, cc, q, R = 2, 2, 0.25, 1.0, int(point["R"])
    eta = cc * math.sqrt(m / (K * R))
    return Instance(problem=pb, algorithm=fast(eta=eta, K=K), pattern=fast_mixture(M=pb.M, m=m, n=m, q=q), rounds=R,
                    values=dict(m=m, q=q, K=K, R=R, L=k["L"], sigma_G=k["sigma_G"], c=cc),
                    measure=partial(mean_over_rounds, metric="grad_sq", first=1, last=R),
                    assumed={Q_MIN: G_ASSUMED},
                    describe={"problem": pb.describe(), "m": m, "n": m, "K": K, "c": cc, "q": q,
                              "eta_c": f"{cc} sqrt(m/(K R))"})


def log_scaled_at_end(sim: Any, R: int) -> np.ndarray:
    """Per-trial ||x_R - x*||^2 / ln R (O~ hides the logarithm)."""
    return at_round(sim, "dist_sq", R) / math.log(R)


def build_c3(point: Mapping[str, Any]) -> Instance:
    """FAST.C3 at eta_c = min(1/(20 m L K), ln R/(mu K R)) on the shared-Hessian quadratic, q = 1."""
    from quadratics import fast, fast_mixture, heterogeneous_quadratic

    pb = heterogeneous_quadratic(L=1.0, mu=1.0, d=4, M=4, zeta=0.2, sigma=1.0, D0=1.0, seed=int(point["draw"]))
    k = pb.constants
    m, K, q, R = 2, 2, 1.0, int(point["R"])
    eta = min(1 / (20 * m * k["L"] * K), math.log(R) / (k["mu"] * K * R))
    return Instance(problem=pb, algorithm=fast(eta=eta, K=K), pattern=fast_mixture(M=pb.M, m=m, n=m, q=q), rounds=R,
                    values=dict(L=k["L"], mu=k["mu"], K=K, m=m, q=q, R=R, eta_c=eta, sigma=k["sigma"],
                                sigma_G=k["sigma_G"]),
                    measure=partial(log_scaled_at_end, R=R),
                    describe={"problem": pb.describe(), "m": m, "K": K, "q": q, "eta_c": eta})


QFLOOR_SPACE = (
    Param("zeta", 0.01, 10.0, 1.0, log=True, doc="heterogeneity",
          source="sigma_G >= 0 (domain; outside Theorem 2 on purpose: q = 0.2 is below its threshold): 0.01 stands "
                 "for 0 on a log scale; 10: a scale's top, 5x the check's largest sigma_G = 2 (the floor's bias "
                 "grows as sigma_G^2 and the noise sigma = 0.1 is fixed: measured LHS/zeta^2 = 0.0491 at zeta = 2, 5 "
                 "and 10, 32 trials, seed 0, so larger values only rescale it). The measure (second half's mean) has "
                 "no exact path: Monte Carlo, whose cost does not depend on zeta"),
    Param("draw", 0, 999, 0, integer=True, doc="seed of the problem's random draw",
          source="the problem's random draw (any seed)"),
)


def second_half_mean(sim: Any, metric: str, R: int) -> np.ndarray:
    """Per-trial floor: mean of ``metric`` over rounds R//2..R (a diverged trial -> inf)."""
    return mean_over_rounds(sim, metric, R // 2, R)


def build_qfloor(point: Mapping[str, Any]) -> Instance:
    """FAST with q = 0.2 below Theorem 2's threshold: the error floor (second half of 300 rounds)."""
    from quadratics import fast, fast_mixture, heterogeneous_quadratic

    pb = heterogeneous_quadratic(L=1.0, mu=1.0, d=4, M=4, zeta=float(point["zeta"]), sigma=0.1, D0=1.0,
                                 seed=int(point["draw"]))
    k = pb.constants
    m, n, K, q, R = 2, 2, 2, 0.2, 300
    eta = 1 / (20 * m * k["L"] * K)
    return Instance(problem=pb, algorithm=fast(eta=eta, K=K), pattern=fast_mixture(M=pb.M, m=m, n=n, q=q), rounds=R,
                    values=own_inputs("FAST.T1", k, ("L", "mu", "sigma", "sigma_G", "kappa"), K=K, m=m, n=n, q=q, R=R,
                                       eta_c=eta),
                    measure=partial(second_half_mean, metric="dist_sq", R=R),
                    describe={"problem": pb.describe(), "m": m, "n": n, "K": K, "q": q, "R": R, "sigma": 0.1,
                              "threshold": t2_threshold(k, K, eta)})


# Client drift: FAST Theorem 1 with full participation and K > 1 local steps on distinct client Hessians --
# (rotated-Hessian quadratic, M = 2, d = 8, spectrum [0.1, 1], sigma = 0.1, x0 within 0.01 of x*). With a
# shared Hessian (mix = 0) the clients' drifts cancel exactly under full participation; with distinct ones
# FedAvg's fixed point moves away from x* with the heterogeneity at the optimum.

DRIFT_SPACE = (
    Param("zeta", 0.0, 10.0, 4.0, doc="heterogeneity at x* (max_i ||grad F_i(x*)||)",
          source="sigma_G >= 0 (domain; linear so 0 itself, the check's drift-free certificate, is drawn); 10: a "
                 "scale's top, 2.5x the check's zeta = 4 (Theorem 1 admits any zeta; at the cap LHS/RHS measured 7.5e-5 "
                 "at zeta = 4 and 7.7e-5 at 10, 16 trials, seed 0: the drift and the bound's sigma_G^2 terms "
                 "grow together)"),
    Param("mix", 0.0, 1.0, 1.0, doc="client curvature spread (0: one shared Hessian)",
          source="the family's own range: 0 (shared Hessian) to 1 (client curvatures spread over [mu, L])"),
    Param("eta_frac", 1e-4, 1.0, 1.0, log=True, doc="step as a fraction of the cap min(1/(8LK), 1/(5mLK)) at q = 1",
          source="Theorem 1's step hypotheses: from 1e-4 of the cap up to the cap (a Monte Carlo point costs the "
                 "same at any step)"),
    Param("draw", 0, 999, 0, integer=True, doc="seed of the problem's random draw",
          source="the family's random draw (any seed)"),
)
# Step-cap control of the drift certificates: 300 x the cap = 3.75/L with K = 10 local steps, past 2/L.
DRIFT_STEP_CONTROL = {"eta_frac": 300.0}


def build_drift(point: Mapping[str, Any]) -> Instance:
    """FAST.T1 at q = 1, m = n = M = 2, K = 10 at the step cap, R = 400, on rotated client Hessians."""
    from quadratics import fast, fast_mixture
    from quadratics.curvature import rotated_quadratic

    pb = rotated_quadratic(L=1.0, mu=0.1, d=8, M=2, zeta=float(point["zeta"]), sigma=0.1, D0=1e-4,
                           mix=float(point["mix"]), seed=int(point["draw"]))
    c = pb.constants
    M = m = n = pb.M
    K, R, q = 10, 400, 1.0
    eta = float(point["eta_frac"]) * min(1 / (8 * c["L"] * K), (n * q + m * (1 - q)) / (5 * m * n * c["L"] * K))
    values = own_inputs("FAST.T1", c, ("L", "sigma", "sigma_G", "zeta"), K=K, m=m, n=n, q=q, R=R, eta_c=eta)
    ball = ball_terms(pb)
    return Instance(problem=pb, algorithm=fast(eta=eta, K=K), pattern=fast_mixture(M=M, m=m, n=n, q=q), rounds=R,
                    values=values, measure=partial(mean_over_rounds, metric="grad_sq", first=1, last=R),
                    assumed={Q_MIN: G_ASSUMED, **ball.get("assumed", {})}, run_broken=ball.get("run_broken"),
                    describe={"problem": pb.describe(), "algorithm": "FAST (FedAvg base)",
                              "pattern": "fast_mixture q=1, m=n=M", "K": K, "R": R, "eta_c": eta},
                    notes=(f"full participation (q = 1, m = n = M = {M}), K = {K}, client Hessians "
                           f"{'rotated (distinct)' if point['mix'] else 'shared'}",
                           f"heterogeneity at x*: zeta = {c['zeta']:.4g}; FAST's zeta (initial gap) is Delta = "
                           f"{c['Delta']:.4g}"))


SCENARIOS += [
    Scenario("FAST.T1.toy1", "FAST.T1", "FAST Thm 1 on TOY1 (G-condition decides)", TOY1_SPACE, build_toy1,
             ("a fixed instance of the spec (FAST.TOY1): q = 0.5 below what q = 1 settles",)),
    Scenario("FAST.C2", "FAST.C2@corrected", "FAST Cor 2: R^-1/2 at the prescribed step", C2_SPACE, build_c2,
             ("the rate check sweeps R; a point alone is an ORDER result (constant hidden)",)),
    Scenario("FAST.C3", "FAST.C3@corrected", "FAST Cor 3: O~(1/R), strongly convex", C3_SPACE, build_c3,
             ("the rate check sweeps R; a point alone is an ORDER result (constant hidden)",)),
    Scenario("FAST.qfloor", "FAST.T2", "FAST with q = 0.2 below Theorem 2's threshold: the error floor",
             QFLOOR_SPACE, build_qfloor, ("outside Theorem 2 on purpose (q below its threshold): a control",)),
    Scenario("FAST.T1.drift", "FAST.T1", "FAST Thm 1, client drift (rotated Hessians, full participation)",
             DRIFT_SPACE, build_drift, ("full participation, K = 10 at the step cap: drift is the only bias",)),
]


# Check groups ----------------------------------------------------------------------------------------

# Negative controls: the shipped instances moved just outside one named hypothesis each.
# T1: the quadratic family (curvatures up to L) with eta = 300 x the 1/(5mLK) cap = 2.4/L, past 2/L
# (20 rounds: the growth 1.4^(2KR) stays inside float range).
T1_STEP_CONTROL = {"problem": "quadratic", "eta_frac": 300.0, "R": 20}
# T2: q = 0 below a threshold near 1 (sigma_G = 1), two clients, one favoured; a small step makes the
# RHS's eta-proportional terms small while the participation bias does not shrink with eta.
T2_Q_CONTROL = {"M": 2, "n_frac": 0.5, "het": 1000.0, "acp_a": 0.1, "q_frac": -1.0, "eta_frac": 0.2,
                "horizon": 12.5, "sigma": 1e-3, "D0": 0.01}


def compare_t2(records: list[Any]) -> list[Any]:
    """FAST.T2: a note comparing the published and corrected forms' verdicts (a finding when they differ)."""
    pub, cor = records[0], records[2]
    if pub.verdict != cor.verdict:
        note = (f"FINDING: published form {pub.verdict}, corrected form {cor.verdict} "
                f"(RHS {pub.rhs:.6g} vs {cor.rhs:.6g}, LHS {pub.lhs:.6g})")
    else:
        note = (f"published and corrected forms agree ({pub.verdict}); they differ only in the (1-q) term, "
                f"{pub.instance['rhs_terms']['partial participation']:.3g} vs "
                f"{cor.instance['rhs_terms']['partial participation']:.3g} here")
    records[0] = pub.replace(notes=pub.notes + (note,))
    records[2] = cor.replace(notes=cor.notes + (note,))
    return records


def adversarial_finding(records: list[Any]) -> list[Any]:
    """FAST.T2.adversarial: the finding that a missing sigma_G^2 factor alone does not repair Theorem 2."""
    pub, cor = records
    thr = pub.instance["threshold"]
    sg2 = float(pub.instance["result_inputs"]["sigma_G"]) ** 2
    finding = (f"FINDING: at an instance satisfying every printed hypothesis (q = 0 allowed because sigma_G^2 = "
               f"{sg2:.3g} makes the threshold {thr:.4g}), the published form {pub.verdict} (RHS "
               f"{pub.rhs:.3g}, carried by its unit-inconsistent (1-q)K eta/(2 mu) term) and the corrected form "
               f"{cor.verdict} (RHS {cor.rhs:.3g} < LHS {cor.lhs:.3g}): the bias of arbitrary participation is "
               "~sigma_G^2/lambda^2, independent of eta, so a missing sigma_G^2 factor alone does not repair "
               "Theorem 2; the q-threshold must exclude this regime")
    return [pub.replace(notes=pub.notes + (finding,)),
            cor.replace(notes=cor.notes + (finding, "expected 'violated': documented finding"))]


def _t2_specs(key: str) -> tuple[Any, ...]:
    suffix = "@corrected" if "@" in key else ""
    label = " (corrected)" if suffix else " (published)"
    return (Certify(key, id=key, title="FAST Thm 2: strongly convex quadratic" + label, trials=(256, 1024),
                    stream="T2"),
            Control(key, T2_Q_CONTROL, broken="snapshot probability threshold", stream="T2 q-control",
                    id=f"FAST.T2.control:q-threshold{suffix}", trials=(64, 256),
                    title="FAST Thm 2 with q = 0 below its threshold" + (" (corrected)" if suffix else ""),
                    note="q = 0 < threshold: ACP rounds of one favoured client bias the iterate by ~sigma_G^2/mu^2"))


RATE_R = ((200, 400, 800, 1600), (200, 400, 800, 1600, 3200))

CHECKS = [
    Group("FAST.T1", (
        Certify("FAST.T1", quick={"R": 200}, title="FAST Thm 1: non-convex, q = 1", trials=(128, 512)),
        Control("FAST.T1", T1_STEP_CONTROL, broken="step size cap 1/(8LK)", id="FAST.T1.control:step-cap",
                title="FAST Thm 1 with the step 300x its cap (2.4/L)", trials=(32, 64),
                note="quadratic family, eta_c = 300 x cap = 2.4/L > 2/L: local steps expand, the iterates diverge"),
    )),
    Group("FAST.T1.toy1", (
        Certify("FAST.T1.toy1", quick={"R": 2000}, id="FAST.T1.toy1", expected=VIOLATED_UNLESS, trials=(64, 256),
                notes=("the verdict must be 'violated unless' the G-condition fails (it is undecidable), never plainly "
                       "'violated'",)),
    )),
    Group("FAST.T2", _t2_specs("FAST.T2") + _t2_specs("FAST.T2@corrected"), finish=compare_t2),
    Group("FAST.T2.adversarial", (
        Certify("FAST.T2", T2_ADVERSARIAL, id="FAST.T2.adversarial", outside=True, trials=(256, 1024), stream="adv",
                title="FAST Thm 2, q = 0 admitted, one-client ACP"),
        Certify("FAST.T2@corrected", T2_ADVERSARIAL, id="FAST.T2.adversarial@corrected", outside=True,
                trials=(256, 1024), expected=VIOLATED, stream="adv",  # a documented finding, regression-tested as such
                title="FAST Thm 2, q = 0 admitted, one-client ACP (corrected)"),
    ), finish=adversarial_finding),
    Group("FAST.C2.rate", (
        Sweep("FAST.C2", axis="R", values=RATE_R, exponent="FAST.C2@corrected", tol=0.1, id="FAST.C2.rate",
              title="FAST Cor 2: R^-1/2 at the prescribed step", trials=(64, 256),
              x_label="communication rounds R (count)",
              notes=("q = 1: the q_min(G) condition is met by any threshold in [0,1] (see FAST.T1)",
                     "tolerance 0.1 on the exponent covers the O(mK/R) second term of the corrected form")),
    )),
    Group("FAST.C3.rate", (
        Sweep("FAST.C3", axis="R", values=RATE_R, exponent="FAST.C3@corrected", tol=0.1, id="FAST.C3.rate",
              title="FAST Cor 3: O~(1/R), strongly convex", trials=(128, 512), x_label="communication rounds R (count)",
              notes=("O~ hides logarithms: the fitted quantity is E||x_R - x*||^2 / ln R",
                     "step eta_c = min(1/(20mLK), ln R/(mu K R)); contraction term e^{-mu K R eta_c} = 1/R")),
    )),
    Group("FAST.qfloor.control", (
        Sweep("FAST.qfloor", axis="zeta", values=((0.25, 0.5, 1.0, 2.0),) * 2, exponent=0.0, tol=0.25,
              id="FAST.qfloor.control", title="FAST: q below threshold, floor grows with sigma_G", trials=(64, 256),
              expected=VIOLATED, control=True, x_label="heterogeneity sigma_G",
              y_label="error floor E||x - x*||^2",
              notes=("q = 0.2 below every threshold; ACP rounds favour clients by fixed propensities, biasing the "
                     "fixed point",
                     "floor slope in sigma_G about 2 expected (bias ~ (1-q)^2 sigma_G^2 / mu^2); the claim 'no floor "
                     "growth' (slope 0) must be violated")),
    )),
    Group("FAST.T1.drift", (
        # one stream for the group: both certificates and both contrasts run on the same noise draws (paired)
        Certify("FAST.T1.drift", {"zeta": 0.0}, id="FAST.T1.drift@zeta0", trials=(64, 256), stream="drift",
                title="FAST Thm 1, client drift (rotated Hessians, zeta = 0)"),
        Certify("FAST.T1.drift", {"zeta": 4.0}, id="FAST.T1.drift", trials=(64, 256), stream="drift",
                title="FAST Thm 1, client drift (rotated Hessians, zeta = 4)"),
        # each certificate's own control: the same instance with the step 300x its cap, where the bound must fail
        Control("FAST.T1.drift", {"zeta": 0.0, **DRIFT_STEP_CONTROL}, broken="step size cap 1/(8LK)",
                id="FAST.T1.drift.control:step-cap@zeta0", title="FAST Thm 1 drift instance (zeta = 0), step 300x its cap",
                note="eta_c = 300 x cap = 3.75/L > 2/L: local steps expand, the iterates diverge", trials=(32, 64)),
        Control("FAST.T1.drift", {"zeta": 4.0, **DRIFT_STEP_CONTROL}, broken="step size cap 1/(8LK)",
                id="FAST.T1.drift.control:step-cap", title="FAST Thm 1 drift instance (zeta = 4), step 300x its cap",
                note="eta_c = 300 x cap = 3.75/L > 2/L: local steps expand, the iterates diverge", trials=(32, 64)),
        Contrast(("FAST.T1.drift", {"zeta": 0.0}), ("FAST.T1.drift", {"zeta": 4.0}), id="FAST.T1.drift.effect",
                 title="Client drift: LHS grows with heterogeneity (full participation, K > 1)", trials=(64, 256),
                 stream="drift"),
        # negative control of the effect: the same heterogeneity with one shared Hessian (mix = 0) breaks
        # "client Hessians differ"; under full participation drift cancels and the rule must find no effect
        Contrast(("FAST.T1.drift", {"zeta": 0.0}), ("FAST.T1.drift", {"zeta": 4.0, "mix": 0.0}),
                 id="FAST.T1.drift.effect.control:shared-hessian", trials=(64, 256), stream="drift",
                 title="Client drift with one shared Hessian (must show no effect)", expected=VIOLATED,
                 control=True, broken="client Hessians differ (mix > 0)",
                 notes=("violated = the effect rule finds nothing, as it must where drift cancels",)),
    )),
]
