"""The missing order: which power of which quantity the LHS's floor has and the RHS lacks, and the repair's constant.

**Setting**: a refuted UPPER result with a scenario in the exact closed form's setting (:mod:`verify.erratum.closed`)
and a declared list of rays (:data:`RAYS`): point moves that change one quantity of the instance at a time.
**Quantity**: along each ray, the exact limit Lambda of the LHS as R grows at each point, and the least-squares
slope of log Lambda against log of the quantity (the exponent); rounded to the nearest 1/2 where it is within
ROUND_TOL. The RHS's own exponents are read from its terms (``as_coeff_exponent``).
**Statement**: the missing order is the step-size power the LHS's floor has with the heterogeneity symbol while
no RHS term carries that symbol at that power. The repair's constant: c_needed = max over the instances of
sup_R (LHS(R) - RHS(R)) / shape (R on the axis's log grid and R -> infinity), shape = the product of the rounded
powers; the registered repaired result's constant is read from its terms and set beside it at each instance (margin =
c / c_needed there; the least over the instances).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from verify.erratum.closed import ExactForm, exact_form
from verify.scenario import Scenario

__all__ = ["RAYS", "Ray", "missing_order", "repair_constant"]

ROUND_TOL = 0.05  # a fitted exponent within this of a multiple of 1/2 is read as that multiple


@dataclass(frozen=True)
class Ray:
    """Points along which one quantity moves: ``quantity`` (its name) is read off each instance by ``read``."""

    quantity: str
    symbol: str  # the RHS symbol whose power is measured (sympy name), or "" for a compound quantity
    # point updates applied to the base point (:func:`_move`), or a function base point -> moved point where a
    # quantity is held only by moving another axis with it (FAST.T2: the step with het rescaled)
    moves: tuple[dict[str, Any] | Callable[[Mapping[str, Any]], dict[str, Any]], ...]
    read: str  # how to read the quantity off an instance's values: a sympy expression in their names


# FAST Theorem 1 (both variants): eta_c alone (eta_frac), sigma_G^2 alone (zeta), K with eta_c held (eta_frac * K:
# the cap is 1/(8LK)), the sampling factor alone (m of M = 4, the problem does not depend on m; eta_frac scaled by
# the cap min(1/(8LK), 1/(5mLK)) at m = 1, 2, 3: 1, 5/4, 15/8, so that eta_c stays)
_T1_RAYS = (
    Ray("eta_c", "eta_c", ({}, {"eta_frac": 0.5}, {"eta_frac": 0.25}), "eta_c"),
    Ray("sigma_G^2", "sigma_G", ({}, {"zeta": 0.5}, {"zeta": 0.25}), "sigma_G**2"),
    Ray("K", "K", ({"K": 1}, {"K": 2}, {"K": 4}), "K"),
    Ray("(M - m)/(m (M - 1))", "", ({"M": 4, "m_frac": 0.25}, {"M": 4, "m_frac": 0.5, "eta_frac": 1.25},
                                    {"M": 4, "m_frac": 0.75, "eta_frac": 1.875}), "(M - m)/(m*(M - 1))"),
)


def _t2_step(factor: float) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """FAST.T2's step times ``factor`` with sigma_G held: het is relative to a scale that moves with the step
    (zeta^2 = het s(eta), :func:`verify.scenarios.fast.t2_het_scale`), so het moves by s(eta) / s(factor eta)."""
    from verify.scenarios.fast import t2_het_scale

    def move(point: Mapping[str, Any]) -> dict[str, Any]:
        out = {**point, "eta_frac": float(point["eta_frac"]) * factor}
        out["het"] = float(point["het"]) * t2_het_scale(point) / t2_het_scale(out)
        return out
    return move


# FAST Theorem 2 (corrected): the step upwards (a step down with sigma_G held raises the printed q-threshold, and so
# q: another quantity would move), sigma_G^2 alone (het; the threshold 1 - 1/het stays below 0, q stays 0 where the
# base has q_frac = 0 and het <= 1)
_T2_RAYS = (
    Ray("eta_c", "eta_c", (_t2_step(1.0), _t2_step(2.0), _t2_step(4.0)), "eta_c"),
    Ray("sigma_G^2", "sigma_G", ({}, {"het": 0.5}, {"het": 0.25}), "sigma_G**2"),
)
RAYS: dict[str, tuple[Ray, ...]] = {"FAST.T1": _T1_RAYS, "FAST.T1@repaired": _T1_RAYS,
                                    "FAST.T2@corrected": _T2_RAYS, "FAST.T2@repaired": _T2_RAYS}


def _move(point: Mapping[str, Any], move: Mapping[str, Any] | Callable[[Mapping[str, Any]], dict[str, Any]],
          ray: Ray) -> dict[str, Any]:
    """The base point with ``move`` applied: "eta_frac"/"zeta"/"het" scale the base value; K scales eta_frac with
    it; a function is applied to the base point."""
    if callable(move):
        return move(point)
    out = dict(point)
    for k, v in move.items():
        if k in ("eta_frac", "zeta", "het"):
            out[k] = point[k] * v
        elif k == "K":
            out["K"], out["eta_frac"] = v, point["eta_frac"] * v / point["K"]
        else:
            out[k] = v
    return out


def _quantity(form: ExactForm, scenario: Scenario, ray: Ray) -> float:
    inst = scenario.build(scenario.point(form.point))
    vals = {**inst.values, **{k: inst.describe[k] for k in ("M", "m") if k in inst.describe}}
    return float(sp.sympify(ray.read).subs(vals))


def missing_order(scenario: Scenario, point: Mapping[str, Any]) -> dict[str, Any]:
    """Exponents of the LHS's limit along each declared ray and the order the RHS lacks (module docstring)."""
    import bounds

    rays = RAYS.get(scenario.result)
    if rays is None:
        return {"derived": False, "why": f"no rays declared for {scenario.result} (verify.erratum.missing.RAYS)"}
    forms, fits = [], []
    for ray in rays:  # one quantity moves along a ray; the others are read and must stay put ("others_held")
        xs, ys, others = [], [], []
        for move in ray.moves:
            form = exact_form(scenario, _move(point, move, ray))
            if isinstance(form, str) or form.lhs_limit is None or form.lhs_limit <= 0:
                return {"derived": False, "why": f"ray {ray.quantity}: no positive exact limit "
                                                 f"({form if isinstance(form, str) else 'limit not positive'})"}
            forms.append(form)
            xs.append(math.log(_quantity(form, scenario, ray)))
            others.append(tuple(round(_quantity(form, scenario, r), 12) for r in rays if r is not ray))
            ys.append(math.log(float(form.lhs_limit)))
        slope = float(np.polyfit(xs, ys, 1)[0])
        half = round(2 * slope) / 2
        fits.append({"quantity": ray.quantity, "symbol": ray.symbol, "read": ray.read, "points": len(xs),
                     "exponent_fitted": slope, "exponent": half if abs(slope - half) <= ROUND_TOL else None,
                     "others_held": len(set(others)) == 1,
                     "limits": [str(f.lhs_limit) for f in forms[-len(xs):]]})
    res = bounds.get(scenario.result)
    rhs_powers = _rhs_powers(res, ("eta_c", "sigma_G"))
    eta = next(f for f in fits if f["symbol"] == "eta_c")["exponent"]
    het_powers = [p["eta_c"] for p in rhs_powers if p.get("sigma_G", 0) > 0]
    missing = eta is not None and all(p != eta for p in het_powers)
    return {"derived": True, "rays": fits, "rhs_terms": rhs_powers, "missing": missing,
            "statement": _statement(fits, het_powers) if missing else
            "the LHS's floor has no power the RHS lacks along these rays", "forms": forms}


