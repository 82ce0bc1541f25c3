"""SCAFFOLD paper (scaffold.md) and the survey (seed 003): their rates checked on the engine.

**Sampling term** (SCAF.T1@sc, term (1 - S/N) G^2/(mu S eps)): FedAvg (``quadratics.fedavg``, K = 2,
fixed step) under uniform sampling of S of N = 20 clients on the shared-Hessian quadratic family with no
gradient noise (sigma = 0), so the only randomness is who is sampled. At a fixed step the stationary
gap E f(x) - f* (mean over the second half of the run) is the sampling term's numerator: solved for the
rounds at a tuned step it gives the term's (1 - S/N) G^2/(S eps). The rate check fits the exponent of
the factor x = (1 - S/N)/S (predicted 1, the term's) over S in {2, 4, 5, 10, 16}; the eps exponent is
not what is fitted (eps is nominal here, as in ASCAF.LS). Why the family meets A1: on a shared-Hessian
quadratic (1/N) sum_i ||grad f_i(x)||^2 = ||grad f(x)||^2 + (1/N) sum_i ||A delta_i||^2 exactly, so A1
holds with B = 1 and G^2 = (1/N) sum_i ||A delta_i||^2 (read from the problem, never retyped).
The control breaks the uniform-sampling hypothesis: clients whose minimiser is shifted one way are
drawn 20x as often (successive sampling, weights 1 vs 0.05); FedAvg then drifts to a biased point and
the stationary gap no longer scales as (1 - S/N)/S (its fitted exponent must miss 1).

**SCAFFOLD with client sampling** (SCAF.T3@sc: no G or B in the rate): SCAFFOLD (option II, K = 2, fixed
step) under uniform sampling of 5 of 20 clients with noise sigma = 1; its stationary gap must not grow with
the heterogeneity zeta (exponent 0). Control: FedAvg on the same runs (no control variates): its floor grows
with zeta (SCAF.T1's G^2 term), so the exponent misses 0.

**SCAFFOLD on quadratics** (SCAF.T4@sc, sigma = 0, S = N): on the shared-Hessian quadratic every client
Hessian is the same (delta = 0), so the rounds term (beta + delta K)/(mu K) is beta/(mu K): the rounds to a
fixed gap must fall as K^-1 (exponent read from the result at delta = 0). Control: S = 2 of 8 clients per
round (breaks S = N): the rounds stop falling as 1/K.

**Lower bound** (SCAF.T2, a construction of our own; the paper's is in its appendix, UNRECOVERED):
two clients in one dimension, f_1 = (mu/2)(x - a)^2 and f_2 = (3 mu/2)(x + a)^2. It meets the
hypotheses: each f_i is mu-strongly convex (curvatures mu and 3 mu); A1 holds with
G^2 = 2 (1/N) sum_i f_i'(x*)^2 and B^2 = 2 (1/N) sum_i h_i^2 / hbar^2 (from f_i'(x) = h_i (x - x*) + f_i'(x*)
and (u + v)^2 <= 2u^2 + 2v^2, with f'(x) = hbar (x - x*)); FedAvg runs K = 2 local steps, sigma = 0 and
S = N = 2. With distinct curvatures FedAvg's fixed point is not x* (client drift). FedAvg on this
problem is a scalar linear recursion, x_{r+1} = cbar x_r + mean_i a_i (1 - c_i), c_i = (1 - eta h_i)^K,
computed exactly over a grid of steps to pick FedAvg's best step for each R (the bound must hold for
every step: the best one is the hardest case); the scenario then runs the engine's FedAvg at that step
(deterministic: S = N, sigma = 0), and a constant fit over R checks that gap / (G^2/(mu R^2)) stays
bounded (c in [0.099, 0.24] for R = 16..1024, growing like a log factor). A grid of steps is evidence,
not a proof for every step size; the verdict is ``unverified`` (A1 and 'the worst instance' are
assumptions bounds cannot decide). Start x0 = x* + 2a (a distance of the order G/mu); the paper leaves
x0 to the construction. Control: K = 1 (breaks K >= 2): FedAvg is gradient descent, there is no drift,
the best step reaches x* and the constant collapses to 0.

**The survey's rates** (SURV.FEDAVG, SURV.GENFEDAVG, SURV.CYCP: O(1/sqrt(T))): FedAvg under uniform
sampling, generalized FedAvg with server step 2, FedAvg under cyclic participation, each at the local step
1/sqrt(T) on the shared-Hessian quadratic (sigma = 1); the measure is our reading, (1/T) sum_r
E||grad f(x_r)||^2 (the survey names none). A Sweep over T fits the exponent -1/2 read from each result;
control: a constant step leaves a floor (the exponent misses -1/2).

``CHECKS`` holds the groups as :mod:`verify.checks` specs over these scenarios (``verify SCAF``,
``verify SURV``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import partial
from typing import Any

import numpy as np

import bounds
from verify.checks import Group, Sweep
from verify.scenario import Instance, Param, Scenario, mean_over_rounds
from verify.scenarios.fast import R_EXACT
from verify.verdict import UNVERIFIED, VIOLATED

N_CLIENTS, K_STEPS, ETA, D = 20, 2, 0.5, 4
ROUNDS = 300
FAVOUR = 0.05  # weight of the clients the biased control disfavours (the others have weight 1)
# x = (1 - S/N)/S for S = 2, 4, 5, 10, 16 of N = 20 (the builder maps x back to S = N/(1 + N x))
SAMP = (0.45, 0.2, 0.15, 0.05, 0.0125)

# the sampling factor's ends: S = N - 1 and S = 1 of N (S = N makes it 0, which a log scale leaves out)
SAMP_RANGE = ((1 - (N_CLIENTS - 1) / N_CLIENTS) / (N_CLIENTS - 1), 1 - 1 / N_CLIENTS)

SAMPLING_SPACE = (
    Param("samp", SAMP_RANGE[0], SAMP_RANGE[1], 0.15, log=True,
          doc="sampling factor x = (1 - S/N)/S of the term; S = the whole number nearest N/(1 + N x) (N = 20)",
          source="1 <= S <= N = 20 (hypothesis S <= N; the check's N = 20): x from 1/380 (S = 19) to 0.95 (S = 1); "
                 "S = N (x = 0, no sampling term) is the one count a log scale leaves out. Widened from the check's "
                 "S = 2..16: the uniform pattern is scored exactly (verify.exact_score), about 0.005 s a point"),
    Param("pattern", default="uniform", choices=("uniform", "biased"), searched=("uniform",),
          doc="uniform S of N without replacement (the theorem's), or biased towards one half (a control)",
          source="uniform: the theorem's i.i.d. participation (the one a search draws); biased: the check's "
                 "control that breaks it"),
    Param("zeta", 1e-3, 1e3, 1.0, log=True, doc="heterogeneity: max_i ||A delta_i||",
          source="zeta >= 0 (domain): 1e-3 stands for 0 on a log scale; 1000: with sigma = 0 the LHS and the "
                 "sampling term both scale as zeta^2, so LHS/RHS has reached its large-zeta limit (exact, S = 5: "
                 "0.00153 at zeta = 100, 0.00155 at 1000). Widened from 0.1..10: scored exactly at any zeta"),
    Param("draw", 0, 999, 0, integer=True, doc="seed of the problem's random draw",
          source="the problem's random draw (any seed)"),
)


def clients_for(samp: float, N: int = N_CLIENTS) -> int:
    """The whole S nearest to N/(1 + N samp), i.e. to (1 - S/N)/S = samp (exact for the values of ``SAMP``; a
    search's other values get the nearest S, and the instance's inputs carry that S)."""
    return int(min(N, max(1, round(N / (1 + N * samp)))))


def biased(problem: Any, S: int, favour: float = FAVOUR) -> Any:
    """S of M clients per round by successive sampling with weight 1 for clients whose minimiser shift has a
    sum of coordinates above the median and ``favour`` for the rest; aggregation weights 1/S as under uniform
    sampling, so the selection bias is not corrected."""
    from quadratics.participation import Pattern, rng_for, weighted_subsets, weights_from_ids

    M = problem.M
    shift = (problem.b - problem.x_star).sum(axis=1)
    logw = np.log(np.where(shift > np.median(shift), 1.0, favour))

    def init(trials: int, seed: int) -> tuple[int, int]:
        return seed, trials

    def draw(state: tuple[int, int], r: int) -> tuple[np.ndarray, dict, tuple[int, int]]:
        seed, trials = state
        ids = weighted_subsets(rng_for(seed, 17, r), np.broadcast_to(logw, (trials, M)), S)
        return weights_from_ids(ids, M), {}, state

    return Pattern("biased", M, {"S": S, "favour": favour}, init, draw)


def a1_constants(problem: Any) -> tuple[float, float]:
    """(G, B) of A1 for a shared-Hessian quadratic: B = 1, G^2 = (1/N) sum_i ||A delta_i||^2 (an identity)."""
    g = problem.lam * (problem.b - problem.x_star)
    return float(np.sqrt(np.mean(np.sum(g * g, axis=1)))), 1.0


UNIFORM_MET = "met by construction: the engine's uniform pattern draws S of N without replacement, each round anew"


def build_sampling(point: Mapping[str, Any]) -> Instance:
    """FedAvg (K = 2, eta = 0.5) under uniform (or biased) sampling of S of 20 clients, sigma = 0; LHS = the
    stationary gap (mean over the second half of 300 rounds)."""
    from quadratics import fedavg, heterogeneous_quadratic, uniform

    S = clients_for(float(point["samp"]))
    pb = heterogeneous_quadratic(L=1.0, mu=0.5, d=D, M=N_CLIENTS, zeta=float(point["zeta"]), sigma=0.0, D0=1.0,
                                 seed=int(point["draw"]))
    G, B = a1_constants(pb)
    k = pb.constants
    uniform_pattern = point["pattern"] == "uniform"
    pattern = uniform(M=N_CLIENTS, S=S) if uniform_pattern else biased(pb, S)
    values = dict(beta=k["L"], mu=k["mu"], sigma=0.0, G=G, B=B, K=K_STEPS, S=S, N=N_CLIENTS, eps=0.01)
    assumed = {"A1 (G,B)-bounded gradient dissimilarity": "shared-Hessian quadratic: an identity with B = 1, "
                                                          "G^2 = (1/N) sum ||A delta_i||^2",
               "beta-smooth clients with unbiased gradients": "quadratics with curvatures in [mu, L], sigma = 0",
               "step sizes from the appendix": "a fixed step eta = 0.5; the sweep reads the exponent of (1 - S/N)/S "
                                               "only (eps nominal)"}
    if uniform_pattern:
        assumed["participation (iid)"] = UNIFORM_MET
    return Instance(problem=pb, algorithm=fedavg(eta=ETA, K=K_STEPS), pattern=pattern, rounds=ROUNDS, values=values,
                    measure=partial(mean_over_rounds, metric="gap", first=ROUNDS // 2, last=ROUNDS),
                    assumed=assumed, curve="gap",
                    describe={"problem": pb.describe(), "eta": ETA, "K": K_STEPS, "R": ROUNDS, "S": S,
                              "pattern": point["pattern"], "G": G, "B": B,
                              "eps": "0.01 (nominal: the sweep reads the exponent of (1 - S/N)/S only)"},
                    broken={} if uniform_pattern else {
                        "participation (iid)": f"biased successive sampling (weights 1 vs {FAVOUR}), not uniform"})


# ---- SCAFFOLD with client sampling (SCAF.T3): no heterogeneity in its rate, so its floor ignores zeta
HET_ZETA = (0.1, 1.0, 10.0, 100.0)
HET_ROUNDS, HET_ETA = 600, 0.2

HET_SPACE = (
    Param("zeta", 0.01, 1000.0, 1.0, log=True, doc="heterogeneity: max_i ||A delta_i||",
          source="zeta >= 0 (domain; SCAF.T3's rate has no G, so it admits any zeta): a log scale from 0.01 (10x "
                 "below the check's smallest zeta = 0.1) to 1000 (10x above its largest, 100). Monte Carlo (the "
                 "moment recursion of 20 clients' control variates is past the exact path's order limit), whose "
                 "cost does not depend on zeta"),
    Param("algorithm", default="scaffold", choices=("scaffold", "fedavg"), searched=("scaffold",),
          doc="SCAFFOLD (the theorem's), or FedAvg (a control: its rate has G, its floor grows with zeta)",
          source="scaffold: the theorem's algorithm (the one a search draws); fedavg: the check's control"),
    Param("draw", 0, 999, 0, integer=True, doc="seed of the problem's random draw",
          source="the problem's random draw (any seed)"),
)


def build_heterogeneity(point: Mapping[str, Any]) -> Instance:
    """SCAFFOLD (or FedAvg) with K = 2, eta = 0.2 under uniform sampling of 5 of 20 clients, sigma = 1, on the
    shared-Hessian quadratic with heterogeneity zeta; LHS = the stationary gap (second half of 600 rounds)."""
    from quadratics import fedavg, heterogeneous_quadratic, scaffold, uniform

    pb = heterogeneous_quadratic(L=1.0, mu=0.5, d=D, M=N_CLIENTS, zeta=float(point["zeta"]), sigma=1.0, D0=1.0,
                                 seed=int(point["draw"]))
    k = pb.constants
    alg = scaffold(eta=HET_ETA, K=K_STEPS) if point["algorithm"] == "scaffold" else fedavg(eta=HET_ETA, K=K_STEPS)
    assumed = {"participation (iid)": UNIFORM_MET,
               "beta-smooth clients with unbiased gradients": "quadratics, Gaussian noise of variance sigma^2",
               "step sizes from the appendix": f"a fixed step eta = {HET_ETA}; the sweep reads the exponent of zeta "
                                               "only (eps nominal)"}
    return Instance(problem=pb, algorithm=alg, pattern=uniform(M=N_CLIENTS, S=5), rounds=HET_ROUNDS,
                    values=dict(beta=k["L"], mu=k["mu"], sigma=k["sigma"], K=K_STEPS, S=5, N=N_CLIENTS, eps=0.01),
                    measure=partial(mean_over_rounds, metric="gap", first=HET_ROUNDS // 2, last=HET_ROUNDS),
                    assumed=assumed, curve="gap",
                    describe={"problem": pb.describe(), "algorithm": point["algorithm"], "eta": HET_ETA, "K": K_STEPS,
                              "S": 5, "R": HET_ROUNDS, "eps": "0.01 (nominal: the sweep reads the exponent of zeta)"},
                    broken={} if point["algorithm"] == "scaffold" else {
                        "algorithm": "FedAvg, not SCAFFOLD: no control variates"})


# ---- SCAFFOLD on quadratics (SCAF.T4): rounds ~ (beta + delta K)/(mu K), i.e. ~ 1/K when delta = 0
LOCAL_K = (1, 2, 4, 8, 16)
LOCAL_M, LOCAL_ROUNDS, LOCAL_ETA, LOCAL_EPS = 8, 500, 0.05, 1e-6

LOCAL_SPACE = (
    Param("K", 1, 64, 4, integer=True, log=True, doc="local steps per round",
          source="1: domain K >= 1; 64: Monte Carlo cost cap, 4x the check's largest K = 16 (the measure, rounds "
                 "to eps per trial, has no exact path; a point costs R K = 500 K steps a trial)", end="cost"),
    Param("S", 1, LOCAL_M, LOCAL_M, integer=True, doc="clients per round of N = 8 (the theorem: S = N)",
          source=f"1 <= S <= N = {LOCAL_M} (domain; the check's N = {LOCAL_M}); the theorem needs S = N "
                 "(hypothesis 'full participation: S >= N'): S < N, the check's control S = 2 among them, are "
                 "outside it and not scored"),
    Param("draw", 0, 999, 0, integer=True, doc="seed of the problem's random draw",
          source="the problem's random draw (any seed)"),
)


def rounds_to_eps(sim: Any, eps: float, R: int) -> np.ndarray:
    """Per-trial first round r >= 0 with f(x_r) - f* <= eps (R + 1 when never; a diverged trial -> inf)."""
    gap = np.asarray(sim.metrics["gap"], dtype=float)
    hit = gap <= eps
    first = np.where(hit.any(axis=0), hit.argmax(axis=0), R + 1).astype(float)
    return np.where(np.isfinite(gap).all(axis=0), first, math.inf)


def predicted_k_exponent() -> float:
    """The log-slope in K of SCAF.T4@sc's similarity term (beta + delta K)/(mu K) at delta = 0 (read from the result)."""
    res = bounds.get("SCAF.T4@sc")
    term = next(t for t in res.terms if t.name == "similarity").expr
    at = [float(term.xreplace({sym: {"beta": 1.0, "delta": 0.0, "mu": 0.5, "K": k}[sym.name]
                               for sym in term.free_symbols})) for k in (1.0, 16.0)]
    return math.log(at[1] / at[0]) / math.log(16.0)


