"""Run the default report suite and collect its evidence as a report document (plain dicts).

Sections: every encoded ``bounds`` result at its worked-example values (hypotheses, bound, terms
and a sweep of the terms over R); the F3AST Table I rate region with r^a, r^b, the naive rate and
r*; one large-N r*; the F3AST sampler's r(t); a participation pattern as a heatmap; exact worst
cases solved live by performance estimation (one with ``quick``); and every certificate, rate check
and negative control of ``verify``. A section whose layer is missing or
fails is recorded in ``sections_failed`` (shown at the top of the report), never silently dropped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from bounds.core.errors import UserInputError
from reports.document import SCHEMA
from reports.environment import environment
from reports.jsonable import jsonable

Progress = Callable[[str], None]

SWEEP_VARS = ("R", "T")
SWEEP_POINTS = 41
TABLE1 = "table1"
LARGE_N_MODEL, LARGE_N_CLIENTS = "uneven", 1000
SAMPLER_ROUNDS = {True: 6_000, False: 20_000}
SAMPLER_RUNS = 8
SAMPLER_BETA = 1e-3
PATTERN = {"M": 16, "S": 2, "P": 8, "groups": 4, "rounds": 32}


def example_values(result) -> dict[str, Any]:
    """A result's worked-example inputs as bounds encodes them (empty when none)."""
    ex = getattr(result, "example_values", None)
    if callable(ex):
        ex = ex()
    if ex is None:
        ex = dict(getattr(result, "example", ()) or ())
    return dict(ex)


# Bounds
def result_entry(result) -> dict[str, Any]:
    """``Result.to_dict()`` plus the check at its example values and a sweep of its terms."""
    entry = result.to_dict()
    entry["example"] = None
    entry["sweep"] = None
    values = example_values(result)
    if not values:
        return entry
    try:
        check = result.check(values).to_dict()
    except UserInputError as exc:
        entry["example_error"] = str(exc)
        return entry
    entry["example"] = {"source": "spec worked example (bounds)", "values": jsonable(values), "check": check}
    entry["sweep"] = _sweep(result, values)
    return entry


def _sweep(result, values: Mapping[str, Any]) -> dict[str, Any] | None:
    var = next((v for v in SWEEP_VARS if v in values and np.ndim(values[v]) == 0), None)
    if var is None or len(result.terms) < 2:
        return None
    centre = float(values[var])
    xs = np.unique(np.round(np.logspace(np.log10(max(1.0, centre / 1e3)), np.log10(centre * 1e3), SWEEP_POINTS)))
    try:
        ev = result.evaluate({**values, var: xs})
    except (UserInputError, ValueError, TypeError):
        return None
    terms = {k: np.broadcast_to(np.asarray(v, dtype=float), xs.shape).tolist() for k, v in ev.terms.items()}
    if not all(np.all(np.isfinite(t)) for t in terms.values()):
        return None
    return {"var": var, "x": xs.tolist(), "example": centre, "terms": terms}


def bounds_section(only: set[str] | None) -> list[dict[str, Any]]:
    import bounds

    return [result_entry(r) for r in bounds.all_results() if only is None or _selected(r.id, r.key, only)]


def _selected(rid: str, key: str, only: set[str]) -> bool:
    return any(o in (rid, key) or o.startswith(rid + ".") or o.startswith(key + "@") for o in only)


