"""Amplified SCAFFOLD (periodic client participation), seed 004: Theorem 1, Corollary 1, the
reduced-communication / linear-speedup statements, per-pattern complexities and Table 1 rows.

Setting: N clients, R rounds of I local steps (step eta), participation weights q_r^i with window
P, weight spread rho^2 >= sum_i (q_r^i)^2 and minimum window participation probability p_min;
every P rounds the server amplifies the window's update by gamma. Target: E||grad f||^2 <= eps^2.
The seed lost almost every Greek letter: each result carries its spec confidence grade
(DECODED-H/M/L) and every reconstruction is flagged. Notation: Delta = f(x0) - inf f, kappa =
heterogeneity sup_x max_i ||grad f_i - grad f|| (baselines only), Kbar = number of groups.

Keys: ``ASCAF.T1`` (decoded caps with c1 = c2 = 1/60) / ``@caps`` (c1, c2 user-supplied);
``ASCAF.C1``; ``ASCAF.RC``; ``ASCAF.LS``; ``ASCAF.P.IID``; ``ASCAF.P.REG``; ``ASCAF.P.CYC``
(printed p_min = S/N) / ``@pmin-exact`` (p_min = S Kbar/N).
Table 1: one ID per row, ``ASCAF.TAB1.<SETTING>.<METHOD>`` with SETTING in IID, REG, CYC and METHOD
in FEDAVG, SCAFFOLD, AFEDAVG (Amplified FedAvg), ASCAF (Amplified SCAFFOLD); the R column is the
result's terms (UNRECOVERED factors flagged), the RI column and the marks "reduced communication"
and "unaffected by heterogeneity" are in ``notes`` (and :data:`TABLE1_MARKS`).

**Worst cases** (:func:`pep_rule`): with window P = 1 and full participation (q = 1/N, rho^2 = 1/N) Amplified
SCAFFOLD is SCAFFOLD (option II control variates, initialised at 0) with server step eta_g = gamma (spec
amplified_scaffold.md ASCAF.ALG1, lines 8, 12-19); its LHS averages x_0..x_{R-1} (ASCAF.XHAT), and the non-convex
PEP class of ``verify.pep`` (smoothness, F(x_0) - inf f <= Delta) contains its class.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import sympy as sp

from bounds.pep_cover import NONCONVEX, WHY_AVG0, Cover, NonconvexSetting, PepRule
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

SEED = "004_6701e408bce7fa6d.txt"
PAPER = "Amplified SCAFFOLD"
#: From the seed text's first lines (it states no venue or year).
CITATION = Citation("Michael Crawshaw and Mingrui Liu",
                    "Federated Learning under Periodic Client Participation and Heterogeneous Data: A New "
                    "Communication-Efficient Algorithm and Analysis", "venue and year not stated in the seed text")
STEP_CAP = sp.Rational(1, 60)  # decoded numerator constant of both step-size caps (grade L)

Delta = sym("Delta", Domain.NONNEGATIVE)
L = sym("L")
rho = sym("rho")
sigma = sym("sigma", Domain.NONNEGATIVE)
R = sym("R", Domain.POSITIVE_INTEGER)
I = sym("I", Domain.POSITIVE_INTEGER)
P = sym("P", Domain.POSITIVE_INTEGER)
gamma = sym("gamma")
eta = sym("eta")
p_min = sym("p_min", Domain.OPEN_PROBABILITY)
eps = sym("eps")
N = sym("N", Domain.POSITIVE_INTEGER)
S = sym("S", Domain.POSITIVE_INTEGER)
Kbar = sym("Kbar", Domain.POSITIVE_INTEGER)
kappa = sym("kappa", Domain.NONNEGATIVE)
c1, c2 = sym("c1"), sym("c2")
Nw, c_w, vlam, c_v = (sym(n, Domain.NONNEGATIVE) for n in ("Nw", "c_w", "vlam", "c_v"))

S_Delta = SymbolInfo("Delta", "initial gap f(x0) - inf f (A1a)", Domain.NONNEGATIVE)
S_L = SymbolInfo("L", "smoothness constant of every f_i (A1b)")
S_rho = SymbolInfo("rho", "weight spread: sum_i (q_r^i)^2 <= rho^2 (A2a); give rho2=... for rho^2", squared_input=True)
S_sigma = SymbolInfo("sigma", "stochastic-gradient std. dev. (A1c: variance sigma^2)", Domain.NONNEGATIVE,
                     squared_input=True)
S_R = SymbolInfo("R", "communication rounds", Domain.POSITIVE_INTEGER)
S_I = SymbolInfo("I", "local steps per round", Domain.POSITIVE_INTEGER)
S_P = SymbolInfo("P", "participation window (rounds per amplified update)", Domain.POSITIVE_INTEGER)
S_gamma = SymbolInfo("gamma", "amplification factor of the window update", prefer="max")
S_eta = SymbolInfo("eta", "local step size", prefer="max")
S_pmin = SymbolInfo("p_min", "minimum probability that a client participates in a window (A2c)",
                    Domain.OPEN_PROBABILITY)
S_eps = SymbolInfo("eps", "target accuracy: E||grad f||^2 <= eps^2")
S_N = SymbolInfo("N", "number of clients", Domain.POSITIVE_INTEGER)
S_S = SymbolInfo("S", "clients sampled per round", Domain.POSITIVE_INTEGER)
S_Kbar = SymbolInfo("Kbar", "number of client groups (cyclic participation; symbol lost in the seed)",
                    Domain.POSITIVE_INTEGER)
S_kappa = SymbolInfo("kappa", "data heterogeneity sup_x max_i ||grad f_i(x) - grad f(x)||", Domain.NONNEGATIVE)

# Worked examples of amplified_scaffold.md (bound arguments with constant 1)
EX_T1 = (("Delta", 1.0), ("L", 1.0), ("sigma", 1.0), ("rho", 0.1**0.5), ("R", 1000), ("I", 10), ("P", 5),
         ("p_min", 0.1), ("gamma", 2.0), ("eta", 1.5e-5))
EX_BASE = (("L", 1.0), ("Delta", 1.0), ("sigma", 1.0), ("eps", 0.1))

GRADES = "confidence grades from amplified_scaffold.md (the seed lost Greek letters and numerators)"
LHS_T1 = ("E||grad f(x_hat)||^2 with x_hat the post-amplification window-start iterate x_{mP}, m uniform on "
          "0..R/P-1: the exact full gradient's squared norm averaged over window starts (including x_0) and runs")


REGULARIZED = ("participation weights q_r^i sum to 1 with sum_i (q_r^i)^2 <= rho^2, the window average "
               "(1/P) sum_r q_r^i has mean 1/N, each client participates in each window of P rounds with "
               "probability >= p_min, independently of the gradient noise (Assumption 2)")


def regularized(params: tuple[str, ...] = ("P", "p_min", "rho")) -> tuple[ParticipationAssumption, ...]:
    """Amplified SCAFFOLD's Assumption 2: periodic participation with window P."""
    return (ParticipationAssumption("regularized", params, REGULARIZED),)


