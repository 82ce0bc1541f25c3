"""F3AST (adaptive sampling under intermittent availability), seed 001: eq. (3), Lemma III.4,
Theorem III.5, Lemmas B.2, B.3, B.5 and the Markov-chain burn-in of Theorem III.7.

Setting: N clients with data weights p (sum 1), a static selection policy with long-run
participation rates r in (0,1]^N, importance weights p_k/r_k, E local SGD steps per round, T rounds
with step sizes eta_(t,i). Notation: the paper's letters (G^2 bounds E||grad f_k||^2, Gamma =
F* - sum p_k F_k*, sigma_k^2 per-client gradient variance, alpha/C the mixing constants).

Keys: ``F3AST.E3@p2`` (default) / ``@p``; ``F3AST.L3.4@eq6`` (default) / ``@eq7`` / ``@eq6-printed``
/ ``@eq7-printed`` (printed 1/eta normalisation); ``F3AST.T3.5`` (eq. 8, O-form) / ``@explicit`` /
``@explicit-eq19``; ``F3AST.LB.2@operative`` / ``@printed``; ``F3AST.LB.3``; ``F3AST.LB.5``;
``F3AST.T3.7@corrected`` / ``@printed``. The letters, worked examples and per-client sums are in
:mod:`bounds.f3ast_notation`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import sympy as sp

from bounds.core.errors import UserInputError
from bounds.f3ast_notation import (
    A_P2,
    CITATION,
    D0,
    EX1,
    EX_T35,
    P2,
    PAPER,
    S_D0,
    S_E,
    S_G,
    S_L,
    S_T,
    SEED,
    UNCORRELATED,
    A_H_p,
    A_H_p2,
    A_V1c,
    E,
    G,
    Gamma,
    H_p,
    H_p2,
    L,
    S_eta,
    S_Gamma,
    S_mu,
    S_p,
    S_r,
    S_sigma2,
    S_var_s,
    T,
    V1c,
    _clients,
    _weights,
    eta,
    mu,
    static_rate,
    var_s,
)
from bounds.pep_cover import ConvexSetting, Cover, PepRule
from bounds.result import (
    Aggregate,
    Assumption,
    Hypothesis,
    Kind,
    Provenance,
    Result,
    Status,
    Term,
    build_all,
)
from bounds.symbols import Domain, SymbolInfo, sym


def h_of_r(variant: str = "p2") -> Result:
    """The sampling-variance surrogate H(r) that F3AST minimises over the rate region.

    **Quantity**: H(r) for weights p and rates r.
    **Statement** (**equality**, definition, F3AST eq. (3)): H(r) = sum_k p_k^2/r_k (uncorrelated or
    negatively correlated availability; variant ``p2``) or sum_k p_k/r_k (positively correlated;
    variant ``p``, always a valid looser choice).
    """
    squared = variant == "p2"
    agg = A_H_p2 if squared else A_H_p
    return Result(
        id="F3AST.E3",
        variant=variant,
        title="Sampling objective H(r) " + ("sum p_k^2/r_k (uncorrelated / negatively correlated availability)"
                                            if squared else "sum p_k/r_k (positively correlated availability)"),
        paper=PAPER,
        kind=Kind.EQUALITY,
        lhs="H(r)",
        lhs_latex=r"H(\mathbf r)",
        terms=(Term("H", sym(agg.name, Domain.NONNEGATIVE), agg.meaning),),
        symbols=(S_p, S_r),
        aggregates=(agg,),
        provenance=Provenance(SEED, "Section III, eq. (3)", "(3)", "f3ast.md F3AST.E3", paper=CITATION),
        flags=("eq. (3) gives two published choices: sum p_k^2/r_k (uncorrelated / negatively correlated "
               "availability) and sum p_k/r_k (positively correlated; always valid, looser)",),
        notes="Derived from (6)/(7) by dropping constants; decreasing and convex in each r_k.",
        example=EX1,
    )


def _l34_terms(eq: int) -> tuple[Term, ...]:
    if eq == 6:
        return (Term("sampling", 4 * E**2 * G**2 * (H_p - 1), "4 E^2 G^2 (sum_k p_k/r_k - 1)"),)
    return (Term("sampling", 4 * E**2 * G**2 * (H_p2 + P2), "4 E^2 G^2 (sum_k p_k^2/r_k + sum_k p_k^2)"),)


def lemma34(eq: int = 6, printed: bool = False) -> Result:
    """Client-sampling variance of the importance-weighted aggregate.

    **Setting**: A1-A4, r in the rate region, a static policy f^r achieving r.
    **Quantity**: sigma_t^2(f^r) = E_S||Delta^t - vbar^t||^2 / eta_(t,E)^2 (the printed main text
    normalises by 1/eta; variants ``eq6-printed``/``eq7-printed``).
    **Statement** (**upper**, F3AST Lemma III.4): (6) <= 4E^2G^2(sum p_k/r_k - 1); (7) some policy
    achieving r (the greedy one, uncorrelated/negatively correlated availability) has
    <= 4E^2G^2(sum p_k^2/r_k + sum p_k^2).
    """
    norm = "eta" if printed else "eta^2"
    flags = ["main text normalises by 1/eta_t, appendix (eq. 21) by 1/eta_t^2; only 1/eta^2 matches the E^2 G^2 "
             "right side (spec typo #12)" + ("; this variant keeps the printed 1/eta" if printed else "")]
    if eq == 6:
        flags.append("proof gap: the proof only yields 4E^2G^2 sum p_k/r_k (without -1); numerically not violated "
                     "(spec typo #13)")
    else:
        flags.append("proof drops off-diagonal terms assuming <v_i,v_j> >= 0 and replaces -sum p^2 by +sum p^2; "
                     "requires uncorrelated or negatively correlated availability (spec typo #14)")
    return Result(
        id="F3AST.L3.4",
        variant=f"eq{eq}" + ("-printed" if printed else ""),
        title=f"Client-sampling variance bound ({eq})" + (" with the printed 1/eta normalisation" if printed else ""),
        paper=PAPER,
        kind=Kind.UPPER,
        lhs=f"sigma_t^2(f^r) = E_S||Delta^t - vbar^t||^2 / {norm}: freeze the model and the client updates v_k, "
            "draw only the selection S from the static policy many times, average the squared distance between the "
            f"importance-weighted aggregate sum_(k in S) p_k/r_k v_k and sum_k p_k v_k, divide by {norm} "
            "(eta = eta_(t,E), the last local step)",
        lhs_latex=(r"\frac{1}{\eta_t}" if printed else r"\frac{1}{\eta_t^{2}}")
        + r"\mathbb{E}_{S_t}\|\Delta^t-\bar{\mathbf v}^t\|^2",
        terms=_l34_terms(eq),
        symbols=(S_E, S_G, S_p, S_r),
        aggregates=(A_H_p,) if eq == 6 else (A_H_p2, A_P2),
        provenance=Provenance(SEED, "Lemma III.4", f"({eq})", "f3ast.md F3AST.L3.4", paper=CITATION),
        participation=static_rate(),
        assumptions=(UNCORRELATED,) if eq == 7 else (),
        status=(Status.PUBLISHED, Status.FLAG) if printed else (Status.INFERRED, Status.FLAG),
        flags=tuple(flags),
        reconstructed=not printed,
        notes="(7) holds only for uncorrelated / negatively correlated availabilities; not checkable from p, r.",
        example=(("E", 1), ("G", 0.5)) + EX1,  # 4 E^2 G^2 = 1: the value is the bracketed factor (4/3, 5/3)
    )


def _gamma_prime():
    return sp.Max(8 * L / mu, E) - 1


# What Theorem III.5 prescribes about the algorithm (seed 001 lines 198, 408): conditions on the run, not numbers
SGD_CLIENTS = Assumption(
    "CLIENTOPT = SGD, SERVEROPT = w + Delta",
    "clients run E plain SGD steps and the server adds the importance-weighted aggregate: CLIENTOPT is SGD and "
    "SERVEROPT(w, Delta) = w + Delta (Theorem III.5)",
    "the optimisers are a property of the run, not an input: a simulation meets it when it runs F3AST with SGD "
    "clients and server step 1")
# The seed states the step condition strictly (line 444); with the proof's gamma' = max{8 kappa, E} - 1 (line 466)
# the first step is exactly 1/(4L) whenever 8L/mu >= E, so the proof's own choice meets it with equality.
STRICT_STEP_FLAG = ("the proof requires eta_(1,1) < min{1/mu, 1/(4L)} strictly (seed line 444; the spec writes <=); "
                    "with the proof's gamma' = max{8 kappa, E} - 1 (line 466) eta_(1,1) = 2/(mu max{8L/mu, E}) "
                    "= 1/(4L) exactly whenever 8L/mu >= E, so the explicit bound as derived admits only E > 8L/mu; "
                    "the statement's gamma = max{8L/mu, E} (no - 1) meets the condition strictly")


def _schedule(form: str) -> Assumption:
    """The step schedule the result is stated for: the statement's (order form) or the proof's (explicit)."""
    if form == "order":
        text = ("eta_t = 2/(mu (gamma + t)), gamma = max{8L/mu, E} (statement, seed line 198); the appendix "
                "indexes it per local step, eta_(t,i) = 2/(mu (gamma + tE + i)) (line 408)")
    else:
        text = "eta_(t,i) = beta/((t-1)E + i + gamma'), beta = 2/mu, gamma' = max{8L/mu, E} - 1 (proof, line 466)"
    return Assumption("step schedule", text, "the schedule is a property of the run, not an input: a simulation "
                      "meets it when it uses this schedule (verify's F3AST.T3.5 scenarios do)")


def _step_hypotheses(eta11: sp.Expr) -> tuple[Hypothesis, ...]:
    return (
        Hypothesis("L >= mu (an L-smooth, mu-strongly convex function)", sp.Ge(L, mu)),
        Hypothesis("first step eta_(1,1) < 1/mu (strict, seed line 444)", sp.Lt(eta11, 1 / mu)),
        Hypothesis("first step eta_(1,1) < 1/(4L) (strict, seed line 444)", sp.Lt(eta11, 1 / (4 * L))),
    )


def theorem35(form: str = "order") -> Result:
    """Strongly convex rate of F3AST with a static policy of rate r.

    **Setting**: A1-A4, static policy f^r, weights p_k/r_k with the true r, SGD client and server.
    Step: ``order``: the statement's eta_t = 2/(mu(gamma + t)), gamma = max{8L/mu, E}; ``explicit*``: the
    proof's eta_(t,i) = (2/mu) / ((t-1)E + i + gamma'), gamma' = max{8L/mu, E} - 1. Both are recorded as
    assumptions; the proof's side conditions eta_(1,1) < min{1/mu, 1/(4L)} (strict, as the seed states them)
    and eta_(t,1) <= 2 eta_(t,E) are hypotheses.
    **Quantity**: E F(w_T) - F* (final-iterate optimality gap).
    **Statement**: ``order`` (**order**, Theorem III.5 eq. (8)): O((D0 + sum p_k^2 sigma_k^2 + 6 Gamma
    + 8(E-1)^2 G^2 + sigma_T^2(f^r)) / (TE + gamma)), gamma = max{8L/mu, E}. ``explicit``
    (**upper**, from the proof, eqs. (17)-(19)): <= (L/2) v / (gamma' + TE),
    v = max{4 (Var1 + Var2)/mu^2, (gamma'+1) D0}, Var1 = sum p_k^2 sigma_k^2 + 6 L Gamma + 8(E-1)^2 G^2,
    Var2 = sigma_T^2(f^r). ``explicit-eq19``: the printed eq. (19), which drops L/2.
    """
    gp = _gamma_prime()
    gamma = sp.Max(8 * L / mu, E)
    if form == "order":  # the statement's first step is at most 2/(mu(gamma + 1)) (main text t >= 1; appendix tE + i)
        hyps = (*_step_hypotheses(2 / (mu * (gamma + 1))),
                Hypothesis("eta_(t,1) <= 2 eta_(t,E) (t = 1)", sp.Le(1 / (gamma + 1), 2 / (gamma + E))))
    else:
        hyps = (*_step_hypotheses(2 / (mu * (gp + 1))),
                Hypothesis("eta_(t,1) <= 2 eta_(t,E) (t = 1)", sp.Le(1 / (gp + 1), 2 / (E + gp))))
    common: dict[str, Any] = dict(
        id="F3AST.T3.5", paper=PAPER, hypotheses=hyps,
        lhs="E F(w_T) - F*: optimality gap of the final global model after T rounds, averaged over runs (selection "
            "and SGD randomness), under a static policy with known rate r and weights p_k/r_k",
        lhs_latex=r"\mathbb{E}[F(\bar{\mathbf w}^T)]-F^*",
        symbols=(S_L, S_mu, S_E, S_T, S_G, S_Gamma, S_D0, S_p, S_sigma2, S_var_s),
        aggregates=(A_V1c,),
        example=EX_T35,
        provenance=Provenance(SEED, "Theorem III.5", "(8)" if form == "order" else "(17)-(19)",
                              "f3ast.md F3AST.T3.5", paper=CITATION, rests_on=() if form != "order" else ("F3AST.T3.5@explicit",)),
        participation=static_rate(()),
        assumptions=(_schedule(form), SGD_CLIENTS),
    )
    flags = ("gamma = max{8L/mu, E} in the statement but max{8 kappa, E} - 1 in the proof; three step-size "
             "indexings (spec typo #15)",
             "Var1 has 6 L Gamma in Lemma B.2 but 6 Gamma in the theorem (spec typo #11)",
             STRICT_STEP_FLAG)
    if form == "order":
        den = T * E + sp.Max(8 * L / mu, E)
        return Result(
            **common, variant="published", kind=Kind.ORDER,
            title="Strongly convex convergence of F3AST (eq. 8)",
            terms=(
                Term("initial distance", D0 / den),
                Term("stochastic gradients", V1c / den, "sum_k p_k^2 sigma_k^2"),
                Term("objective gap", 6 * Gamma / den),
                Term("local drift", 8 * (E - 1) ** 2 * G**2 / den),
                Term("client sampling", var_s / den, "sigma_T^2(f^r)"),
            ),
            status=(Status.PUBLISHED, Status.FLAG), flags=flags,
            rate=(("T", sp.Rational(-1)),),
        )
    var1 = V1c + 6 * L * Gamma + 8 * (E - 1) ** 2 * G**2
    v = sp.Max(4 * (var1 + var_s) / mu**2, (gp + 1) * D0)
    eq19 = form == "explicit-eq19"
    scale = 1 if eq19 else L / 2
    return Result(
        **common, variant=form, kind=Kind.UPPER,
        title="F3AST explicit bound from the proof of Theorem III.5" + (" as printed in eq. (19) (L/2 dropped)"
                                                                         if eq19 else " (with L/2, 6 L Gamma)"),
        terms=(Term("distance bound", scale * v / (gp + T * E),
                    "(L/2) max{4(Var1+Var2)/mu^2, (gamma'+1) D0} / (gamma' + TE)"),),
        status=(Status.PUBLISHED, Status.FLAG) if eq19 else (Status.INFERRED, Status.FLAG),
        flags=flags + (("eq. (19) writes E F - F* <= (L/2) E||.||^2 <= v/(gamma+tE), silently dropping L/2",)
                       if eq19 else ()),
        reconstructed=not eq19,
        rate=(("T", sp.Rational(-1)),),
        notes="Var2 = var_s: bound it with F3AST.L3.4 (eq. 6: 4E^2G^2(sum p/r - 1)).",
    )


def lemma_b2(printed: bool = False) -> Result:
    """One-round recursion (Lemma B.2, from Li et al., full participation).

    **Quantity**: E||zbar^{t+1} - w*||^2 after one round.
    **Statement** (**upper**, F3AST Lemma B.2): <= (1 - eta mu) D + eta^2 Var1 (operative);
    the printed contraction is (1 - eta^2 mu) (variant ``printed``).
    """
    V1 = sym("V1", Domain.NONNEGATIVE)
    D = sym("D", Domain.NONNEGATIVE)
    contraction = (1 - eta**2 * mu) if printed else (1 - eta * mu)
    return Result(
        id="F3AST.LB.2",
        variant="printed" if printed else "operative",
        title="One-round recursion" + (" (printed (1 - eta^2 mu))" if printed else " (contraction 1 - eta mu)"),
        paper=PAPER,
        kind=Kind.UPPER,
        lhs="E||w_{t+1} - w*||^2 of the full-participation average after one round, given E||w_t - w*||^2 = D",
        lhs_latex=r"\mathbb{E}\|\bar{\mathbf w}^{t+1}-\mathbf w^*\|^2",
        terms=(Term("contraction", contraction * D), Term("variance", eta**2 * V1, "eta^2 Var1")),
        hypotheses=(Hypothesis("step eta <= 1/mu", sp.Le(eta, 1 / mu), "side condition of Theorem III.5"),),
        symbols=(S_eta, S_mu, SymbolInfo("D", "E||w_t - w*||^2 before the round", Domain.NONNEGATIVE),
                 SymbolInfo("V1", "Var1 = sum p_k^2 sigma_k^2 + 6 L Gamma + 8(E-1)^2 G^2", Domain.NONNEGATIVE)),
        provenance=Provenance(SEED, "Lemma B.2", "", "f3ast.md F3AST.LB.2", paper=CITATION),
        status=(Status.PUBLISHED, Status.FLAG) if printed else (Status.INFERRED, Status.FLAG),
        flags=("printed contraction (1 - eta^2 mu) does not support the induction; the proof of Theorem III.5 and "
               "the cited source use (1 - eta mu) (spec typo #10)",),
        reconstructed=not printed,
        example=(("eta", 0.0625), ("mu", 1), ("D", 1.0), ("V1", 130.9)),
    )


def lemma_b3() -> Result:
    """Update inner products (Lemma B.3).

    **Statement** (**upper**): E<v_i, v_j> <= 4 E^2 G^2 eta_(t,E)^2 for all clients i, j.
    """
    return Result(
        id="F3AST.LB.3",
        title="Inner products of local updates",
        paper=PAPER,
        kind=Kind.UPPER,
        lhs="E<v_i^t, v_j^t>: inner product of two clients' round updates (w_(t,E) - w_t), averaged over SGD noise",
        lhs_latex=r"\mathbb{E}\langle\mathbf v_i^t,\mathbf v_j^t\rangle",
        terms=(Term("update size", 4 * E**2 * G**2 * eta**2),),
        symbols=(S_E, S_G, S_eta),
        provenance=Provenance(SEED, "Lemma B.3", "", "f3ast.md F3AST.LB.3", paper=CITATION),
        example=(("E", 5), ("G", 1.0), ("eta", 0.0625)),
    )


def _tr_yy_sigma(p, r, v, Sigma):
    _clients(p, r)
    _weights(p)
    n = p.shape[-1]
    if v.ndim == 1 and n == 1:
        v = v[..., None, :]
    if v.ndim < 2 or v.shape[-2] != n or Sigma.ndim < 2 or Sigma.shape[-2:] != (n, n):
        raise UserInputError(f"v must be an N x d matrix (one row per client) and Sigma N x N with N={n}; got "
                             f"v {v.shape}, Sigma {Sigma.shape} (rows separated by ';', e.g. Sigma=1,0;0,1)")
    w = p / r
    gram = np.einsum("...id,...jd->...ij", v, v)
    return np.einsum("...i,...j,...ij,...ij->...", w, w, gram, Sigma)


def lemma_b1() -> Result:
    """Unbiased update (Lemma B.1).

    **Setting**: Assumption 1, an achievable rate r, a static policy f^r achieving it, fixed client
    updates v_k; Delta = sum_{k in S} (p_k / r_k) v_k, vbar = sum_k p_k v_k.
    **Statement** (**equality**, F3AST Lemma B.1): E_S[Delta] = vbar, since Pr(k in S) = r_k; measured
    per coordinate as E_S[Delta] - vbar = 0.
    """
    return Result(
        id="F3AST.LB.1",
        title="Unbiased aggregate: E_S[Delta] = vbar with weights p_k / r_k at the policy's true rates",
        paper=PAPER,
        kind=Kind.EQUALITY,
        lhs="E_S[Delta - vbar] for fixed client updates v_k (one coordinate): the importance-weighted aggregate "
            "sum_(k in S) p_k/r_k v_k over draws of the selection S, minus the full average sum_k p_k v_k",
        lhs_latex=r"\mathbb{E}_S[\Delta^{t+1}]-\bar{\mathbf v}^{t+1}",
        terms=(Term("bias", sp.Integer(0), "0: the aggregate is unbiased"),),
        symbols=(S_p, S_r),
        provenance=Provenance(SEED, "Lemma B.1", "", "f3ast.md F3AST.LB.1", paper=CITATION),
        participation=static_rate(),
        example=EX1,
    )


def lemma_b5() -> Result:
    """Exact client-sampling variance (Lemma B.5).

    **Statement** (**equality**): sigma^2 = E||Delta - vbar||^2 / eta^2 = Tr(Y Y^T Sigma) / eta^2 with
    Y's row k = (p_k/r_k) v_k and Sigma the covariance of the selection indicator vector X.
    """
    trs = sym("trYYS", Domain.REAL)
    return Result(
        id="F3AST.LB.5",
        title="Exact client-sampling variance Tr(Y Y^T Sigma) / eta^2",
        paper=PAPER,
        kind=Kind.EQUALITY,
        lhs="E_S||Delta - vbar||^2 / eta^2 for fixed client updates v_k: importance-weighted aggregate over the "
            "selection S versus the full average, over many draws of S from the static policy",
        lhs_latex=r"\frac{1}{\eta_{(t,E)}^{2}}\mathbb{E}\|\Delta^t-\bar{\mathbf v}^t\|^2",
        terms=(Term("variance", trs / eta**2, "Tr(Y Y^T Sigma) / eta^2"),),
        symbols=(S_p, S_r,
                 SymbolInfo("v", "client updates v_k as rows of an N x d matrix", Domain.MATRIX_REAL),
                 SymbolInfo("Sigma", "covariance of the selection indicators X (N x N)", Domain.MATRIX_PSD),
                 S_eta),
        aggregates=(Aggregate("trYYS", sp.Symbol(r"Tr(Y Y^T Sigma)"), ("p", "r", "v", "Sigma"), _tr_yy_sigma,
                              "sum_ij (p_i/r_i)(p_j/r_j) <v_i,v_j> Sigma_ij"),),
        provenance=Provenance(SEED, "Lemma B.5", "", "f3ast.md F3AST.LB.5", paper=CITATION),
        assumptions=(Assumption(
            "Sigma is the selection covariance at rates r",
            "Sigma is the covariance of the selection indicators X of one selection law whose mean is r",
            "the selection law is not an input (rate_region.variance.selection_moments gives r and Sigma from it)"),),
        # EX1 policy "1 if available, else 2" at r*: orthonormal updates, its selection covariance
        example=EX1 + (("v", ((1.0, 0.0), (0.0, 1.0))), ("Sigma", ((15 / 64, -3 / 16), (-3 / 16, 1 / 4))),
                       ("eta", 1.0)),
    )


def theorem37(printed: bool = False) -> Result:
    """Burn-in of the availability Markov chain (Theorem III.7, cited textbook result).

    **Statement** (**threshold**): with max_C ||P^t(C,.) - pi||_TV <= C alpha^t, the distance is
    <= eps once t0 >= log(eps/C)/log(alpha) (printed: log(eps)/log(alpha), exact only for C = 1).
    """
    alpha = sym("alpha", Domain.OPEN_PROBABILITY)
    eps = sym("eps")
    C = sym("C")
    rhs = sp.log(eps) / sp.log(alpha) if printed else sp.log(eps / C) / sp.log(alpha)
    return Result(
        id="F3AST.T3.7",
        variant="printed" if printed else "corrected",
        title="Markov-chain burn-in t0" + (" as printed (log eps / log alpha)" if printed else ""),
        paper=PAPER,
        kind=Kind.THRESHOLD,
        lhs="t0: rounds after which the configuration chain is within eps of stationarity in total variation",
        lhs_latex=r"t_0",
        terms=(Term("burn-in", rhs),),
        hypotheses=(Hypothesis("geometric rate alpha < 1", sp.Lt(alpha, 1)),),
        symbols=(SymbolInfo("alpha", "geometric mixing rate", Domain.OPEN_PROBABILITY),
                 SymbolInfo("eps", "target total-variation distance"),
                 SymbolInfo("C", "mixing constant of the bound C alpha^t")),
        provenance=Provenance(SEED, "Theorem III.7", "", "f3ast.md F3AST.T3.7", paper=CITATION),
        assumptions=(Assumption(
            "configuration chain irreducible and aperiodic",
            "the configuration Markov chain is irreducible (Assumption 1) and aperiodic (implicit), and alpha, C "
            "are its mixing constants",
            "the chain is not an input; alpha and C must be derived from it"),),
        status=(Status.PUBLISHED, Status.FLAG) if printed else (Status.INFERRED, Status.FLAG),
        flags=("printed t0 >= log eps / log alpha omits the constant C; aperiodicity is implicit (spec typo #18)",),
        reconstructed=not printed,
        # alpha as text: sweeps scale numeric inputs and clip probabilities to 1, where log(alpha) = 0
        example=(("alpha", "0.9"), ("eps", 0.01)) + (() if printed else (("C", 1.0),)),
    )


def builders() -> list[Callable[[], Result | list[Result]]]:
    """One function per result, in registration order (the registry builds only what is asked for)."""
    return [
        partial(h_of_r, "p2"), partial(h_of_r, "p"),
        partial(lemma34, 6), partial(lemma34, 7), partial(lemma34, 6, printed=True), partial(lemma34, 7, printed=True),
        partial(theorem35, "order"), partial(theorem35, "explicit"), partial(theorem35, "explicit-eq19"),
        lemma_b2, partial(lemma_b2, printed=True),
        lemma_b3,
        lemma_b5,
        theorem37, partial(theorem37, printed=True),
        lemma_b1,
    ]


def results() -> list[Result]:
    return build_all(builders())


# Worst cases (verify.pep): Lemma B.2 (operative variant) is one full-participation FedAvg round; with E = K = 1 and
# sigma = 0 its V1 is 6 L Gamma, evaluated at Gamma = zeta^2/(2 mu), the supremum of Gamma over the PEP class (a
# comparison, not a per-instance check). Theorem 3.5 and Lemma B.2 need bounded stochastic gradients, which the PEP
# class (heterogeneity at x* only) does not bound; the others are identities, bounds on the sampling variance or
# thresholds, not trajectory worst cases.
def _lemma_b2_at(s: ConvexSetting) -> Cover:
    if s.method == "scaffold" or not s.full_every_round() or s.sigma > 0 or s.K != 1 or s.R != 1 \
            or s.measure != "dist_sq" or s.mu <= 0 or s.eta_g != 1.0:
        return Cover("no", "Lemma B.2 is one full-participation FedAvg round; compared only for K = R = 1, mu > 0, "
                           "dist_sq")
    gamma = s.zeta**2 / (2 * s.mu)
    return Cover("comparison", "one full-participation round with E = K = 1 and sigma = 0 makes V1 = 6 L Gamma; the "
                               "bound is evaluated at Gamma = zeta^2/(2 mu), the supremum of Gamma over the PEP class, "
                               "so it bounds every instance's own RHS from above: a comparison, not a per-instance "
                               "check", {"eta": s.eta, "mu": s.mu, "D": s.D0, "V1": 6 * s.L * gamma})


def pep_rule(key: str) -> PepRule | None:
    """F3AST's results at a worst-case setting (:mod:`bounds.pep_cover`; the comment above says why)."""
    if key == "F3AST.LB.2@operative":
        return PepRule(convex=_lemma_b2_at)
    if key.split("@")[0] in ("F3AST.T3.5", "F3AST.LB.2"):
        return PepRule(convex=Cover("no", "needs bounded stochastic gradients E||g||^2 <= G^2 and (T3.5) decreasing "
                                          "step sizes; the PEP class bounds heterogeneity only at x*, so G is "
                                          "unbounded over it"))
    if key.startswith("F3AST."):
        return PepRule(convex=Cover("no", "a sampling-variance identity/bound or burn-in threshold, not a trajectory "
                                          "worst case"))
    return None
