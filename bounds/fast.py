"""FAST (Federated Average with Snapshot), seed 000: Theorems 1-2, Corollaries 1-3, Remark 2.

Keys: FAST.T1, FAST.C1, FAST.C2 (default ``corrected``; ``FAST.C2@printed``), FAST.R2, FAST.T2 (and
``FAST.T2@corrected``), FAST.C3 (and ``FAST.C3@corrected``). FAST.TOY1 is data (:data:`TOY1`).

Setting: M clients with uniform weights, R rounds of K local SGD steps (client step eta_c); a round
is a snapshot round (uniform m of M) with probability q, otherwise an arbitrary round with n
clients chosen by any process. Notation: the paper's letters (zeta = F(x0) - F*, kappa =
||x0 - x*||^2 in Theorem 2).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import sympy as sp

from bounds.fast_pep import pep_rule  # noqa: F401 (FAST's worst-case coverage rules, read by bounds.registry.pep_rule)
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

SEED = "000_cd604f43d63aca60.txt"
PAPER = "FAST"
#: From the seed text's first lines (it states no venue or year).
CITATION = Citation("Zhe Li, Seyed Sina Nabavirazavi, Bicheng Ying, Sitharama Iyengar and Haibo Yang",
                    "FAST: A Lightweight Mechanism Unleashing Arbitrary Client Participation in Federated Learning",
                    "venue and year not stated in the seed text")

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


def snapshot(params: tuple[str, ...] = ("q", "m", "n")) -> tuple[ParticipationAssumption, ...]:
    """FAST's participation: snapshot rounds of uniform clients with probability q (Algorithm 1)."""
    who = "n = m" if "n" not in params else "n"
    return (ParticipationAssumption(
        "snapshot", params,
        f"independently each round, with probability q a snapshot round of m clients drawn uniformly without "
        f"replacement, otherwise {who} clients chosen by any process"),)


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
    Without G1..G3 the q-condition is unverified (never reported as holding): FAST.TOY1
    (:data:`TOY1`) is an instance where every checkable hypothesis holds and the bound is false, so
    the theorem can only be true if q_min(G1..G3) > 0.5 there.
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
            Hypothesis("step size cap 1/(8LK)", at_most(eta_c, 1 / (8 * L * K))),
            Hypothesis("step size cap (nq+m(1-q))/(5mnLK)", at_most(eta_c, D_mix / (5 * m * n * L * K))),
            Hypothesis("snapshot probability q >= q_min(G1,G2,G3)", at_least(q, q_min_expr()),
                       "G1..G3 are appendix constants not in the sources: unverified unless supplied",
                       floor_of=("q", 1.0)),
        ),
        symbols=(S_L, S_K, S_m, S_n, S_q, S_R, S_eta, S_sigma, S_sigma_G, S_zeta) + S_G,
        provenance=Provenance(SEED, "Theorem 1", "", "fast.md FAST.T1", CITATION),
        participation=snapshot(("q", "m", "n")),
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
            Hypothesis("step size cap 1/(20mLK)", at_most(eta_c, 1 / (20 * m * L * K))),
            Hypothesis("step size cap 1/(20nLK)", at_most(eta_c, 1 / (20 * n * L * K))),
            Hypothesis("snapshot probability threshold",
                       at_least(q, 1 - (mu * K * eta_c - 16 * L**2 * K**2 * eta_c**2) / (4 * sigma_G**2)),
                       "printed fraction is not dimensionless (spec typo #2)", floor_of=("q", 1.0)),
        ),
        symbols=(S_L, SymbolInfo("mu", "strong-convexity constant of every F_i (A4)"), S_K, S_m, S_n, S_q, S_R,
                 S_eta, S_sigma, S_sigma_G,
                 SymbolInfo("kappa", "initial squared distance ||x0 - x*||^2", Domain.NONNEGATIVE)),
        provenance=Provenance(SEED, "Theorem 2", "", "fast.md FAST.T2", CITATION),
        participation=snapshot(("q", "m", "n")),
        status=(Status.PUBLISHED, Status.FLAG) if not corrected else (Status.INFERRED, Status.FLAG),
        flags=("term (1-q)K eta_c/(2 mu) has units [x]^4/[F]^2 instead of [x]^2: a squared-gradient factor is missing",
               "q-threshold fraction is not dimensionless; with eta_c <= 1/(20mLK) it forces 1-q <= 1/(80 m sigma_G^2)"),
        reconstructed=corrected,
    )


