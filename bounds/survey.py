"""The survey of partial-participation methods (seed 003): what its rows state, and nothing more.

Rows that state a rate are :class:`~bounds.result.Result` objects ``SURV.<METHOD>`` (**order**, in
the rounds T): the survey gives the order in T (and for Generalized FedAvg in K and n) and nothing
else, so each result has no constants, no hypotheses beyond those the row states, and an LHS the
survey does not name (UNRECOVERED: which error measure converges at that rate is not said; a
comparison with another result therefore refuses, see :mod:`bounds.compare`). Where the survey
contradicts itself the result carries a FLAG and, for Generalized FedAvg, both forms are variants.

Rows with no rate (SAFARI, MIFA, FedCM, FedVARP, FedProx, SCAFFOLD, EmbracingFL) are
:class:`~bounds.survey_rows.Entry` records (:data:`~bounds.survey_rows.ENTRIES`, a module without sympy
so that ``convbound list`` stays fast): their participation model, the guarantee in words and the
stated conditions; ``convbound list`` and ``show`` print them, nothing evaluates them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import sympy as sp

from bounds.result import (
    Assumption,
    Citation,
    Kind,
    ParticipationAssumption,
    Provenance,
    Result,
    Status,
    Term,
    build_all,
)
from bounds.symbols import Domain, SymbolInfo, sym

SEED = "003_703fb3fbc0a289c6.txt"
#: From the seed text's first lines (its "Manuscript received" line is the journal template's placeholder: no venue
#: or year is stated).
CITATION = Citation("Mrinmay Sen, Shruti Aparna, Rohit Agarwal and Chalavadi Krishna Mohan",
                    "Overcoming Challenges of Partial Client Participation in Federated Learning: A Comprehensive "
                    "Review", "venue and year not stated in the seed text")
PAPER = "Survey (partial participation)"

T = sym("T", Domain.POSITIVE_INTEGER)
n = sym("n", Domain.POSITIVE_INTEGER)
K = sym("K", Domain.POSITIVE_INTEGER)
S_T = SymbolInfo("T", "communication rounds (the survey's T)", Domain.POSITIVE_INTEGER)
S_n = SymbolInfo("n", "workers participating per round (Generalized FedAvg)", Domain.POSITIVE_INTEGER)
S_K = SymbolInfo("K", "local steps per round (Generalized FedAvg)", Domain.POSITIVE_INTEGER)

LHS = ("an error measure after T rounds that the survey does not name (UNRECOVERED: gradient norm, its square or "
       "the function gap are all possible); O: every constant hidden")
UNSTATED = ("the survey states only the order of the rate: no constants, no error measure (UNRECOVERED), no "
            "convexity or smoothness assumption")
STATES_NOT = "states no assumptions for this row"
DEFAULT_T = (("T", 1000),)


def _participation(kind: str, statement: str) -> tuple[ParticipationAssumption, ...]:
    return (ParticipationAssumption(kind, (), statement, needs="the survey states the model only in words; audit a "
                                                              "log of the run (convbound audit) where a target fits"),)


def _row(rid: str, method: str, ref: str, locator: str, terms: tuple[Term, ...], symbols: tuple[SymbolInfo, ...],
         kind: str, model: str, conditions: tuple[Assumption, ...], flags: tuple[str, ...] = (),
         variant: str = "published", rate: tuple[tuple[str, sp.Rational], ...] = (), notes: str = "",
         example: tuple[tuple[str, int], ...] = DEFAULT_T) -> Result:
    """One row of the survey's tables that states a rate, as a Result.

    Fourteen parameters, why: each is a field of the Result built (a constructor in all but name); the
    helper fills the paper, the kind, the LHS, the status and the unstated-assumption flag every row shares.
    """
    status = (Status.PUBLISHED, Status.UNRECOVERED) + ((Status.FLAG,) if flags else ())
    return Result(
        id=rid, variant=variant, title=f"{method} {ref}: rate stated by the survey" + (f" ({variant})" if variant !=
                                                                                     "published" else ""),
        paper=PAPER, kind=Kind.ORDER, lhs=LHS, lhs_latex=r"\mathrm{error}(T)",
        terms=terms, symbols=symbols,
        provenance=Provenance(SEED, locator, "", f"survey_methods.md {rid}", CITATION),
        participation=_participation(kind, model), assumptions=conditions,
        status=status, flags=(UNSTATED, *flags), rate=rate, notes=notes, example=example,
    )


def _cond(name: str, statement: str) -> Assumption:
    return Assumption(name, statement, "stated by the survey in words; not decided by any numeric input")


SQRT_T = (Term("rate", 1 / sp.sqrt(T), "O(1/sqrt(T)) as stated"),)
HALF = (("T", sp.Rational(-1, 2)),)


def fedavg() -> Result:
    return _row("SURV.FEDAVG", "FedAvg", "[6]", "Table I (FedAvg row)", SQRT_T, (S_T,), "random",
                "random sampling of clients each round (the survey states no distribution)", (), rate=HALF,
                notes=STATES_NOT)


def cycp() -> Result:
    return _row("SURV.CYCP", "CyCP", "[14]", "Table I (CyCP row); section on cyclic participation", SQRT_T, (S_T,),
                "cyclic",
                "the M clients form K fixed, non-overlapping groups of M/K, available in a fixed cyclic order (a "
                "cycle = K rounds); N clients are sampled from the active group each round",
                (_cond("local solver", "local solver GD, SGD or shuffled SGD"),),
                rate=HALF, notes="'balanced variance' (Table I); experiments: +5-10% (high heterogeneity), +2-8% "
                                 "(lower) accuracy over FedAvg (K = 1), survey-reported")


def genfedavg(form: str) -> Result:
    terms: tuple[Term, ...]
    if form == "text":
        terms = (Term("stochastic", sp.sqrt(K) / sp.sqrt(n * T), "sqrt(K)/sqrt(nT): linear speedup in n"),
                 Term("transient", 1 / T, "1/T"))
        locator, rate = "text, Generalized FedAvg section", (("T", sp.Rational(-1, 2)), ("n", sp.Rational(-1, 2)))
        symbols: tuple[SymbolInfo, ...] = (S_T, S_n, S_K)
        example: tuple[tuple[str, int], ...] = (("T", 1000), ("n", 10), ("K", 5))
    else:
        terms = (Term("rate", 1 / sp.sqrt(n * T), "O(1/sqrt(nT)) as in Table I"),)
        locator, rate = "Table I (Generalized FedAvg row)", (("T", sp.Rational(-1, 2)), ("n", sp.Rational(-1, 2)))
        symbols, example = (S_T, S_n), (("T", 1000), ("n", 10))
    return _row("SURV.GENFEDAVG", "Generalized FedAvg (two-sided learning rates)", "[4]", locator, terms, symbols,
                "random", "a random subset of n workers per round (partial worker participation)",
                (_cond("non-IID data", "non-IID data across workers"),
                 _cond("server step", "a server learning rate eta_G in addition to the local one")),
                flags=("the text states O(sqrt(K)/sqrt(nT) + 1/T) while Table I states O(1/sqrt(nT)): both kept as "
                       "variants (@text, @table)",
                       "reference [4], cited for Generalized FedAvg, is a survey in the reference list"),
                variant=form, rate=rate, example=example)


def fedef() -> Result:
    return _row("SURV.FEDEF", "Fed-EF", "[15]", "Table I (Fed-EF row)", (Term("rate", 1 / T, "O(1/T) as stated"),),
                (S_T,), "random", "random (uniform) sampling of clients, ratio p = m/n",
                (_cond("compression", "biased compression with error feedback"),),
                flags=("reference [15], cited for Fed-EF, is a distributed K-FAC paper in the reference list",),
                rate=(("T", sp.Rational(-1)),), notes="text: 'comparable to full-precision FL'")


def gradma() -> Result:
    return _row("SURV.GRADMA", "GradMA", "[16]", "Table I (GradMA row)", SQRT_T, (S_T,), "random",
                "random worker participation (S in {5, 10, 50} of 100 in the experiments)", (), rate=HALF,
                notes=STATES_NOT)


def fedamd() -> Result:
    return _row("SURV.FEDAMD", "FedAMD", "[9]", "Table I (FedAMD row)", SQRT_T, (S_T,), "adaptive",
                "dynamic anchor/miner sampling with a participation-probability sequence {p_t}", (),
                flags=("FedAMD is cited as [9] and as 'Anchor sampling' [20]",), rate=HALF, notes=STATES_NOT)


def builders() -> list[Callable[[], Result | list[Result]]]:
    """One function per result, in registration order (Generalized FedAvg: text form first)."""
    return [fedavg, cycp, partial(genfedavg, "text"), partial(genfedavg, "table"), fedef, gradma, fedamd]


def results() -> list[Result]:
    return build_all(builders())
