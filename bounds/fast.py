"""FAST (Federated Average with Snapshot), seed 000: Theorems 1-2, Corollaries 1-3, Remark 2.

Setting: M clients with uniform weights, R rounds of K local SGD steps (client step eta_c); a round
is a snapshot round (uniform m of M) with probability q, otherwise an arbitrary round with n
clients chosen by any process. Notation: the paper's letters (zeta = F(x0) - F*, kappa =
||x0 - x*||^2 in Theorem 2).
"""

from __future__ import annotations

import sympy as sp

from bounds.result import Hypothesis, Kind, Provenance, Result, Status, Term
from bounds.symbols import Domain, SymbolInfo, sym

SEED = "000_cd604f43d63aca60.txt"
PAPER = "FAST"

L = sym("L")
K = sym("K", Domain.POSITIVE_INTEGER)
m = sym("m", Domain.POSITIVE_INTEGER)
n = sym("n", Domain.POSITIVE_INTEGER)
q = sym("q", Domain.PROBABILITY)
R = sym("R", Domain.POSITIVE_INTEGER)
eta_c = sym("eta_c")
sigma = sym("sigma", Domain.NONNEGATIVE)
sigma_G = sym("sigma_G", Domain.NONNEGATIVE)
zeta = sym("zeta", Domain.NONNEGATIVE)
G1, G2, G3 = (sym(f"G{i}", Domain.REAL) for i in (1, 2, 3))

S_L = SymbolInfo("L", "smoothness constant of F and every F_i (A1)")
S_K = SymbolInfo("K", "local SGD steps per round", Domain.POSITIVE_INTEGER)
S_m = SymbolInfo("m", "clients in a snapshot (uniform) round", Domain.POSITIVE_INTEGER)
S_n = SymbolInfo("n", "clients in an arbitrary (ACP) round", Domain.POSITIVE_INTEGER)
S_q = SymbolInfo("q", "probability that a round is a snapshot round", Domain.PROBABILITY, prefer="min")
S_R = SymbolInfo("R", "communication rounds", Domain.POSITIVE_INTEGER)
S_eta = SymbolInfo("eta_c", "client (local) step size", Domain.POSITIVE, prefer="max")
S_sigma = SymbolInfo("sigma", "std. dev. bound of stochastic gradients (A2: variance sigma^2)", Domain.NONNEGATIVE,
                     squared_input=True)
S_sigma_G = SymbolInfo("sigma_G", "gradient dissimilarity bound (A3: ||grad F_i - grad F||^2 <= sigma_G^2)",
                       Domain.NONNEGATIVE, squared_input=True)
S_zeta = SymbolInfo("zeta", "initial sub-optimality F(x0) - F(x*)", Domain.NONNEGATIVE)
S_G = tuple(SymbolInfo(f"G{i}", f"appendix constant G{i} of the q-threshold (not in the sources)", Domain.REAL,
                       unrecovered=True) for i in (1, 2, 3))

D_mix = n * q + m * (1 - q)  # nq + m(1-q); D/(mn) is the mean of 1/|S_r|


def q_min_expr() -> sp.Expr:
    """Theorem 1's q-threshold in terms of the appendix constants G1..G3."""
    a = 2 * L * K * eta_c - 1
    return (a * G2 + 2 * K**2 * sigma_G**2) / (G1 + a * G2 - 2 * L * K * eta_c * G3 + 2 * K**2 * sigma_G**2)


def theorem1() -> Result:
    """Non-convex rate of FAST under arbitrary participation with occasional snapshots.

    **Setting**: A1-A3 (smooth, bounded variance, bounded dissimilarity); snapshot probability q.
    **Quantity**: (1/R) sum_{r=1..R} E||grad F(x_r)||^2 (full gradient at the global iterate).
    **Statement** (**upper**, FAST Theorem 1): <= 4 zeta/(K R eta_c) + 4 (qn+(1-q)m) L eta_c sigma^2/(mn)
    + (120(1-q)+60q) L^2 K^2 eta_c^2 sigma_G^2, if eta_c <= min(1/(8LK), (nq+m(1-q))/(5mnLK)) and
    q >= q_min(G1, G2, G3).
    """
    return Result(
        id="FAST.T1",
        title="Non-convex convergence of FAST",
        paper=PAPER,
        kind=Kind.UPPER,
        lhs="(1/R) sum_{r=1..R} E||grad F(x_r)||^2: squared norm of the full global gradient at the global model "
            "after each round, averaged over rounds and over independent runs",
        lhs_latex=r"\frac{1}{R}\sum_{r=1}^{R}\mathbb{E}\|\nabla F(\mathbf{x}_r)\|^2",
        terms=(
            Term("optimization", 4 * zeta / (K * R * eta_c), "initial sub-optimality decay"),
            Term("statistical", 4 * D_mix * L * eta_c * sigma**2 / (m * n), "stochastic-gradient noise"),
            Term("heterogeneity", (120 * (1 - q) + 60 * q) * L**2 * K**2 * eta_c**2 * sigma_G**2,
                 "client drift from data heterogeneity"),
        ),
        hypotheses=(
            Hypothesis("step size cap 1/(8LK)", sp.Le(eta_c, 1 / (8 * L * K))),
            Hypothesis("step size cap (nq+m(1-q))/(5mnLK)", sp.Le(eta_c, D_mix / (5 * m * n * L * K))),
            Hypothesis("snapshot probability q >= q_min(G1,G2,G3)", sp.Ge(q, q_min_expr()),
                       "G1..G3 are appendix constants not in the sources: unverified unless supplied"),
        ),
        symbols=(S_L, S_K, S_m, S_n, S_q, S_R, S_eta, S_sigma, S_sigma_G, S_zeta) + S_G,
        provenance=Provenance(SEED, "Theorem 1", "", "fast.md FAST.T1"),
        status=(Status.PUBLISHED, Status.FLAG, Status.UNRECOVERED),
        flags=("q-threshold needs G1..G3 from the missing appendix (UNRECOVERED); FAST.TOY1 shows the bound is false "
               "unless this condition excludes it",
               "printed sum runs over r=1..R; proofs usually use r=0..R-1"),
        rate=(("R", sp.Rational(-1)),),
    )