# Corollaries 1-2: the Theta step size of Corollary 1 and the caps it must respect
c = sym("c")
S_c = SymbolInfo("c", "constant of the Theta step size eta_c = c sqrt(mn/(RK(nq+m(1-q)))) (not given; c=1 "
                 "reproduces the spec's inferred round condition)", Domain.POSITIVE, unrecovered=True)


def corollary1_step() -> sp.Expr:
    """Corollary 1's step size eta_c = c sqrt(mn / (R K (nq + m(1-q))))."""
    return c * sp.sqrt(m * n / (R * K * D_mix))


def corollary1_dominance_rounds() -> sp.Expr:
    """Rounds from which Corollary 1's first term dominates: R >= (mnK)^3 / (nq+m(1-q))^3 (stated in text)."""
    return (m * n * K) ** 3 / D_mix**3


def _d_mix_simplified(mm: sp.Expr, nn: sp.Expr) -> sp.Expr:
    """D = nq + m(1-q) at m = mm, n = nn, in the form ``sp.simplify`` gives (m = n: D = m, free of q).

    Written out rather than simplified when the results are built: ``sp.simplify`` costs about a
    second of start-up (it imports sympy.physics); tests/bounds/test_registry_index.py checks
    that both forms stay identical.
    """
    if mm == nn:
        return mm
    return nn * q - mm * (q - 1)


def _c1_hypotheses(mm: sp.Expr, nn: sp.Expr) -> tuple[Hypothesis, ...]:
    """Theorem 1's hypotheses with Corollary 1's step size substituted (m, n replaced by mm, nn)."""
    d = _d_mix_simplified(mm, nn)
    step = c * sp.sqrt(mm * nn / (R * K * d))
    same = mm == nn
    return (
        Hypothesis("prescribed eta_c within cap (nq+m(1-q))/(5mnLK): " +
                   ("R >= 25 c^2 m^3 L^2 K (n = m)" if same else "R >= 25 c^2 m^3 n^3 L^2 K / D^3"),
                   at_least(R, 25 * c**2 * mm**3 * nn**3 * L**2 * K / d**3),
                   "INFERRED (not stated): Theorem 1's cap with the Theta step size; c is the hidden constant"),
        Hypothesis("prescribed eta_c within cap 1/(8LK): " +
                   ("R >= 64 c^2 m L^2 K (n = m)" if same else "R >= 64 c^2 m n L^2 K / D"),
                   at_least(R, 64 * c**2 * mm * nn * L**2 * K / d),
                   "INFERRED (not stated): Theorem 1's other cap; it can bind only when min(m, n) = 1"),
        Hypothesis("snapshot probability q >= q_min(G1,G2,G3) at the prescribed eta_c",
                   at_least(q, q_min_expr().subs(eta_c, step)),
                   "Theorem 1's condition; G1..G3 (and c) are not in the sources: unverified unless supplied",
                   floor_of=("q", 1.0)),
    )


