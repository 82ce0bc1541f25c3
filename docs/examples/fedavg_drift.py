"""A user's bound with client drift: FedAvg (local GD/SGD) on quadratics with distinct client Hessians, all M clients.

Run:  convbound --plugin docs/examples/fedavg_drift.py falsify USER.FEDAVG-DRIFT --space   (or --budget 100)
**Setting**: F_i(x) = 1/2 (x - b_i)^T A_i (x - b_i), mu I <= A_i <= L I, F = mean_i F_i, x* = argmin F, Abar = mean_i A_i
(smallest eigenvalue mu_F); each round all M clients run K steps y <- y - eta (A_i (y - b_i) + xi) from the server
model (E xi = 0, E||xi||^2 = sigma^2, independent), which averages them. **Statement** (eta <= 1/L, mu <= mu_F <= L):
    E||x_R - x*||^2 <= (A_R + B_R)^2 + (1 - kappa^(2R))/(1 - kappa^2) K eta^2 sigma^2 / M,  A_R = kappa^R sqrt(D0),
    B_R = (1 - kappa^R)/(1 - kappa) min((phi(mu) - phi(L))/2, K(K-1)/2 eta^2 delta_A) zeta_bar,
kappa = w (1 - eta mu)^K + (1 - w)(1 - eta L)^K, w = (L - mu_F)/(L - mu) (0 when mu = L), phi(a) = (1 - (1 - eta a)^K)/a,
zeta_bar = mean_i ||grad F_i(x*)||, delta_A = max_i ||A_i - Abar||, D0 = ||x0 - x*||^2. Terms: optimisation A_R^2,
drift B_R^2, cross 2 A_R B_R, noise (they add). (phi(mu) - phi(L) <= K(K-1)/2 eta^2 (L - mu): the eta^2 K^2 drift.)
**Proof** (ours). B_i = I - eta A_i, e = x - x*, g_i = grad F_i(x*) = A_i (x* - b_i), so sum_i g_i = 0.
(1) y_K - x* = B_i^K e + (I - B_i^K)(b_i - x*) - eta sum_k B_i^(K-1-k) xi_k, so e+ = Bbar e + d + n, Bbar = mean_i
    B_i^K, d = -mean_i phi(A_i) g_i (phi(A) = (I - B^K) A^-1), n = -(eta/M) sum_{i,k} B_i^(K-1-k) xi_{i,k}.
(2) eta <= 1/L puts B_i's eigenvalues in [beta, rho], beta = 1 - eta L >= 0, rho = 1 - eta mu. b^K is convex, so
    there it lies below its chord l(b) = beta^K + (rho^K - beta^K)(b - beta)/(rho - beta), affine increasing:
    0 <= B_i^K <= l(B_i), 0 <= Bbar <= l(I - eta Abar), whose top eigenvalue is l(1 - eta mu_F) = kappa: ||Bbar|| <= kappa.
(3) As sum_i g_i = 0, d = -(1/M) sum_i (phi(A_i) - C) g_i for any fixed C. phi(a) = eta sum_{k<K} (1 - eta a)^k
    decreases on [mu, L]: C = (phi(mu) + phi(L))/2 I gives ||phi(A_i) - C|| <= (phi(mu) - phi(L))/2 (x^k - y^k <= k (x - y)
    on [0, 1] gives the eta^2 K^2 form); C = phi(Abar), Y = I - eta Abar, B_i^k - Y^k = sum_{j<k} B_i^j (B_i - Y) Y^(k-1-j)
    give ||phi(A_i) - C|| <= eta sum_{k<K} k eta delta_A. So ||d|| <= delta := the smaller, times zeta_bar.
(4) n has mean 0, is independent of e, E||n||^2 = (eta^2/M^2) sum_{i,k} E||B_i^k xi||^2 <= K eta^2 sigma^2 / M.
(5) m_r = E e_r, C_r = Cov e_r (C_0 = 0): m_{r+1} = Bbar m_r + d gives ||m_R|| <= A_R + B_R; C_{r+1} = Bbar C_r Bbar +
    Cov n with tr(Bbar C Bbar) <= kappa^2 tr C bounds tr C_R by the noise term; E||e_R||^2 = ||m_R||^2 + tr C_R. QED.
Tight on two clients with swapped spectra (tests/plugins/test_drift_bound.py); scored exactly (``at_round``).
"""
from functools import partial

import numpy as np
from sympy import Float, Max, Min, exp, sqrt
from sympy.codegen.cfunctions import expm1, log1p

from bounds import Domain, Hypothesis, Kind, Provenance, Result, SymbolInfo, Term, sym
from verify.scenario import Instance, Param, Scenario, at_round

