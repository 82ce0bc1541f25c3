"""A per-round certificate, valid for every horizon: E||x_{r+1} - x*||^2 <= rho E||x_r - x*||^2 + c.

**Setting**: a :class:`~verify.pep.setting.Setting` whose state between rounds is the server model alone
(``local_gd``, or ``fast`` with a snapshot law) and whose participation is a law drawn independently every
round (not a fixed schedule), any noise level; V(x) = ||x - x*||^2.
**Statement**: one round of the method, started from any x_r with ||x_r - x*||^2 <= D, is a PEP of fixed
size (it does not grow with R). Its dual certificate at D has multipliers beta_0 (initial distance) and
beta_j (heterogeneity, noise); by weak duality, for EVERY instance and every starting point,
E[||x_{r+1} - x*||^2 | x_r] <= beta_0 ||x_r - x*||^2 + sum_j beta_j b_j (the certificate does not depend
on D except through its multipliers). Taking expectations: V_{r+1} <= rho V_r + c with rho = beta_0,
c = sum_j beta_j b_j, both read from the exactly rechecked multipliers (verify.pep.exact), c rounded up.
Several tangent points D give several lines; V_{r+1} <= min over lines, iterated from V_0 = D0, bounds
every R (the minimum of valid bounds is valid; the iterate is monotone, so it is computed until it stops
moving). Exact at R = 1 at the tangent point D = D0; above the finite-R worst case otherwise (tested).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from bounds.core.errors import UserInputError
from verify.pep.psd import float_above
from verify.pep.setting import Setting, validate, validate_scale

_MAX_ITERATIONS = 10**6


@dataclass(frozen=True)
class Line:
    """One proved per-round inequality V' <= rho V + c, found at tangent point D (``value_at_D`` = rho D + c)."""

    D: float
    rho: float
    c: float
    certified: bool
    solver_status: str

    def at(self, v: float) -> float:
        return self.rho * v + self.c


def supports(s: Setting) -> str | None:
    """None when ``s`` has the one-vector state a per-round certificate needs; otherwise why not."""
    if s.method == "scaffold":
        return "SCAFFOLD carries control variates between rounds: its state is not x_r alone"
    if s.schedule is not None or s.I is not None:
        return "a fixed schedule changes from round to round; a per-round certificate needs an i.i.d. law"
    if s.measure != "dist_sq":
        return "the per-round certificate bounds ||x_R - x*||^2 (measure dist_sq)"
    return None


def round_line(s: Setting, D: float, solver: str = "CLARABEL") -> Line:
    """The line rho V + c certified by the one-round PEP of ``s`` started at ||x_0 - x*||^2 <= D."""
    from verify.pep.exact import recheck
    from verify.pep.sdp import build, solve_sdp

    one = replace(s, R=1, D0=D)
    sol = solve_sdp(build(one), solver)
    rc: dict[str, Any] = recheck(one, sol) if sol.value is not None else {"ok": False}
    if not rc.get("ok"):
        raise UserInputError(f"the one-round certificate at D={D:g} did not pass the exact recheck "
                             f"({rc.get('reason', sol.status)}); no per-round bound")
    betas: list[Fraction] = rc["betas"]
    rho = betas[0]  # the first bound is the initial distance (verify.pep.sdp.build)
    c = rc["tau"] - rho * Fraction(repr(float(D)))
    return Line(D, float_above(rho), float_above(c), sol.status == "optimal", sol.status)


def certificate(s: Setting, solver: str = "CLARABEL", tangents: int = 3) -> list[Line]:
    """Lines at D0, at the first line's fixed point c / (1 - rho) and between them (geometric), ``tangents`` in all."""
    from verify.pep.core import SOLVERS

    validate(s)
    if not isinstance(solver, str) or solver.upper() not in SOLVERS:
        raise UserInputError(f"unknown solver {solver!r}; valid: {', '.join(SOLVERS)} (no commercial solver)")
    why = supports(s)
    if why:
        raise UserInputError(f"no per-round certificate for this setting: {why}")
    validate_scale(replace(s, R=1))
    first = round_line(s, s.D0, solver)
    lines = [first]
    if first.rho < 1 and tangents > 1:
        fixed = first.c / (1 - first.rho)
        points = [fixed] if tangents == 2 else [s.D0 * (fixed / s.D0) ** (k / (tangents - 1))
                                                for k in range(1, tangents)]
        for D in points:
            if D > 0 and math.isfinite(D) and abs(D - s.D0) > 1e-12 * s.D0:
                lines.append(round_line(s, D, solver))
    return lines


def horizon_bound(lines: list[Line], D0: float, R: int) -> float:
    """min-over-lines iterated R times from D0: a bound on E||x_R - x*||^2 for this R (any R, even 10^22)."""
    v = D0
    r = 0
    while r < min(R, _MAX_ITERATIONS):
        nxt = min(line.at(v) for line in lines)
        r += 1
        if abs(nxt - v) <= 1e-15 * max(abs(v), 1e-300):
            return nxt  # a fixed point: every later iterate is the same
        v = nxt
    if r == R:
        return v
    # still moving after 10^6 rounds (rho >= 1 or a very slow contraction): every line is increasing, so
    # iterating one line alone is still a bound; its closed form rho^n v + c (1 - rho^n) / (1 - rho)
    best = min(lines, key=lambda ln: ln.at(v))
    n = R - r
    try:
        p = best.rho**n
    except OverflowError:
        return math.inf
    return p * v + (best.c * n if best.rho == 1 else best.c * (1 - p) / (1 - best.rho))


def record(s: Setting, horizons: list[int], solver: str = "CLARABEL") -> dict[str, Any]:
    """The certificate's lines and the bound at each horizon, as a JSON-ready dict."""
    lines = certificate(s, solver)
    return {"kind": "lyapunov", "parameters": s.to_dict(),
            "lines": [{"D": ln.D, "rho": ln.rho, "c": ln.c, "solver_status": ln.solver_status} for ln in lines],
            "bounds": {str(R): horizon_bound(lines, s.D0, R) for R in horizons},
            "statement": "E||x_R - x*||^2 <= the min-over-lines recursion from D0, for every R (exact recheck)"}