def corollary1() -> Result:
    """Non-convex rate of FAST with the tuned step size.

    **Setting**: Theorem 1's, with eta_c = Theta(sqrt(mn / (RK D))), D = nq + m(1-q).
    **Quantity**: (1/R) sum_{r=1..R} E||grad F(x_r)||^2.
    **Statement** (**order**, FAST Corollary 1): = O(sqrt(D/(nmKR))) + O(mnK/(D R)). The O hides
    zeta, L, sigma^2, sigma_G^2 and c. The first term dominates for R >= (mnK)^3/D^3
    (:func:`corollary1_dominance_rounds`). Hypotheses are Theorem 1's with the step size substituted
    (INFERRED form R >= 25 c^2 m^3 n^3 L^2 K / D^3 of the binding cap).
    """
    return Result(
        id="FAST.C1",
        title="Non-convex rate of FAST with the Theta step size",
        paper=PAPER,
        kind=Kind.ORDER,
        lhs="(1/R) sum_{r=1..R} E||grad F(x_r)||^2 (as in FAST.T1), with eta_c = c sqrt(mn/(RK(nq+m(1-q))))",
        lhs_latex=r"\frac{1}{R}\sum_{r=1}^{R}\mathbb{E}\|\nabla F(\mathbf{x}_r)\|^2",
        terms=(
            Term("optimization+statistical", sp.sqrt(D_mix / (n * m * K * R)), "leading R^{-1/2} term"),
            Term("heterogeneity", m * n * K / (D_mix * R), "client drift at the tuned step size"),
        ),
        hypotheses=_c1_hypotheses(m, n),
        symbols=(S_m, S_n, S_q, S_K, S_R, S_L, S_sigma_G, S_c) + S_G,
        provenance=Provenance(SEED, "Corollary 1", "", "fast.md FAST.C1", CITATION, rests_on=("FAST.T1",)),
        participation=snapshot(("q", "m", "n")),
        status=(Status.PUBLISHED, Status.INFERRED, Status.UNRECOVERED),
        flags=("round condition R >= 25 c^2 m^3 n^3 L^2 K / D^3 is INFERRED (the tuned step size meets Theorem 1's "
               "cap only then); the paper states only the dominance condition R >= (mnK)^3/D^3",
               "q-threshold needs G1..G3 (UNRECOVERED) and the hidden constant c"),
        rate=(("R", sp.Rational(-1, 2)),),
        prescribed=(("eta_c", corollary1_step()),),
        example=(("m", 10), ("n", 5), ("q", 0.5), ("K", 5), ("R", 1000), ("L", 1)),
        notes="dominance of the first term: R >= (mnK)^3/(nq+m(1-q))^3 (stated in the text, not a hypothesis)",
    )


def corollary2(corrected: bool = True) -> Result:
    """Non-convex rate of FAST when snapshot and arbitrary rounds have equally many clients (m = n).

    **Setting**: Corollary 1 with n = m, so D = m and q drops out of the rate.
    **Quantity**: (1/R) sum_{r=1..R} E||grad F(x_r)||^2 (printed without E).
    **Statement** (**order**, FAST Corollary 2, Eq. (2)): printed = O(sqrt(1/(mRK))); the
    ``corrected`` variant (default, spec typo #5) restores E and Corollary 1's second term O(mK/R);
    the printed form holds as stated only for R >= m^3 K^3.
    """
    terms: tuple[Term, ...] = (Term("optimization+statistical", sp.sqrt(1 / (m * R * K)), "leading R^{-1/2} term"),)
    if corrected:
        terms += (Term("heterogeneity", m * K / R, "Corollary 1's second term at n = m"),)
    return Result(
        id="FAST.C2",
        variant="corrected" if corrected else "printed",
        title="Non-convex rate of FAST for m = n" + (" (E and the O(mK/R) term restored)" if corrected else
                                                      " (as printed)"),
        paper=PAPER,
        kind=Kind.ORDER,
        lhs=("(1/R) sum_{r=1..R} E||grad F(x_r)||^2 (as in FAST.T1) with m = n" if corrected else
             "(1/R) sum_{r=1..R} ||grad F(x_r)||^2 as printed (no expectation; read as FAST.T1's LHS) with m = n"),
        lhs_latex=(r"\frac{1}{R}\sum_{r=1}^{R}\mathbb{E}\|\nabla F(\mathbf{x}_r)\|^2" if corrected else
                   r"\frac{1}{R}\sum_{r=1}^{R}\|\nabla F(\mathbf{x}_r)\|^2"),
        terms=terms,
        hypotheses=_c1_hypotheses(m, m),
        symbols=(S_m, S_q, S_K, S_R, S_L, S_sigma_G, S_c) + S_G,
        provenance=Provenance(SEED, "Corollary 2", "(2)", "fast.md FAST.C2; README typo #5", CITATION,
                              rests_on=("FAST.T1",)),
        participation=snapshot(("q", "m")),
        status=(Status.PUBLISHED, Status.FLAG, Status.INFERRED),
        flags=("printed statement drops the expectation and Corollary 1's second term O(mK/R); valid as printed only "
               "for R >= m^3 K^3",
               "round condition R >= 25 c^2 m^3 L^2 K is INFERRED from Theorem 1's cap"),
        reconstructed=corrected,
        rate=(("R", sp.Rational(-1, 2)),),
        prescribed=(("eta_c", c * sp.sqrt(m / (R * K))),),
        example=(("m", 10), ("K", 5), ("R", 10**6), ("L", 1)),
    )