def _rhs_powers(res: Any, names: Sequence[str]) -> list[dict[str, Any]]:
    """Each RHS term's power of each named symbol (0 when absent; None when not a power of it)."""
    out = []
    for t in res.terms:
        row: dict[str, Any] = {"term": t.name}
        for n in names:
            s = next((x for x in t.expr.free_symbols if x.name == n), None)
            if s is None:
                row[n] = 0
                continue
            coeff, power = sp.expand(t.expr).as_coeff_exponent(s)
            row[n] = float(power) if not coeff.has(s) else None
        out.append(row)
    return out


def _statement(fits: Sequence[Mapping[str, Any]], het_powers: Sequence[Any]) -> str:
    parts = [f"{f['quantity']}^{f['exponent']:g}" if f["exponent"] not in (None, 1) else f["quantity"] for f in fits
             if f["exponent"] != 0 and f["symbol"] != "eta_c"]
    eta = next(f for f in fits if f["symbol"] == "eta_c")["exponent"]
    order = {0: "zeroth", 1: "first", 2: "second", 0.5: "half"}.get(eta, f"{eta:g}")
    return (f"the LHS's floor is of {order} order in eta_c, proportional to {', '.join(parts)}; the RHS's only "
            f"sigma_G^2 terms are of order eta_c^{', '.join(f'{p:g}' for p in het_powers)}")


