"""Which non-convex results a non-convex worst case covers, and the tightness (worst case / bound) of each.

**Setting**: the PEP class of verify.pep.nonconvex imposes the dissimilarity ||grad f_i - grad F|| <= zeta only at
evaluated points and F >= F_inf through a necessary condition, so it contains the class of every result below
(FAST A3, SCAFFOLD's (G, B = 1) dissimilarity, DFL A3, Amplified SCAFFOLD's smoothness with F(x_0) - inf f <= Delta):
the certified value bounds each result's worst case from above. A certified ratio <= 1 therefore proves an
**upper** bound at the setting; a ratio > 1 is a finding only where an instance of the class attains more than
the bound (the closed-form instance of verify.pep.nonconvex_bracket: ``lower_bound``), else inconclusive.
**Order results** (hidden constants): the row evaluates the right-hand side with every hidden constant = 1; the
ratio is then not a check of the theorem, only its change along the horizon is (verify.pep.nonconvex_sweep).
**Notation**: SCAFFOLD's (G, B): (1/N) sum ||grad f_i||^2 = ||grad f||^2 + (1/N) sum ||grad f_i - grad f||^2 <=
zeta^2 + ||grad f||^2, so G = zeta, B = 1. Amplified SCAFFOLD with window P = 1 and full participation (q = 1/N,
rho^2 = 1/N) is SCAFFOLD (option II control variates, initialised at 0) with server step eta_g = gamma
(spec amplified_scaffold.md ASCAF.ALG1, lines 8, 12-19); its LHS averages x_0..x_{R-1} (ASCAF.XHAT).
"""

from __future__ import annotations

import math
from typing import Any

from verify.pep.nonconvex import NCSetting


def _fast_t1(s: NCSetting) -> tuple[dict[str, Any] | None, str]:
    from verify.scenarios.fast_pep import fast_participation

    if s.method != "local_gd" or s.eta_g != 1.0:
        return None, "FAST.T1 is FedAvg local steps with server step 1"
    if s.measure != "avg_grad_sq":
        return None, "FAST.T1 measures (1/R) sum_{r=1..R} E||grad F(x_r)||^2 (measure avg_grad_sq)"
    qmn = fast_participation(s.law, s.M)
    if qmn is None:
        return None, "FAST.T1's snapshot rounds have a fixed size m; Bernoulli participation does not"
    q, m, n = qmn
    return ({"L": s.L, "K": s.K, "m": m, "n": n, "q": q, "R": s.R, "eta_c": s.eta, "sigma": s.sigma,
             "sigma_G": s.zeta, "zeta": s.Delta},
            "FAST's class (A1-A3, F(x_0) - F* = zeta) inside the PEP's (dissimilarity at evaluated points): the PEP "
            "value bounds FAST's worst case from above")


def _eps_at(res: Any, values: dict[str, Any], R: float) -> float | None:
    """The eps at which an 'R rounds to eps' result's right-hand side equals R (bisection in log eps)."""
    lo, hi = 1e-12, 1e12
    f = (lambda e: float(res.evaluate({**values, "eps": e}).value) - R)
    if f(hi) > 0 or f(lo) < 0:
        return None
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    return hi


