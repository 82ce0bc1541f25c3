"""Exact worst cases of deterministic federated methods by performance estimation (PEPit).

**Setting**: M clients f_1..f_M, each L-smooth and mu-strongly convex (mu = 0: convex), F = (1/M) sum f_i,
x* a minimiser of F, heterogeneity at the optimum ||grad f_i(x*)|| <= zeta for every i (a bound at x*
only: a bound on ||grad f_i - grad F|| at every x would not keep the PEP exact), ||x_0 - x*||^2 <= D0.
**Algorithm** (exact gradients, no noise): R rounds; in round r the clients of S_r (all of them unless a
schedule says otherwise) start from x_r and take K local steps; the server moves
x_{r+1} = x_r + eta_g * mean_{i in S_r}(y_i - x_r).
* ``local_gd`` (FedAvg with full gradients): y <- y - eta grad f_i(y).
* ``scaffold`` (option II, exact gradients; as the engine's ``quadratics.local_methods.scaffold``):
  y <- y - eta (grad f_i(y) - c_i + c); participants then set c_i = c_i - c + (x_r - y_i) / (K eta), the
  mean of their K gradients, and c = (1/M) sum_i c_i; c_i = c = 0 at the start (round 0 is FedAvg).
* ``fast`` (FAST-style snapshot rounds, deterministic): a fixed participation schedule; by
  :func:`snapshot_schedule`, rounds r = 0, I, 2I, ... are snapshot rounds (every client) and the other
  rounds aggregate clients 0..S-1 only (FAST's arbitrary-participation rounds, with the adversary's
  choice of functions standing in for FAST's arbitrary pattern); base update: local GD.
**Quantity**: the exact worst case of ||x_R - x*||^2 (``dist_sq``) or F(x_R) - F* (``gap``) over every
such instance in any dimension, as the optimal value of PEPit's SDP (the dual value, ``pepit_tau``, is a
certified upper bound; the primal value is attained by some instance up to solver accuracy).
**Statement**: for symmetric methods (every client treated alike), the worst case with M clients equals
the one with two (arXiv 2403.11724); tests check M = 2 against M = 4. For a schedule with partial rounds
the value depends on the fraction S/M of clients in those rounds: M = 2, S = 1 equals M = 4, S = 2, while
M = 3 or 4 with S = 1 differ (tested).

PEPit (and through it cvxpy) is imported inside the functions: `convbound --help` never loads it.
"""

from __future__ import annotations

import contextlib
import io
import math
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bounds.core.errors import UserInputError

METHODS = ("local_gd", "scaffold", "fast")
MEASURES = ("dist_sq", "gap")
SOLVERS = ("CLARABEL", "SCS")
# Solve time against n = gradient evaluations (K * clients per round * R), Clarabel, local GD: measured
# 290 s and 2.4 GB at n = 100 (idle machine); tests/benchmarks/bench_pep.py on the shared 2-core machine gave
# 12 s at 30, 24 s at 40, 44 s at 50, 88 s at 60 (peak 1.06 GB): time ~ n^3, memory ~ 0.4 GB + n^2.2.
_TIME_AT_100 = 290.0
_GB_AT_100 = 2.0  # above the 0.4 GB the interpreter, numpy, torch and cvxpy take
MAX_SECONDS = 600.0


@dataclass(frozen=True)
class Setting:
    """One PEP instance: method, constants, sizes, schedule and performance measure.

    Args: method: one of METHODS; L, mu: smoothness and strong convexity (0 <= mu <= L); zeta:
    heterogeneity at the optimum; eta: client step; K: local steps; R: rounds; M: clients; eta_g:
    server step; D0: bound on ||x_0 - x*||^2; measure: ``dist_sq`` | ``gap``; schedule: per round, the
    participating client ids (None: all clients every round); I, S: the snapshot interval and the
    arbitrary-round cohort that built the schedule (``fast`` only, for the record).
    """

    method: str
    L: float
    mu: float
    zeta: float
    eta: float
    K: int = 1
    R: int = 1
    M: int = 2
    eta_g: float = 1.0
    D0: float = 1.0
    measure: str = "dist_sq"
    schedule: tuple[tuple[int, ...], ...] | None = None
    I: int | None = None  # noqa: E741 - FAST's own letter for the snapshot interval
    S: int | None = None

    def participants(self, r: int) -> tuple[int, ...]:
        return tuple(range(self.M)) if self.schedule is None else self.schedule[r]

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ("method", "L", "mu", "zeta", "eta", "K", "R", "M", "eta_g", "D0",
                                             "measure")}
        if self.schedule is not None:
            out["schedule"] = [list(s) for s in self.schedule]
            out["I"], out["S"] = self.I, self.S
        return out