# Remark 2: the q-threshold rewritten
def remark2() -> Result:
    """Theorem 1's snapshot-probability threshold in Remark 2's form.

    **Setting**: Theorem 1; G1..G3 are appendix constants the sources do not give (user inputs).
    **Quantity**: q_min, the smallest admissible snapshot probability.
    **Statement** (**threshold**, FAST Remark 2): q >= 1 / (1 + (G1 - 2LK eta_c G3) /
    (2K^2 sigma_G^2 + 2LK eta_c G2 - G2)), identical to Theorem 1's fraction. Stated limits:
    sigma_G -> 0 gives a non-positive threshold (q = 0 allowed) when G2 > 0 and Theorem 1's
    denominator at sigma_G = 0, G1 - G2 - 2LK eta_c (G3 - G2), is positive; sigma_G -> inf gives 1.
    """
    a = 2 * L * K * eta_c
    return Result(
        id="FAST.R2",
        title="Snapshot-probability threshold q_min (Remark 2)",
        paper=PAPER,
        kind=Kind.THRESHOLD,
        lhs="q: the probability that a round is a snapshot round must be at least this value",
        lhs_latex="q",
        terms=(Term("q_min", 1 / (1 + (G1 - a * G3) / (2 * K**2 * sigma_G**2 + a * G2 - G2)),
                    "threshold as a function of heterogeneity"),),
        hypotheses=(Hypothesis("step size cap 1/(8LK)", at_most(eta_c, 1 / (8 * L * K)), "Theorem 1's cap"),),
        symbols=(S_L, S_K, S_eta, S_sigma_G) + S_G,
        provenance=Provenance(SEED, "Remark 2", "", "fast.md FAST.R2", CITATION),
        status=(Status.PUBLISHED, Status.UNRECOVERED),
        flags=("G1..G3 are defined only in the missing appendix (UNRECOVERED): they must be supplied",),
        example=(("L", 1), ("K", 5), ("eta_c", 0.005), ("sigma_G", 0.5), ("G1", 10), ("G2", 1), ("G3", 1)),
    )


