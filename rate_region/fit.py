"""Fit an availability model to a participation log and write it as a convbound model file.

**Setting**: availability A [T, N] (bool) of N clients over T consecutive logged rounds.
**Quantity**: three candidate classes, each fitted by maximum likelihood (closed form):
independent Bernoulli (A_{t,k} ~ Bernoulli(q_k) i.i.d. in t; N parameters); two-state Markov per
client (P(0->1) = p01_k, P(1->0) = p10_k, started in stationarity; 2N parameters); periodic
(A_{t,k} ~ Bernoulli(f_{t mod P} q_k), the moment fit of the rank-one product; N + P - 1 parameters,
P chosen among 2..48 by the same criterion). All three log-likelihoods count every one of the T N
observations (Markov: the first round under the stationary law).
**Statement**: the class is chosen by **BIC** = -2 log L + d ln(T N) (smallest wins). Goodness of fit:
a Pearson statistic sum (O - E)^2 / V over cells (client, previous state, phase t mod P_g) with P_g
the best periodic period, E and V the model's conditional means and variances; chi-square reference
with (non-empty cells - d) degrees of freedom (approximate: a large-sample statement).
Availability intervals a_k: Wilson at ``bounds.core.stats.RATE_LEVEL`` (95%); for the Markov class with the effective sample
size T (1 - rho_k) / (1 + rho_k), rho_k = 1 - p01_k - p10_k the chain's lag-1 correlation (the
variance of a stationary two-state chain's mean).
The file: kind "independent" (also for the Markov class: the achievable region depends only on the
stationary law of A_t, which for independent chains is the product of Bernoulli(pi_k); the
transitions are kept as comments) or kind "periodic". ``region --model FILE`` reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from bounds.core.errors import UserInputError
from bounds.core.stats import RATE_LEVEL

LEVEL = RATE_LEVEL  # the one source: bounds.core.stats
MAX_PERIOD = 48
CLASSES = ("independent", "markov", "periodic")
_EPS = 1e-12


def wilson(successes, n, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a binomial proportion (vectorised; n may be fractional, an effective size)."""
    s = np.asarray(successes, dtype=float)
    n = np.maximum(np.asarray(n, dtype=float), _EPS)
    z = NormalDist().inv_cdf(0.5 + level / 2)
    ph = s / n
    den = 1 + z**2 / n
    mid = (ph + z**2 / (2 * n)) / den
    half = z * np.sqrt(ph * (1 - ph) / n + z**2 / (4 * n**2)) / den
    return np.clip(mid - half, 0.0, 1.0), np.clip(mid + half, 0.0, 1.0)


def gof_text(gof: dict) -> str:
    """One line for a goodness-of-fit record (also the audit's text and report)."""
    if gof.get("statistic") is None:
        return f"not computable ({gof.get('cells', 'no data')})"
    return f"Pearson {gof['statistic']:.4g} on {gof['df']} df, p = {gof['p_value']:.3g}"


def _ll(s, n, p) -> np.ndarray:
    p = np.clip(p, _EPS, 1 - _EPS)
    return s * np.log(p) + (n - s) * np.log1p(-p)


@dataclass(frozen=True)
class Candidate:
    kind: str
    loglik: float
    n_params: int
    bic: float
    period: int | None = None

    def to_dict(self) -> dict:
        return {"kind": self.kind, "loglik": self.loglik, "n_params": self.n_params, "bic": self.bic,
                "period": self.period}


