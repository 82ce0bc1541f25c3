"""Which non-convex results a non-convex worst case covers, and the tightness (worst case / bound) of each.

**Setting**: the PEP class of verify.pep.nonconvex imposes the dissimilarity ||grad f_i - grad F|| <= zeta only at
evaluated points and F >= F_inf through a necessary condition, so it contains the class of every result whose rule
(:mod:`bounds.pep_cover`, declared per result beside it) covers the setting: the certified value bounds each such
result's worst case from above. A certified ratio <= 1 therefore proves an **upper** bound at the setting; a ratio
> 1 is a finding only where an instance of the class attains more than the bound (the closed-form instance of
verify.pep.nonconvex_bracket: ``lower_bound``), else inconclusive.
**Order results** (hidden constants): the row evaluates the right-hand side with every hidden constant = 1; the
ratio is then not a check of the theorem, only its change along the horizon is (verify.pep.nonconvex_sweep).
A result stated as a round count to reach eps is read at the eps whose round count equals R.
"""

from __future__ import annotations

import math
from typing import Any

from verify.pep.compare import evaluate_cover
from verify.pep.nonconvex import NCSetting


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


def coverage_nc(s: NCSetting, value: float, certified: bool, lower: float | None = None) -> list[dict[str, Any]]:
    """One row per result whose rule speaks of non-convex worst cases (registry order): ``key``, ``kind``,
    ``covers`` (``yes`` | ``order`` | ``no``), ``reason``, and where covered ``bound``, ``ratio`` and ``verdict``;
    ``lower``: a proved lower bound on the class's worst case."""
    from bounds.registry import all_results, pep_rule

    out: list[dict[str, Any]] = []
    for res in all_results():
        declared = pep_rule(res)
        cover = declared.at_nonconvex(s) if declared is not None else None
        if cover is None:
            continue
        row: dict[str, Any] = {"key": res.key, "kind": str(getattr(res.kind, "value", res.kind)),
                               "covers": cover.covers, "reason": cover.reason}
        vals = dict(cover.inputs) if cover.inputs else None
        if cover.covers == "yes" and vals:
            evaluate_cover(row, res, cover, value)
            row["verdict"] = _verdict(row.get("ratio"), row.get("bound"), certified, lower)
        elif cover.covers == "order" and vals:
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
