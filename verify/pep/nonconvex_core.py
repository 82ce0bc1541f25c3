"""``solve_nc``: the worst case of a non-convex setting with its exactly rechecked certificate, and its record.

**Statement**: ``value`` is a proved upper bound on the worst case of the measure over the class of
verify.pep.nonconvex when ``certificate['status'] == 'certified'`` (the exact recheck of
verify.pep.nonconvex_solve passed); ``approximate`` otherwise (the solver's value, the residuals say why);
``failed`` when the solver returned nothing. With a window the PEP keeps fewer interpolation pairs (an upper
bound on the full PEP); ``lower_bound`` is then the full PEP's value where it was solved, else absent.
Sizes are estimated from the setting alone and refused above the limit before anything is built.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

from bounds.core.errors import UserInputError
from verify.pep.nonconvex import NCSetting, validate_nc
from verify.pep.nonconvex_bracket import full_pair_check, instance_lower_bound
from verify.pep.nonconvex_record import NCWorstCase
from verify.pep.nonconvex_rows import build_nc
from verify.pep.nonconvex_solve import DELTAS, pattern, solve_clarabel
from verify.pep.nonconvex_solve import recheck as exact_recheck
from verify.pep.setting import Law
from verify.pep.versions import record_versions

# measured on the shared 2-core machine under load 13-18 (tests/benchmarks/bench_pep_nonconvex.py): the dense route
# (one PSD cone) 2.1 s at d = 30, 109 s at d = 62 (uniform 1 of 2, R = 3, 4): about 0.22 s at d = 20 growing like
# d^5.4; the chordal route (hetero rounds, window 1) 50 s at d = 2002 with cliques of 22 rows: about 10 ms per Gram
# row at cliques of 20, scaled by (clique / 20)^2; hetero 'evaluated' is measured 10x slower (solver accuracy)
DENSE_AT_20 = 0.22
DENSE_EXPONENT = 5.4
BAND_PER_ROW = 1.0e-2
MAX_SECONDS = 600.0


def estimate_nc(s: NCSetting, window: int | None) -> dict[str, float]:
    """Gram rows, clique size and the estimated seconds, from the setting's numbers alone (logs, no overflow)."""
    P = (s.law or Law("full")).pattern_count(s.M)  # a float, inf when astronomically large
    if P <= 1:
        nodes = float(s.R + 1)
    else:
        lg = (s.R + 1) * math.log(P) - math.log(P - 1) if math.isfinite(P) else math.inf
        nodes = math.exp(lg) if lg < 700 else math.inf
    per_node = s.M * (1 + (s.M if s.hetero == "evaluated" else 1) * (s.K - 1)) + (s.M * s.K if s.sigma > 0 else 0)
    d = nodes * per_node
    clique = per_node + 2
    if window is None or s.sigma > 0:
        secs = DENSE_AT_20 * (d / 20) ** DENSE_EXPONENT
    else:
        secs = BAND_PER_ROW * d * (clique / 20) ** 2 * (10 if s.hetero == "evaluated" and s.K > 1 else 1)
    return {"gram_rows": d, "clique": clique if window is not None else d, "estimated_seconds": secs,
            "gradients": float(nodes * s.M * s.K)}


def solve_nc(s: NCSetting, *, window: int | None = None, max_seconds: float = MAX_SECONDS,
             recheck: bool = True) -> NCWorstCase:
    """The worst case of ``s`` (validated; refused before anything is built when the estimate exceeds
    ``max_seconds``) with its certificate (module doc)."""
    validate_nc(s)
    if window is not None and (isinstance(window, bool) or not isinstance(window, int) or window < 1):
        raise UserInputError(f"window={window} must be an integer >= 1 (chain links kept) or omitted (every pair)")
    if window is not None and not s.full():
        raise UserInputError("a window needs full participation (the chordal route); omit --window for random laws")
    est = estimate_nc(s, window)
    if est["estimated_seconds"] > max_seconds:
        raise UserInputError(f"this non-convex worst case is too large: {est['gram_rows']:.3g} Gram rows, estimated "
                             f"{est['estimated_seconds']:.3g} s over the limit of {max_seconds:g} s; fewer rounds, local "
                             "steps or clients, full participation with --window 1, or hetero 'rounds' would fit")
    t0 = time.perf_counter()
    pb = build_nc(s, window)
    cliques, filled = pattern(pb, window is None)
    built = time.perf_counter() - t0
    notes = [f"PEP: {pb.pairs_kept} of {pb.pairs_full} interpolation pairs kept"
             + (f" (window {window})" if window is not None else "") + f"; {len(cliques)} PSD cone(s) of at most "
             f"{max(len(c) for c in cliques)} rows, d = {pb.d}; built in {built:.2f} s"]
    sol = None
    rc: dict[str, Any] = {"ok": False, "reason": "no solution"}
    for delta in DELTAS:
        sol = solve_clarabel(pb, cliques, filled, delta)
        if sol.value is None or not recheck:
            rc = {"ok": False, "reason": "exact recheck not requested" if sol.value is not None else "no solution"}
            break
        rc = exact_recheck(pb, sol)
        if rc.get("ok"):
            break
        notes.append(f"the certificate at trace weight {delta:g} missed the exact recheck ({rc.get('reason')})")
    assert sol is not None
    seconds = time.perf_counter() - t0
    cert = _certificate(sol, rc)
    value = rc["bound"] if rc.get("ok") else sol.value
    notes += _assumption_notes(s)
    exactness = ("exact (one client, no noise, initial F_R, every pair: PEPit's PEP of gradient descent)"
                 if s.M == 1 and s.sigma == 0 and s.initial == "F_R" and window is None else
                 "upper bound (the class's necessary conditions: interpolation, F >= F_inf via ||grad F||^2 <= "
                 "2L (F - F_inf), dissimilarity at the evaluated points" + (f"; window {window}" if window else "")
                 + ")")
    _bracket(s, pb, sol, filled, window, cert, notes)
    size = {**est, "gram_rows": pb.d, "rows": len(pb.rows), "cliques": len(cliques),
            "largest_clique": max(len(c) for c in cliques), "gradients": pb.gradients}
    return NCWorstCase(s, value, sol.primal, sol.status, cert, seconds, window, exactness, tuple(notes),
                       record_versions(), size)