@dataclass(frozen=True, eq=False)
class FittedAvailability:
    """The chosen class, its parameters, the interval for each a_k and the goodness of fit."""

    kind: str
    candidates: tuple[Candidate, ...]
    marginals: np.ndarray  # a_k, stationary availability
    low: np.ndarray
    high: np.ndarray
    level: float
    k: int
    weights: np.ndarray
    params: dict = field(default_factory=dict)  # q, p01/p10, f/period, as lists
    gof: dict = field(default_factory=dict)
    source: str = ""

    def to_toml(self) -> str:
        """The model file (``rate_region.tomlfile`` format) with the fit recorded as comments."""
        def arr(x):
            return "[" + ", ".join(f"{float(v):.10g}" for v in np.asarray(x).ravel()) + "]"

        best = min(self.candidates, key=lambda c: c.bic)
        lines = [f"# fitted by convbound audit from {self.source or 'a log'}",
                 f"# class {self.kind} chosen by BIC (smallest of: "
                 + ", ".join(f"{c.kind}{'' if c.period is None else f'(P={c.period})'} {c.bic:.6g}"
                             for c in self.candidates) + ")",
                 "# goodness of fit: " + gof_text(self.gof),
                 f"# k = the largest number of participants in one logged round ({self.k})"]
        desc = f"fitted {best.kind} availability"
        if self.kind == "markov":
            lines += ["# two-state Markov per client: the file holds its stationary law pi_k = p01/(p01+p10),",
                      "# which is all the achievable region depends on; transitions for reference:",
                      f"# p01 = {arr(self.params['p01'])}", f"# p10 = {arr(self.params['p10'])}"]
            desc += " (stationary law of per-client two-state Markov chains)"
        lines += [f'kind = "{"periodic" if self.kind == "periodic" else "independent"}"',
                  f"k = {self.k}", f'description = "{desc}"', f"q = {arr(self.params['q'])}"]
        if self.kind == "periodic":
            lines.append(f"f = {arr(self.params['f'])}")
        lines.append(f"weights = {arr(self.weights)}")
        return "\n".join(lines) + "\n"

    def model(self):
        """The ``AvailabilityModel`` that the written file describes (built from that very text)."""
        import tomllib

        from rate_region.tomlfile import model_from_dict

        return model_from_dict(tomllib.loads(self.to_toml()), source="fitted")

    def to_dict(self) -> dict:
        return {"kind": self.kind, "criterion": "BIC = -2 log L + d ln(T N)",
                "candidates": [c.to_dict() for c in self.candidates], "level": self.level,
                "a": self.marginals.tolist(), "a_low": self.low.tolist(), "a_high": self.high.tolist(),
                "k": self.k, "weights": self.weights.tolist(),
                "params": {key: (np.asarray(v).tolist() if not isinstance(v, (int, float)) else v)
                           for key, v in self.params.items()},
                "goodness_of_fit": self.gof}


# Candidate fits
def _independent(A: np.ndarray):
    T, N = A.shape
    s = A.sum(0)
    q = s / T
    return q, float(_ll(s, T, q).sum())


def _markov(A: np.ndarray):
    prev, cur = A[:-1], A[1:]
    n1 = prev.sum(0).astype(float)
    n0 = prev.shape[0] - n1
    n01 = (~prev & cur).sum(0)
    n10 = (prev & ~cur).sum(0)
    p01 = np.where(n0 > 0, n01 / np.maximum(n0, 1), 0.5)
    p10 = np.where(n1 > 0, n10 / np.maximum(n1, 1), 0.5)
    tot = p01 + p10
    pi = np.where(tot > 0, p01 / np.where(tot > 0, tot, 1), A.mean(0))
    ll = _ll(A[0], 1, pi).sum() + _ll(n01, n0, p01).sum() + _ll(n10, n1, p10).sum()
    return p01, p10, pi, float(ll)