def build_local(point: Mapping[str, Any]) -> Instance:
    """SCAFFOLD (option II, eta = 0.05) with K local steps on the shared-Hessian quadratic (delta = 0), sigma = 0,
    S of 8 clients; LHS = rounds to a gap of 1e-6 per trial."""
    from quadratics import heterogeneous_quadratic, scaffold, uniform

    K, S = int(point["K"]), int(point["S"])
    pb = heterogeneous_quadratic(L=1.0, mu=0.5, d=D, M=LOCAL_M, zeta=1.0, sigma=0.0, D0=1.0, seed=int(point["draw"]))
    k = pb.constants
    values = dict(beta=k["L"], mu=k["mu"], sigma=0.0, K=K, N=LOCAL_M, delta=0.0, S=S, eps=LOCAL_EPS)
    assumed = {"quadratic clients": "every f_i is a quadratic (the family)",
               "A2 delta-bounded Hessian dissimilarity": "every client Hessian is A: delta = 0 exactly",
               "beta-smooth clients with unbiased gradients": "curvatures in [mu, L], sigma = 0",
               "step sizes from the appendix": f"a fixed local step eta = {LOCAL_ETA}: the ratio bounds the hidden "
                                               "constant times log(1/eps) for this step only"}
    if S == LOCAL_M:
        assumed["participation (iid)"] = "every client every round (uniform S = N), server step 1"
    return Instance(problem=pb, algorithm=scaffold(eta=LOCAL_ETA, K=K), pattern=uniform(M=LOCAL_M, S=S),
                    rounds=LOCAL_ROUNDS, values=values,
                    measure=partial(rounds_to_eps, eps=LOCAL_EPS, R=LOCAL_ROUNDS), assumed=assumed, curve="gap",
                    describe={"problem": pb.describe(), "eta": LOCAL_ETA, "K": K, "S": S, "N": LOCAL_M,
                              "eps": LOCAL_EPS, "R": LOCAL_ROUNDS})