def _order_rules(s: NCSetting) -> dict[str, tuple[dict[str, Any] | None, str]]:
    """Per order result: (values, why) when the setting is one of its instances, else (None, why not)."""
    full = s.full()
    fedavg = s.method == "local_gd" and s.measure == "avg_grad_sq0" and full
    scaffold = s.method == "scaffold" and s.measure == "avg_grad_sq0" and full
    base_scaf = {"beta": s.L, "sigma": s.sigma, "G": s.zeta, "B": 1.0, "K": s.K, "S": s.M, "N": s.M, "F": s.Delta}
    why_measure = "needs measure avg_grad_sq0 (a uniformly chosen iterate among x_0..x_{R-1}) and full participation"
    return {
        "SCAF.T1@nonconvex": (base_scaf if fedavg and s.eta_g == 1.0 else None,
                              "FedAvg (local_gd, server step 1) with G = zeta, B = 1 (module doc)" if fedavg else
                              "SCAFFOLD paper's FedAvg theorem: " + why_measure),
        "SCAF.T3@nonconvex": ({k: v for k, v in base_scaf.items() if k not in ("G", "B")} if scaffold else None,
                              "SCAFFOLD (option II control variates) with S = N = M" if scaffold else
                              "SCAFFOLD's theorem: method scaffold, " + why_measure),
        "ASCAF.T1": ({"Delta": s.Delta, "L": s.L, "rho": 1 / math.sqrt(s.M), "sigma": s.sigma, "R": s.R, "I": s.K,
                      "P": 1, "gamma": s.eta_g, "eta": s.eta, "p_min": 1.0} if scaffold else None,
                     "Amplified SCAFFOLD with P = 1, gamma = eta_g, full participation is SCAFFOLD (module doc)"
                     if scaffold else "Amplified SCAFFOLD at P = 1: method scaffold, " + why_measure),
        "DFL.T1": ({"K": s.M, "Q_max": s.K, "Q_min": s.K, "R": s.R, "Gamma_max": 0, "sigma_G": s.zeta,
                    "eta_0": s.eta} if fedavg and s.sigma == 0 else None,
                   "Democratic FL without staleness (Gamma_max = 0), every client K local steps, all M selected: "
                   "FedAvg" if fedavg else "Democratic FL at Gamma_max = 0: local_gd, no noise, " + why_measure),
    }


def coverage_nc(s: NCSetting, value: float, certified: bool, lower: float | None = None) -> list[dict[str, Any]]:
    """One row per non-convex result: ``key``, ``covers`` (``yes`` | ``order`` | ``no``), ``reason``, and where
    covered ``bound``, ``ratio`` and ``verdict``; ``lower``: a proved lower bound on the class's worst case."""
    from bounds.registry import get
    from verify.pep.compare import _evaluate

    out: list[dict[str, Any]] = []
    vals, why = _fast_t1(s)
    row: dict[str, Any] = {"key": "FAST.T1", "kind": "upper", "covers": "yes" if vals else "no", "reason": why}
    if vals:
        _evaluate(row, get("FAST.T1"), vals, value)
        row["verdict"] = _verdict(row.get("ratio"), row.get("bound"), certified, lower)
    out.append(row)
    for key, (vals, why) in _order_rules(s).items():
        res = get(key)
        row = {"key": key, "kind": "order", "covers": "order" if vals else "no", "reason": why}
        if vals:
            if "eps" in {sym.name for sym in res.symbols}:
                bound = _eps_at(res, vals, float(s.R))
                row.update(inputs=vals, bound=bound, bound_meaning="the eps whose round count equals R (hidden "
                           "constants = 1)")
            else:
                bound = float(res.evaluate(vals).value)
                row.update(inputs=vals, bound=bound, bound_meaning="right-hand side with hidden constants = 1")
            row["ratio"] = value / bound if bound else None
            row["verdict"] = ("order result: this ratio is not a check (hidden constants); its growth along the "
                              "horizon is (the sweep's fitted exponent)")
        out.append(row)
    return out


def _verdict(ratio: float | None, bound: float | None, certified: bool, lower: float | None) -> str:
    if ratio is None:
        return "no ratio (the bound is not positive)"
    if not certified:
        return "not certified: the ratio is the solver's, no conclusion"
    if ratio <= 1:
        return "proved at this setting: the certified worst case over a larger class is at most the bound"
    if lower is not None and bound is not None and lower > bound:
        return (f"violated: an instance of the class attains {lower:.6g} > bound {bound:.6g} (closed form, "
                "verify.pep.nonconvex_bracket)")
    return ("finding to confirm: the certified worst case of the (larger) PEP class exceeds the bound; no instance "
            "attaining more than the bound is known here")