def _periodic(A: np.ndarray, phase_of_round: np.ndarray, P: int, c: np.ndarray, m: float):
    """Moment fit prob[j, k] = g_j c_k / m (g: phase means, c: client means, m: overall mean)."""
    T, N = A.shape
    ph = phase_of_round % P
    nj = np.bincount(ph, minlength=P).astype(float)
    if T > 1 and np.all(np.diff(phase_of_round) == 1):
        # consecutive rounds: pad to whole periods and sum a [periods, P, N] view (one pass, no index array)
        lead = int(ph[0])
        pad = np.zeros(((lead + T + P - 1) // P * P, N), dtype=np.int32)
        pad[lead:lead + T] = A
        S = pad.reshape(-1, P, N).sum(0).astype(float)
    else:
        S = np.bincount((ph[:, None] * N + np.arange(N)).ravel(), weights=A.ravel(), minlength=P * N).reshape(P, N)
    g = S.sum(1) / np.maximum(nj * N, 1)
    prob = np.clip(g[:, None] * c[None, :] / m, 0.0, 1.0)
    ll = float(_ll(S, nj[:, None], prob).sum())
    gmax = max(g.max(), _EPS)
    f = g / gmax
    q = np.clip(c * gmax / m, 0.0, 1.0)
    return q, f, prob, ll


def _gof(A: np.ndarray, expect_next, n_params: int, phase: np.ndarray, P: int) -> dict:
    """Pearson statistic over cells (client, previous state, phase mod P)."""
    from scipy.stats import chi2

    T, N = A.shape
    prev, cur = A[:-1], A[1:]
    e = expect_next(prev)  # [T-1, N] conditional P(A_t = 1 | past)
    ph = (phase[1:] % P)[:, None]
    cell = ((prev.astype(np.int64) * P + ph) * N + np.arange(N)).ravel()
    size = 2 * P * N
    O = np.bincount(cell, weights=cur.ravel(), minlength=size)
    E = np.bincount(cell, weights=e.ravel(), minlength=size)
    V = np.bincount(cell, weights=(e * (1 - e)).ravel(), minlength=size)
    ok = V > 1e-9
    if not ok.any():  # constant availability: the fitted model is deterministic and there is nothing to test
        return {"statistic": None, "df": 0, "p_value": None, "cells": "none with variance (availability constant)",
                "phase_period": P, "reference": "not computable"}
    stat = float(((O[ok] - E[ok]) ** 2 / V[ok]).sum())
    df = max(int(ok.sum()) - n_params, 1)
    return {"statistic": stat, "df": df, "p_value": float(chi2.sf(stat, df)),
            "cells": "client x previous state x phase (t mod P)", "phase_period": P,
            "reference": "chi-square (large-sample approximation)"}


def fit_availability(available: np.ndarray, round_ids: np.ndarray | None = None, k: int = 1,
                     weights: np.ndarray | None = None, level: float = LEVEL, max_period: int = MAX_PERIOD,
                     source: str = "") -> FittedAvailability:
    """Fit the three classes to ``available`` [T, N], choose by BIC, attach intervals and goodness of fit."""
    A = np.asarray(available, dtype=bool)
    if A.ndim != 2 or A.shape[0] < 2 or A.shape[1] < 1:
        raise UserInputError(f"availability must be rounds x clients with at least 2 rounds, got shape {A.shape}")
    T, N = A.shape
    rid = np.arange(T) if round_ids is None else np.asarray(round_ids, dtype=np.int64)
    nobs = T * N
    pen = np.log(nobs)
    q_ind, ll_ind = _independent(A)
    p01, p10, pi, ll_mk = _markov(A)
    cands = [Candidate("independent", ll_ind, N, -2 * ll_ind + N * pen),
             Candidate("markov", ll_mk, 2 * N, -2 * ll_mk + 2 * N * pen)]
    best_per = None
    c_mean = A.mean(0)
    m_mean = max(float(c_mean.mean()), _EPS)
    for P in range(2, min(max_period, T // 4) + 1):  # a loop over candidate periods, not rows
        q_p, f_p, prob, ll_p = _periodic(A, rid, P, c_mean, m_mean)
        bic = -2 * ll_p + (N + P - 1) * pen
        if best_per is None or bic < best_per[0].bic:
            best_per = (Candidate("periodic", ll_p, N + P - 1, bic, P), q_p, f_p, prob)
    if best_per is not None:
        cands.append(best_per[0])
    chosen = min(cands, key=lambda c: c.bic)
    P_g = int(best_per[0].period or 1) if best_per is not None else 1

    s = A.sum(0)
    expect: Callable[[np.ndarray], np.ndarray]  # P(A_t = 1 | A_{t-1}) under the chosen class, for the GOF
    if chosen.kind == "independent":
        a = q_ind
        low, high = wilson(s, T, level)
        params: dict = {"q": q_ind}
        expect = lambda prev: np.broadcast_to(q_ind, prev.shape)  # noqa: E731
    elif chosen.kind == "markov":
        a = pi
        rho = np.clip(1 - p01 - p10, -0.99, 0.99)
        low, high = wilson(pi * T * (1 - rho) / (1 + rho), T * (1 - rho) / (1 + rho), level)
        params = {"q": pi, "p01": p01, "p10": p10}
        expect = lambda prev: np.where(prev, 1 - p10, p01)  # noqa: E731
    else:
        assert best_per is not None
        _, q_p, f_p, prob = best_per
        period = int(best_per[0].period or 1)
        ph = rid % period
        a = f_p.mean() * q_p  # the written model's stationary marginals (phases uniform)
        low, high = wilson(s, T, level)
        params = {"q": q_p, "f": f_p, "period": period}
        expect = lambda prev: prob[ph[1:]]  # noqa: E731
    gof = _gof(A, expect, chosen.n_params, rid, P_g)
    p = np.full(N, 1.0 / N) if weights is None else np.asarray(weights, dtype=float)
    return FittedAvailability(chosen.kind, tuple(cands), np.asarray(a, dtype=float), low, high, level,
                              max(int(k), 1), p, params, gof, source)