# Rate region
def region_section() -> dict[str, Any]:
    """F3AST Table I: the region's vertices, r^a, r^b, the naive rate and r* with H at each."""
    from rate_region.models import named_model
    from rate_region.optimum import min_variance_rates
    from rate_region.region import extreme_points, membership, naive_rate, support
    from rate_region.variance import H

    model = named_model(TABLE1)
    p = np.asarray(model.weights, dtype=float)
    opt = min_variance_rates(model)
    verts = np.asarray(extreme_points(model, None), dtype=float)
    centre = verts.mean(0)
    verts = verts[np.argsort(np.arctan2(verts[:, 1] - centre[1], verts[:, 0] - centre[0]))]
    r_a = np.array([verts[:, 0].max(), 0.0])  # client 1 whenever available, never client 2
    _, r_b = support(model, None, np.array([2.0, 1.0]))  # client 1 first, else client 2
    naive = naive_rate(model, None, p)
    points = {"r^a": r_a, "r^b": np.asarray(r_b, dtype=float)}
    if naive is not None:
        points["naive"] = np.asarray(naive, dtype=float)
    points["r*"] = np.asarray(opt.r_star, dtype=float)
    rows = []
    for label, pt in points.items():
        with np.errstate(divide="ignore"):
            h2, h1 = float(H(pt, p, "p2")), float(H(pt, p, "p"))
        rows.append([label, float(pt[0]), float(pt[1]), h2, h1, bool(membership(model, None, pt).achievable)])
    return {
        "title": "F3AST Table I: achievable rates (at most one client per round)",
        "description": ("Two clients with p = (1/2, 1/2); availability P(A1) = 0.375, P(A2) = 0.8, independent; at "
                        "most one client per round. r^a: client 1 whenever available, never 2; r^b: client 1 "
                        "first, else 2; naive: available clients drawn with probability proportional to p; r*: "
                        f"argmin of H(r) = sum p_k^2 / r_k ({opt.method}, status {opt.status})."),
        "vertices": verts.tolist(),
        "points": {k: v.tolist() for k, v in points.items()},
        "r_star": np.asarray(opt.r_star).tolist(),
        "H_star": float(opt.H),
        "table": {"columns": ["point", "r_1", "r_2", "H = Σ p²/r", "H₁ = Σ p/r", "achievable"], "rows": rows},
        "optimum": jsonable(opt.to_dict()),
    }


def large_n_section() -> dict[str, Any]:
    """r* for a large population (uneven availability and data sizes, N = 1000)."""
    from rate_region.models import DESCRIPTIONS, named_model
    from rate_region.optimum import min_variance_rates

    model = named_model(LARGE_N_MODEL, clients=LARGE_N_CLIENTS, seed=0)
    t0 = time.perf_counter()
    opt = min_variance_rates(model)
    r = np.asarray(opt.r_star, dtype=float)
    return {
        "model": f"{LARGE_N_MODEL}: {DESCRIPTIONS.get(LARGE_N_MODEL, '')}",
        "N": int(model.n_clients),
        "cap": jsonable(opt.cap),
        "method": opt.method,
        "solver": opt.solver,
        "status": opt.status,
        "H(r*)": float(opt.H),
        "H at full participation": float(opt.H_full),
        "price of the cap H(r*)/H(1)": float(opt.H / opt.H_full) if opt.H_full > 0 else None,
        "r* min / median / max": [float(r.min()), float(np.median(r)), float(r.max())],
        "sum of r*": float(r.sum()),
        "seconds": round(time.perf_counter() - t0, 3),
    }


def sampler_section(quick: bool, seed: int) -> dict[str, Any]:
    """The F3AST sampler on Table I: mean r(t) over runs against r*."""
    from rate_region.models import named_model
    from rate_region.sampler import simulate_sampler

    run = simulate_sampler(named_model(TABLE1), rounds=SAMPLER_ROUNDS[quick], runs=SAMPLER_RUNS, beta=SAMPLER_BETA,
                           seed=seed)
    keep = np.asarray(run.times) > 0
    summary = run.summary()
    dist = summary.get("distance_final", {})
    return {
        "title": f"F3AST sampler on Table I (beta = {SAMPLER_BETA}, mean of {SAMPLER_RUNS} runs)",
        "description": (f"{run.rounds} rounds, {run.runs} runs, seed {run.seed}. Final distance ||r(T) - r*||: "
                        f"mean {dist.get('mean', float('nan')):.4g}, {dist.get('level', float('nan')):.0%} CI "
                        f"[{', '.join(f'{c:.4g}' for c in dist.get('ci', []))}]."),
        "t": np.asarray(run.times)[keep].tolist(),
        "r": np.asarray(run.mean_trajectory)[keep].tolist(),
        "r_star": None if run.r_star is None else np.asarray(run.r_star).tolist(),
        "summary": jsonable(summary),
    }


def participation_section(seed: int) -> dict[str, Any]:
    """Cyclic participation (Amplified SCAFFOLD) as client x round weights of one trial."""
    from quadratics.participation import cyclic

    c = PATTERN
    pattern = cyclic(c["M"], c["S"], c["P"], c["groups"])
    assert pattern.weights is not None  # cyclic is stateless: weights is a pure function of (seed, round)
    w = np.stack([pattern.weights(seed, r, 1)[0] for r in range(c["rounds"])], axis=1)  # [M, rounds]
    return {
        "name": pattern.name,
        "title": f"Cyclic participation: M={c['M']}, S={c['S']}, P={c['P']}, {c['groups']} groups",
        "description": (f"Weights q_r^i of one trial over {c['rounds']} rounds (seed {seed}); constants "
                        + ", ".join(f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v}"
                                    for k, v in pattern.constants.items()) + "."),
        "weights": w.tolist(),
        "constants": jsonable(dict(pattern.constants)),
    }