def _setting_participation(setting: str, names: tuple[str, ...]) -> tuple[ParticipationAssumption, ...]:
    """Participation of a per-pattern result or Table 1 row; params limited to the row's symbols."""
    kind, params, statement = {
        "IID": ("iid", ("S", "N"), "each round S of the N clients are drawn uniformly, independently across rounds"),
        "REG": ("regularized", ("P", "p_min", "rho"), REGULARIZED),
        "CYC": ("cyclic", ("Kbar", "S", "N"),
                "the N clients form Kbar groups that take turns; each round S clients are drawn uniformly from the "
                "active group"),
    }[setting]
    return (ParticipationAssumption(kind, tuple(n for n in params if n in names), statement),)


def _prov(locator: str, spec_id: str, equation: str = "", rests_on: tuple[str, ...] = ()) -> Provenance:
    return Provenance(SEED, locator, equation, f"amplified_scaffold.md {spec_id}", CITATION, rests_on)


def theorem1(caps: str = "decoded") -> Result:
    """Non-convex rate of Amplified SCAFFOLD under periodic participation.

    **Setting**: A1, A2, conditions (1) and (2), step-size caps (decoded, grade L):
    gamma eta <= c1 p_min/(L I P), eta <= c2 sqrt(p_min)/(L I P), c1 = c2 = 1/60.
    **Quantity**: E||grad f(x_hat)||^2 (see ASCAF.XHAT).
    **Statement** (**order**, Theorem 1): O(Delta/(gamma eta R I) + (gamma eta L rho^2 + eta^2 L^2 I P)
    sigma^2); variance part DECODED-H, first term DECODED-M.
    """
    k1, k2 = (STEP_CAP, STEP_CAP) if caps == "decoded" else (c1, c2)
    extra = () if caps == "decoded" else (
        SymbolInfo("c1", "numerator constant of the cap on gamma*eta (lost in the seed; decoded 1/60)",
                   unrecovered=True),
        SymbolInfo("c2", "numerator constant of the cap on eta (lost in the seed; decoded 1/60)", unrecovered=True))
    return Result(
        id="ASCAF.T1",
        variant="published" if caps == "decoded" else "caps",
        title="Non-convex convergence of Amplified SCAFFOLD" + ("" if caps == "decoded" else
                                                                  " (step-size cap constants c1, c2 as inputs)"),
        paper=PAPER,
        kind=Kind.ORDER,
        lhs=LHS_T1,
        lhs_latex=r"\mathbb{E}\|\nabla f(\hat{\mathbf x})\|^2",
        terms=(
            Term("optimization", Delta / (gamma * eta * R * I), "initial gap over the effective step (DECODED-M)"),
            Term("participation noise", gamma * eta * L * rho**2 * sigma**2, "DECODED-H"),
            Term("local drift", eta**2 * L**2 * I * P * sigma**2, "DECODED-H"),
        ),
        hypotheses=(
            Hypothesis("effective step gamma*eta <= c1 p_min/(L I P)", at_most(gamma * eta, k1 * p_min / (L * I * P)),
                       "decoded cap, grade L"),
            Hypothesis("local step eta <= c2 sqrt(p_min)/(L I P)", at_most(eta, k2 * sp.sqrt(p_min) / (L * I * P)),
                       "decoded cap, grade L"),
            Hypothesis("at least one window: R >= P", at_least(R, P)),
            Hypothesis("condition (1): N max_i E[w^i] <= c_w", at_most(Nw, c_w),
                       "c_w UNRECOVERED (candidate P rho^2 fails for full participation): unverified unless given"),
            Hypothesis("condition (2): E[(1/N) sum_i (v^i)^2 lambda^i] <= c_v rho^2", at_most(vlam, c_v * rho**2),
                       "lambda and c_v UNRECOVERED: unverified unless given"),
        ),
        symbols=(S_Delta, S_L, S_rho, S_sigma, S_R, S_I, S_P, S_gamma, S_eta, S_pmin) + extra + (
            SymbolInfo("Nw", "N max_i E[w^i_{r0}] (condition (1) diagnostic)", Domain.NONNEGATIVE),
            SymbolInfo("c_w", "numerator of condition (1) (lost)", Domain.NONNEGATIVE, unrecovered=True),
            SymbolInfo("vlam", "E[(1/N) sum_i (v^i)^2 lambda^i] (condition (2); lambda not in the sources)",
                       Domain.NONNEGATIVE, unrecovered=True),
            SymbolInfo("c_v", "factor of condition (2) (lost)", Domain.NONNEGATIVE, unrecovered=True)),
        provenance=_prov("Theorem 1", "ASCAF.T1"),
        participation=regularized(),
        status=(Status.DECODED_H, Status.DECODED_M, Status.DECODED_L, Status.FLAG, Status.UNRECOVERED),
        flags=("step-size caps: only '}}{60LIP}' and '}}}{60LIP}' survive; read as gamma eta <= p_min/(60LIP) and "
               "eta <= sqrt(p_min)/(60LIP) (DECODED-L)",
               "first term Delta/(gamma eta R I) reconstructed by summing the descent inequality (DECODED-M); whether "
               "it also carries the initial control-variate error is UNRECOVERED",
               "conditions (1), (2) have lost constants c_w, c_v and the lost sample-size variable lambda "
               "(UNRECOVERED)"),
        reconstructed=True,
        rate=(("R", sp.Rational(-1)),),
        notes=GRADES,
        example=EX_T1,
    )