# ---- the survey's stated O(1/sqrt(T)) rates, for the methods the engine runs
SURVEY_T = (100, 200, 400, 800, 1600)
SURVEY_METHODS = {  # method -> (result, what, pattern, eta_g)
    "fedavg": ("SURV.FEDAVG", "FedAvg, uniform sampling S = 5 of 20", "uniform", 1.0),
    "genfedavg": ("SURV.GENFEDAVG", "generalized FedAvg, server step eta_g = 2, uniform S = 5 of 20", "uniform", 2.0),
    "cycp": ("SURV.CYCP", "FedAvg under cyclic participation (4 groups of 5 clients, 5 drawn from the active group)",
             "cyclic", 1.0),
}

SURVEY_SPACE = (
    Param("T", 1, R_EXACT, 400, integer=True, log=True, doc="rounds (the survey's T)",
          source="1: domain T >= 1 (the survey states no condition on T); 10^6: the longest horizon asked of the "
                 "exact path (verify.scenarios.fast.R_EXACT), which scores these instances in about 0.03 s at "
                 "any T >= 2 (T = 1 averages round 0 alone and is simulated)", end="stand-in"),
    Param("step", default="sqrt", choices=("sqrt", "constant"), searched=("sqrt",),
          doc="local step 1/sqrt(T) (our reading of the rate), or a constant 0.1 (a control)",
          source="sqrt: our reading of the rate's step 1/sqrt(T) (the one a search draws); constant: the check's "
                 "control, not our reading (no hypothesis marks it, so it is left out of searches)"),
    Param("draw", 0, 999, 0, integer=True, doc="seed of the problem's random draw",
          source="the problem's random draw (any seed)"),
)


