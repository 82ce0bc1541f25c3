"""Each result's setting in the engine's words (:class:`verify.scenarios.declared.Declares`), and why the few
results without a scenario have none.

**Setting**: one declaration per result that bounds a measured quantity and had no hand-built scenario: FAST's
Corollaries 1-3 as printed, SCAFFOLD's convex and non-convex rows, Democratic FL's Theorem 1 (its synchronous
special case: no staleness), the survey's Generalized FedAvg (Table I form) and Amplified SCAFFOLD's corollaries
and Table 1 rows. :func:`verify.scenarios.declared.declared_scenario` builds each one's scenario.
**Statement**: every one of these is an ORDER result except where noted: a point bounds its hidden constant from
below (``unverified``), the orders analysis along its rays (``verify.search.orders``) is its check.
Readings stated once here (each declaration's ``assumed`` says where it is used):
* A1 of SCAFFOLD holds with G = sigma_G, B = 1 on every family whose sigma_G bounds ||grad f_i - grad f|| everywhere
  (``verify.scenarios.declared.context``); the appendix's step sizes are not in the sources, so a step at a fraction
  of 1/(L K) stands for them (taken as met: a conditional reading);
* Democratic FL is read at its synchronous special case: the engine's uniform law selects K clients a round with
  fresh models, so the staleness bound holds with Gamma_max = 0 and Q_min = Q_max = the local steps;
* the survey names no measure: our reading is (1/T) sum E||grad f||^2 at eta = 1/sqrt(T), as for its other rows.
:data:`WITHOUT_SCENARIO` names each result left without a scenario, with its reason (data, read by the
registry-completeness test and by ``decide``).
"""

from __future__ import annotations

from verify.scenarios.declared import Declares, register
from verify.scenarios.families import STRONGLY_CONVEX
from verify.scenarios.fast_space import G_ASSUMED

SMOOTH_FAMILIES = ("nonconvex", "quadratic")  # the smooth families whose sigma_G is a global sup (no ball)
CONVEX_FAMILIES = ("quadratic", "logistic")   # convex, sigma_G global
GENERIC = ("M", "s_frac", "K", "R", "zeta", "sigma", "D0", "mu_frac")

# Why the unencoded assumptions are met (or taken as met) --------------------------------------------------------
UNIFORM = "met by construction: the engine's uniform law draws S of N without replacement, each round anew"
A1 = ("met with G = sigma_G, B = 1: (1/N) sum ||grad f_i||^2 = ||grad f||^2 + (1/N) sum ||grad f_i - grad f||^2 and "
      "the family's sigma_G bounds ||grad f_i - grad f|| everywhere")
SMOOTH = "met by construction: the family's clients are L-smooth (beta = L) with unbiased Gaussian gradient noise"
STEPS = ("taken as met: the appendix's step sizes are not in the sources; a local step at a fraction of 1/(L K) "
         "stands for them (a conditional reading: a violation would rest on it)")
SNAPSHOT = "met by construction: the engine's FAST law (fast_mixture) makes each round a snapshot round with prob. q"


def _scaf(key: str, sid: str, algorithm: str, convex: bool, **extra: str) -> Declares:
    measure = "rounds_to_gap" if convex else "rounds_to_grad"
    return Declares(key, sid, f"{key}: {algorithm}, uniform S of N, rounds to eps (declared)", algorithm, "uniform",
                    CONVEX_FAMILIES if convex else SMOOTH_FAMILIES, measure, step="1/(L*K)",
                    axes=(*GENERIC, "step_frac", "eps"), reads={"beta": "L"},
                    fixed={"step_frac": 0.5, "sigma": 0.1, "eps": 0.1 if convex else 0.05, "R": 400},
                    assumed={"participation (iid)": UNIFORM, "A1 (G,B)-bounded gradient dissimilarity": A1,
                             "beta-smooth clients with unbiased gradients": SMOOTH, "step sizes from the appendix": STEPS,
                             **extra},
                    notes=("LHS: " + ("rounds until the running mean gap <= eps (by convexity >= the averaged "
                                      "iterate's)" if convex else "rounds until the mean ||grad f||^2 so far <= eps"),))


