"""A user's own bound with its scenario: FedAvg (local SGD) on a shared-Hessian quadratic, m of M clients.

Run:  convbound --plugin docs/examples/fedavg_local_sgd.py check USER.FEDAVG eta=0.1 K=4 R=50 m=2 M=8 \\
          L=1 mu=0.5 sigma=1 zeta2=1 D0=1
      convbound --plugin docs/examples/fedavg_local_sgd.py falsify USER.FEDAVG --budget 100
      convbound --plugin docs/examples/fedavg_local_sgd.py falsify USER.FEDAVG --space

**Setting**: F_i(x) = 1/2 (x - b_i)^T A (x - b_i) with mu I <= A <= L I (one A for every client),
x* = mean_i b_i; each round m of the M clients are drawn uniformly without replacement, each runs K
local SGD steps y <- y - eta (A (y - b_i) + xi) from the server model (E xi = 0, E||xi||^2 = sigma^2,
independent), and the server averages their models.
**Statement** (for eta <= 1/L, 1 <= m <= M, M >= 2):
    E||x_R - x*||^2 <= rho^(2KR) D0 + S_R (K eta^2 sigma^2 / m + K^2 eta^2 zeta2 (M - m) / (m (M - 1))),
rho = 1 - eta mu, S_R = (1 - rho^(2KR)) / (1 - rho^(2K)), zeta2 = (1/M) sum_i ||grad F_i(x*)||^2.
**Proof** (ours, three lines): with B = I - eta A, one round gives
x+ - x* = B^K (x - x*) + (I - B^K)(mean_{i in S} b_i - x*) - (eta/m) sum_{i in S} sum_k B^(K-1-k) xi_{i,k};
the last two summands have mean zero given x and are independent of it and of each other, so
E||x+ - x*||^2 = E||B^K (x - x*)||^2 + E||(I - B^K) v_S||^2 + (eta^2/m) sum_k E||B^k xi||^2. Then
||B|| <= rho (eta <= 1/L), 0 <= I - B^K <= K eta A (Bernoulli, entrywise on A's eigenvalues), A v_S is
the mean over S of -grad F_i(x*) whose variance without replacement is zeta2 (M - m)/(m (M - 1)),
and ||B^k xi||^2 <= ||xi||^2; unrolling the recursion e+ <= rho^(2K) e + c over R rounds gives S_R.
The test ``tests/plugins/test_user_scenario.py`` checks it against the engine at fixed points.

The scenario's axes follow the hypotheses (see ``--space``): the step from 1e-4 of its cap 1/L up to
the cap, m from 1 to M, K and R on log scales; M, K, R and d are capped by what an exact evaluation
costs (said in each axis's doc). The measure is ``verify.scenario.at_round``, so the point is scored exactly
(no sampling error) wherever quadratics.exact covers it, as here.
"""
from functools import partial

import numpy as np

from bounds import Domain, Hypothesis, Kind, Provenance, Result, SymbolInfo, Term, sym
from verify.scenario import Instance, Param, Scenario, at_round

L, mu, eta, D0 = (sym(s, Domain.POSITIVE) for s in ("L", "mu", "eta", "D0"))
sigma, zeta2 = (sym(s, Domain.NONNEGATIVE) for s in ("sigma", "zeta2"))
K, R, m, M = (sym(s, Domain.POSITIVE_INTEGER) for s in ("K", "R", "m", "M"))
rho = 1 - eta * mu
S_R = (1 - rho ** (2 * K * R)) / (1 - rho ** (2 * K))

# the right side's named terms; the planted benchmark (tests/benchmarks/planted/) edits them one at a time
TERMS = {
    "optimisation": rho ** (2 * K * R) * D0,
    "noise": S_R * K * eta**2 * sigma**2 / m,
    "sampling": S_R * K**2 * eta**2 * zeta2 * (M - m) / (m * (M - 1)),
}
STEP_CAP = 1  # eta <= STEP_CAP / L


def make_result(key: str = "USER.FEDAVG", terms: dict | None = None, step_cap: float = STEP_CAP,
                title: str = "FedAvg on a shared-Hessian quadratic, m of M clients") -> Result:
    """The bound as a ``bounds.Result`` (``terms``/``step_cap`` replace the correct ones)."""
    terms = TERMS if terms is None else terms
    return Result(
        id=key, title=title, paper="a user's derivation (docs/examples/fedavg_local_sgd.py)", kind=Kind.UPPER,
        lhs="E||x_R - x*||^2 after R rounds", lhs_latex=r"\mathbb{E}\|x_R - x_\star\|^2",
        terms=tuple(Term(name, expr) for name, expr in terms.items()),
        symbols=(SymbolInfo("L", "largest curvature"), SymbolInfo("mu", "smallest curvature"),
                 SymbolInfo("eta", "local step", prefer="max"), SymbolInfo("K", "local steps", Domain.POSITIVE_INTEGER),
                 SymbolInfo("R", "rounds", Domain.POSITIVE_INTEGER),
                 SymbolInfo("m", "clients per round", Domain.POSITIVE_INTEGER),
                 SymbolInfo("M", "clients", Domain.POSITIVE_INTEGER),
                 SymbolInfo("sigma", "noise std. dev. (E||xi||^2 = sigma^2)", Domain.NONNEGATIVE),
                 SymbolInfo("zeta2", "mean_i ||grad F_i(x*)||^2", Domain.NONNEGATIVE),
                 SymbolInfo("D0", "||x0 - x*||^2")),
        hypotheses=(Hypothesis("step eta <= cap/L", eta <= step_cap / L), Hypothesis("mu <= L", mu <= L),
                    Hypothesis("m <= M", m <= M), Hypothesis("M >= 2", M >= 2)),
        provenance=Provenance("docs/examples/fedavg_local_sgd.py (derived in its docstring)", "Statement"),
        example=(("L", 1), ("mu", 0.5), ("eta", 0.1), ("K", 4), ("R", 50), ("m", 2), ("M", 8), ("sigma", 1),
                 ("zeta2", 1), ("D0", 1)))