def _c1_terms() -> tuple[Term, ...]:
    return (
        Term("statistical", L * Delta * rho**2 * sigma**2 / (I * eps**4), "linear-speedup term"),
        Term("participation", L * Delta * P / (p_min * eps**2), "window / participation term"),
    )


def corollary1() -> Result:
    """Rounds needed by Amplified SCAFFOLD for an eps-stationary point.

    **Statement** (**order**, Corollary 1, DECODED-M): E||grad f(x_hat)||^2 <= O(eps^2) when
    R >= O(L Delta rho^2 sigma^2/(I eps^4) + L Delta P/(p_min eps^2)); rows: I* = sigma^2 rho^2
    p_min/(P eps^2) balances the two terms (ASCAF.RC, ASCAF.LS).
    """
    return Result(
        id="ASCAF.C1",
        title="Communication rounds of Amplified SCAFFOLD for an eps-stationary point",
        paper=PAPER,
        kind=Kind.ORDER,
        lhs="R: communication rounds after which E||grad f(x_hat)||^2 <= eps^2 (x_hat as in ASCAF.T1); "
            "measure the first R at which the run-averaged window-start gradient norm reaches eps^2",
        lhs_latex=r"R",
        terms=_c1_terms(),
        hypotheses=(Hypothesis("rounds R >= the two-term argument (constant 1)",
                               at_least(R, sp.Add(*(t.expr for t in _c1_terms())))),),
        symbols=(S_L, S_Delta, S_rho, S_sigma, S_I, S_P, S_pmin, S_eps, S_R),
        provenance=_prov("Corollary 1", "ASCAF.C1", rests_on=("ASCAF.T1",)),
        participation=regularized(),
        status=(Status.DECODED_M, Status.FLAG),
        flags=("printed 'R(^{2}}{I^{4}}+}^{2}})' keeps only the denominators I eps^4 and eps^2; numerators restored "
               "from the reduced-communication / linear-speedup paragraphs and by derivation from T1 (DECODED-M)",),
        reconstructed=True,
        rate=(("eps", sp.Rational(-4)), ("I", sp.Rational(-1))),
        prescribed=(("I", sigma**2 * rho**2 * p_min / (P * eps**2)),),
        notes=GRADES + "; R must be a multiple of P in the algorithm",
        example=EX_BASE + (("rho", 0.1**0.5), ("P", 5), ("p_min", 1.0), ("I", 2), ("R", 1000)),
    )