def _t2_terms(corrected: bool) -> tuple[Term, ...]:
    kappa = sym("kappa", Domain.NONNEGATIVE)
    mu = sym("mu")
    snap = (1 - q) / (2 * mu) * K * eta_c * (sigma_G**2 if corrected else 1)
    return (
        Term("contraction", sp.exp(-mu * K * R * eta_c) * kappa, "initial distance, contracted"),
        Term("partial participation", snap, "arbitrary-round bias" + (" (with sigma_G^2)" if corrected else "")),
        Term("heterogeneity", 8 / mu * K * eta_c * sigma_G**2, "client drift"),
        Term("statistical", 2 * D_mix / (m * n * mu) * eta_c * sigma**2, "stochastic-gradient noise"),
    )


def theorem2(corrected: bool = False) -> Result:
    """Strongly convex rate of FAST.

    **Setting**: A1-A4 (each F_i mu-strongly convex).
    **Quantity**: E||x_R - x*||^2 (final global model).
    **Statement** (**upper**, FAST Theorem 2): <= e^{-mu K R eta_c} kappa + (1-q) K eta_c / (2 mu)
    + 8 K eta_c sigma_G^2 / mu + 2 (qn+(1-q)m) eta_c sigma^2 / (mn mu), if
    eta_c <= min(1/(20mLK), 1/(20nLK)) and q >= 1 - (mu K eta_c - 16 L^2 K^2 eta_c^2) / (4 sigma_G^2).
    The printed second term lacks a squared-gradient factor (unit mismatch); the ``corrected``
    variant multiplies it by sigma_G^2.
    """
    mu = sym("mu")
    return Result(
        id="FAST.T2",
        variant="corrected" if corrected else "published",
        title="Strongly convex convergence of FAST" + (" (sigma_G^2 restored in the (1-q) term)" if corrected else ""),
        paper=PAPER,
        kind=Kind.UPPER,
        lhs="E||x_R - x*||^2: squared distance of the final global model to the minimiser of F, averaged over runs",
        lhs_latex=r"\mathbb{E}\|\mathbf{x}_R-\mathbf{x}^*\|^2",
        terms=_t2_terms(corrected),
        hypotheses=(
            Hypothesis("step size cap 1/(20mLK)", sp.Le(eta_c, 1 / (20 * m * L * K))),
            Hypothesis("step size cap 1/(20nLK)", sp.Le(eta_c, 1 / (20 * n * L * K))),
            Hypothesis("snapshot probability threshold",
                       sp.Ge(q, 1 - (mu * K * eta_c - 16 * L**2 * K**2 * eta_c**2) / (4 * sigma_G**2)),
                       "printed fraction is not dimensionless (spec typo #2)"),
        ),
        symbols=(S_L, SymbolInfo("mu", "strong-convexity constant of every F_i (A4)"), S_K, S_m, S_n, S_q, S_R,
                 S_eta, S_sigma, S_sigma_G,
                 SymbolInfo("kappa", "initial squared distance ||x0 - x*||^2", Domain.NONNEGATIVE)),
        provenance=Provenance(SEED, "Theorem 2", "", "fast.md FAST.T2"),
        status=(Status.PUBLISHED, Status.FLAG) if not corrected else (Status.INFERRED, Status.FLAG),
        flags=("term (1-q)K eta_c/(2 mu) has units [x]^4/[F]^2 instead of [x]^2: a squared-gradient factor is missing",
               "q-threshold fraction is not dimensionless; with eta_c <= 1/(20mLK) it forces 1-q <= 1/(80 m sigma_G^2)"),
        reconstructed=corrected,
    )


def results() -> list[Result]:
    return [theorem1(), theorem2(), theorem2(corrected=True)]