def snapshot_schedule(R: int, M: int, I: int, S: int) -> tuple[tuple[int, ...], ...]:
    """FAST's deterministic snapshot schedule: rounds 0, I, 2I, ... all M clients, others clients 0..S-1."""
    if I < 1 or not 1 <= S <= M:
        raise UserInputError(f"snapshot interval I={I} must be >= 1 and cohort S={S} in 1..M={M}")
    return tuple(tuple(range(M)) if r % I == 0 else tuple(range(S)) for r in range(R))


def validate(s: Setting) -> Setting:
    """Raise UserInputError naming the first invalid field and what is valid."""
    if s.method not in METHODS:
        raise UserInputError(f"unknown method {s.method!r}; valid: {', '.join(METHODS)}")
    if s.measure not in MEASURES:
        raise UserInputError(f"unknown measure {s.measure!r}; valid: {', '.join(MEASURES)}")
    for name in ("L", "eta", "eta_g", "D0"):
        v = getattr(s, name)
        if not (math.isfinite(v) and v > 0):
            raise UserInputError(f"{name}={v} must be a positive finite number")
    if not (math.isfinite(s.mu) and 0 <= s.mu <= s.L):
        raise UserInputError(f"mu={s.mu} must satisfy 0 <= mu <= L={s.L}")
    if not (math.isfinite(s.zeta) and s.zeta >= 0):
        raise UserInputError(f"zeta={s.zeta} must be >= 0")
    for name in ("K", "R", "M"):
        v = getattr(s, name)
        if not (isinstance(v, int) and v >= 1):
            raise UserInputError(f"{name}={v} must be an integer >= 1")
    if s.schedule is not None:
        if len(s.schedule) != s.R:
            raise UserInputError(f"schedule has {len(s.schedule)} rounds, R={s.R}")
        for r, ids in enumerate(s.schedule):
            if not ids or len(set(ids)) != len(ids) or any(not 0 <= i < s.M for i in ids):
                raise UserInputError(f"round {r} of the schedule must list distinct client ids in 0..{s.M - 1}")
    if s.method == "fast" and s.schedule is None:
        raise UserInputError("method fast needs a schedule (see snapshot_schedule: interval I, cohort S)")
    return s


def _n(s: Setting) -> int:
    """Gradient evaluations in the PEP: K per participating client per round (the Gram matrix is n + 3)."""
    return max(sum(len(s.participants(r)) for r in range(s.R)) * s.K, 1)


def estimate_cost(s: Setting) -> tuple[float, float]:
    """(seconds, GB) the SDP is expected to need, extrapolated from measured sizes (order of magnitude)."""
    n = _n(s)
    return _TIME_AT_100 * (n / 100.0) ** 3, 0.4 + _GB_AT_100 * (n / 100.0) ** 2.2


def check_size(s: Setting, max_seconds: float = MAX_SECONDS) -> None:
    """Refuse instances whose estimated solve time exceeds ``max_seconds``, naming the estimate."""
    sec, gb = estimate_cost(s)
    if sec > max_seconds:
        raise UserInputError(
            f"{_n(s)} gradient evaluations (K={s.K} local steps x {_n(s) // s.K} client-rounds) are too many: "
            f"estimated {sec:.0f} s and {gb:.1f} GB "
            f"(limit {max_seconds:.0f} s); use fewer rounds, local steps or clients (M=2 is exact for "
            f"symmetric methods)")