def shape_expr(fits: Sequence[Mapping[str, Any]], res: Any) -> sp.Expr:
    """The product of each ray's quantity to its rounded power, in ``res``'s own symbols, times L to eta_c's power
    (K eta_c L is dimensionless; L = 1 on every instance, so its power is set by units, not fitted)."""
    syms = {x.name: x for x in res.rhs.free_symbols}
    out = sp.Integer(1)
    for f in fits:
        out *= sp.sympify(f["read"], locals=syms) ** sp.Rational(str(f["exponent"]))
    eta_power = next(sp.Rational(str(f["exponent"])) for f in fits if f["symbol"] == "eta_c")
    if eta_power == 0:  # no step power to make dimensionless (FAST.T2's RHS names no L)
        return out
    return out * syms["L"] ** eta_power


def repair_constant(forms: Sequence[ExactForm], shape: sp.Expr, repaired_key: str, base_key: str) -> dict[str, Any]:
    """c_needed over ``forms`` and the registered repaired result's constant (module docstring)."""
    import mpmath

    import bounds

    rep, base = bounds.get(repaired_key), bounds.get(base_key)
    c_reg = sp.simplify((rep.rhs - base.rhs) / shape)
    needed, rows, margins = 0.0, [], []
    for f in forms:
        at = {x: (f.values[x.name] if x.name in f.values else sp.Integer(int(f.point[x.name])))
              for x in shape.free_symbols}
        s = float(shape.subs(at))
        R = next(iter(f.lhs.free_symbols | f.rhs.free_symbols), sp.Symbol("R"))
        gap = sp.lambdify(R, f.lhs - f.rhs, "mpmath")
        with mpmath.workdps(30):
            grid = np.unique(np.geomspace(f.R_axis[0], f.R_axis[1], 120).round().astype(int))
            tail = float(f.lhs_limit - f.rhs_limit) if f.lhs_limit is not None else -math.inf
            sup = max([float(gap(int(r))) for r in grid] + [tail])
        c = sup / s if s > 0 else math.inf
        needed = max(needed, c)
        # the registered constant at this instance: a number, or an expression in the instance's inputs (FAST.T2's
        # (1 - q)^2 / mu^2 against the shape sigma_G^2)
        here = float(c_reg.subs({x: f.values[x.name] if x.name in f.values else sp.Integer(int(f.point[x.name]))
                                 for x in c_reg.free_symbols}))
        margin = here / c if c > 0 else None
        margins += [] if margin is None else [margin]
        rows.append({"point": f.point, "shape_value": s, "sup_gap": sup, "c_needed": c, "c_registered": here,
                     "margin": margin})
    return {"c_needed": needed, "instances": rows, "c_registered": str(c_reg),
            "margin": min(margins) if margins else None}