# Cost caps, not hypotheses. The instance is scored exactly (quadratics/exact: shared-Hessian quadratic, FedAvg,
# uniform m of M; ``at_round`` below is a measure the exact path recognises), whose cost does not grow with R
# (repeated squaring) but does with M, d and K: 1.1 s a point at M = 16, d = 10, K = 64, R = 10^6 and 12 s at
# M = 256 on a 2-core machine. Were it simulated instead, a point would cost trials x R x K x M x d flops.
R_CAP, K_CAP, M_CAP, D_CAP = 10**6, 64, 16, 10


def space(step_cap: float = STEP_CAP) -> tuple[Param, ...]:
    """The instance space; every bound is the hypotheses' own unless it declares ``end="cost"`` (a cost cap)."""
    return (
        Param("M", 2, M_CAP, 4, integer=True, log=True, doc=f"clients: from the hypothesis M >= 2; {M_CAP}: cost cap of "
                                                             "the exact evaluation (it grows with M)", end="cost"),
        Param("m_frac", 0.0, 1.0, 0.5, doc="m = 1 + round(m_frac (M - 1)): 1 <= m <= M, the hypotheses' range"),
        Param("K", 1, K_CAP, 4, integer=True, log=True, doc=f"local steps: from 1 (domain); {K_CAP}: cost cap",
              end="cost"),
        Param("R", 1, R_CAP, 50, integer=True, log=True, doc=f"rounds: from 1 (domain); {R_CAP:.0e}: the longest horizon "
                                                             "asked of the exact evaluation (the bound has no cap)"),
        Param("eta_frac", 1e-4, 1.0, 0.5, log=True,
              doc=f"step as a fraction of the hypothesis's cap {step_cap:g}/L: 1e-4 of the cap up to the cap"),
        Param("d", 1, D_CAP, 2, integer=True, doc=f"dimension (d = 1: mu = L); {D_CAP}: cost cap", end="cost"),
        Param("mu_frac", 1e-3, 1.0, 0.5, log=True, doc="mu / L: (0, 1] by mu <= L; 1e-3 stands for 'near 0'"),
        Param("sigma", 1e-4, 10.0, 1.0, log=True, doc="noise std. dev. relative to sqrt(D0) = 1; 1e-4 stands for 0"),
        Param("zeta", 1e-4, 10.0, 1.0, log=True, doc="largest ||grad F_i(x*)|| relative to sqrt(D0) = 1; 1e-4: 0"),
        Param("draw", 0, 999, 0, integer=True, doc="seed of the problem's random directions and shifts"),
    )


def build(point, step_cap: float = STEP_CAP):
    """The instance at ``point``: the engine's shared-Hessian quadratic, FedAvg, uniform m of M."""
    from quadratics import fedavg, heterogeneous_quadratic, uniform

    M_, K_, R_, d = int(point["M"]), int(point["K"]), int(point["R"]), int(point["d"])
    m_ = 1 + int(round(float(point["m_frac"]) * (M_ - 1)))
    pb = heterogeneous_quadratic(L=1.0, mu=1.0 if d == 1 else float(point["mu_frac"]), d=d, M=M_,
                                 zeta=float(point["zeta"]), sigma=float(point["sigma"]), D0=1.0, seed=int(point["draw"]))
    c = pb.constants
    step = float(point["eta_frac"]) * step_cap / c["L"]
    zeta2_mean = float(np.mean(np.sum((pb.lam * (pb.b - pb.x_star)) ** 2, axis=1)))
    values = dict(L=c["L"], mu=c["mu"], eta=step, K=K_, R=R_, m=m_, M=M_, sigma=c["sigma"], zeta2=zeta2_mean,
                  D0=c["D0"])
    return Instance(problem=pb, algorithm=fedavg(eta=step, K=K_), pattern=uniform(M=M_, S=m_), rounds=R_,
                    values=values, measure=partial(at_round, metric="dist_sq", r=R_), curve="dist_sq",
                    describe={"problem": pb.describe(), "algorithm": f"FedAvg eta={step:.4g} K={K_}",
                              "pattern": f"uniform {m_} of {M_}"})


def make_scenario(key: str = "USER.FEDAVG", step_cap: float = STEP_CAP) -> Scenario:
    return Scenario(key, key, f"{key}: FedAvg on a shared-Hessian quadratic", space(step_cap),
                    partial(build, step_cap=step_cap),
                    notes=("M, K, R and d are capped by the exact evaluation's cost, not by the bound",))


def results():
    return [make_result()]


def scenarios():
    return [make_scenario()]