# Verify
def verify_section(only: list[str] | None, quick: bool, device: str, seed: int,
                   progress: Progress, scheduler: str | None = None,
                   workers: int | None = None) -> tuple[list[dict[str, Any]], list[str] | None]:
    """Every check of ``verify.suite.run_suite`` as dicts, and the controls it is expected to contain."""
    from verify import suite

    if only:  # IDs of results only (no check of that name) select no check
        only = [w for w in only if _known_check(suite, w)]
        if not only:
            return [], None
    # one call per check group (same context and seed as one call) so each record knows its group:
    # a group with fewer negative controls than certificates has lost a control
    # groups run as tasks of verify.runtime.executor (in this process or on Dask), in completion order
    def done(n: int, total: int, gid: str) -> None:
        progress(f"verify {n}/{total}: {gid} finished" if gid else f"verify: {total} check groups")

    groups, _ = suite.run_groups(only if only else "all", quick=quick, device=device, seed=seed, progress=done,
                                 scheduler=scheduler, workers=workers)
    checks: list[dict[str, Any]] = []
    for gid, records in groups.items():
        for c in records:
            checks.append({**c.to_dict(), "group": gid})
    expected = None
    for name in ("control_ids", "expected_controls", "CONTROL_IDS"):
        found = getattr(suite, name, None)
        if found is not None:
            if callable(found) and only:
                # the controls of the groups that ran (a prefix test would also expect FAST.T1.drift's
                # control from --only FAST.T1, whose group did not run)
                groups_run = [w for w in only if _known_check(suite, w)]
                expected = list(found(quick=quick, ids=groups_run)) if groups_run else []
            else:
                expected = list(found(quick=quick) if callable(found) else found)
                if only:
                    expected = [e for e in expected if e in set(only) or any(e.startswith(o) for o in only)]
            break
    return checks, expected


def _known_check(suite, word: str) -> bool:
    try:
        suite.select([word])
    except UserInputError:
        return False
    return True


def check_only(words: list[str]) -> None:
    """Every --only word names a result (ID, key, or a check of it) or a verify check/prefix."""
    import bounds

    keys = {r.key for r in bounds.all_results()} | set(bounds.ids())
    suite: Any
    try:
        from verify import suite
    except ImportError:
        suite = None
    for w in words:
        if any(_selected(r.id, r.key, {w}) for r in bounds.all_results()):
            continue
        if suite is not None and _known_check(suite, w):
            continue
        checks = list(suite.registry()) if suite is not None else []
        from bounds.core.errors import unknown

        raise unknown("result or check ID", w, sorted(keys | set(checks)))


# Exact worst cases (PEP)
# FAST.T2's tightness at deterministic full participation: local GD, K = 2 local steps, R = 3 rounds,
# M = 2 clients (exact for any M), 12 gradient evaluations; its ratio to the bound is 0.9934
# (tests/verify/test_pep.py). With its horizon sweep (exact to R = 5, the per-round bound to R = 1000)
# measured at about 10 s on the shared 2-core machine.
LIVE_WORST_CASE: dict[str, Any] = dict(method="local_gd", L=1.0, mu=0.1, zeta=0.1, eta=0.003, K=2, R=3, M=2)


def worst_case_section(quick: bool) -> list[dict[str, Any]]:
    """Worst cases solved live: the FAST.T2 tightness setting (quick), or every ``verify.pep.report_settings``."""
    from verify.pep import Setting, report_settings
    from verify.pep.sweep import report_record

    settings = [Setting(**LIVE_WORST_CASE)] if quick else report_settings()
    out = []
    for s in settings:
        rec = report_record(s).to_dict()  # with the tightness against the horizon and the engine replay
        out.append({"source": f"computed live by convbound report (verify.pep, cvxpy, solver "
                              f"{rec['solver']}, {rec['solve_seconds']:.2f} s)", "record": rec})
    if not quick:  # the non-convex results' tightness rows (verify.pep.nonconvex_sweep; about 20 s measured)
        from verify.pep.nonconvex_sweep import report_record_nc, report_settings_nc

        for nc in report_settings_nc():
            rec = report_record_nc(nc).to_dict()
            out.append({"source": f"computed live by convbound report (verify.pep.nonconvex, Clarabel, "
                                  f"{rec['solve_seconds']:.2f} s)", "record": rec})
    return out