@dataclass(frozen=True)
class WorstCase:
    """The exact worst case of one setting, with the solver's and the dual certificate's status.

    Args: setting: the instance class and method; value: PEPit's returned worst case (its dual
    objective, ``pepit_tau``: a certified upper bound when ``certificate['status'] == 'certified'``);
    primal_value: the solver's primal objective (attained by a Gram matrix of some instance);
    solver_status, solver: cvxpy's status and the solver used; certificate: PEPit's feasibility and
    proof-reconstruction numbers (see :func:`certificate`); solve_seconds; coverage: the tightness of
    every encoded result against this setting (see :func:`coverage`); notes; versions.
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

    @property
    def success(self) -> bool:
        return self.value is not None and self.certificate.get("status") in ("certified", "approximate")

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "worst-case", "method": self.setting.method, "parameters": self.setting.to_dict(),
            "value": self.value, "pepit_tau": self.value, "primal_value": self.primal_value,
            "success": self.success, "solver_status": self.solver_status, "solver": self.solver,
            "certificate": dict(self.certificate), "solve_seconds": self.solve_seconds,
            "seeds": "n/a (deterministic SDP)", "coverage": [dict(c) for c in self.coverage],
            "notes": list(self.notes), "versions": dict(self.versions),
        }


def _build(s: Setting) -> tuple[Any, Any]:
    """The PEP of ``s`` (objective set), and F's minimiser (for later inspection)."""
    from PEPit import PEP, Expression, Point
    from PEPit.functions import SmoothConvexFunction, SmoothStronglyConvexFunction

    pep = PEP()
    if s.mu > 0:
        fs = [pep.declare_function(SmoothStronglyConvexFunction, L=s.L, mu=s.mu) for _ in range(s.M)]
    else:
        fs = [pep.declare_function(SmoothConvexFunction, L=s.L) for _ in range(s.M)]
    F = _sum(fs) / s.M
    if s.zeta > 0:
        xs = F.stationary_point()
        for f in fs:
            pep.add_constraint(f.gradient(xs) ** 2 <= s.zeta**2)
    else:
        # zeta = 0 as an exact shared stationary point: the constraint ||g||^2 <= 0 would hold only up to the
        # solver's tolerance (1e-9 on the square lets ||g|| reach 3e-5) and bias the value by ~1e-5
        xs = fs[0].stationary_point()
        for f in fs[1:]:
            f.add_point((xs, Point(is_leaf=False, decomposition_dict=dict()), Expression()))
    x0 = pep.set_initial_point()
    pep.set_initial_condition((x0 - xs) ** 2 <= s.D0)

    # Run
    x = x0
    c = [0 * x0 for _ in fs] if s.method == "scaffold" else None
    cbar = 0 * x0
    for r in range(s.R):
        ids = s.participants(r)
        moves, new_c = [], {}
        for i in ids:
            y, gsum = x, 0 * x
            for _ in range(s.K):
                g = fs[i].gradient(y)
                gsum = gsum + g
                y = y - s.eta * (g if c is None else g - c[i] + cbar)
            moves.append(y - x)
            new_c[i] = gsum / s.K
        x = x + (s.eta_g / len(ids)) * _sum(moves)
        if c is not None:
            c = [new_c.get(i, ci) for i, ci in enumerate(c)]
            cbar = _sum(c) / s.M

    # Measure
    pep.set_performance_metric((x - xs) ** 2 if s.measure == "dist_sq" else F(x) - F(xs))
    return pep, xs


def _sum(items: Sequence[Any]) -> Any:
    total = items[0]
    for item in items[1:]:
        total = total + item
    return total


