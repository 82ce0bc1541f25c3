"""F3AST's notation, seed 001: its symbols, the worked examples of f3ast.md, its participation assumption and
the per-client sums its results are written in.

Kept apart from :mod:`bounds.f3ast` (the results) so that each module stays one subject: the results read
their letters from here. Notation: the paper's letters (p data weights summing to 1, r long-run participation
rates of a static policy, E local SGD steps, G^2 bounds E||grad f_k||^2, Gamma = F* - sum p_k F_k*,
sigma_k^2 per-client gradient variance).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from bounds.core.errors import UserInputError
from bounds.result import Aggregate, Assumption, Citation, ParticipationAssumption
from bounds.symbols import Domain, SymbolInfo, sym

SEED = "001_5713ca58b34c1d5c.txt"
PAPER = "F3AST"
#: From the seed text's first lines (venue from its DOI line 10.1109/JSTSP.2022.3224590, published 2022).
CITATION = Citation("M\u00f3nica Ribero, Haris Vikalo and Gustavo de Veciana",
                    "Federated Learning Under Intermittent Client Availability and Time-Varying Communication Constraints",
                    "IEEE Journal of Selected Topics in Signal Processing (DOI 10.1109/JSTSP.2022.3224590), 2022")
WEIGHT_SUM_TOL = 1e-6  # p is a probability vector; allow rounding in typed decimals

E = sym("E", Domain.POSITIVE_INTEGER)
G = sym("G", Domain.NONNEGATIVE)
L = sym("L")
mu = sym("mu")
T = sym("T", Domain.POSITIVE_INTEGER)
Gamma = sym("Gamma", Domain.NONNEGATIVE)
D0 = sym("D0", Domain.NONNEGATIVE)
eta = sym("eta")
var_s = sym("var_s", Domain.NONNEGATIVE)
k, N = sp.symbols("k N", integer=True, positive=True)
pk, rk, sk = sp.IndexedBase("p"), sp.IndexedBase("r"), sp.IndexedBase("sigma2")

S_p = SymbolInfo("p", "data weights p_k (fraction of data; sum to 1)", Domain.VECTOR_PROBABILITY)
S_r = SymbolInfo("r", "long-run participation rates r_k of the static policy", Domain.VECTOR_RATE)
S_E = SymbolInfo("E", "local SGD steps per round", Domain.POSITIVE_INTEGER)
S_G = SymbolInfo("G", "bound on stochastic gradient norms (A4: E||grad f_k||^2 <= G^2)", Domain.NONNEGATIVE,
                 squared_input=True)
S_L = SymbolInfo("L", "smoothness constant of every F_k (A2)")
S_mu = SymbolInfo("mu", "strong-convexity constant of every F_k (A2)")
S_T = SymbolInfo("T", "communication rounds", Domain.POSITIVE_INTEGER)
S_Gamma = SymbolInfo("Gamma", "objective gap F* - sum_k p_k F_k*", Domain.NONNEGATIVE)
S_D0 = SymbolInfo("D0", "initial squared distance ||w_1 - w*||^2", Domain.NONNEGATIVE)
# A3 bounds a variance (E||grad f_k - grad F_k||^2 <= alpha_k^2, seed 001 line 182): 0 (exact gradients) is allowed
S_sigma2 = SymbolInfo("sigma2", "per-client stochastic-gradient variances sigma_k^2 (A3, alpha_k^2 in the main text)",
                      Domain.VECTOR_NONNEGATIVE)
S_var_s = SymbolInfo("var_s", "client-sampling variance sigma_T^2(f^r) (bounded by F3AST.L3.4)", Domain.NONNEGATIVE)
S_eta = SymbolInfo("eta", "last local step size eta_(t,E) of the round", Domain.POSITIVE, prefer="max")

# Worked examples of f3ast.md: EX1 weights and optimal rate r* = (3/8, 1/2)
EX1 = (("p", (0.5, 0.5)), ("r", (0.375, 0.5)))
EX_T35 = (("mu", 1), ("L", 4), ("E", 5), ("T", 1000), ("p", (0.5, 0.5)), ("sigma2", (1.0, 1.0)), ("Gamma", 0.1),
          ("G", 1.0), ("D0", 1.0), ("var_s", 4 * 25 * 4 / 3))


MODEL_NEEDED = "needs an availability model (give model=NAME|FILE, as in convbound region --model)"


def static_rate(params: tuple[str, ...] = ("r",)) -> tuple[ParticipationAssumption, ...]:
    """F3AST's participation: a static policy achieving rates r, r in the achievable region (eq. 2)."""
    return (ParticipationAssumption(
        "static-rate", params,
        "a static selection policy achieves the rates r, which lie in the achievable region of the clients' "
        "availability (an irreducible Markov chain of configurations, Assumption 1), and aggregates with the true "
        "p_k/r_k", MODEL_NEEDED if "r" in params else
        "the rates r and the availability model are not inputs of this result; check r with convbound region"),)


UNCORRELATED = Assumption(
    "availability uncorrelated or negatively correlated",
    "client availabilities are uncorrelated or negatively correlated (eq. (7) and its greedy policy need it)",
    "the correlation of the availability model is not an input; positively correlated availability needs eq. (6)")


def _clients(*arrays: np.ndarray) -> None:
    """Vectors of one result must describe the same clients (same trailing length)."""
    sizes = {a.shape[-1] for a in arrays if a.ndim}
    if len(sizes) > 1 or any(a.ndim == 0 for a in arrays):
        raise UserInputError(f"client vectors must have one entry per client and equal lengths; got lengths "
                             f"{sorted(a.shape[-1] if a.ndim else 1 for a in arrays)}")


def _weights(p: np.ndarray) -> None:
    if not np.all(np.abs(p.sum(axis=-1) - 1.0) <= WEIGHT_SUM_TOL):
        raise UserInputError(f"weights p must sum to 1 (got {float(np.ravel(p.sum(axis=-1))[0]):g}); "
                             "give data fractions such as p=0.5,0.5")


def _h_p(p, r):
    _clients(p, r)
    _weights(p)
    return np.sum(p / r, axis=-1)


def _h_p2(p, r):
    _clients(p, r)
    _weights(p)
    return np.sum(p**2 / r, axis=-1)


def _sum_p2(p):
    _weights(p)
    return np.sum(p**2, axis=-1)


def _var1_clients(p, sigma2):
    _clients(p, sigma2)
    _weights(p)
    return np.sum(p**2 * sigma2, axis=-1)


H_p = sym("H_p", Domain.NONNEGATIVE)
H_p2 = sym("H_p2", Domain.NONNEGATIVE)
P2 = sym("P2", Domain.NONNEGATIVE)
V1c = sym("V1c", Domain.NONNEGATIVE)
A_H_p = Aggregate("H_p", sp.Sum(pk[k] / rk[k], (k, 1, N)), ("p", "r"), _h_p, "sum_k p_k / r_k")
A_H_p2 = Aggregate("H_p2", sp.Sum(pk[k] ** 2 / rk[k], (k, 1, N)), ("p", "r"), _h_p2, "sum_k p_k^2 / r_k")
A_P2 = Aggregate("P2", sp.Sum(pk[k] ** 2, (k, 1, N)), ("p",), _sum_p2, "sum_k p_k^2")
A_V1c = Aggregate("V1c", sp.Sum(pk[k] ** 2 * sk[k], (k, 1, N)), ("p", "sigma2"), _var1_clients,
                  "sum_k p_k^2 sigma_k^2")
