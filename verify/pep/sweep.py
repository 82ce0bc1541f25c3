"""Tightness against the horizon: worst case / bound of every covering result, R = 1 to 1,000, a replay, and
the worst cases the report shows (:func:`report_settings`, solved with both by :func:`report_records`).

For each horizon R the worst case is the exact finite-R PEP where its estimated solve time is at most
``exact_seconds``, otherwise the per-round certificate's bound (verify.pep.lyapunov: an upper bound on
the worst case, so its ratio is an upper bound on the true ratio; a ratio <= 1 still proves the bound);
the row says which. The replay runs the worst-case instance in the simulation engine where one is known
in closed form (zeta = 0 and full participation: the extreme-curvature 1-D quadratic) and says why not
otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from verify.pep.compare import coverage
from verify.pep.core import WorstCase, solve
from verify.pep.lyapunov import certificate, horizon_bound, supports
from verify.pep.replay import replay_gram, replay_quadratic, worst_curvature
from verify.pep.sdp import build, solve_sdp
from verify.pep.setting import Law, Setting
from verify.pep.size import estimate

HORIZONS = (1, 2, 3, 5, 10, 30, 100, 1000)


def horizon_sweep(s: Setting, horizons: tuple[int, ...] = HORIZONS, exact_seconds: float = 5.0) -> list[dict]:
    """One row per horizon: ``R``, ``kind`` (``exact`` | ``per-round bound`` | ``none``), ``value``, and per
    covering result its ``bound``, ``ratio`` and ``hypotheses_hold``."""
    lines = None
    rows: list[dict[str, Any]] = []
    for R in horizons:
        sR = replace(s, R=R)
        if s.I is not None or s.schedule is not None:
            if s.schedule is not None:
                continue  # a fixed schedule has one horizon
        row: dict[str, Any] = {"R": R}
        if estimate(sR).seconds <= exact_seconds:
            wc = solve(sR, with_coverage=True)
            row.update(kind="exact" if wc.certificate.get("status") == "certified" else "approximate",
                       value=wc.value, results=_ratios(wc.coverage))
        elif supports(s) is None:
            if lines is None:
                lines = certificate(s)
            value = horizon_bound(lines, s.D0, R)
            row.update(kind="per-round bound", value=value, results=_ratios(coverage(sR, value)))
        else:
            row.update(kind="none", value=None, results={},
                       reason=f"too large for an exact solve and {supports(s)}")
        rows.append(row)
    return rows


def _ratios(cov: Any) -> dict[str, dict[str, Any]]:
    return {c["key"]: {"bound": c.get("bound"), "ratio": c.get("ratio"), "hypotheses_hold": c.get("hypotheses_hold")}
            for c in cov if c.get("covers") != "no" and c.get("bound") is not None}


def replay(wc: WorstCase) -> dict[str, Any]:
    """The worst-case instance run in the engine, where it is known: value, engine value, difference."""
    s = wc.setting
    if s.mu == s.L and s.method == "local_gd" and s.sigma == 0 and s.schedule is None and s.I is None \
            and (s.law is None or s.law.kind in ("full", "uniform")):
        return _replay_quadratic_class(wc)
    if s.zeta > 0 or not s.full_every_round() or s.sigma > 0:
        return {"status": "not replayed", "reason": "the worst instance is known here as a 1-D quadratic (no "
                                                    "heterogeneity, no noise, full participation) or, for mu = L, "
                                                    "read off the Gram matrix; this setting is neither"}
    h = worst_curvature(s, [s.mu, s.L])
    engine = replay_quadratic(replace(s, M=min(s.M, 2)), h)
    ok = wc.value is not None and abs(engine - wc.value) <= 1e-6 * max(1.0, abs(wc.value))
    return {"status": "replayed" if ok else "differs", "curvature": h, "engine_value": engine,
            "pep_value": wc.value, "difference": None if wc.value is None else engine - wc.value}


def _replay_quadratic_class(wc: WorstCase) -> dict[str, Any]:
    """mu = L: the worst instance read off the Gram matrix, run in the engine (verify.pep.replay.replay_gram)."""
    s = wc.setting
    sol = solve_sdp(build(s))
    if sol.G is None or wc.value is None:
        return {"status": "not replayed", "reason": f"no Gram matrix ({sol.status})"}
    out = replay_gram(s, sol.G)
    low, high = out["engine_ci"]
    ok = abs(out["exact_expectation"] - wc.value) <= 1e-6 * max(1.0, abs(wc.value)) and low <= wc.value <= high
    return {"status": "replayed" if ok else "differs", "instance": "read off the Gram matrix (mu = L quadratics)",
            "engine_value": out["engine_mean"], "pep_value": wc.value,
            "difference": out["engine_mean"] - wc.value, **out}


def report_record(s: Setting, horizons: tuple[int, ...] = HORIZONS) -> WorstCase:
    """``solve(s)`` with its horizon sweep and engine replay attached (the report's worst-case rows)."""
    wc = solve(s)
    return replace(wc, sweep=tuple(horizon_sweep(s, horizons)), replay=replay(wc))


# Report ------------------------------------------------------------------------------------------------

def report_settings() -> list[Setting]:
    """The worst cases the HTML report shows (each solves in seconds): the GD closed form, local GD and
    SCAFFOLD under heterogeneity at the same constants, a FAST snapshot schedule, FAST's snapshot coin,
    and local GD at a small step with mild heterogeneity, inside the step-size hypotheses of the results that
    cover it (its tightness)."""
    def at(method: str, **over: Any) -> Setting:
        base: dict[str, Any] = dict(L=1.0, mu=0.1, zeta=0.5, eta=0.3, K=2, R=3, M=2)
        return Setting(method, **{**base, **over})

    return [
        at("local_gd", zeta=0.0, eta=1.5, K=1, R=1, M=1),
        at("local_gd"),
        at("scaffold"),
        at("fast", I=2, S=1),
        at("fast", R=2, law=Law("snapshot", q=0.5, m=2, other="cohort", n=1)),
        at("local_gd", zeta=0.1, eta=0.003),
    ]


def report_records(settings: Sequence[Setting] | None = None) -> list[WorstCase]:
    """Solve :func:`report_settings` (or ``settings``) with their horizon sweeps, for the report."""
    return [report_record(s) for s in (report_settings() if settings is None else settings)]