SCAF = [
    _scaf("SCAF.T1@convex", "SCAF.T1@convex", "fedavg", True),
    _scaf("SCAF.T1@nonconvex", "SCAF.T1@nonconvex", "fedavg", False),
    _scaf("SCAF.T3@convex", "SCAF.T3@convex", "scaffold", True),
    _scaf("SCAF.T3@nonconvex", "SCAF.T3@nonconvex", "scaffold", False),
    Declares("SCAF.T4@weakly-convex", "SCAF.T4@weakly-convex", "SCAF.T4@weakly-convex: SCAFFOLD, S = N, shared "
             "Hessian (delta = 0), rounds to eps (declared)", "scaffold", "full", ("quadratic",), "rounds_to_grad",
             step="1/(L*K)", axes=("M", "K", "R", "zeta", "sigma", "D0", "mu_frac", "step_frac", "eps"),
             reads={"beta": "L", "delta": "0"}, fixed={"step_frac": 0.5, "sigma": 0.1, "eps": 0.05, "R": 400},
             assumed={"participation (iid)": "met: S = N, every client every round",
                      "quadratic clients": "met by construction: the shared-Hessian quadratic family",
                      "A2 delta-bounded Hessian dissimilarity": "met with delta = 0: every client has the same Hessian",
                      "beta-smooth clients with unbiased gradients": SMOOTH, "step sizes from the appendix": STEPS},
             notes=("delta = 0 (shared Hessian): the engine's distinct-Hessian families declare no delta",)),
]

FAST = [
    Declares("FAST.C1", "FAST.C1", "FAST Cor 1: non-convex rate at the prescribed Theta step, q = 1 (declared)",
             "fast", "snapshot", SMOOTH_FAMILIES, "grad_sq_avg1", step="prescribed:eta_c",
             axes=(*GENERIC, "c"), fixed={"R": 800, "s_frac": 0.25},
             assumed={"snapshot probability q >= q_min(G1,G2,G3) at the prescribed eta_c": G_ASSUMED,
                      "participation (snapshot)": SNAPSHOT},
             notes=("q = 1 (m = n): the one q decidable without the appendix constants G1..G3",)),
    Declares("FAST.C2@printed", "FAST.C2@printed", "FAST Cor 2 as printed: R^-1/2 at the prescribed step, m = n, "
             "q = 1 (declared)", "fast", "snapshot", SMOOTH_FAMILIES, "grad_sq_avg1", step="prescribed:eta_c",
             axes=(*GENERIC, "c"), fixed={"R": 800, "s_frac": 0.25},
             assumed={"snapshot probability q >= q_min(G1,G2,G3) at the prescribed eta_c": G_ASSUMED,
                      "participation (snapshot)": SNAPSHOT},
             notes=("the printed LHS has no expectation: read as FAST.T1's (an average over runs)",)),
    Declares("FAST.C3", "FAST.C3.printed", "FAST Cor 3 as printed: strongly convex, m = n, q = 1 (declared)",
             "fast", "snapshot", STRONGLY_CONVEX, "dist_sq_final", step="Min(1/(20*m*L*K), log(R)/(mu*K*R))",
             axes=(*GENERIC, "step_frac"), fixed={"R": 400, "s_frac": 0.25},
             assumed={"participation (snapshot)": SNAPSHOT},
             notes=("step min(1/(20 m L K), ln R/(mu K R)) times step_frac: the cap, and the decaying step an O~(1/R) "
                    "rate needs (the corollary's choice, as FAST.C3@corrected's scenario)",)),
]