def comparison_section() -> list[dict[str, Any]]:
    """``convbound compare`` on the quick suite's FAST-style and F3AST-style settings (reports.compare_section)."""
    from bounds.compare import compare
    from reports.compare_section import comparison_rows, quick_settings

    out = []
    for title, setting in quick_settings():
        result = compare(setting)
        out.append({"title": title, "setting": setting.to_dict(), "rows": comparison_rows(result),
                    "sorted_by": result.to_dict()["sorted_by"]})
    return out


def _decisions(doc: dict[str, Any], only: set[str] | None) -> dict[str, Any]:
    import bounds
    from reports.decision_section import decisions_section

    keys = None if only is None else [r.key for r in bounds.all_results() if _selected(r.id, r.key, only)]
    return decisions_section(doc, keys)


# Whole suite
SECTIONS = ("results", "region", "large_n", "sampler", "participation", "comparisons", "worst_cases", "decisions",
            "verify")


def collect(*, quick: bool = False, device: str = "auto", only: Iterable[str] | None = None, seed: int = 0,
            progress: Progress | None = None, sections: Iterable[str] = SECTIONS,
            argv: list[str] | None = None, scheduler: str | None = None,
            workers: int | None = None) -> dict[str, Any]:
    """Run the suite and return the report document (see ``reports.document``).

    ``scheduler``, ``workers``: where the verification groups run (``verify.runtime.executor.run_tasks``).
    Nine keyword-only parameters, why: they are ``convbound report``'s options (quick, device, only, seed,
    scheduler, workers) with the progress callback, the sections to run and the command line recorded; every
    caller names them.
    """
    step = progress or (lambda message: None)
    only_list = sorted({o.strip() for o in only if o.strip()}) if only else None
    only_set = set(only_list) if only_list else None
    sections = tuple(sections)
    if only_list:
        check_only(only_list)
    doc: dict[str, Any] = {"schema": SCHEMA, "title": "convbound verification report", "quick": quick,
                           "seed": seed, "device": device, "only": only_list, "results": [], "region": None,
                           "large_n": None, "sampler": None, "participation": None, "comparisons": [], "verifications": [],
                           "expected_controls": None, "searches": [], "worst_cases": [], "audits": [], "decisions": None,
                           "sections_failed": {}, "timings_s": {}}

    def run(name: str, message: str, fn: Callable[[], Any]) -> Any:
        if name not in sections:
            return None
        step(message)
        t0 = time.perf_counter()
        try:
            return fn()
        except UserInputError:
            if name == "verify":  # an unknown --only ID: the person's mistake, reported as such
                raise
            doc["sections_failed"][name] = "failed on the suite's own inputs (a bug)"
            raise
        except ImportError as exc:
            doc["sections_failed"][name] = f"not available in this installation ({exc})"
        except Exception as exc:  # a broken layer must show in the report, not abort it
            doc["sections_failed"][name] = f"{type(exc).__name__}: {exc}"
        finally:
            doc["timings_s"][name] = round(time.perf_counter() - t0, 3)
        return None

    doc["results"] = run("results", "checking every encoded result at its example values",
                         lambda: bounds_section(only_set)) or []
    doc["region"] = run("region", "rate region of F3AST Table I", region_section)
    doc["large_n"] = run("large_n", f"r* for N = {LARGE_N_CLIENTS}", large_n_section)
    doc["sampler"] = run("sampler", "simulating the F3AST sampler", lambda: sampler_section(quick, seed))
    doc["participation"] = run("participation", "participation pattern", lambda: participation_section(seed))
    doc["comparisons"] = run("comparisons", "comparing the results that cover the quick settings",
                             comparison_section) or []
    if only_set is None or _selected("FAST.T2", "FAST.T2", only_set):  # the live worst case is FAST.T2's
        doc["worst_cases"] = run("worst_cases", "exact worst case (PEP)", lambda: worst_case_section(quick)) or []
    verified = run("verify", "running the verification suite",
                   lambda: verify_section(only_list, quick, device, seed, step, scheduler, workers))
    if verified is not None:
        doc["verifications"], doc["expected_controls"] = verified
    # after the worst cases and the checks: the decisions count them (reports.decision_section); the table
    # heads the report wherever it is computed
    doc["decisions"] = run("decisions", "one decision per result", lambda: _decisions(doc, only_set))
    devices = sorted({str(v.get("device")) for v in doc["verifications"] if v.get("device")})
    doc["environment"] = environment(device=", ".join(devices) if devices else device, seed=seed, argv=argv)
    return doc