def reduced_communication() -> Result:
    """**Statement** (**order**, 'Reduced communication', DECODED-H): with I = O(sigma^2 rho^2 p_min
    P^-1 eps^-2), R = O(L Delta P p_min^-1 eps^-2)."""
    return Result(
        id="ASCAF.RC",
        title="Reduced communication: R = O(L Delta P / (p_min eps^2)) at I = I*",
        paper=PAPER, kind=Kind.ORDER,
        lhs="R: communication rounds to reach E||grad f(x_hat)||^2 <= eps^2 with I = sigma^2 rho^2 p_min/(P eps^2)",
        lhs_latex=r"R",
        terms=(Term("participation", L * Delta * P / (p_min * eps**2)),),
        symbols=(S_L, S_Delta, S_P, S_pmin, S_eps),
        provenance=_prov("Section 4.2, Reduced Communication", "ASCAF.RC", rests_on=("ASCAF.T1",)),
        participation=regularized(("P", "p_min")),
        status=(Status.DECODED_H,), reconstructed=True,
        flags=("printed 'I=(^{2}^{2}p_{}P^{-1}^{-2})', 'R=(LPp_{}^{-1}^{-2})': Greek letters restored (DECODED-H)",),
        rate=(("eps", sp.Rational(-2)),),
        prescribed=(("I", sigma**2 * rho**2 * p_min / (P * eps**2)),),
        example=(("L", 1.0), ("Delta", 1.0), ("P", 5), ("p_min", 0.5), ("eps", 0.1)),
    )