def certificate(pep: Any, primal: float, tol: float = 1e-6, loose: float = 1e-3) -> dict[str, Any]:
    """PEPit's own feasibility checks (``PEP.check_feasibility``), returned instead of printed.

    Returns: gram_min_eig and max_primal_violation (primal side); residual_min_eig,
    min_inequality_dual and proof_error (the dual certificate: the residual matrix must be PSD, the
    multipliers of inequalities non-negative, and the weighted sum of constraints must reproduce
    objective - tau up to proof_error); dual_objective (= pepit_tau), duality_gap (absolute and
    relative); status ``certified`` when the residual's eigenvalues and the multipliers are >= -tol and
    proof_error <= tol (all scaled by max(1, |tau|)), ``approximate`` when within ``loose`` (PEPit's
    own threshold for warning about a duality gap), else ``failed``. proof_error is a sum of absolute
    coefficients over all O(n^2) Gram entries, so it grows with size: Clarabel stops at "optimal_inaccurate"
    with proof_error ~1e-6 at 16 gradients and ~1e-4 at 50, while its duality gap stays ~1e-8.
    """
    import numpy as np
    from PEPit.point import Point
    from PEPit.tools.dict_operations import prune_dict, symmetrize_dict

    cons = pep._list_of_prepared_constraints
    ineq = [c for c in cons if c.equality_or_inequality == "inequality"]
    eq = [c for c in cons if c.equality_or_inequality == "equality"]
    gram_min = float(np.min(np.linalg.eigvalsh(pep.G_value)))
    viol = max([float(c.eval()) for c in ineq] + [abs(float(c.eval())) for c in eq] + [0.0])
    res_min = float(np.min(np.linalg.eigvalsh(pep.residual)))
    duals = [float(c.eval_dual()) for c in ineq]
    min_dual = min(duals) if duals else 0.0
    # Proof reconstruction, as PEPit does it: objective - sum(dual * constraint) + <G, residual> = tau
    comb = -np.dot(Point.list_of_leaf_points, np.dot(pep.residual, Point.list_of_leaf_points))
    for c in cons:
        comb += c.eval_dual() * c.expression
    dec = prune_dict(symmetrize_dict((pep.objective - comb).decomposition_dict))
    tau = float(dec.get(1, 0.0))
    proof_err = float(np.sum(np.abs([v for k, v in dec.items() if k != 1]))) if len(dec) > int(1 in dec) else 0.0
    scale = max(1.0, abs(tau))
    worst = max(-res_min, -min_dual, proof_err) / scale
    status = "certified" if worst <= tol else "approximate" if worst <= loose else "failed"
    gap = tau - primal
    return {
        "status": status, "tolerance": tol, "loose_tolerance": loose, "worst_dual_error": worst,
        "dual_objective": tau, "primal_objective": primal,
        "duality_gap": gap, "relative_duality_gap": gap / primal if primal else 0.0,
        "residual_min_eig": res_min, "min_inequality_dual": min_dual, "proof_error": proof_err,
        "gram_min_eig": gram_min, "max_primal_violation": viol, "constraints": len(cons),
        "gram_size": int(pep.G_value.shape[0]),
    }


def solve(s: Setting, *, solver: str = "CLARABEL", with_coverage: bool = True,
          max_seconds: float = MAX_SECONDS) -> WorstCase:
    """Exact worst case of ``s`` (validated, size-checked) solved with ``solver`` through cvxpy."""
    validate(s)
    if solver.upper() not in SOLVERS:
        raise UserInputError(f"unknown solver {solver!r}; valid: {', '.join(SOLVERS)} (no commercial solver)")
    check_size(s, max_seconds)
    from verify.suite import versions

    t0 = time.perf_counter()
    pep, _ = _build(s)
    log = io.StringIO()
    # PEPit prints its own checks and cvxpy warns on inexact solves; both are recorded instead
    with contextlib.redirect_stdout(log), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tau = pep.solve(wrapper="cvxpy", solver=solver.upper(), verbose=0)
    seconds = time.perf_counter() - t0
    status = str(pep.wrapper.prob.status) if pep.wrapper is not None else "unknown"
    name = str(getattr(pep.wrapper, "solver_name", solver))
    notes = [f"solver warning: {w.message}" for w in caught]
    if tau is None:
        cert: dict[str, Any] = {"status": "none", "reason": "solver returned no value (unbounded or failed)"}
        primal = None
    else:
        primal = float(pep.objective.eval())
        cert = certificate(pep, primal)
        tau = float(tau)
    symmetric = s.schedule is None or all(len(ids) == s.M for ids in s.schedule)
    if symmetric:
        notes.append("every round aggregates every client: M=2 gives the worst case of any M (tested against M=4)")
    else:
        notes.append(f"value for M={s.M} clients with the stated schedule: it depends on the fraction of clients "
                     "in the partial rounds (tested: M=2, S=1 equals M=4, S=2; M=3 or 4 with S=1 differ)")
    vers = {**versions(), **_solver_versions()}
    cov = tuple(coverage(s, tau)) if with_coverage and tau is not None else ()
    return WorstCase(s, tau, primal, status, name, cert, seconds, cov, tuple(notes), vers)


