"""Solve a worst case: validate, refuse oversized ones, solve the SDP, recheck the certificate exactly.

**Statement**: for a :class:`~verify.pep.setting.Setting` without noise the value is the exact worst case
of the expected measure (E over the participation law) over every instance of the class, in any
dimension; with noise it is a certified upper bound (exact for one noisy step; see verify.pep.sdp).
``certificate['status']``: ``certified`` when the dual certificate passes the exact rational recheck
(verify.pep.exact), so that ``value`` is a proved upper bound, and the solver reports ``optimal`` or the
proved bound lies within 1e-6 (relative) of ``primal_value``, the objective at the solver's Gram matrix
(attained up to solver accuracy); ``approximate`` when the recheck fails or the bound is further from
the primal value (the residuals say how far); ``failed`` when no value came back.
**Symmetry**: when every round aggregates every client, the worst case with M clients equals the one with
two (Colla & Hendrickx, arXiv 2403.11724; tested for M = 2, 3, 4), so M > 2 is solved with two clients.
Under a sampling law the fraction of clients sampled changes the value, so M is kept (tested: 1 of 2 and
2 of 4 differ); the record's ``symmetry`` says which applied.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from bounds.core.errors import UserInputError
from bounds.core.face import notebook_face, short
from bounds.core.record import BadRecord, Record, describe, number, register
from verify.pep.nonconvex_record import NONCONVEX_CLASS, NCWorstCase
from verify.pep.setting import LAW_SYNTAX, Law, Setting, parse_law, validate, validate_scale
from verify.pep.size import MAX_SECONDS, check_size, swap_symmetric
from verify.pep.versions import record_versions

SOLVERS = ("CLARABEL", "SCS")
# ``certified`` with a solver status other than ``optimal`` (Clarabel's ``optimal_inaccurate``) needs the proved
# bound within this relative distance of the attained primal value
GAP_TOL = 1e-6
# trace weight of the second attempt when the first certificate's residual is not quite positive definite
RETRY_MARGIN = 1e-6


def _worst_summary(w: WorstCase) -> str:
    s = w.setting
    return (f"{s.method} (L={short(s.L)}, mu={short(s.mu)}, K={s.K}, R={s.R}, M={s.M}): worst {s.measure} "
            f"{short(w.value)}, certificate {w.certificate.get('status')}")


@register
@notebook_face(_worst_summary, rows=lambda w: [("value", short(w.value)), ("primal", short(w.primal_value)),
                                               ("solver", f"{w.solver} ({w.solver_status})"),
                                               ("certificate", w.certificate.get("status")),
                                               ("exactness", w.exactness), ("symmetry", w.symmetry),
                                               *((c.get("key", c.get("id", "")), c.get("ratio", c.get("tightness", "")))
                                                 for c in w.coverage)])
@dataclass(frozen=True)
class WorstCase(Record):
    """The worst case of one setting, with the solver's status and the exact recheck of its certificate.

    Args: setting: the instance class, method and law; value: the proved upper bound when certified,
    else the solver's optimal value; primal_value: the objective at the solver's Gram matrix (attained
    up to solver accuracy); solver_status, solver; certificate: status and residuals (see module doc);
    solve_seconds; coverage: tightness of every encoded result (verify.pep.compare); notes; versions;
    exactness: ``exact`` or ``upper bound``; symmetry: which reduction applied; size: the estimate;
    sweep, replay: the tightness against the horizon and the engine replay (verify.pep.sweep), when asked.
    """

    setting: Setting
    value: float | None
    primal_value: float | None
    solver_status: str
    solver: str
    certificate: Mapping[str, Any]
    solve_seconds: float
    coverage: tuple[Mapping[str, Any], ...] = ()
    notes: tuple[str, ...] = ()
    versions: Mapping[str, str] = field(default_factory=dict)
    exactness: str = "exact"
    symmetry: str = ""
    size: Mapping[str, float] = field(default_factory=dict)
    sweep: tuple[Mapping[str, Any], ...] = ()
    replay: Mapping[str, Any] = field(default_factory=dict)

    KIND = "worst-case"

    @property
    def success(self) -> bool:
        return self.value is not None and self.certificate.get("status") in ("certified", "approximate")

    @property
    def record_id(self) -> str:
        return self.setting.method

    @property
    def record_seeds(self) -> tuple[int, ...]:
        return ()  # a deterministic SDP

    @classmethod
    def read(cls, data: Mapping[str, Any], where: str) -> WorstCase:
        from verify.search.saved import check_worst_case

        check_worst_case(data, where)
        if data.get("class") == NONCONVEX_CLASS:  # the non-convex class has its own setting (verify.pep.nonconvex_record)
            try:
                return NCWorstCase.from_dict(data)  # type: ignore[return-value]
            except (KeyError, TypeError, ValueError) as exc:
                raise BadRecord(f"field '{where}' is not a valid non-convex worst-case record "
                                f"({type(exc).__name__}: {exc})") from None
        p = data["parameters"]
        schedule = p.get("schedule")
        law = None
        if schedule is None and p.get("I") is None and p.get("participation", "full") != "full":
            try:
                law = parse_law(str(p["participation"]))
            except UserInputError:
                raise BadRecord(f"field '{where}.parameters.participation' is {describe(p['participation'])}; "
                                f"expected {LAW_SYNTAX} (or a schedule)") from None
        setting = Setting(**{k: p[k] for k in ("method", "L", "mu", "zeta", "eta", "K", "R", "M", "eta_g", "D0",
                                                "measure", "I", "S", "sigma") if k in p},
                          schedule=None if schedule is None else tuple(tuple(r) for r in schedule), law=law)
        return cls(setting=setting, value=number(data["value"]), primal_value=number(data["primal_value"]),
                   solver_status=data["solver_status"], solver=data["solver"], certificate=dict(data["certificate"]),
                   solve_seconds=data["solve_seconds"], coverage=tuple(data["coverage"]),
                   notes=tuple(data.get("notes") or ()), versions=dict(data.get("versions") or {}),
                   exactness=data.get("exactness", "exact"), symmetry=data.get("symmetry", ""),
                   size=dict(data.get("size") or {}), sweep=tuple(data.get("sweep") or ()),
                   replay=dict(data.get("replay") or {}))

    def payload(self) -> dict[str, Any]:
        return {
            "kind": "worst-case", "method": self.setting.method, "parameters": self.setting.to_dict(),
            "value": self.value, "primal_value": self.primal_value, "exactness": self.exactness,
            "success": self.success, "solver_status": self.solver_status, "solver": self.solver,
            "certificate": dict(self.certificate), "solve_seconds": self.solve_seconds,
            "symmetry": self.symmetry, "size": dict(self.size),
            "seeds": "n/a (deterministic SDP)", "coverage": [dict(c) for c in self.coverage],
            "notes": list(self.notes), "versions": dict(self.versions),
            "sweep": [dict(r) for r in self.sweep], "replay": dict(self.replay),
        }


def reduce_symmetric(s: Setting) -> tuple[Setting, str]:
    """The setting actually solved, and the record's sentence on symmetry."""
    if s.full_every_round():
        if s.M > 2:
            solved = replace(s, M=2, schedule=None, I=None, S=None, law=Law("full"))
            return solved, (f"every round aggregates every client: solved with M=2, which gives the worst case of "
                            f"any M (agent symmetry, arXiv 2403.11724; tested M=2,3,4), here M={s.M}")
        return s, "every round aggregates every client: M=2 gives the worst case of any M (tested M=2,3,4)"
    return s, (f"no reduction: the participation ({s.to_dict()['participation']}) samples a fraction of the "
               f"clients, which changes the value; solved with M={s.M} (tested: 1 of 2 and 2 of 4 differ)")