def linear_speedup() -> Result:
    """**Statement** (**order**, 'Linear speedup', DECODED-H): RI = O(L Delta rho^2 sigma^2 eps^-4);
    the speedup is through rho^2 (= 1/S for i.i.d. and cyclic sampling)."""
    return Result(
        id="ASCAF.LS",
        title="Linear speedup: RI = O(L Delta rho^2 sigma^2 / eps^4)",
        paper=PAPER, kind=Kind.ORDER,
        lhs="R*I: total local steps per client to reach E||grad f(x_hat)||^2 <= eps^2",
        lhs_latex=r"RI",
        terms=(Term("statistical", L * Delta * rho**2 * sigma**2 / eps**4),),
        symbols=(S_L, S_Delta, S_rho, S_sigma, S_eps),
        provenance=_prov("Section 4.2, Linear Speedup", "ASCAF.LS", rests_on=("ASCAF.T1",)),
        participation=regularized(("rho",)),
        status=(Status.DECODED_H,), reconstructed=True,
        flags=("printed 'RI=( L^{2}^{2}^{-4})': Greek letters restored (DECODED-H)",),
        rate=(("eps", sp.Rational(-4)),),
        example=EX_BASE + (("rho", 0.1**0.5),),
    )


def _pattern(pid: str, title: str, rho2, P_, pmin, symbols, status, flags, variant="published",
             rate=(), notes="", example=()) -> Result:
    """A participation pattern's row of Section 4.3 (Table 1): R from the two-term argument of Corollary 1.

    Twelve parameters, why: the pattern's constants (rho^2, P, p_min) and the fields of the Result built
    (id, title, symbols, status, flags, variant, rate, notes, example); every row names them.
    """
    terms = (
        Term("statistical", L * Delta * rho2 * sigma**2 / (I * eps**4)),
        Term("participation", L * Delta * P_ / (pmin * eps**2)),
    )
    return Result(
        id=pid, variant=variant, title=title, paper=PAPER, kind=Kind.ORDER,
        lhs="R: communication rounds to reach E||grad f(x_hat)||^2 <= eps^2 under this participation pattern "
            "(two-term argument of Corollary 1 at the given I; use I = max(1, ceil(I*)))",
        lhs_latex=r"R",
        terms=terms,
        symbols=(S_L, S_Delta, S_sigma, S_eps, S_I) + symbols,
        provenance=_prov("Section 4.3 / Table 1", pid.split("@")[0], rests_on=("ASCAF.T1",)),
        participation=_setting_participation(pid.split(".")[2], tuple(s.name for s in symbols)),
        status=status, flags=flags, reconstructed=True,
        rate=rate,
        prescribed=(("I", sigma**2 * rho2 * pmin / (P_ * eps**2)),),  # already in simplest form (tested)
        notes=notes,
        example=EX_BASE + example,
    )