L, mu, mu_F, eta, D0 = (sym(s, Domain.POSITIVE) for s in ("L", "mu", "mu_F", "eta", "D0"))
sigma, zeta_bar, delta_A = (sym(s, Domain.NONNEGATIVE) for s in ("sigma", "zeta_bar", "delta_A"))
K, R, M = (sym(s, Domain.POSITIVE_INTEGER) for s in ("K", "R", "M"))


def one_minus_power(a):  # 1 - (1 - eta a)^K; expm1/log1p keep the digits of tiny eta a (the drift is a difference)
    return -expm1(K * log1p(-eta * a))


# step (2): q = 1 - kappa; w in [0, 1] (capped at 1 against rounding; 0 when mu = L, where both powers agree)
w = Min(1, (L - mu_F) / Max(L - mu, Float(1e-300)))
q = w * one_minus_power(mu) + (1 - w) * one_minus_power(L)
log_kappa = log1p(-q)
S_R = -expm1(R * log_kappa) / q                       # (1 - kappa^R)/(1 - kappa)
# step (3): the smaller of two bounds, both >= 0 (at K = 1 the first is a difference of roundings: the Max)
DELTA = Max(0, Min((one_minus_power(mu) / mu - one_minus_power(L) / L) / 2,
                   K * (K - 1) / 2 * eta**2 * delta_A)) * zeta_bar
A_R = exp(R * log_kappa) * sqrt(D0)                    # ||Bbar^R e_0|| <= A_R
B_R = S_R * DELTA                                      # ||sum_{j<R} Bbar^j d|| <= B_R
NOISE = -expm1(2 * R * log_kappa) / (q * (2 - q)) * K * eta**2 * sigma**2 / M  # step (4)-(5)


def drift_terms(drift_scale=1):
    """The RHS's named terms; ``drift_scale`` multiplies the drift's square (1: correct; tests/benchmarks/planted/)."""
    b = B_R * sqrt(drift_scale)
    return {"optimisation": A_R**2, "drift": b**2, "cross": 2 * A_R * b, "noise": NOISE}



TERMS, STEP_CAP = drift_terms(), 1  # STEP_CAP: eta <= STEP_CAP / L


def make_result(key: str = "USER.FEDAVG-DRIFT", terms: dict | None = None, step_cap: float = STEP_CAP,
                title: str = "FedAvg with client drift on quadratics with distinct client Hessians") -> Result:
    """The bound as a ``bounds.Result`` (``terms``/``step_cap`` replace the correct ones)."""
    terms = TERMS if terms is None else terms
    return Result(
        id=key, title=title, paper="a user's derivation (docs/examples/fedavg_drift.py)", kind=Kind.UPPER,
        lhs="E||x_R - x*||^2 after R rounds", lhs_latex=r"\mathbb{E}\|x_R - x_\star\|^2",
        terms=tuple(Term(name, expr) for name, expr in terms.items()),
        symbols=(SymbolInfo("L", "largest curvature of any client"), SymbolInfo("mu", "smallest curvature of any client"),
                 SymbolInfo("mu_F", "smallest eigenvalue of Abar"), SymbolInfo("eta", "local step", prefer="max"),
                 *(SymbolInfo(k, k, Domain.POSITIVE_INTEGER) for k in ("K", "R", "M")), SymbolInfo("D0", "||x0 - x*||^2"),
                 SymbolInfo("sigma", "noise std. dev.", Domain.NONNEGATIVE), SymbolInfo("zeta_bar", "mean_i ||grad F_i(x*)||",
                 Domain.NONNEGATIVE), SymbolInfo("delta_A", "max_i ||A_i - Abar||", Domain.NONNEGATIVE)),
        hypotheses=(Hypothesis("step eta <= cap/L", eta <= step_cap / L), Hypothesis("mu <= mu_F", mu <= mu_F),
                    Hypothesis("mu_F <= L", mu_F <= L)),
        provenance=Provenance("docs/examples/fedavg_drift.py (derived in its docstring)", "Statement"),
        example=(("L", 1), ("mu", 0.5), ("mu_F", 0.75), ("eta", 1), ("K", 2), ("R", 100), ("M", 2), ("sigma", 0),
                 ("zeta_bar", 1), ("delta_A", 0.25), ("D0", 1e-6)))


# cost caps of the exact evaluation (order ~ d^2 / 2, probe ~ K M d), not hypotheses; R: powers by squaring
M_CAP, K_CAP, D_CAP, R_MAX = 16, 64, 8, 10**6
COST = "at M = 16, K = 64, d = 8 one exact evaluation took 1-2 s (diagonal), 4-7 s (rotated) on 2 shared cores"