DFL = [
    Declares("DFL.T1", "DFL.T1", "Democratic FL Thm 1 at its synchronous special case (declared)", "fedavg",
             "uniform", SMOOTH_FAMILIES, "grad_sq_avg", step="1/I", axes=GENERIC,
             reads={"K": "S", "Q_max": "I", "Q_min": "I", "Gamma_max": "0"}, fixed={"K": 4},
             assumed={"participation (asynchronous)": "met at its synchronous special case: the engine's uniform law "
                                                      "selects K clients a round on the current model (staleness 0)"},
             notes=("eta_0 = 1/Q_min (the hypothesis's smallest step) used as the constant local step",
                    "synchronous special case (Gamma_max = 0): staleness is not simulated by the engine")),
]

SURVEY = [
    Declares("SURV.GENFEDAVG@table", "SURV.GENFEDAVG@table", "Generalized FedAvg, Table I form O(1/sqrt(nT)) "
             "(declared)", "fedavg", "uniform", ("quadratic",), "grad_sq_avg", step="1/sqrt(T)",
             axes=("M", "s_frac", "K", "R", "zeta", "sigma", "D0", "mu_frac"), reads={"n": "S"}, eta_g=2.0,
             fixed={"M": 20, "s_frac": 0.25, "R": 400},
             assumed={"participation (random)": UNIFORM, "non-IID data": "met: client optima differ (zeta > 0)",
                      "server step": "met by construction: server step eta_g = 2"},
             notes=("our reading of an unnamed measure: (1/T) sum_r E||grad f(x_r)||^2 at eta = 1/sqrt(T)",)),
]

# Amplified SCAFFOLD: Theorem 1 at its decoded caps (c1 = c2 = 1/60, gamma = 1); the rows and corollaries, which state
# no step, at a fraction of 1/(L K)
CAP = "p_min/(60*L*I*P)"
ASCAF_AXES = ("K", "R", "zeta", "sigma", "D0", "mu_frac", "step_frac", "eps")
LOST = {"condition (1): N max_i E[w^i] <= c_w": "taken as met: c_w is lost in the source",
        "condition (2): E[(1/N) sum_i (v^i)^2 lambda^i] <= c_v rho^2": "taken as met: lambda, c_v are lost"}


def _ascaf(key: str, sid: str, algorithm: str, law: str, measure: str = "rounds_to_grad_eps2", step: str = "1/(L*K)",
           local: str = "", **fixed: float) -> Declares:
    axes = tuple(a for a in ASCAF_AXES if not (local and a == "K")) + (("M", "s_frac") if law == "uniform" else ())
    return Declares(key, sid, f"{key}: {algorithm}, {law} participation (declared)", algorithm, law, SMOOTH_FAMILIES,
                    measure, step=step, axes=axes, local=local,
                    fixed={"M": 8, "s_frac": 0.5, "eps": 0.5, "R": 1000, "step_frac": 0.5, **fixed},
                    notes=(f"LHS: {measure.replace('_', ' ')}; the run stops at R (never reached reads R + 1)",
                           "local step at a fraction of 1/(L K), gamma = 1: the rows state no step; Theorem 1's caps "
                           "(ASCAF.T1@caps) would need R in the 10^4s to reach eps"))


