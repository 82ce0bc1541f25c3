"""SCAFFOLD (Karimireddy et al., ICML 2020): FedAvg with client sampling, its lower bound, SCAFFOLD's rates.

Source: not a seed. The spec (``scaffold.md``) decodes the paper's main text from a public OCR
transcription; the appendix (exact step sizes, the lower-bound construction) is not available, so
those parts are UNRECOVERED. No seed holds this paper's text, so the spec is what is followed here;
where the transcription is damaged the result carries a FLAG.

Keys: ``SCAF.T1@sc`` / ``@convex`` / ``@nonconvex`` (FedAvg with client sampling), ``SCAF.T2`` (FedAvg
lower bound), ``SCAF.T3@sc`` / ``@convex`` / ``@nonconvex`` (SCAFFOLD with client sampling),
``SCAF.T4@sc`` / ``@weakly-convex`` (SCAFFOLD on quadratics with delta-bounded Hessian dissimilarity).

Setting: N clients, S sampled uniformly without replacement each round, K local steps; beta is the
smoothness (L elsewhere), mu the strong convexity, sigma^2 the within-client gradient variance, (G, B)
the gradient dissimilarity of A1, delta the Hessian dissimilarity of A2.

**Epsilon convention** (spec, INFERRED "from the usual reading"): error < eps means the function gap
E f(x) - f* < eps in the strongly convex and convex cases and E||grad f(x)||^2 < eps in the non-convex
case. Amplified SCAFFOLD's eps bounds ||grad f||, not its square (see :mod:`bounds.conventions`).

**D**: the spec writes ``D := ||x0 - x*||^2`` but every convex term carries D^2 (sigma^2 D^2/(K S eps^2));
only D = ||x0 - x*|| (unsquared) makes those terms dimensionless, so D is encoded as the distance and the
clash is a flag. Every T1/T3/T4 result is a rounds count R (hidden constants and log factors), so each
term must be invariant under rescaling x -> c x and f -> d f; the terms that are not (as transcribed)
are flagged by name (tests/bounds/test_scaffold.py checks the scaling of every term).

**Worst cases** (:func:`pep_rule`): the non-convex PEP class of ``verify.pep`` bounds the dissimilarity at the
evaluated points only, so it contains the (G, B = 1) class: (1/N) sum ||grad f_i||^2 = ||grad f||^2 + (1/N) sum
||grad f_i - grad f||^2 <= zeta^2 + ||grad f||^2, so G = zeta, B = 1. Full participation is S = N = M.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import sympy as sp

from bounds.pep_cover import NO_RULE, NONCONVEX, WHY_AVG0, Cover, NonconvexSetting, PepRule
from bounds.result import (
    Assumption,
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

SOURCE = "SCAFFOLD, ICML 2020 (main text; not a seed)"
PAPER = "SCAFFOLD"
#: Not a seed: the citation the spec names (scaffold.md: SCAFFOLD, ICML 2020, main text).
CITATION = Citation("Sai Praneeth Karimireddy, Satyen Kale, Mehryar Mohri, Sashank J. Reddi, Sebastian U. Stich and "
                    "Ananda Theertha Suresh", "SCAFFOLD: Stochastic Controlled Averaging for Federated Learning",
                    "ICML 2020")

beta = sym("beta")
mu = sym("mu")
sigma = sym("sigma", Domain.NONNEGATIVE)
G = sym("G", Domain.NONNEGATIVE)
B = sym("B")
K = sym("K", Domain.POSITIVE_INTEGER)
S = sym("S", Domain.POSITIVE_INTEGER)
N = sym("N", Domain.POSITIVE_INTEGER)
R = sym("R", Domain.POSITIVE_INTEGER)
eps = sym("eps")
D = sym("D", Domain.NONNEGATIVE)
F = sym("F", Domain.NONNEGATIVE)
delta = sym("delta", Domain.NONNEGATIVE)

S_beta = SymbolInfo("beta", "smoothness constant of every f_i (L in the other papers)")
S_mu = SymbolInfo("mu", "strong convexity constant of f (A: mu-strongly convex case)")
S_sigma = SymbolInfo("sigma", "within-client stochastic-gradient std. dev. (variance sigma^2)", Domain.NONNEGATIVE,
                     squared_input=True)
S_G = SymbolInfo("G", "(G,B)-gradient dissimilarity, additive part (A1: (1/N) sum_i ||grad f_i||^2 <= G^2 + "
                      "B^2 ||grad f||^2)", Domain.NONNEGATIVE, squared_input=True)
S_B = SymbolInfo("B", "(G,B)-gradient dissimilarity, multiplicative part (A1), B >= 1", squared_input=True)
S_K = SymbolInfo("K", "local steps per round", Domain.POSITIVE_INTEGER)
S_S = SymbolInfo("S", "clients sampled uniformly without replacement each round", Domain.POSITIVE_INTEGER)
S_N = SymbolInfo("N", "number of clients", Domain.POSITIVE_INTEGER)
S_R = SymbolInfo("R", "communication rounds", Domain.POSITIVE_INTEGER)
S_eps_gap = SymbolInfo("eps", "target accuracy of the function gap: E f(x) - f* < eps")
S_eps_grad = SymbolInfo("eps", "target accuracy of the squared gradient norm: E||grad f(x)||^2 < eps (INFERRED)")
S_D = SymbolInfo("D", "initial distance ||x0 - x*|| (unsquared: see the module docstring)", Domain.NONNEGATIVE)
S_F = SymbolInfo("F", "initial gap f(x0) - f*", Domain.NONNEGATIVE)
S_delta = SymbolInfo("delta", "Hessian dissimilarity (A2: ||grad^2 f_i - grad^2 f|| <= delta)", Domain.NONNEGATIVE)

# One instance for every worked example (constant 1 in every O): beta = 1, mu = 0.1, N = 100, S = 10, K = 5.
EXAMPLE = {"beta": 1.0, "mu": 0.1, "sigma": 1.0, "G": 1.0, "B": 1.0, "K": 5, "S": 10, "N": 100, "eps": 0.01,
           "D": 1.0, "F": 1.0, "delta": 0.1, "R": 100}

UNIFORM = ("each round S of the N clients are sampled uniformly without replacement, independently across rounds "
           "(server step eta_g: x <- x + (eta_g/S) sum_{i in S} (y_i - x))")
FULL = "every client participates in every round (S = N)"
A1 = Assumption("A1 (G,B)-bounded gradient dissimilarity",
                "(1/N) sum_i ||grad f_i(x)||^2 <= G^2 + B^2 ||grad f(x)||^2 for all x (convex relaxation: "
                "<= G^2 + 2 beta B^2 (f(x) - f*))",
                "a sup over all x: not decided by the numeric inputs (for quadratics: compute it from the Hessians)")
A2 = Assumption("A2 delta-bounded Hessian dissimilarity",
                "||grad^2 f_i(x) - grad^2 f(x)|| <= delta for all x, each f_i delta-weakly convex",
                "the client Hessians are not inputs (for quadratics: the largest eigenvalue gap)")
QUADRATIC = Assumption("quadratic clients", "every f_i is a quadratic", "the objective is not an input")
SMOOTH = Assumption("beta-smooth clients with unbiased gradients",
                    "every f_i is beta-smooth; g_i(x) is unbiased with E||g_i(x) - grad f_i(x)||^2 <= sigma^2",
                    "the objective and the gradient oracle are not inputs")
STEP_SIZES = Assumption("step sizes from the appendix",
                        "local and server step sizes eta_l, eta_g chosen as in the paper's appendix",
                        "the appendix is not in the sources (UNRECOVERED): the rounds count assumes them")
LOGS = "O~: logarithmic factors hidden as well as constants"
EPS_INFERRED = ("what 'error < eps' measures is INFERRED from the usual reading (function gap in the (strongly) "
                "convex cases, E||grad f||^2 in the non-convex case)")

_FORMS = {
    "sc": ("strongly convex", "E f(x_R) - f* < eps (mu-strongly convex f)", S_eps_gap),
    "convex": ("general convex", "E f(x_bar_R) - f* < eps (convex f, averaged iterate)", S_eps_gap),
    "nonconvex": ("non-convex", "E||grad f(x_bar_R)||^2 < eps (x_bar_R a uniformly chosen iterate)", S_eps_grad),
    "weakly-convex": ("weakly convex", "E||grad f(x_bar_R)||^2 < eps (quadratic, delta-weakly convex f_i)", S_eps_grad),
}


def _prov(locator: str, spec_id: str) -> Provenance:
    return Provenance(SOURCE, locator, "", f"scaffold.md {spec_id}", CITATION)


def _uniform(params: tuple[str, ...] = ("S", "N"), statement: str = UNIFORM) -> tuple[ParticipationAssumption, ...]:
    return (ParticipationAssumption("iid", params, statement),)


def _rounds(rid: str, form: str, title: str, terms: tuple[Term, ...], symbols: tuple[SymbolInfo, ...],
            locator: str, status: tuple[Status, ...], flags: tuple[str, ...], rate: tuple[tuple[str, sp.Rational], ...],
            participation: tuple[ParticipationAssumption, ...], assumptions: tuple[Assumption, ...],
            hypotheses: tuple[Hypothesis, ...] = (), notes: str = "") -> Result:
    """A rounds-to-accuracy result (``form``: its convexity case) with the fields every such result shares.

    Thirteen parameters, why: each is a field of the Result built (a constructor in all but name); the
    helper fills the case, the target, eps and the examples from ``form``.
    """
    case, target, eps_info = _FORMS[form]
    used = {s.name for t in terms for s in t.expr.free_symbols} | {s.name for h in hypotheses
                                                                   for s in h.relation.free_symbols}
    symbols = tuple(s for s in (*symbols, eps_info) if s.name in used)
    return Result(
        id=rid, variant=form, title=f"{title} ({case})", paper=PAPER, kind=Kind.ORDER,
        lhs=f"R: communication rounds after which {target}; hidden constants"
            + (" and log factors" if form == "sc" else ""),
        lhs_latex=r"R",
        terms=terms, hypotheses=hypotheses, symbols=symbols,
        provenance=_prov(locator, rid),
        participation=participation, assumptions=(*assumptions, STEP_SIZES),
        status=(*status, Status.UNRECOVERED), flags=flags, rate=rate,
        notes="; ".join(x for x in (notes, LOGS if form == "sc" else "") if x),
        example=tuple((s.name, EXAMPLE[s.name]) for s in symbols),
    )


def fedavg_sampling(form: str) -> Result:
    """FedAvg with client sampling (**order**, SCAFFOLD Theorem I, spec SCAF.T1).

    **Setting**: A1, beta-smooth f_i, S of N clients uniformly per round, K local steps, step sizes
    from the appendix (UNRECOVERED).
    **Statement** (rounds R to error < eps):
    strongly convex: sigma^2/(mu K S eps) + (1 - S/N) G^2/(mu S eps) + sqrt(beta) G/(mu sqrt(eps)) + B^2 beta/mu;
    convex: sigma^2 D^2/(K S eps^2) + (1 - S/N) G^2 D^2/(S eps^2) + sqrt(beta) G/eps^(3/2) + B^2 beta D^2/eps;
    non-convex: beta sigma^2 F/(K S eps^2) + (1 - S/N) G^2 F/(S eps^2) + sqrt(beta) G/eps^(3/2) + B^2 beta F/eps.
    """
    samp = 1 - S / N
    terms: tuple[Term, ...]
    flags: tuple[str, ...]
    status: tuple[Status, ...]
    if form == "sc":
        terms = (Term("statistical", sigma**2 / (mu * K * S * eps), "within-client noise"),
                 Term("sampling", samp * G**2 / (mu * S * eps), "client sampling x heterogeneity"),
                 Term("drift", sp.sqrt(beta) * G / (mu * sp.sqrt(eps)), "client drift"),
                 Term("deterministic", B**2 * beta / mu, "condition number"))
        rate = (("eps", sp.Rational(-1)),)
        flags = (EPS_INFERRED,)
        status = (Status.PUBLISHED, Status.INFERRED)
    elif form == "convex":
        terms = (Term("statistical", sigma**2 * D**2 / (K * S * eps**2), "within-client noise"),
                 Term("sampling", samp * G**2 * D**2 / (S * eps**2), "client sampling x heterogeneity"),
                 Term("drift", sp.sqrt(beta) * G / eps**sp.Rational(3, 2), "client drift (as transcribed)"),
                 Term("deterministic", B**2 * beta * D**2 / eps, "smooth convex rate"))
        rate = (("eps", sp.Rational(-2)),)
        flags = (EPS_INFERRED,
                 "the drift term sqrt(beta) G/eps^(3/2) is transcribed with no D factor: it is not dimensionless "
                 "(a factor with the units of D^2 is missing); encoded as transcribed",
                 "spec defines D := ||x0 - x*||^2 but the terms use D^2; encoded with D = ||x0 - x*|| (the reading "
                 "that makes the other three terms dimensionless)")
        status = (Status.PUBLISHED, Status.FLAG, Status.INFERRED)
    else:
        terms = (Term("statistical", beta * sigma**2 * F / (K * S * eps**2), "within-client noise"),
                 Term("sampling", samp * G**2 * F / (S * eps**2), "client sampling x heterogeneity"),
                 Term("drift", sp.sqrt(beta) * G / eps**sp.Rational(3, 2), "client drift (as transcribed)"),
                 Term("deterministic", B**2 * beta * F / eps, "smooth non-convex rate"))
        rate = (("eps", sp.Rational(-2)),)
        flags = (EPS_INFERRED,
                 "the drift term sqrt(beta) G/eps^(3/2) is transcribed with no F factor: it is not dimensionless; "
                 "encoded as transcribed",
                 "the sampling term (1 - S/N) G^2 F/(S eps^2) is not dimensionless with eps on ||grad f||^2 "
                 "(a factor with the units of beta is missing, e.g. beta = 1 in the paper's normalisation)")
        status = (Status.PUBLISHED, Status.FLAG, Status.INFERRED)
    return _rounds(
        "SCAF.T1", form, "FedAvg with client sampling", terms,
        (S_beta, S_mu, S_sigma, S_G, S_B, S_K, S_S, S_N, S_D, S_F), "Theorem I (FedAvg)", status, flags, rate,
        _uniform(), (A1, SMOOTH),
        hypotheses=(Hypothesis("sampled clients S <= N", at_most(S, N)),),
        notes="Table 2 shorthand (beta = 1): M^2/(mu S K eps) + G/(mu sqrt(eps)) + B^2/mu with "
              "M^2 := sigma^2 + K (1 - S/N) G^2" if form == "sc" else "")


def fedavg_lower_bound() -> Result:
    """FedAvg lower bound (**lower**, SCAFFOLD Theorem II, spec SCAF.T2).

    **Statement**: for any G, mu > 0 there are mu-strongly convex f_i satisfying A1 with
    f(x^R) - f* >= Omega(G^2/(mu R^2)) for FedAvg with K >= 2, sigma = 0 and S = N, for any step sizes.
    The construction is in the appendix (UNRECOVERED); :mod:`verify.scenarios.scaffold` checks the
    bound on a construction of its own.
    """
    return Result(
        id="SCAF.T2", title="Lower bound for FedAvg: f(x^R) - f* >= Omega(G^2/(mu R^2))", paper=PAPER, kind=Kind.LOWER,
        lhs="f(x^R) - f*: function gap of FedAvg's global model after R rounds (sigma = 0, deterministic) on the "
            "worst instance of the class; Omega: a constant is hidden",
        lhs_latex=r"f(\mathbf{x}^R) - f^\star",
        terms=(Term("drift floor", G**2 / (mu * R**2), "client drift that local steps cannot avoid"),),
        hypotheses=(Hypothesis("local steps K >= 2", at_least(K, 2)),
                    Hypothesis("no gradient noise: sigma <= 0", at_most(sigma, 0)),
                    Hypothesis("full participation: S >= N", at_least(S, N))),
        symbols=(S_G, S_mu, S_R, S_K, S_sigma, S_S, S_N),
        provenance=_prov("Theorem II (lower bound)", "SCAF.T2"),
        participation=_uniform(("S", "N"), FULL),
        assumptions=(A1, Assumption("the worst instance", "the bound holds for SOME mu-strongly convex f_i satisfying "
                                    "A1 (an existence statement), not for every instance",
                                    "the construction is in the appendix (UNRECOVERED)")),
        status=(Status.PUBLISHED, Status.UNRECOVERED),
        flags=("the construction and the hidden constant are in the appendix (UNRECOVERED)",),
        rate=(("R", sp.Rational(-2)),),
        notes="an existence statement: it says FedAvg's error can be this large on some instance, not that it is on "
              "every instance",
        example=(("G", 1.0), ("mu", 0.1), ("R", 100), ("K", 5), ("sigma", 0.0), ("S", 100), ("N", 100)),
    )


def scaffold_sampling(form: str) -> Result:
    """SCAFFOLD with client sampling (**order**, SCAFFOLD Theorem III, spec SCAF.T3): beta-smoothness only,
    no dissimilarity assumption.

    **Statement**: strongly convex: sigma^2/(mu K S eps) + beta/mu + N/S (O~); convex: sigma^2 D^2/(K S eps^2)
    + beta D^2/eps + N F/S (O~); non-convex: beta sigma^2 F/(K S eps^2) + (N/S)^(2/3) beta F/eps.
    """
    terms: tuple[Term, ...]
    flags: tuple[str, ...]
    status: tuple[Status, ...]
    if form == "sc":
        terms = (Term("statistical", sigma**2 / (mu * K * S * eps), "within-client noise"),
                 Term("deterministic", beta / mu, "condition number"),
                 Term("sampling", N / S, "rounds to visit every client"))
        rate = (("eps", sp.Rational(-1)),)
        flags = (EPS_INFERRED,)
        status = (Status.PUBLISHED, Status.INFERRED)
    elif form == "convex":
        terms = (Term("statistical", sigma**2 * D**2 / (K * S * eps**2), "within-client noise"),
                 Term("deterministic", beta * D**2 / eps, "smooth convex rate"),
                 Term("sampling", N * F / S, "rounds to visit every client (as transcribed, with F)"))
        rate = (("eps", sp.Rational(-2)),)
        flags = (EPS_INFERRED,
                 "the text mixes D and F: the sampling term N F/S carries the function gap F while the others carry "
                 "D; N F/S is not dimensionless (a rounds count must be); encoded as transcribed",
                 "spec defines D := ||x0 - x*||^2 but the terms use D^2; encoded with D = ||x0 - x*||")
        status = (Status.PUBLISHED, Status.FLAG, Status.INFERRED)
    else:
        terms = (Term("statistical", beta * sigma**2 * F / (K * S * eps**2), "within-client noise"),
                 Term("sampling", (N / S) ** sp.Rational(2, 3) * beta * F / eps, "client sampling"))
        rate = (("eps", sp.Rational(-2)),)
        flags = (EPS_INFERRED,)
        status = (Status.PUBLISHED, Status.INFERRED)
    return _rounds(
        "SCAF.T3", form, "SCAFFOLD with client sampling", terms,
        (S_beta, S_mu, S_sigma, S_K, S_S, S_N, S_D, S_F), "Theorem III (SCAFFOLD)", status, flags, rate,
        _uniform(), (SMOOTH,),
        hypotheses=(Hypothesis("sampled clients S <= N", at_most(S, N)),),
        notes="no gradient-dissimilarity assumption: the rate does not depend on G or B")


def scaffold_quadratic(form: str) -> Result:
    """SCAFFOLD on quadratics with delta-bounded Hessian dissimilarity (**order**, SCAFFOLD Theorem IV,
    spec SCAF.T4), S = N and eta_g = 1.

    **Statement**: strongly convex: beta sigma^2/(mu K N eps) + (beta + delta K)/(mu K) (O~); weakly convex:
    beta sigma^2 F/(K N eps^2) + (beta + delta K) F/(K eps). With sigma = 0 the text's best K is beta/delta.
    """
    terms: tuple[Term, ...]
    flags: tuple[str, ...]
    status: tuple[Status, ...]
    if form == "sc":
        terms = (Term("statistical", beta * sigma**2 / (mu * K * N * eps), "within-client noise"),
                 Term("similarity", (beta + delta * K) / (mu * K), "local steps help while delta K < beta"))
        rate = (("eps", sp.Rational(-1)),)
        flags = (EPS_INFERRED,
                                  "the statistical term beta sigma^2/(mu K N eps) is not dimensionless as "
                                  "transcribed (compare SCAF.T3's sigma^2/(mu K S eps)); encoded as transcribed")
        status = (Status.PUBLISHED, Status.FLAG, Status.INFERRED)
    else:
        terms = (Term("statistical", beta * sigma**2 * F / (K * N * eps**2), "within-client noise"),
                 Term("similarity", (beta + delta * K) * F / (K * eps), "local steps help while delta K < beta"))
        rate = (("eps", sp.Rational(-2)),)
        flags = (EPS_INFERRED,)
        status = (Status.PUBLISHED, Status.INFERRED)
    return _rounds(
        "SCAF.T4", form, "SCAFFOLD on quadratics with Hessian dissimilarity", terms,
        (S_beta, S_mu, S_sigma, S_K, S_N, S_delta, S_F, S_S), "Theorem IV (quadratics)", status, flags, rate,
        _uniform(("S", "N"), FULL + "; server step eta_g = 1"), (QUADRATIC, A2, SMOOTH),
        hypotheses=(Hypothesis("full participation: S >= N", at_least(S, N)),),
        notes="with sigma = 0 the best number of local steps is K = beta/delta (text)")


def builders() -> list[Callable[[], Result | list[Result]]]:
    """One function per result, in registration order."""
    return [
        partial(fedavg_sampling, "sc"), partial(fedavg_sampling, "convex"), partial(fedavg_sampling, "nonconvex"),
        fedavg_lower_bound,
        partial(scaffold_sampling, "sc"), partial(scaffold_sampling, "convex"), partial(scaffold_sampling, "nonconvex"),
        partial(scaffold_quadratic, "sc"), partial(scaffold_quadratic, "weakly-convex"),
    ]


def results() -> list[Result]:
    return build_all(builders())


def _scaffold_values(s: NonconvexSetting) -> dict[str, float]:
    """The (G, B = 1) inputs of a non-convex worst case with full participation (module doc)."""
    return {"beta": s.L, "sigma": s.sigma, "G": s.zeta, "B": 1.0, "K": s.K, "S": s.M, "N": s.M, "F": s.Delta}


def _fedavg_at(s: NonconvexSetting) -> Cover:
    """Theorem 1 (non-convex): FedAvg, server step 1, a uniformly chosen iterate, full participation."""
    fedavg = s.method == "local_gd" and s.measure == "avg_grad_sq0" and s.full()
    vals = _scaffold_values(s) if fedavg and s.eta_g == 1.0 else None
    return Cover("order" if vals else "no", "FedAvg (local_gd, server step 1) with G = zeta, B = 1 (module doc)"
                 if fedavg else "SCAFFOLD paper's FedAvg theorem: " + WHY_AVG0, vals)


def _scaffold_at(s: NonconvexSetting) -> Cover:
    """Theorem 3 (non-convex): SCAFFOLD (option II control variates), a uniformly chosen iterate, S = N = M."""
    if s.method == "scaffold" and s.measure == "avg_grad_sq0" and s.full():
        vals = {k: v for k, v in _scaffold_values(s).items() if k not in ("G", "B")}
        return Cover("order", "SCAFFOLD (option II control variates) with S = N = M", vals)
    return Cover("no", "SCAFFOLD's theorem: method scaffold, " + WHY_AVG0)


def pep_rule(key: str) -> PepRule | None:
    """SCAFFOLD's results at a worst-case setting (:mod:`bounds.pep_cover`): the non-convex theorems are compared by
    the non-convex worst case; the others have no rule that relates them to deterministic local methods."""
    if key == "SCAF.T1@nonconvex":
        return PepRule(convex=Cover("no", NONCONVEX), nonconvex=_fedavg_at)
    if key == "SCAF.T3@nonconvex":
        return PepRule(convex=Cover("no", NONCONVEX), nonconvex=_scaffold_at)
    return PepRule(convex=Cover("no", NO_RULE)) if key.startswith("SCAF.") else None