def space(step_cap: float = STEP_CAP) -> tuple[Param, ...]:
    from verify.scenarios.families import CURVATURE, FAMILY_AXES

    mix = next(p for p in FAMILY_AXES if p.name == "mix")
    dim = ("both sides are quadratic in (sqrt(D0), zeta/L, sigma): only ratios matter, so each spans 4 decades "
           "(D0 8), letting any one exceed the others by 1e4")
    return (
        Param("problem", default="quadratic-diagonal", choices=CURVATURE, doc="distinct client Hessians (drift)",
              source="the engine's families with mu I <= A_i <= L I per client (verify.scenarios.families)"),
        Param("M", 2, M_CAP, 4, integer=True, log=True, end="cost", doc="clients, all taking part every round",
              source=f"2: the fewest with heterogeneity (zeta > 0 needs two clients); {M_CAP}: cost cap ({COST})"),
        Param("K", 1, K_CAP, 4, integer=True, log=True, doc="local steps", source=f"1: domain; {K_CAP}: cost cap ({COST})", end="cost"),
        Param("R", 1, R_MAX, 100, integer=True, log=True, doc="rounds", source="1: domain; 1e6: issue 19's horizon"),
        Param("eta_frac", 1e-4, 1.0, 0.5, log=True, doc=f"step as a fraction of the hypothesis's cap {step_cap:g}/L",
              source="the hypothesis eta <= cap/L; 1e-4 of the cap stands for 'small'"),
        Param("d", 1, D_CAP, 4, integer=True, log=True, doc="dimension (d = 1: one curvature, no drift)",
              source=f"1: the domain; {D_CAP}: cost cap ({COST}; moment order 1 + d + d(d+1)/2)", end="cost"),
        Param("mu_frac", 1e-4, 1.0, 0.5, log=True, doc="mu / L of the spectrum linspace(mu, L, d)",
              source="(0, 1] by 0 < mu <= L; 1e-4 stands for 'near 0'"),
        mix,
        Param("D0", 1e-8, 1.0, 1.0, log=True, doc="||x0 - x*||^2", source=dim + "; 1e-8 stands for 0"),
        Param("zeta", 1e-4, 1.0, 0.1, log=True, doc="largest ||grad F_i(x*)|| (L = 1)",
              source=dim + "; 1e-4 stands for 0 (no heterogeneity)"),
        Param("sigma", 1e-4, 1.0, 0.1, log=True, doc="noise std. dev.", source=dim + "; 1e-4 stands for 0"),
        Param("draw", 0, 999, 0, integer=True, doc="seed of the problem's random draw", source="any seed"),
    )


def build(point, step_cap: float = STEP_CAP):
    from quadratics import fedavg, uniform
    from verify.scenarios.families import strongly_convex

    M_, K_, R_, d = int(point["M"]), int(point["K"]), int(point["R"]), int(point["d"])
    pb = strongly_convex(str(point["problem"]), point, L=1.0, mu=float(point["mu_frac"]), d=d, M=M_,
                         zeta=float(point["zeta"]), sigma=float(point["sigma"]), D0=float(point["D0"]))
    c = pb.constants
    step = float(point["eta_frac"]) * step_cap / c["L"]
    g = np.einsum("mde,me->md", pb.A, pb.x_star[None, :] - pb.b)  # grad F_i(x*), client by client
    values = dict(L=c["L"], mu=c["mu"], mu_F=c["mu_F"], eta=step, K=K_, R=R_, M=M_, sigma=c["sigma"],
                  zeta_bar=float(np.mean(np.linalg.norm(g, axis=1))), D0=c["D0"],
                  delta_A=float(np.max(np.abs(np.linalg.eigvalsh(pb.A - pb.A.mean(0))))))
    return Instance(problem=pb, algorithm=fedavg(eta=step, K=K_), pattern=uniform(M=M_, S=M_), rounds=R_,
                    values=values, measure=partial(at_round, metric="dist_sq", r=R_), curve="dist_sq",
                    describe={"problem": pb.describe(), "algorithm": f"FedAvg eta={step:.4g} K={K_}"})


def make_scenario(key: str = "USER.FEDAVG-DRIFT", step_cap: float = STEP_CAP) -> Scenario:
    return Scenario(key, key, f"{key}: FedAvg with client drift", space(step_cap), partial(build, step_cap=step_cap),
                    notes=("M, K and d are capped by the exact evaluation's cost, not by the bound",))


def results():
    return [make_result()]


def scenarios():
    return [make_scenario()]
