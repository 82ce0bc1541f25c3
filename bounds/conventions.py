"""What each convergence result measures and how its letters map to one common notation (spec README §2).

A comparison of results (:mod:`bounds.compare`) needs, per result, facts the sympy objects do not
hold: which quantity its epsilon (or its left side) bounds, in which power, whether it is a rounds
count ``R(eps)`` or an error after R rounds, what convexity it assumes, the algorithm it is about,
and how its own symbols read the common setting (FAST's ``zeta`` is the common ``Delta0``,
SCAFFOLD's ``beta`` the common ``L``). This module holds those facts for the built-in results; a
plugin declares its own with :func:`declare` (a result with no convention is listed by ``compare`` as
not comparable, with that reason).

Quantities (``QUANTITIES``): ``grad-sq`` = E||grad f||^2, ``gap`` = E f - f*, ``dist-sq`` = E||x - x*||^2.
``power`` p: the result's epsilon bounds quantity <= eps^p (Amplified SCAFFOLD: E||grad f||^2 <= eps^2,
p = 2; every other built-in p = 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

QUANTITIES = {
    "grad-sq": "E||grad f(x)||^2 (squared norm of the full gradient)",
    "gap": "E f(x) - f* (function gap)",
    "dist-sq": "E||x - x*||^2 (squared distance to the minimiser)",
}
CONVEXITY = ("strongly-convex", "convex", "nonconvex")  # each covers the ones after it

#: The common setting: name -> (meaning, vector?). Scalars must be finite; see :mod:`bounds.compare`.
COMMON: dict[str, str] = {
    "N": "number of clients",
    "S": "clients aggregated per round",
    "R": "communication rounds (horizon)",
    "eps": "target accuracy, in the setting's measure",
    "tau": "local steps per round",
    "L": "smoothness constant of every client objective",
    "mu": "strong convexity constant",
    "sigma": "stochastic-gradient std. dev. (sigma2 = its square)",
    "zeta_G": "heterogeneity sup_x max_i ||grad f_i(x) - grad f(x)|| (zeta_G2 = its square)",
    "A1_G": "SCAFFOLD's (G,B) dissimilarity, additive part (default zeta_G)",
    "A1_B": "SCAFFOLD's (G,B) dissimilarity, multiplicative part (default 1)",
    "G": "bound on stochastic gradient norms: E||g_i||^2 <= G^2 (F3AST A4)",
    "Delta0": "initial gap f(x0) - f*",
    "D0": "initial squared distance ||x0 - x*||^2",
    "delta": "Hessian dissimilarity ||grad^2 f_i - grad^2 f|| <= delta",
    "q": "FAST snapshot probability",
    "m": "FAST clients in a snapshot round",
    "n": "FAST clients in an arbitrary round",
    "P": "participation window (regularized participation)",
    "p_min": "minimum window participation probability",
    "rho": "participation weight spread (rho2 = its square)",
    "Kbar": "number of client groups (cyclic participation)",
    "Gamma_max": "maximum staleness (asynchronous)",
    "p": "client data weights, a vector summing to 1 (F3AST)",
    "r": "long-run participation rates, a vector (F3AST)",
}
SQUARED = {"sigma", "zeta_G", "rho", "A1_G", "A1_B"}  # users may give NAME2 for the square
VECTORS = {"p", "r"}


@dataclass(frozen=True)
class Read:
    """How one own symbol of a result is read from the common setting: ``fn(setting)`` with a description."""

    needs: tuple[str, ...]
    fn: Callable[[Mapping[str, Any]], Any]
    text: str


def same(name: str) -> Read:
    return Read((name,), lambda s: s[name], name)


@dataclass(frozen=True)
class Convention:
    """What a result measures and how it reads the setting.

    Args:
        algorithm: the method the result is about.
        form: ``rounds`` (the LHS is R, terms in eps) or ``error`` (the LHS is the error after R rounds).
        quantity: a key of :data:`QUANTITIES`, or None when the source does not say (never compared).
        power: the result's eps bounds quantity <= eps^power.
        convexity: what the result assumes of f (one of :data:`CONVEXITY`).
        rounds: the result's name for the rounds (R or T); eps: its name for the accuracy.
        reads: own symbol -> :class:`Read` (symbols not listed are read under their own name).
        iterate: which iterate the quantity is taken at (stated, never converted).
        why_not: a reason the result is never compared (a lemma, a lower bound, a count of local steps).
    """

    algorithm: str
    form: str
    quantity: str | None
    power: int = 1
    convexity: str = "nonconvex"
    rounds: str = "R"
    eps: str = "eps"
    reads: Mapping[str, Read] = field(default_factory=dict)
    iterate: str = ""
    why_not: str = ""


def _sqrt(name: str) -> Read:
    return Read((name,), lambda s: math.sqrt(s[name]), f"sqrt({name})")


_FAST = {"L": same("L"), "K": Read(("tau",), lambda s: s["tau"], "tau"), "sigma": same("sigma"),
         "sigma_G": Read(("zeta_G",), lambda s: s["zeta_G"], "zeta_G"), "zeta": same("Delta0"),
         "kappa": same("D0"), "mu": same("mu"), "q": same("q"), "m": same("m"), "n": same("n")}
_ASCAF = {"L": same("L"), "Delta": same("Delta0"), "sigma": same("sigma"), "I": Read(("tau",), lambda s: s["tau"], "tau"),
          "kappa": Read(("zeta_G",), lambda s: s["zeta_G"], "zeta_G"), "N": same("N"), "S": same("S"),
          "P": same("P"), "p_min": same("p_min"), "rho": same("rho"), "Kbar": same("Kbar")}
_SCAF = {"beta": same("L"), "mu": same("mu"), "sigma": same("sigma"),
         "G": Read(("A1_G",), lambda s: s["A1_G"], "A1_G (default zeta_G: (1/N) sum ||grad f_i||^2 = "
                   "||grad f||^2 + (1/N) sum ||grad f_i - grad f||^2 <= zeta_G^2 + ||grad f||^2)"),
         "B": Read(("A1_B",), lambda s: s["A1_B"], "A1_B (default 1)"),
         "K": Read(("tau",), lambda s: s["tau"], "tau"), "S": same("S"), "N": same("N"), "D": _sqrt("D0"),
         "F": same("Delta0"), "delta": same("delta")}
_F3AST = {"L": same("L"), "mu": same("mu"), "E": Read(("tau",), lambda s: s["tau"], "tau"), "G": same("G"),
          "D0": same("D0"), "p": same("p"), "r": same("r"),
          "sigma2": Read(("sigma", "p"), lambda s: [s["sigma"] ** 2] * len(s["p"]), "sigma^2 for every client")}
_DFL = {"K": Read(("S",), lambda s: s["S"], "S (clients selected per round)"),
        "Q_max": Read(("tau",), lambda s: s["tau"], "tau (local epochs)"),
        "sigma_G": Read(("zeta_G",), lambda s: s["zeta_G"], "zeta_G"), "Gamma_max": same("Gamma_max")}
_SURV = {"n": same("S"), "K": Read(("tau",), lambda s: s["tau"], "tau")}

LEMMA = "a lemma, identity or threshold, not a convergence guarantee"
_ASCAF_AVG = "window starts x_{mP}, averaged over m"
_FAST_AVG = "average over rounds 1..R"


def _builtin() -> dict[str, Convention]:
    fast_nc = Convention("FAST", "error", "grad-sq", 1, "nonconvex", reads=_FAST, iterate=_FAST_AVG)
    fast_sc = Convention("FAST", "error", "dist-sq", 1, "strongly-convex", reads=_FAST, iterate="final")
    f3 = Convention("F3AST", "error", "gap", 1, "strongly-convex", rounds="T", reads=_F3AST, iterate="final")
    asc_err = Convention("Amplified SCAFFOLD", "error", "grad-sq", 1, "nonconvex", reads=_ASCAF, iterate=_ASCAF_AVG)
    asc = Convention("Amplified SCAFFOLD", "rounds", "grad-sq", 2, "nonconvex", reads=_ASCAF, iterate=_ASCAF_AVG)
    out: dict[str, Convention] = {
        "FAST.T1": fast_nc, "FAST.C1": fast_nc, "FAST.C2": fast_nc, "FAST.T2": fast_sc, "FAST.C3": fast_sc,
        "FAST.R2": Convention("FAST", "error", None, why_not=LEMMA),
        "F3AST.T3.5": f3,
        **{rid: Convention("F3AST", "error", None, why_not=LEMMA)
           for rid in ("F3AST.E3", "F3AST.L3.4", "F3AST.LB.2", "F3AST.LB.3", "F3AST.LB.5", "F3AST.T3.7")},
        "ASCAF.T1": asc_err, "ASCAF.C1": asc, "ASCAF.RC": asc, "ASCAF.P.IID": asc, "ASCAF.P.REG": asc,
        "ASCAF.P.CYC": asc,
        "ASCAF.LS": Convention("Amplified SCAFFOLD", "rounds", "grad-sq", 2,
                               why_not="counts total local steps R*I, not rounds"),
        "DFL.T1": Convention("Democratic FL", "error", "grad-sq", 1, "nonconvex", reads=_DFL,
                             iterate="average over rounds 0..R-1"),
        "SCAF.T2": Convention("FedAvg", "error", "gap", why_not="a lower bound (an instance exists where FedAvg is "
                              "this slow), not a guarantee"),
    }
    for setting in ("IID", "REG", "CYC"):
        for method, name in (("FEDAVG", "FedAvg"), ("SCAFFOLD", "SCAFFOLD"), ("AFEDAVG", "Amplified FedAvg"),
                             ("ASCAF", "Amplified SCAFFOLD")):
            out[f"ASCAF.TAB1.{setting}.{method}"] = Convention(name, "rounds", "grad-sq", 2, "nonconvex", reads=_ASCAF,
                                                               iterate="as in the row's paper")
    for rid, alg in (("SCAF.T1", "FedAvg"), ("SCAF.T3", "SCAFFOLD"), ("SCAF.T4", "SCAFFOLD")):
        out[f"{rid}@sc"] = Convention(alg, "rounds", "gap", 1, "strongly-convex", reads=_SCAF, iterate="final")
        out[f"{rid}@convex"] = Convention(alg, "rounds", "gap", 1, "convex", reads=_SCAF, iterate="averaged iterate")
        out[f"{rid}@nonconvex"] = Convention(alg, "rounds", "grad-sq", 1, "nonconvex", reads=_SCAF,
                                             iterate="a uniformly chosen iterate")
    out["SCAF.T4@weakly-convex"] = Convention("SCAFFOLD", "rounds", "grad-sq", 1, "nonconvex", reads=_SCAF,
                                              iterate="a uniformly chosen iterate")
    for rid, alg in (("SURV.FEDAVG", "FedAvg"), ("SURV.CYCP", "CyCP"), ("SURV.GENFEDAVG", "Generalized FedAvg"),
                     ("SURV.FEDEF", "Fed-EF"), ("SURV.GRADMA", "GradMA"), ("SURV.FEDAMD", "FedAMD")):
        out[rid] = Convention(alg, "error", None, rounds="T", reads=_SURV)
    return out


_DECLARED: dict[str, Convention] = {}


def declare(key: str, convention: Convention) -> None:
    """Declare what a plugin's result (by ``ID`` or ``ID@variant``) measures, so ``compare`` can use it."""
    _DECLARED[key] = convention


def convention_of(key: str) -> Convention | None:
    """The convention of a result key (``ID@variant`` first, then its ``ID``), or None when none is declared."""
    table = {**_builtin(), **_DECLARED}
    return table.get(key) or table.get(key.partition("@")[0])


def read_inputs(key: str, common: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """Result ``key``'s own inputs ``names`` read from values in the common notation (:data:`COMMON`) by its
    convention's reads (FAST's ``zeta`` from ``Delta0``, its ``kappa`` from ``D0``); a name the convention does
    not list is read under its own name. Raises ``KeyError`` naming a common value that is missing."""
    conv = convention_of(key)
    reads = conv.reads if conv is not None else {}
    return {name: (reads[name].fn(common) if name in reads else common[name]) for name in names}
