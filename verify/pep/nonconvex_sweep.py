"""Tightness of the non-convex results along the horizon, and the settings the report shows.

**Quantity**: for R in ``horizons`` the certified worst case (the chordal route, window 1: an upper bound on the
full PEP, which bounds the class's worst case) and, per covering result, worst case / bound (verify.pep
.nonconvex_cover). The fitted exponent a of worst ~ R^a (least squares in log-log over the last four horizons)
is compared with each result's claimed R-exponent.
**Statement**: a finite-horizon fit, not a proof. For an order result the ratio's level means nothing (hidden
constants = 1); a ratio that grows along the horizon says the worst case decays slower than the stated order
at this fixed step, which contradicts the theorem only where the theorem allows this step at every R (some
results' step sizes depend on R or carry caps, stated per row).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from verify.pep.nonconvex import NCSetting
from verify.pep.nonconvex_core import NCWorstCase, solve_nc
from verify.pep.nonconvex_cover import coverage_nc

HORIZONS = (1, 2, 4, 8, 16, 32)


def fit_exponent(rs: list[float], vs: list[float]) -> float | None:
    """Slope of log v against log r over the last four points (None with fewer than two positive values)."""
    pts = [(math.log(r), math.log(v)) for r, v in zip(rs, vs) if v and v > 0][-4:]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    den = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / den if den else None


def horizon_sweep(s: NCSetting, horizons: tuple[int, ...] = HORIZONS) -> list[dict[str, Any]]:
    """Per horizon: R, the certified value, its certificate status, and every covering result's ratio."""
    out = []
    for R in horizons:
        sr = replace(s, R=R)
        w = solve_nc(sr, window=1 if sr.full() and R > 1 else None, max_seconds=120.0)
        cov = coverage_nc(sr, w.value, w.certified, w.certificate.get("lower_bound")) if w.value is not None else []
        out.append({"R": R, "kind": "certified upper bound (window 1)" if R > 1 and sr.full() else "full PEP",
                    "value": w.value, "certified": w.certified,
                    "results": {c["key"]: {"ratio": c.get("ratio"), "bound": c.get("bound"),
                                           "hypotheses_hold": c.get("hypotheses_hold")}
                                for c in cov if c["covers"] != "no"}})
    return out


def trend(sweep: list[dict[str, Any]]) -> dict[str, Any]:
    """The fitted exponents of the worst case and of each result's ratio along the horizon."""
    rs = [row["R"] for row in sweep]
    keys = list(dict.fromkeys(k for row in sweep for k in row["results"]))
    return {"worst_case_exponent": fit_exponent(rs, [row["value"] for row in sweep]),
            "ratio_exponents": {k: fit_exponent(rs, [row["results"].get(k, {}).get("ratio") for row in sweep])
                                for k in keys}}


def report_settings_nc() -> list[NCSetting]:
    """Local GD measured over rounds 1..R at eta = 0.05 (K = 2, inside the step caps eta <= min(1/(8LK), 1/(5LK)) of
    the result that covers it at q = 1, m = n = 2); local GD and SCAFFOLD measured at a uniformly chosen iterate at
    the same constants (SCAFFOLD at eta = 0.008: gamma eta <= 1/(60 L I P) at P = 1, gamma = 1, the cap of the
    amplified form that covers it); dissimilarity at the models x_r (the chordal route's relaxation, an upper
    bound). Which results each covers is their rules' answer (bounds.pep_cover), not this list's."""
    base = dict(L=1.0, zeta=0.3, K=2, R=4, M=2, Delta=1.0, hetero="rounds")
    return [NCSetting("local_gd", eta=0.05, measure="avg_grad_sq", **base),  # type: ignore[arg-type]
            NCSetting("local_gd", eta=0.05, measure="avg_grad_sq0", **base),  # type: ignore[arg-type]
            NCSetting("scaffold", eta=0.008, measure="avg_grad_sq0", **base)]  # type: ignore[arg-type]


def report_record_nc(s: NCSetting, horizons: tuple[int, ...] = HORIZONS) -> NCWorstCase:
    """``solve_nc(s)`` with its coverage, horizon sweep and trend attached (the report's non-convex rows)."""
    w = solve_nc(s)
    cov = coverage_nc(s, w.value, w.certified, w.certificate.get("lower_bound")) if w.value is not None else []
    sweep = horizon_sweep(s, horizons)
    tr = trend(sweep)
    for c in cov:
        if c["covers"] != "no":
            c["ratio_exponent_along_R"] = tr["ratio_exponents"].get(c["key"])
    return replace(w, coverage=tuple(cov), sweep=tuple(sweep), trend=tr)