def pattern_iid() -> Result:
    """i.i.d. sampling of S of N clients: rho^2 = 1/S, P = 1, p_min = S/N (**order**, DECODED-M);
    at I* = sigma^2/(N eps^2): R = O(L Delta N/(S eps^2)), RI = O(L Delta sigma^2/(S eps^4))."""
    return _pattern("ASCAF.P.IID", "Amplified SCAFFOLD under i.i.d. participation", 1 / S, 1, S / N,
                    (S_N, S_S), (Status.DECODED_M,),
                    ("N/S dependence consistent with 'recovers SCAFFOLD up to a worse N/S dependence'",),
                    rate=(("eps", sp.Rational(-2)), ("S", sp.Rational(-1)), ("N", sp.Rational(1))),
                    notes="R = O(L Delta N/(S eps^2)); RI = O(L Delta sigma^2/(S eps^4))",
                    example=(("N", 100), ("S", 10), ("I", 1)))


def pattern_reg() -> Result:
    """Regularized participation: p_min = 1 (**order**, DECODED-H); at I* = rho^2 sigma^2/(P eps^2):
    R = O(L Delta P eps^-2), RI = O(L Delta rho^2 sigma^2 eps^-4)."""
    return _pattern("ASCAF.P.REG", "Amplified SCAFFOLD under regularized participation", rho**2, P, 1,
                    (S_rho, S_P), (Status.DECODED_H,),
                    ("printed 'R=(LP^{-2})', 'RI=( L^{2}^{2}^{-4})': Greek letters restored (DECODED-H)",),
                    rate=(("eps", sp.Rational(-2)), ("P", sp.Rational(1))),
                    notes="R = O(L Delta P eps^-2); RI = O(L Delta rho^2 sigma^2 eps^-4)",
                    example=(("P", 5), ("rho", 0.1**0.5), ("I", 2)))


def pattern_cyc(exact_pmin: bool = False) -> Result:
    """Cyclic participation (Kbar groups, S sampled per round): P = Kbar, rho^2 = 1/S, p_min = S/N as
    printed (**order**, DECODED-M): R = O(L Delta Kbar N/(S eps^2)); variant ``pmin-exact`` uses the exact
    inclusion probability p_min = S Kbar/N: R = O(L Delta N/(S eps^2))."""
    pmin = S * Kbar / N if exact_pmin else S / N
    return _pattern(
        "ASCAF.P.CYC",
        "Amplified SCAFFOLD under cyclic participation" + (" (exact p_min = S Kbar/N)" if exact_pmin else
                                                            " (printed p_min = S/N)"),
        1 / S, Kbar, pmin, (S_N, S_S, S_Kbar),
        (Status.DECODED_M, Status.FLAG),
        ("printed p_min = S/N and E w = S/N^2 are the i.i.d. values; the exact per-window inclusion probability "
         "is S Kbar/N (Kbar lost, or the paper uses the loose bound); only S/N makes R grow with Kbar as the "
         "paper remarks (spec typo #23)",),
        variant="pmin-exact" if exact_pmin else "published",
        rate=(("eps", sp.Rational(-2)), ("S", sp.Rational(-1)), ("N", sp.Rational(1)))
        + ((("Kbar", sp.Rational(1)),) if not exact_pmin else ()),
        notes=("R = O(L Delta N/(S eps^2))" if exact_pmin else "R = O(L Delta Kbar N/(S eps^2))")
        + "; RI = O(L Delta sigma^2/(S eps^4))",
        example=(("N", 100), ("S", 10), ("Kbar", 5), ("I", 1)),
    )


# Table 1: (setting, method) -> (reduced communication, unaffected by heterogeneity); spec ASCAF.TAB1
TABLE1_MARKS: dict[tuple[str, str], tuple[bool, bool]] = {
    ("IID", "FEDAVG"): (False, False),
    ("IID", "SCAFFOLD"): (True, True),
    ("IID", "AFEDAVG"): (False, False),
    ("IID", "ASCAF"): (True, True),
    ("REG", "AFEDAVG"): (True, False),
    ("REG", "ASCAF"): (True, True),
    ("CYC", "AFEDAVG"): (False, False),
    ("CYC", "ASCAF"): (True, True),
}
_SETTING = {"IID": "i.i.d. participation (S)", "REG": "regularized participation (P, rho)",
            "CYC": "cyclic participation (Kbar, S)"}