def solve(s: Setting, *, solver: str = "CLARABEL", with_coverage: bool = True,
          max_seconds: float = MAX_SECONDS, recheck: bool = True, relaxed: bool = False) -> WorstCase:
    """The worst case of ``s`` (validated, size-checked before anything is built) with its certificate.

    ``relaxed``: a random law by its moments (verify.pep.sdp._relaxed_rounds), an upper bound whose size is
    linear in R instead of the exact branch tree (exponential in R); local GD and FAST only."""
    validate(s)
    if relaxed and s.method == "scaffold":
        raise UserInputError("the moment relaxation needs a method whose state is the model alone (local_gd, "
                             "fast); SCAFFOLD carries control variates")
    if not isinstance(solver, str) or solver.upper() not in SOLVERS:
        raise UserInputError(f"unknown solver {solver!r}; valid: {', '.join(SOLVERS)} (no commercial solver)")
    solved, symmetry = reduce_symmetric(s)
    size = check_size(solved, max_seconds, relaxed=relaxed)  # before anything is built
    validate_scale(solved)
    from verify.pep.exact import recheck as exact_recheck
    from verify.pep.sdp import build, solve_sdp

    unit, factor = normalise(solved)
    t0 = time.perf_counter()
    pb = build(unit, relaxed=relaxed)
    exact_pb = (lambda: build(unit, exact=True, relaxed=True)) if relaxed else (lambda: unit)
    symmetric = swap_symmetric(unit) and not relaxed
    sol = solve_sdp(pb, solver, symmetric=symmetric)
    seconds = time.perf_counter() - t0
    notes = [f"solver warning: {w}" for w in sol.warnings]
    rc: dict[str, Any] = exact_recheck(exact_pb(), sol) if recheck and sol.value is not None else \
        {"ok": False, "reason": "exact recheck not requested" if sol.value is not None else "no solution"}
    if recheck and not rc.get("ok") and -RETRY_MARGIN < rc.get("min_eig_float", -1.0) <= 0:
        # the solver's residual misses positive definiteness by less than its accuracy: solve once more with
        # a larger trace weight (the bound moves up by about RETRY_MARGIN * trace(G)) and recheck that
        sol = solve_sdp(pb, solver, delta=RETRY_MARGIN, symmetric=symmetric)
        seconds = time.perf_counter() - t0
        notes.append(f"the first certificate missed the exact recheck; solved again with trace weight {RETRY_MARGIN:g}")
        rc = exact_recheck(exact_pb(), sol) if sol.value is not None else {"ok": False, "reason": "no solution"}
    if factor != 1.0:
        notes.append(f"solved in units L = D0 = 1 and scaled back by {factor:g} (the proved bound rounded up)")
        sol = replace(sol, value=_up(sol.value, factor), primal=None if sol.primal is None else sol.primal * factor)
        if rc.get("ok"):
            rc = {**rc, "bound": _up(rc["bound"], factor), "bound_exact": None, "tau": None}
    cert = _certificate(sol, rc)
    value = rc["bound"] if rc.get("ok") else sol.value
    exactness = "exact" if s.sigma == 0 and not relaxed else "upper bound"
    if relaxed:
        notes.append("moment relaxation of the participation law: an upper bound (exact for R = 1), size linear in R")
    if s.sigma > 0:
        notes.append("noise: the value bounds the worst case over every noise law with E[xi | past] = 0 and "
                     "E||xi||^2 <= sigma^2 from above (expected Gram matrix); exact for a single noisy step")
    if symmetric:
        notes.append("solved over swap-invariant Gram matrices (two PSD blocks of half the size; the certificate is "
                     "rechecked on the full problem)")
    if rc.get("ok"):
        notes.append("the exact recheck reads each constant as its shortest decimal (eta = 0.3 as 3/10)")
    vers = record_versions()
    cov: tuple[Mapping[str, Any], ...] = ()
    if with_coverage and value is not None:
        from verify.pep.compare import coverage

        cov = tuple(coverage(s, value))
    return WorstCase(s, value, sol.primal, sol.status, sol.solver, cert, seconds, cov, tuple(notes), vers,
                     exactness, symmetry, {"gradients": size.gradients, "gram_rows": pb.d,
                                           "estimated_seconds": size.seconds, "estimated_gb": size.gb})