ASCAF = [
    Declares("ASCAF.T1@caps", "ASCAF.T1@caps", "Amplified SCAFFOLD Thm 1 with the caps' constants as inputs "
             "(declared)", "amplified_scaffold", "regularized", SMOOTH_FAMILIES, "window_grad", step=CAP,
             axes=("K", "R", "zeta", "sigma", "D0", "mu_frac", "step_frac"), reads={"c1": str(1 / 60),
                                                                                    "c2": str(1 / 60), "Nw": "1"},
             fixed={"M": 8, "R": 150}, assumed=LOST,
             notes=("c1 = c2 = 1/60 (decoded); Nw = 1 under regularized participation (ASCAF.DEF.W)",)),
    _ascaf("ASCAF.C1", "ASCAF.C1", "amplified_scaffold", "regularized", local="prescribed:I"),
    _ascaf("ASCAF.RC", "ASCAF.RC", "amplified_scaffold", "regularized", local="prescribed:I"),
    _ascaf("ASCAF.LS", "ASCAF.LS.steps", "amplified_scaffold", "regularized", measure="steps_to_grad_eps2"),
    _ascaf("ASCAF.P.REG", "ASCAF.P.REG", "amplified_scaffold", "regularized", local="prescribed:I"),
    _ascaf("ASCAF.P.CYC", "ASCAF.P.CYC", "amplified_scaffold", "cyclic", local="prescribed:I"),
    _ascaf("ASCAF.P.CYC@pmin-exact", "ASCAF.P.CYC@pmin-exact", "amplified_scaffold", "cyclic", local="prescribed:I"),
    _ascaf("ASCAF.TAB1.IID.FEDAVG", "ASCAF.TAB1.IID.FEDAVG", "fedavg", "uniform"),
    _ascaf("ASCAF.TAB1.IID.SCAFFOLD", "ASCAF.TAB1.IID.SCAFFOLD", "scaffold", "uniform"),
    _ascaf("ASCAF.TAB1.IID.AFEDAVG", "ASCAF.TAB1.IID.AFEDAVG", "amplified_fedavg", "uniform"),
    _ascaf("ASCAF.TAB1.IID.ASCAF", "ASCAF.TAB1.IID.ASCAF", "amplified_scaffold", "uniform"),
    _ascaf("ASCAF.TAB1.REG.AFEDAVG", "ASCAF.TAB1.REG.AFEDAVG", "amplified_fedavg", "regularized"),
    _ascaf("ASCAF.TAB1.REG.ASCAF", "ASCAF.TAB1.REG.ASCAF", "amplified_scaffold", "regularized"),
    _ascaf("ASCAF.TAB1.CYC.AFEDAVG", "ASCAF.TAB1.CYC.AFEDAVG", "amplified_fedavg", "cyclic"),
]

DECLARATIONS = [*FAST, *SCAF, *DFL, *SURVEY, *ASCAF]
SCENARIOS = register(DECLARATIONS)

#: results that bound no measured quantity a scenario could search, or whose algorithm the engine lacks: key -> why
WITHOUT_SCENARIO = {
    "F3AST.E3@p2": "a definition: names the sampling objective H(r) = sum p_k^2/r_k; nothing is measured (its use "
                   "is checked through Lemma III.4 eq. (7) and Lemma B.5's exact sampling variance)",
    "F3AST.E3@p": "a definition: names the sampling objective H(r) = sum p_k/r_k; nothing is measured (its use is "
                  "checked through Lemma III.4 eq. (6))",
    "SURV.FEDEF": "the engine has no biased compression with error feedback (Fed-EF's algorithm)",
    "SURV.GRADMA": "the engine has no GradMA (memory-augmented gradient correction)",
    "SURV.FEDAMD": "the engine has no anchor/miner sampling with a probability sequence p_t (FedAMD's law)",
    "FAST.R2": "a threshold on q written in G1, G2, G3, constants the sources lost: no instance evaluates it; it is "
               "FAST.T1's q-hypothesis rewritten (the two forms agree symbolically, a test checks it), and FAST.T1's "
               "scenarios take q = 1, which meets every threshold <= 1",
    "F3AST.LB.2@operative": "a one-round recursion from a given E||w_t - w*||^2 = D whose V1 needs the per-client "
                            "gradient bound G over the round: the engine records neither per-client gradients nor a "
                            "state to restart a round from",
    "F3AST.LB.2@printed": "as F3AST.LB.2@operative (printed contraction 1 - eta^2 mu)",
    "F3AST.LB.3": "bounds E<v_i, v_j> of two clients' round updates: the engine records no per-client update",
}