_METHOD = {"FEDAVG": "FedAvg", "SCAFFOLD": "SCAFFOLD", "AFEDAVG": "Amplified FedAvg", "ASCAF": "Amplified SCAFFOLD"}


def _row(setting: str, method: str, terms, symbols, status, flags, rate, ri: str) -> Result:
    example_all = dict(EX_BASE + (("N", 100), ("S", 10), ("Kbar", 5), ("P", 5), ("kappa", 1.0)))
    reduced, unaffected = TABLE1_MARKS[(setting, method)]
    marks = (f"reduced communication: {'yes' if reduced else 'no'}; "
             f"unaffected by heterogeneity: {'yes' if unaffected else 'no'}")
    return Result(
        id=f"ASCAF.TAB1.{setting}.{method}",
        title=f"Table 1: {_METHOD[method]} under {_SETTING[setting]} ({marks})",
        paper=PAPER, kind=Kind.ORDER,
        lhs=f"R: communication rounds {_METHOD[method]} needs for E||grad f||^2 <= eps^2 under {_SETTING[setting]}",
        lhs_latex=r"R",
        terms=terms, symbols=symbols,
        # the paper's own rows are read off its Theorem 1; the other methods' rows cite other papers
        provenance=_prov("Table 1", "ASCAF.TAB1", rests_on=("ASCAF.T1",) if method == "ASCAF" else ()),
        participation=_setting_participation(setting, tuple(s.name for s in symbols)),
        status=status, flags=flags, reconstructed=True, rate=rate,
        notes=f"{marks}; RI column: {ri}",
        example=tuple((s.name, example_all[s.name]) for s in symbols),
    )


def table1() -> list[Result]:
    """Table 1 rows (**order**): R column where recoverable, marks and RI in ``notes``."""
    unrec = "other factors of this entry are lost in the seed (UNRECOVERED)"
    eps4 = (("eps", sp.Rational(-4)),)
    return [
        _row("IID", "FEDAVG", (Term("eps order", eps**-4, "at least eps^-4 (no reduced communication)"),),
             (S_eps,), (Status.INFERRED, Status.UNRECOVERED),
             ("only the marks and fragments survive (a (1-S/N)-type factor and a kappa-dependent term); the eps^-4 "
              "order is inferred from the 'no reduced communication' mark; " + unrec,), eps4, "UNRECOVERED"),
        _row("IID", "SCAFFOLD", (Term("participation", L * Delta * (N / S) ** sp.Rational(2, 3) / eps**2),),
             (S_L, S_Delta, S_N, S_S, S_eps), (Status.DECODED_L, Status.FLAG),
             ("only '(N/S)^{2/3}' survives (spec: 'SCAFFOLD R contains (N/S)^{2/3}'); the L Delta/eps^2 factor is "
              "read from the reduced-communication mark and SCAFFOLD's non-convex rate (DECODED-L)",),
             (("eps", sp.Rational(-2)), ("N", sp.Rational(2, 3)), ("S", sp.Rational(-2, 3))), "UNRECOVERED"),
        _row("IID", "AFEDAVG", (Term("eps order", eps**-4, "at least eps^-4 (no reduced communication)"),),
             (S_eps,), (Status.INFERRED, Status.UNRECOVERED),
             ("text: worse than FedAvg by a factor printed 'LN' (a Greek letter may be lost, e.g. L Delta N); "
              "eps^-4 order inferred from the 'no reduced communication' mark; " + unrec,), eps4, "UNRECOVERED"),
        _row("IID", "ASCAF", pattern_iid().terms[1:], (S_L, S_Delta, S_N, S_S, S_eps), (Status.DECODED_M,),
             ("table entry garbled; R taken from the per-pattern result ASCAF.P.IID at I = I* (DECODED-M)",),
             (("eps", sp.Rational(-2)), ("S", sp.Rational(-1)), ("N", sp.Rational(1))),
             "O(L Delta sigma^2/(S eps^4))"),
        _row("REG", "AFEDAVG", (Term("heterogeneity", kappa**2 / eps**4, "order eps^-4 with kappa^2 (text)"),),
             (S_kappa, S_eps), (Status.DECODED_H, Status.UNRECOVERED, Status.FLAG),
             ("text (H): order eps^-4 and a kappa^2 dependence, yet Table 1 marks 'reduced communication' for this "
              "row: the two disagree (the table's R looks like '... + kappa^2/eps^2', garbled); " + unrec,),
             eps4 + (("kappa", sp.Rational(2)),), "UNRECOVERED"),
        _row("REG", "ASCAF", (Term("participation", L * Delta * P / eps**2),), (S_L, S_Delta, S_P, S_eps),
             (Status.DECODED_H,),
             ("R taken from the per-pattern result ASCAF.P.REG at I = I* (printed 'R=(LP^{-2})', DECODED-H)",),
             (("eps", sp.Rational(-2)), ("P", sp.Rational(1))),
             "O(L Delta rho^2 sigma^2/eps^4)"),
        _row("CYC", "AFEDAVG", (Term("heterogeneity", kappa**2 / eps**4, "O(kappa^2 eps^-4) (abstract)"),),
             (S_kappa, S_eps), (Status.DECODED_H, Status.UNRECOVERED),
             ("O(kappa^2 eps^-4) confirmed by the repository abstract; " + unrec,),
             eps4 + (("kappa", sp.Rational(2)),), "UNRECOVERED"),
        _row("CYC", "ASCAF", pattern_cyc().terms[1:], (S_L, S_Delta, S_N, S_S, S_Kbar, S_eps),
             (Status.DECODED_M, Status.FLAG), pattern_cyc().flags,
             (("eps", sp.Rational(-2)), ("Kbar", sp.Rational(1)), ("N", sp.Rational(1)), ("S", sp.Rational(-1))),
             "O(L Delta sigma^2/(S eps^4))"),
    ]


