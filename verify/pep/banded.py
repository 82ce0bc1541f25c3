"""A certified upper bound on the finite-R worst case at long horizons: a windowed PEP with a chordal certificate.

**Statement**: for local GD with full participation (any M, reduced to two clients by agent symmetry as in
:func:`verify.pep.core.reduce_symmetric`), no noise and the measure ``dist_sq``, the value is a proved upper
bound on the worst case of ||x_R - x*||^2 over the class of :mod:`verify.pep.setting`; exact when the window
keeps every pair (``window >= K R - 1``: the full PEP of verify.pep.solve).
**Window**: of each client's interpolation inequalities (Taylor, Hendrickx & Glineur) only those between
points at most ``window`` local steps apart and those with x* are kept. Dropping constraints of a
maximisation can only raise its value, so every window gives an upper bound; the gap to the full PEP is
measured (tests/verify/test_pep_band.py, README), not proved small.
**Basis**: the Gram matrix is written over e0 = x_0 - x*, per round the clients' gradients (client M's last
left out) and the next model x_{r+1} (which fixes that gradient: x_{r+1} = x_r - eta eta_g / M sum of the
round's gradients), then s_i = grad f_i(x*) last. This is an invertible linear change from the gradient basis
of verify.pep.sdp, so PSD-ness is unchanged, and every iterate is x_r minus a few gradients of its own round:
every kept inequality, the objective and the bounds touch only vectors of one or two consecutive rounds plus
the s_i, so the aggregate sparsity pattern is a band with a border. (An iterate basis is banded too, but
measured, it leaves Clarabel far from optimal: gradients there are differences of nearly equal vectors.) Its
chordal extension in this order (symbolic elimination, border last) has cliques of about M (K + window) + 2
vectors, and a partial Gram matrix whose clique blocks are PSD has a PSD completion (Grone et al. 1984), so
the SDP is solved with one small PSD cone per clique: size linear in K R for a fixed K. Clarabel is called
directly (cvxpy's compilation of thousands of cones would dominate the time).
**Certificate**: the multipliers of the kept inequalities and bounds, rounded to multiples of 2^-40 (value
balance restored exactly by raising a pair with x*, as verify.pep.exact does), give S = sum lambda A +
sum beta B - C in exact rationals; S is proved PSD by a float Cholesky factor R of S - tI (t = delta / 2, or
a tenth of it, ...) in the same
elimination order (R has no fill outside the chordal pattern) and the exact check ||S - tI - R R^T||_F <= t.
Then ||x_R||^2 <= sum beta_b b_b =: tau for every instance (weak duality), whatever the solver did.
``certified`` means exactly that (the record's exactness says ``upper bound``); the solver's trace weight
(S >= delta I, the margin the rounding needs) moves the bound above the windowed problem's attained value by
about delta trace(G): ``gap_to_primal``. Clarabel stops at ``AlmostSolved`` on these problems (the dense
windowed problem too, measured), so the weight starts at 3e-9 and is raised (1e-8, 1e-7, 1e-6) until the
recheck passes.
**Lower bound**: the larger of the worst two-client quadratic instance in one or two dimensions that
verify.pep.lower finds (a grid and a seeded search; float64) and the farthest fixed point of one round,
proved by an exactly feasible point of its one-round PEP (verify.pep.fixed_point; started there the method
never moves, at every R): [lower, upper] brackets the exact worst case.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from bounds.core.errors import UserInputError
from verify.pep.banded_build import Banded, build_banded, chordal_cliques
from verify.pep.banded_sdp import BandSolved, recheck_banded, solve_banded_sdp
from verify.pep.core import WorstCase, _up, normalise, reduce_symmetric
from verify.pep.fixed_point import down, fixed_point_lower_bound
from verify.pep.lower import quadratic_lower_bound
from verify.pep.setting import Setting, validate, validate_scale
from verify.pep.size import MAX_SECONDS, Size, _machine_gb, banded_estimate
from verify.pep.versions import record_versions

RETRY_DELTAS = (1e-8, 1e-7, 1e-6)
SUPPORTED = ("the banded route supports method local_gd, full participation (any M; M > 2 is solved with 2 by "
             "agent symmetry), sigma = 0, mu < L (mu = L: the regular route needs no inequalities) and measure dist_sq")
# the bracket [lower, upper] counts as closed below this relative width
CLOSED = 1e-6


def supports(s: Setting) -> str | None:
    """None when the banded route covers ``s``, else what it supports (one line)."""
    if s.method != "local_gd" or s.sigma != 0 or s.measure != "dist_sq" or not s.full_every_round() \
            or not s.mu < s.L:
        return SUPPORTED
    return None


def solve_banded(s: Setting, *, window: int = 1, max_seconds: float = MAX_SECONDS, recheck: bool = True,
                 lower: bool = True) -> Any:
    """The windowed, chordal PEP of ``s``: a certified upper bound on its worst case (module doc), as a WorstCase."""
    _refuse_unsupported(s, window)
    solved, symmetry = reduce_symmetric(s)
    size = check_banded(solved, window, max_seconds)  # before anything is built
    validate_scale(solved)
    unit, factor = normalise(solved)
    t0 = time.perf_counter()
    run = _Run.solve(unit, window, recheck)
    seconds = time.perf_counter() - t0
    sol, notes = run.sol, run.notes
    value, primal = sol.value, sol.primal
    bound = run.rc.get("bound") if run.rc.get("ok") else None
    if factor != 1.0:
        notes.append(f"solved in units L = D0 = 1 and scaled back by {factor:g} (the proved bound rounded up)")
        value = _up(value, factor)
        primal = None if primal is None else primal * factor
        bound = _up(bound, factor)
    full = window >= s.K * s.R - 1
    cert = _certificate(run, bound, primal, value)
    status = cert["status"]
    exactness = "exact" if full and status == "certified" else f"upper bound (sparse certificate, window {window})"
    if lower:
        up = bound if bound is not None else value
        exactness = _bracket(solved, unit, factor, cert, notes, (bound, up, full, window, exactness))
    if status == "certified" and sol.status != "optimal":
        notes.append(f"certified by the exact rational recheck although the solver reported {sol.status}: the recheck "
                     "proves the bound from the solver's multipliers, whatever the solver's own accuracy")
    if full:
        notes.append("the window keeps every pair: this is the full PEP, in the iterate basis")
    return WorstCase(s, bound if bound is not None else value, primal, sol.status, "CLARABEL", cert, seconds, (),
                     tuple(notes), record_versions(), exactness, symmetry,
                     {"gradients": size.gradients, "gram_rows": run.pb.d, "estimated_seconds": size.seconds,
                      "estimated_gb": size.gb, "window": window, "cliques": len(run.cliques)})


def _refuse_unsupported(s: Setting, window: int) -> None:
    """One line for a setting or window the banded route does not cover."""
    validate(s)
    why = supports(s)
    if why is not None:
        raise UserInputError(f"{why}; got method={s.method}, participation={s.to_dict()['participation']}, "
                             f"sigma={s.sigma}, mu={s.mu}, L={s.L}, measure={s.measure}")
    if isinstance(window, bool) or not isinstance(window, int) or window < 0:
        raise UserInputError(f"window={window} must be an integer >= 0 (local steps apart; 0: pairs with x* only)")


@dataclass
class _Run:
    """The windowed PEP built, solved and rechecked (with larger trace weights while the recheck misses)."""

    pb: Banded
    cliques: list[list[int]]
    sol: BandSolved
    rc: dict[str, Any]
    notes: list[str]

    @classmethod
    def solve(cls, unit: Setting, window: int, recheck: bool) -> _Run:
        t0 = time.perf_counter()
        pb = build_banded(unit, window)
        keys = {k for _, _, _, q, _ in pb.rows for k in q} | {k for _, q, _ in pb.bounds for k in q} | set(pb.objective)
        cliques, filled = chordal_cliques(pb.d, sorted(keys))
        order = sorted(filled)
        build_s = time.perf_counter() - t0
        sol = solve_banded_sdp(pb, order, cliques)
        notes = [f"windowed PEP: {pb.pairs_kept} of {pb.pairs_full} interpolation inequalities kept (window {window}); "
                 f"{len(cliques)} PSD cones of at most {max(len(c) for c in cliques)} rows on a chordal pattern of "
                 f"{len(filled)} Gram entries (d = {pb.d}); built in {build_s:.2f} s"]
        rc: dict[str, Any] = recheck_banded(pb, sol, filled) if recheck and sol.value is not None else \
            {"ok": False, "reason": "exact recheck not requested" if sol.value is not None else "no solution"}
        for delta in RETRY_DELTAS:
            if not recheck or sol.value is None or rc.get("ok"):
                break
            # the solver's residual S misses the margin: a larger trace weight (the bound moves up by about
            # delta * trace(G), reported as gap_to_primal)
            notes.append(f"the certificate at trace weight {sol.delta:g} missed the exact recheck ({rc.get('reason')}); "
                         f"solved again with {delta:g}")
            sol = solve_banded_sdp(pb, order, cliques, delta=delta)
            rc = recheck_banded(pb, sol, filled) if sol.value is not None else {"ok": False, "reason": "no solution"}
        return cls(pb, cliques, sol, rc, notes)


def _certificate(run: _Run, bound: float | None, primal: float | None, value: float | None) -> dict[str, Any]:
    """The record's certificate: its status, the proved bound, and the recheck's residuals."""
    sol, rc = run.sol, run.rc
    gap = None if bound is None or primal is None else bound - primal
    # certified: the exact recheck proved the value an upper bound (all this route claims); how far the attained
    # value of the windowed problem lies below it is gap_to_primal, and the bracket bounds the exact worst case
    status = "failed" if sol.value is None else "certified" if bound is not None else "approximate"
    return {
        "status": status, "recheck": "exact rational, chordal Cholesky (verify.pep.banded)",
        "proved_upper_bound": bound, "reason": rc.get("reason", "") if status != "certified" else "",
        "primal_objective": primal, "solver_objective": value, "gap_to_primal": gap, "trace_weight": sol.delta,
        **{k: rc[k] for k in ("t", "frobenius_residual", "balance_fix", "negative_multipliers", "min_eig_float",
                              "seconds") if k in rc}}


def _bracket(solved: Setting, unit: Setting, factor: float, cert: dict[str, Any], notes: list[str],
             ends: tuple[float | None, float | None, bool, int, str]) -> str:
    """The lower end of the bracket (the worst quadratic instance, and the farthest fixed point of one round),
    into ``cert`` and ``notes``; returns the exactness, closed when the bracket is narrower than CLOSED.
    ``ends``: (proved bound, upper end, full window, window, exactness so far)."""
    bound, up, full, window, exactness = ends
    t1 = time.perf_counter()
    lb, inst = quadratic_lower_bound(solved)
    cert.update(lower_bound=lb, lower_bound_instance=inst)
    notes.append(f"lower bound {lb:.10g}: the worst {inst['dimension']}-D two-client quadratic instance found "
                 "(verify.pep.lower; attained in floating point, float64)")
    if bound is not None and not full and bound - lb <= CLOSED * bound:
        exactness = (f"exact within {(bound - lb) / bound:.1e} relative (upper: sparse certificate, window "
                     f"{window}; lower: a quadratic instance)")
    fix, info = fixed_point_lower_bound(unit)
    cert.update(fixed_point=info)
    if fix is not None and up is not None:
        fixf = down(fix * Fraction(repr(factor)))
        cert.update(fixed_point_lower_bound=fixf)
        notes.append(f"the farthest fixed point of one round lies at squared distance >= {fixf:.10g} (proved: an "
                     f"exactly feasible point of the one-round PEP, verify.pep.fixed_point), {(up - fixf) / up:.1e} "
                     "relative below the upper bound; started there the method never moves, at every R")
        if fixf > lb:
            lb = fixf
            cert.update(lower_bound=lb, lower_bound_instance={"kind": "fixed point of one round",
                                                              "theta": info.get("theta")})
        if bound is not None and not full and bound - lb <= CLOSED * bound:
            exactness = (f"exact within {(bound - lb) / bound:.1e} relative (upper: sparse certificate, window "
                         f"{window}; lower: a fixed point of one round)")
    notes.append(bracket_note(lb, up, cert))
    cert.update(lower_bound_seconds=time.perf_counter() - t1)
    return exactness


def bracket_note(lb: float, up: float | None, cert: dict[str, Any]) -> str:
    """The bracket with how each end is known; sets ``cert['lower_bound_basis']`` and ``cert['upper_bound_basis']``.

    The lower end is proved only when it is the fixed point (an exactly feasible point of the one-round PEP);
    the worst quadratic instance is found and evaluated in float64, so it is attained in floating point only.
    The upper end is proved only when the exact recheck passed (``proved_upper_bound`` set).
    """
    exact_lower = (cert.get("lower_bound_instance") or {}).get("kind") == "fixed point of one round"
    cert["lower_bound_basis"] = "proved (exact)" if exact_lower else "attained in floating point (float64)"
    cert["upper_bound_basis"] = ("proved (exact rational recheck)" if cert.get("proved_upper_bound") is not None
                                 else "solver value, not certified")
    lower = ("proved: an exactly feasible fixed point of one round" if exact_lower else
             "attained in floating point: a float64 quadratic instance, not proved")
    upper = "none (no solver value)" if up is None else f"{up:.10g}"
    return (f"bracket of the exact worst case: [{lb:.10g}, {upper}]; lower end {lower}; upper end "
            f"{cert['upper_bound_basis']}")


def check_banded(s: Setting, window: int, max_seconds: float) -> Size:
    """Refuse a banded instance whose estimated time exceeds ``max_seconds``, with the estimate."""
    if not (isinstance(max_seconds, (int, float)) and math.isfinite(max_seconds) and max_seconds > 0):
        raise UserInputError(f"max_seconds={max_seconds} must be a positive finite number of seconds")
    size = banded_estimate(s, window)
    cap = _machine_gb() / 2
    if size.seconds > max_seconds or size.gb > cap:
        raise UserInputError(f"this banded worst case is too large: {size.describe()}, over the limit of "
                             f"{max_seconds:g} s and {cap:.3g} GB; fewer rounds or local steps (K x R) or a smaller "
                             f"window would fit")
    return size