def normalise(s: Setting) -> tuple[Setting, float]:
    """``s`` in units where L = 1 and D0 = 1, and the factor that takes its measure back (D0, times L for gap)."""
    if s.L == 1.0 and s.D0 == 1.0:
        return s, 1.0
    r = math.sqrt(s.D0)
    unit = replace(s, L=1.0, mu=s.mu / s.L if s.mu != s.L else 1.0, eta=s.eta * s.L, zeta=s.zeta / (s.L * r),
                   sigma=s.sigma / (s.L * r), D0=1.0)
    return unit, s.D0 * (s.L if s.measure == "gap" else 1.0)


def _up(v: float | None, factor: float) -> float | None:
    if v is None:
        return None
    return math.nextafter(math.nextafter(v * factor, math.inf), math.inf)


def _certificate(sol: Any, rc: Mapping[str, Any]) -> dict[str, Any]:
    if sol.value is None:
        return {"status": "failed", "reason": f"solver status {sol.status}: no value"}
    gap = (rc["bound"] - sol.primal) if rc.get("ok") and sol.primal is not None else None
    # proved bound, and either the solver converged or the attained primal value is within GAP_TOL of it
    tight = gap is not None and (sol.status == "optimal" or abs(gap) <= GAP_TOL * max(1.0, abs(rc["bound"])))
    status = "certified" if rc.get("ok") and tight else "approximate"
    reason = rc.get("reason") or (f"solver status {sol.status}: the upper bound is proved, but the primal value "
                                  f"is {gap:.3g} below it (more than {GAP_TOL:g})" if status == "approximate" else "")
    worst = max(float(rc.get("balance_fix", 0.0)), -float(rc.get("negative_multipliers", 0.0)),
                max(0.0, -float(rc.get("min_eig_float", 0.0))))
    return {"status": status, "recheck": "exact rational (verify.pep.exact)", "proved_upper_bound": rc.get("bound"),
            "reason": reason, "primal_objective": sol.primal, "solver_objective": sol.value,
            "gap_to_primal": gap,
            "trace_weight": sol.delta, "worst_dual_error": worst,
            **{k: rc[k] for k in ("min_eig_float", "t", "frobenius_residual", "balance_fix", "negative_multipliers",
                                  "gram_rows", "seconds", "bound_exact") if k in rc}}