# Corollary 3
def corollary3(corrected: bool = False) -> Result:
    """Strongly convex rate of FAST for m = n.

    **Setting**: Theorem 2's with m = n.
    **Quantity**: E||x_R - x*||^2.
    **Statement** (**order**, FAST Corollary 3): = O~(e^{-mu R/(20mL)}) + O~((1-q)/(mu R))
    + O~(sigma_G^2/(mu R)) + O~(sigma^2/(mu m K R)) if mu > 0, eta_c <= 1/(20mLK) and R >= 20mL.
    The round condition compares a count with a quantity in units of L; the ``corrected`` variant
    uses R >= 20mL/mu (spec typo #3). The first term is the constant step 1/(20mLK), the others a
    decaying step; the (1-q) term inherits Theorem 2's missing squared-gradient factor (kept as printed).
    """
    mu = sym("mu")
    rounds = 20 * m * L / mu if corrected else 20 * m * L
    return Result(
        id="FAST.C3",
        variant="corrected" if corrected else "published",
        title="Strongly convex rate of FAST for m = n" + (" (round condition R >= 20mL/mu)" if corrected else ""),
        paper=PAPER,
        kind=Kind.ORDER,
        lhs="E||x_R - x*||^2 (as in FAST.T2) with m = n",
        lhs_latex=r"\mathbb{E}\|\mathbf{x}_R-\mathbf{x}^*\|^2",
        terms=(
            Term("contraction", sp.exp(-mu * R / (20 * m * L)), "constant step 1/(20mLK)"),
            Term("partial participation", (1 - q) / (mu * R), "arbitrary-round bias (factor missing as in T2)"),
            Term("heterogeneity", sigma_G**2 / (mu * R), "client drift"),
            Term("statistical", sigma**2 / (mu * m * K * R), "stochastic-gradient noise"),
        ),
        hypotheses=(
            Hypothesis("step size cap 1/(20mLK)", at_most(eta_c, 1 / (20 * m * L * K))),
            Hypothesis("rounds R >= 20mL/mu" if corrected else "rounds R >= 20mL (as printed)", at_least(R, rounds),
                       "condition-number form (INFERRED)" if corrected else "not unit-consistent (spec typo #3)"),
        ),
        symbols=(S_L, SymbolInfo("mu", "strong-convexity constant of every F_i (A4)"), S_K, S_m, S_q, S_R, S_eta,
                 S_sigma, S_sigma_G),
        provenance=Provenance(SEED, "Corollary 3", "", "fast.md FAST.C3; README typo #3", CITATION,
                              rests_on=("FAST.T2",)),
        participation=snapshot(("q", "m")),
        status=(Status.PUBLISHED, Status.FLAG) if not corrected else (Status.INFERRED, Status.FLAG),
        flags=("'R >= 20mL' compares a count with a quantity in units of L; probably R >= 20mL/mu",
               "mixes the constant step 1/(20mLK) (first term) with a decaying step (other terms)",
               "the (1-q) term inherits Theorem 2's missing squared-gradient factor"),
        reconstructed=corrected,
        rate=(("R", sp.Rational(-1)),),
        # the spec gives mu, m, L, R; the rest is taken from Theorem 2's worked example
        example=(("mu", 0.1), ("m", 10), ("L", 1), ("R", 1000), ("K", 5), ("q", 0.8), ("eta_c", 0.001),
                 ("sigma", 1), ("sigma_G", 0.01)),
    )


# FAST.TOY1: data for regression tests (INFERRED, computed in the spec)
TOY1 = {
    "values": {"L": 1.0, "K": 1, "m": 2, "n": 1, "q": 0.5, "sigma": 0.0, "sigma_G": 1.0, "zeta": 0.0},
    "limit": 0.25,  # (1-q)^2 sigma_G^2: the LHS limit, independent of eta_c
    "simulated": {0.01: (0.2494, 0.2504, 0.2515), 0.001: (0.2465, 0.2476, 0.2487)},  # R = 2e5, 3 seeds
}
"""FAST.TOY1: two scalar clients a = (+1, -1), ACP rounds always client 1; LHS -> 0.25 while
Theorem 1's printed RHS is 90 eta_c^2 with every checkable hypothesis holding."""


def builders() -> list[Callable[[], Result | list[Result]]]:
    """One function per result, in registration order (the registry builds only what is asked for)."""
    return [theorem1, corollary1, partial(corollary2, corrected=True), partial(corollary2, corrected=False),
            remark2, theorem2, partial(theorem2, corrected=True), corollary3, partial(corollary3, corrected=True)]


def results() -> list[Result]:
    return build_all(builders())