def build_survey(point: Mapping[str, Any], method: str) -> Instance:
    """``method`` with K = 2 on the shared-Hessian quadratic (mu = 0.5, L = 1, sigma = 1, zeta = 1) for T rounds;
    LHS = (1/T) sum_r ||grad f(x_r)||^2 (our reading: the survey names no measure)."""
    from quadratics import cyclic, fedavg, heterogeneous_quadratic, uniform

    rid, what, pattern, eta_g = SURVEY_METHODS[method]
    T = int(point["T"])
    eta = 1 / math.sqrt(T) if point["step"] == "sqrt" else 0.1
    pb = heterogeneous_quadratic(L=1.0, mu=0.5, d=D, M=N_CLIENTS, zeta=1.0, sigma=1.0, D0=1.0, seed=int(point["draw"]))
    pat = uniform(M=N_CLIENTS, S=5) if pattern == "uniform" else cyclic(M=N_CLIENTS, S=5, P=4, groups=4)
    res = bounds.get(rid)
    values = {k: v for k, v in {"T": T, "n": 5, "K": K_STEPS}.items() if k in res.symbol_map}
    assumed = {u.name: f"by construction: {what}, K = {K_STEPS}, eta = {eta:.4g}" for u in res.unencoded}
    return Instance(problem=pb, algorithm=fedavg(eta=eta, K=K_STEPS, eta_g=eta_g), pattern=pat, rounds=T,
                    values=values, measure=partial(mean_over_rounds, metric="grad_sq", first=0, last=T - 1),
                    assumed=assumed, curve="grad_sq",
                    describe={"problem": pb.describe(), "algorithm": what, "K": K_STEPS, "eta": eta, "eta_g": eta_g,
                              "T": T, "measure": "(1/T) sum_r E||grad f(x_r)||^2 (our reading)"})