def _solver_versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for dist in ("pepit", "cvxpy", "clarabel", "scs"):
        with contextlib.suppress(PackageNotFoundError):
            out[dist] = version(dist)
    return out


# Compare ------------------------------------------------------------------------------------------------

def _fast_t2_values(s: Setting) -> dict[str, Any]:
    """FAST.T2's inputs for deterministic full participation: q = 1, m = n = M, sigma = 0, sigma_G = zeta."""
    return {"L": s.L, "mu": s.mu, "K": s.K, "m": s.M, "n": s.M, "q": 1, "R": s.R, "eta_c": s.eta,
            "sigma": 0, "sigma_G": s.zeta, "kappa": s.D0}


_FAST_T2_RELATION = (
    "the PEP class (||grad f_i(x*)|| <= zeta) contains FAST's class (A3: ||grad f_i - grad F|| <= sigma_G "
    "everywhere, sigma_G = zeta), and deterministic full participation is FAST with q = 1, m = n = M, "
    "sigma = 0; so the PEP value is >= the worst case over FAST's class: ratio <= 1 proves the bound for "
    "every deterministic instance of the setting; ratio > 1 does not show a violation")


def coverage(s: Setting, value: float) -> list[dict[str, Any]]:
    """The tightness (PEP worst / bound) of every encoded result that covers ``s``, and why others do not.

    Returns one dict per registry key: ``key``, ``covers`` (``yes`` | ``comparison`` | ``no``), ``reason``,
    and, where a bound value exists, ``bound``, ``ratio``, ``hypotheses`` (True/False/None per named
    hypothesis from ``bounds``) and ``hypotheses_hold``.
    """
    from bounds.registry import all_results

    full = s.schedule is None or all(len(ids) == s.M for ids in s.schedule)
    out: list[dict[str, Any]] = []
    for res in all_results():
        key = res.key
        row: dict[str, Any] = {"key": key, "kind": str(getattr(res.kind, "value", res.kind))}
        reason = _non_cover_reason(key, s, full)
        if reason is None and key.startswith("FAST.T2"):
            row.update(covers="yes", reason=_FAST_T2_RELATION)
            _evaluate(row, res, _fast_t2_values(s), value)
        elif reason is None and key == "F3AST.LB.2@operative":
            gamma = s.zeta**2 / (2 * s.mu)
            row.update(covers="comparison", reason=(
                "one full-participation round with E = K = 1 and sigma = 0 makes V1 = 6 L Gamma; the bound is "
                "evaluated at Gamma = zeta^2/(2 mu), the supremum of Gamma over the PEP class, so it bounds every "
                "instance's own RHS from above: a comparison, not a per-instance check"))
            _evaluate(row, res, {"eta": s.eta, "mu": s.mu, "D": s.D0, "V1": 6 * s.L * gamma}, value)
        else:
            row.update(covers="no", reason=reason or "not applicable")
        out.append(row)
    return out


def _evaluate(row: dict[str, Any], res: Any, values: Mapping[str, Any], value: float) -> None:
    # only full-participation settings reach here: every round is a uniform M-of-M snapshot round (q = 1)
    decided = {a.name: (True, "full participation: every round is a snapshot round of all M clients (q = 1)")
               for a in res.participation if a.kind == "snapshot"}
    report = res.check(values, decided)
    hyps = {c.name: (None if c.holds is None else bool(c.holds)) for c in report.conditions}
    bound = float(report.evaluation.value)
    row.update(inputs=dict(values), bound=bound, ratio=value / bound if bound > 0 else None, hypotheses=hyps,
               hypotheses_hold=None if report.holds is None else bool(report.holds))