def _bracket(s: NCSetting, pb: Any, sol: Any, filled: Any, window: int | None, cert: dict[str, Any],
             notes: list[str]) -> None:
    """The lower end: a closed-form instance (proved) and, with a window, whether the windowed optimum is feasible
    for the full PEP (attained in floating point); verify.pep.nonconvex_bracket."""
    inst = instance_lower_bound(s)
    up = cert.get("proved_upper_bound")
    if inst is not None:
        cert.update(lower_bound=inst["value"], lower_bound_exact=inst["exact"], lower_bound_kind="proved: " +
                    inst["instance"])
        if up is not None:
            notes.append(f"proved bracket of the worst case over the class: [{inst['value']:.10g}, {up:.10g}] (lower: "
                         f"{inst['instance']}, exactly {inst['exact']})")
    if window is not None and sol.gram is not None:
        chk = full_pair_check(pb, sol.gram, sol.scalars, filled)
        cert.update(full_pair_check=chk)
        if chk["holds"] and sol.primal is not None:
            cert.update(full_pep_lower_bound=sol.primal, full_pep_lower_bound_kind="attained in floating point")
            notes.append(f"the windowed optimum, completed, satisfies every dropped pair (largest violation "
                         f"{chk['largest_violation']:.2e}): the full PEP's value is at least {sol.primal:.10g}, "
                         "attained in floating point")
        else:
            notes.append(f"the windowed optimum, completed, violates a dropped pair by {chk['largest_violation']:.3g}: "
                         "no floating-point lower end of the full PEP is claimed")


def _certificate(sol: Any, rc: Mapping[str, Any]) -> dict[str, Any]:
    if sol.value is None:
        return {"status": "failed", "reason": f"solver status {sol.status}: no value"}
    bound = rc.get("bound") if rc.get("ok") else None
    return {"status": "certified" if bound is not None else "approximate",
            "recheck": "exact rational, chordal Cholesky (verify.pep.nonconvex_solve)", "proved_upper_bound": bound,
            "reason": "" if bound is not None else rc.get("reason", ""), "primal_objective": sol.primal,
            "solver_objective": sol.value, "gap_to_primal": None if bound is None or sol.primal is None else
            bound - sol.primal, "trace_weight": sol.delta,
            **{k: rc[k] for k in ("t", "frobenius_residual", "balance_fix", "negative_multipliers", "min_eig_float",
                                  "seconds") if k in rc}}


def _assumption_notes(s: NCSetting) -> list[str]:
    het = ("every client is evaluated at every point any client visits, and ||grad f_i - grad F|| <= zeta is imposed "
           "at all of them (bounded dissimilarity at every evaluated point)" if s.hetero == "evaluated" else
           "||grad f_i - grad F|| <= zeta is imposed at the global models x_r only (a relaxation of the bound "
           "everywhere)")
    init = ("F(x_0) - F_inf <= Delta with F(y) - F_inf >= ||grad F(y)||^2 / (2L) at every point where grad F is known"
            if s.initial == "F_inf" else "F(x_0) - F(x_R) <= Delta on every branch (PEPit's form; contains the F_inf class)")
    out = [f"heterogeneity: {het}", f"initial condition: {init}"]
    if s.sigma > 0:
        out.append("noise: the value bounds the worst case over every noise law with E[xi | past] = 0 and "
                   "E||xi||^2 <= sigma^2 from above (expected Gram matrix), as verify.pep.sdp")
    return out