def builders() -> list[Callable[[], Result | list[Result]]]:
    """One function per result (``table1`` gives its rows), in registration order."""
    return [
        theorem1, partial(theorem1, "caps"), corollary1, reduced_communication, linear_speedup,
        pattern_iid, pattern_reg, pattern_cyc, partial(pattern_cyc, exact_pmin=True), table1,
    ]


def results() -> list[Result]:
    return build_all(builders())


def _t1_at(s: NonconvexSetting) -> Cover:
    """Theorem 1 at P = 1, gamma = eta_g, full participation: SCAFFOLD (module doc)."""
    if s.method == "scaffold" and s.measure == "avg_grad_sq0" and s.full():
        return Cover("order", "Amplified SCAFFOLD with P = 1, gamma = eta_g, full participation is SCAFFOLD (module "
                              "doc)", {"Delta": s.Delta, "L": s.L, "rho": 1 / math.sqrt(s.M), "sigma": s.sigma,
                                       "R": s.R, "I": s.K, "P": 1, "gamma": s.eta_g, "eta": s.eta, "p_min": 1.0})
    return Cover("no", "Amplified SCAFFOLD at P = 1: method scaffold, " + WHY_AVG0)


def pep_rule(key: str) -> PepRule | None:
    """Amplified SCAFFOLD's results at a worst-case setting (:mod:`bounds.pep_cover`): Theorem 1 is compared by the
    non-convex worst case; the others are non-convex order results whose heterogeneity is bounded everywhere."""
    if key.split("@")[0] == "ASCAF.T1":
        return PepRule(convex=Cover("no", NONCONVEX), nonconvex=_t1_at if key == "ASCAF.T1" else None)
    if key.startswith("ASCAF."):
        return PepRule(convex=Cover("no", "non-convex order result on ||grad f||^2 (hidden constants; heterogeneity "
                                          "bounded everywhere)"))
    return None