def _non_cover_reason(key: str, s: Setting, full: bool) -> str | None:
    """None when ``key`` may cover ``s``; otherwise why it does not."""
    base = key.split("@")[0]
    if base == "FAST.T2":
        if s.method == "scaffold":
            return "FAST.T2 is about FAST with FedAvg local steps, not SCAFFOLD"
        if not full:
            return ("FAST.T2 bounds the expectation over random snapshot coins (probability q) and random cohorts; "
                    "a fixed deterministic schedule is one realisation, not that expectation")
        if s.measure != "dist_sq" or s.mu <= 0 or s.eta_g != 1.0:
            return "FAST.T2 measures ||x_R - x*||^2 for mu > 0 with server step 1"
        return None
    if key == "F3AST.LB.2@operative":
        if s.method == "scaffold" or not full or s.K != 1 or s.R != 1 or s.measure != "dist_sq" or s.mu <= 0 \
                or s.eta_g != 1.0:
            return "Lemma B.2 is one full-participation FedAvg round; compared only for K = R = 1, mu > 0, dist_sq"
        return None
    if base.startswith("FAST.C"):
        return "order result (hidden constant): only its scaling is checkable, no tightness ratio"
    if base in ("FAST.T1", "FAST.R2"):
        return "FAST.T1 bounds an average of ||grad F||^2 over rounds (non-convex); FAST.R2 is a threshold on q"
    if base == "F3AST.T3.5" or base == "F3AST.LB.2":
        return ("needs bounded stochastic gradients E||g||^2 <= G^2 and (T3.5) decreasing step sizes; the PEP class "
                "bounds heterogeneity only at x*, so G is unbounded over it")
    if base.startswith("F3AST."):
        return "a sampling-variance identity/bound or burn-in threshold, not a trajectory worst case"
    if base.startswith("ASCAF."):
        return "non-convex order result on ||grad f||^2 (hidden constants; heterogeneity bounded everywhere)"
    if base.startswith("DFL."):
        return "order result on an ergodic gradient norm (non-convex)"
    return "no rule relates this result to deterministic local methods; not compared"


def replay_quadratic(s: Setting, curvature: float) -> float:
    """||x_R - x*||^2 (or F(x_R) - F*) of ``s``'s method on the 1-D quadratic f_i = curvature/2 x^2, zeta = 0.

    Runs the engine (`quadratics.engine.simulate`, no noise, full participation); used to show that a
    PEP worst case attained by a quadratic is reached by the simulator too.
    """
    from quadratics.engine import simulate
    from quadratics.heterogeneous import heterogeneous_quadratic
    from quadratics.local_methods import fedavg, scaffold
    from quadratics.participation import uniform

    prob = heterogeneous_quadratic(L=curvature, mu=curvature, d=1, M=s.M, zeta=0.0, sigma=0.0, D0=s.D0)
    alg = (scaffold if s.method == "scaffold" else fedavg)(eta=s.eta, K=s.K, eta_g=s.eta_g)
    sim = simulate(prob, alg, uniform(M=s.M, S=s.M), trials=1, rounds=s.R, seed=0, device="cpu")
    return float(sim.metrics["dist_sq" if s.measure == "dist_sq" else "gap"][-1, 0])


def worst_curvature(s: Setting, grid: Sequence[float] | None = None) -> float:
    """The curvature in ``grid`` (default: 21 points of [mu, L]) whose 1-D quadratic run is worst for ``s``."""
    import numpy as np

    hs = np.linspace(s.mu, s.L, 21) if grid is None else np.asarray(grid, dtype=float)
    hs = hs[hs > 0]
    return float(max(hs, key=lambda h: replay_quadratic(s, float(h))))


# Report ------------------------------------------------------------------------------------------------

def report_settings() -> list[Setting]:
    """The worst cases the HTML report shows (each solves in seconds): the GD closed form, local GD and
    SCAFFOLD under heterogeneity at the same constants, a FAST snapshot schedule, and local GD inside
    FAST.T2's hypotheses (its tightness)."""
    def at(method: str, **over: Any) -> Setting:
        base: dict[str, Any] = dict(L=1.0, mu=0.1, zeta=0.5, eta=0.3, K=2, R=3, M=2)
        return Setting(method, **{**base, **over})

    return [
        at("local_gd", zeta=0.0, eta=1.5, K=1, R=1, M=1),
        at("local_gd"),
        at("scaffold"),
        at("fast", schedule=snapshot_schedule(3, 2, 2, 1), I=2, S=1),
        at("local_gd", zeta=0.1, eta=0.003),
    ]


def report_records(settings: Sequence[Setting] | None = None) -> list[WorstCase]:
    """Solve :func:`report_settings` (or ``settings``) for the report; see reports.worstcase_section."""
    return [solve(s) for s in (report_settings() if settings is None else settings)]