# ---- the FedAvg lower bound on a construction of our own (see the module docstring)
LB_MU, LB_A = 1.0, 1.0
LB_H = np.array([LB_MU, 3 * LB_MU])
LB_CENTRES = np.array([LB_A, -LB_A])
LB_ROUNDS = (16, 32, 64, 128, 256, 512, 1024)
LB_STEPS = np.logspace(-6, math.log10(2 / (3 * LB_MU)), 4001)  # up to the stability edge of the stiffer client


def lb_constants() -> dict[str, float]:
    """x*, f*, G and B of A1, hbar for the two-client construction (exact, from its definition)."""
    hbar = float(LB_H.mean())
    x_star = float((LB_H * LB_CENTRES).sum() / LB_H.sum())
    grads_star = LB_H * (x_star - LB_CENTRES)
    f_star = float(np.mean(LB_H / 2 * (x_star - LB_CENTRES) ** 2))
    G = float(np.sqrt(2 * np.mean(grads_star**2)))
    B = float(np.sqrt(2 * np.mean(LB_H**2) / hbar**2))
    return {"x_star": x_star, "f_star": f_star, "G": G, "B": B, "hbar": hbar, "mu": LB_MU}


def lb_gaps(eta: np.ndarray, rounds: np.ndarray, K: int, x0: float) -> np.ndarray:
    """Exact f(x_R) - f* of full-participation FedAvg (K local GD steps, step eta) on the construction,
    for every eta (axis 0) and R (axis 1): x_R = xhat + cbar^R (x0 - xhat)."""
    c = (1 - np.outer(eta, LB_H)) ** K                     # [steps, clients]
    cbar = c.mean(1)
    b = (LB_CENTRES * (1 - c)).mean(1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        xhat = b / (1 - cbar)
        xR = xhat[:, None] + np.power.outer(cbar, rounds) * (x0 - xhat)[:, None]
    k = lb_constants()
    gap = k["hbar"] / 2 * (xR - k["x_star"]) ** 2  # f is a quadratic of curvature hbar: no cancellation
    return np.where(np.isfinite(gap), gap, np.inf)


def lower_bound_ratio(K: int) -> tuple[np.ndarray, np.ndarray]:
    """(R, min over the step grid of the final gap divided by G^2/(mu R^2))."""
    k = lb_constants()
    R = np.asarray(LB_ROUNDS, dtype=float)
    best = lb_gaps(LB_STEPS, R, K, x0=k["x_star"] + 2 * LB_A).min(axis=0)
    return R, best / (k["G"] ** 2 / (k["mu"] * R**2))


def lb_problem() -> Any:
    """The two-client construction as an engine problem (diagonal curvature quadratic, d = 1, sigma = 0)."""
    from quadratics.curvature import CurvatureQuadratic

    k = lb_constants()
    constants = {"L": float(LB_H.max()), "mu": k["mu"], "G": k["G"], "B": k["B"], "sigma": 0.0, "F_star": k["f_star"],
                 "D0": 4 * LB_A**2}
    return CurvatureQuadratic(name="fedavg-lower-bound", d=1, M=2, x0=np.array([k["x_star"] + 2 * LB_A]),
                              x_star=np.array([k["x_star"]]), F_star=k["f_star"], constants=constants,
                              params={"curvatures": LB_H.tolist(), "centres": LB_CENTRES.tolist()},
                              A=LB_H[:, None, None].copy(), b=LB_CENTRES[:, None].copy(), sigma=0.0, diagonal=True)


def best_step(R: int, K: int) -> float:
    """The step of the grid with the smallest exact final gap after R rounds (FedAvg's best choice)."""
    k = lb_constants()
    gaps = lb_gaps(LB_STEPS, np.array([float(R)]), K, x0=k["x_star"] + 2 * LB_A)[:, 0]
    return float(LB_STEPS[int(np.argmin(gaps))])


LB_SPACE = (
    Param("R", 1, R_EXACT, 64, integer=True, log=True, doc="rounds",
          source="1: domain R >= 1; 10^6: the longest horizon asked of the exact path (verify.scenarios.fast."
                 "R_EXACT; about 0.02 s a point at any R, K)"),
    Param("K", 1, 64, 2, integer=True, doc="local steps (the theorem: K >= 2)",
          source="K >= 2 (hypothesis 'local steps K >= 2'; K = 1, the check's control, is outside it and not "
                 "scored); the theorem admits any K >= 2: the axis stops at 64, the same as SCAF.T4's K axis"),
    Param("draw", 0, 999, 0, integer=True, doc="unused: the construction has no random draw",
          source="unused (the construction has no random draw): every seed gives the same instance"),
)


def build_lower_bound(point: Mapping[str, Any]) -> Instance:
    """FedAvg on the two-client construction at the grid's best step for this R and K (full participation,
    sigma = 0); LHS = f(x_R) - f* from the engine (deterministic: every trial is the same run)."""
    from quadratics import fedavg, uniform
    from verify.scenario import at_round

    R, K = int(point["R"]), int(point["K"])
    pb = lb_problem()
    k = lb_constants()
    eta = best_step(R, K)
    return Instance(problem=pb, algorithm=fedavg(eta=eta, K=K), pattern=uniform(M=2, S=2), rounds=R,
                    values=dict(G=k["G"], mu=k["mu"], R=R, K=K, sigma=0.0, S=2, N=2),
                    measure=partial(at_round, metric="gap", r=R),
                    assumed={"participation (iid)": "both clients every round (S = N = 2)",
                             "A1 (G,B)-bounded gradient dissimilarity": f"G^2 = 2 mean f_i'(x*)^2 = {k['G'] ** 2:.6g}, "
                                                                        f"B^2 = 2 mean h_i^2/hbar^2 = {k['B'] ** 2:.6g}"
                                                                        " (the module docstring proves it)",
                             "the worst instance": "our own construction, not the paper's (UNRECOVERED)"},
                    curve="gap",
                    describe={"problem": pb.describe(), "K": K, "R": R, "eta": eta,
                              "eta_rule": f"argmin over {LB_STEPS.size} log-spaced steps in [1e-6, 2/(3 mu)] of the "
                                          "exact final gap"})


SCENARIOS = [
    Scenario("SCAF.T1.sampling", "SCAF.T1@sc", "FedAvg: client-sampling floor ~ (1 - S/N)/S (SCAFFOLD Thm I)",
             SAMPLING_SPACE, build_sampling,
             ("the LHS is FedAvg's stationary gap at a fixed step, the sampling term's numerator: compare its "
              "exponent in (1 - S/N)/S, not its value, with the rounds count",)),
    Scenario("SCAF.T3.heterogeneity", "SCAF.T3@sc", "SCAFFOLD with client sampling: floor against heterogeneity",
             HET_SPACE, build_heterogeneity,
             ("the LHS is the stationary gap at a fixed step: its exponent in zeta is what is compared (0: the rate "
              "has no G)",)),
    Scenario("SCAF.T4.local-steps", "SCAF.T4@sc", "SCAFFOLD on a delta = 0 quadratic: rounds to eps vs K",
             LOCAL_SPACE, build_local,
             ("ORDER result: LHS/RHS bounds the hidden constant times log(1/eps) at this step",)),
    Scenario("SCAF.T2.construction", "SCAF.T2", "FedAvg on a two-client construction at its best step (lower bound)",
             LB_SPACE, build_lower_bound,
             ("LOWER result: LHS/RHS is the construction's constant c in f(x^R) - f* >= c G^2/(mu R^2)",)),
    *(Scenario(f"{rid}.instance", rid, f"{what}: (1/T) sum ||grad f||^2", SURVEY_SPACE,
               partial(build_survey, method=method),
               ("the survey states only O(1/sqrt(T)): the measure and the step are our reading",))
      for method, (rid, what, _, _) in SURVEY_METHODS.items()),
]


LB_NOTES = ("two clients, curvatures 1 and 3, centres 1 and -1, x0 = x* + 2, K local steps, S = N = 2, sigma = 0; "
            "step = the best of a log-spaced grid for each R (exact recursion), then the engine's FedAvg at it",
            "min over a grid of steps, not over every step size: evidence for the construction, not a proof",
            "unverified, not holds: A1 and 'the worst instance' are assumptions bounds cannot decide (A1 is proved "
            "for this construction in the module docstring)")
SAMPLING_NOTES = ("x = (1 - S/N)/S, S in 2, 4, 5, 10, 16 of N = 20; LHS = stationary gap (second half of 300 rounds), "
                  "K = 2, eta = 0.5, sigma = 0",
                  "fits the (1 - S/N)/S factor of the term at a fixed step (its eps exponent is not fitted)")
HET_NOTES = ("SCAF.T3's rate has no G or B: predicted exponent 0 in zeta; LHS = stationary gap (second half of "
             f"{HET_ROUNDS} rounds), K = 2, eta = {HET_ETA}, S = 5 of 20 uniformly, sigma = 1",
             "control: FedAvg, whose rate (SCAF.T1) carries (1 - S/N) G^2/S: its floor grows with zeta")
LOCAL_NOTES = (f"rounds to a gap <= {LOCAL_EPS:g} per trial; eta = {LOCAL_ETA}, sigma = 0, delta = 0 (shared Hessian); "
               "predicted exponent -1 = log-slope of (beta + delta K)/(mu K) at delta = 0 "
               "(verify.scenarios.scaffold.predicted_k_exponent; a test ties the two)",
               "the log(1/eps) factor of O~ is the same at every K (fixed eps)")
SURVEY_NOTES = ("our reading of an unnamed measure: (1/T) sum_r E||grad f(x_r)||^2 at eta = 1/sqrt(T)",
                "one instance and one step rule: the stated order is attainable here; the survey states no theorem")

CHECKS = [
    Group("SCAF.T1.sampling", (
        Sweep("SCAF.T1.sampling", axis="samp", values=(SAMP, SAMP), exponent=1.0, tol=0.05,
              id="SCAF.T1.sampling.rate", title="FedAvg: client-sampling floor ~ (1 - S/N)/S (SCAF.T1 sampling term)",
              trials=(64, 256), x_label="(1 - S/N)/S", y_label="stationary gap", notes=SAMPLING_NOTES),
        Sweep("SCAF.T1.sampling", axis="samp", values=(SAMP, SAMP), point={"pattern": "biased"}, exponent=1.0,
              tol=0.05, id="SCAF.T1.sampling.control:biased",
              title="FedAvg, biased sampling (uniform sampling broken): floor no longer ~ (1 - S/N)/S",
              trials=(64, 256), expected=VIOLATED, control=True, x_label="(1 - S/N)/S", y_label="stationary gap",
              notes=(*SAMPLING_NOTES, "control: selection biased towards one half of the clients")),
    ), title="FedAvg's client-sampling term (SCAFFOLD Theorem I)"),
    Group("SCAF.T2", (
        Sweep("SCAF.T2.construction", axis="R", values=(LB_ROUNDS, LB_ROUNDS), fit="constant", trials=(2, 2),
              id="SCAF.T2.construction", expected=UNVERIFIED, x_label="rounds R",
              title="FedAvg lower bound: min-over-steps gap / (G^2/(mu R^2)) stays bounded on our construction",
              notes=LB_NOTES),
        Sweep("SCAF.T2.construction", axis="R", values=(LB_ROUNDS, LB_ROUNDS), point={"K": 1}, fit="constant",
              trials=(2, 2), id="SCAF.T2.control:K1", expected=VIOLATED, control=True, x_label="rounds R",
              title="FedAvg with K = 1 (K >= 2 broken): gradient descent, no drift, the ratio collapses",
              notes=LB_NOTES),
    ), title="FedAvg lower bound (SCAFFOLD Theorem II) on a construction of our own"),
    Group("SCAF.T3", (
        Sweep("SCAF.T3.heterogeneity", axis="zeta", values=(HET_ZETA, HET_ZETA), exponent=0.0, tol=0.1,
              id="SCAF.T3.heterogeneity", title="SCAFFOLD with client sampling: floor does not grow with heterogeneity",
              trials=(32, 128), x_label="heterogeneity zeta", y_label="stationary gap", notes=HET_NOTES),
        Sweep("SCAF.T3.heterogeneity", axis="zeta", values=(HET_ZETA, HET_ZETA), point={"algorithm": "fedavg"},
              exponent=0.0, tol=0.1, id="SCAF.T3.control:fedavg",
              title="FedAvg (no control variates): its floor grows with heterogeneity", trials=(32, 128),
              expected=VIOLATED, control=True, x_label="heterogeneity zeta", y_label="stationary gap",
              notes=HET_NOTES),
    ), title="SCAFFOLD with client sampling (Theorem III): no heterogeneity term"),
    Group("SCAF.T4", (
        Sweep("SCAF.T4.local-steps", axis="K", values=(LOCAL_K, LOCAL_K), exponent=-1.0, tol=0.1,
              id="SCAF.T4.local-steps", title="SCAFFOLD on quadratics, delta = 0: rounds to eps ~ 1/K",
              trials=(16, 32), x_label="local steps K", y_label="rounds to eps", notes=LOCAL_NOTES),
        Sweep("SCAF.T4.local-steps", axis="K", values=(LOCAL_K, LOCAL_K), point={"S": 2}, exponent=-1.0, tol=0.1,
              id="SCAF.T4.control:partial",
              title=f"SCAFFOLD with S = 2 of {LOCAL_M} (S = N broken): rounds no longer ~ 1/K",
              trials=(16, 32), expected=VIOLATED, control=True, x_label="local steps K", y_label="rounds to eps",
              notes=LOCAL_NOTES),
    ), title="SCAFFOLD on quadratics with Hessian dissimilarity (Theorem IV)"),
    Group("SURV.rates", (
        *(Sweep(f"{rid}.instance", axis="T", values=(SURVEY_T, SURVEY_T), exponent=rid, tol=0.1, id=f"{rid}.rate",
                title=f"{what}: O(1/sqrt(T)) as the survey states", trials=(32, 128), x_label="rounds T",
                y_label="(1/T) sum E||grad f||^2", notes=SURVEY_NOTES)
          for rid, what, _, _ in SURVEY_METHODS.values()),
        Sweep("SURV.FEDAVG.instance", axis="T", values=(SURVEY_T, SURVEY_T), point={"step": "constant"},
              exponent="SURV.FEDAVG", tol=0.1, id="SURV.FEDAVG.control:constant-step",
              title="FedAvg at a constant step 0.1 (our 1/sqrt(T) step rule broken): a floor, not O(1/sqrt(T))",
              trials=(32, 128), expected=VIOLATED, control=True, x_label="rounds T",
              y_label="(1/T) sum E||grad f||^2", notes=SURVEY_NOTES),
    ), title="The survey's stated rates on the engine"),
]
