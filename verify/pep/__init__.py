"""Exact worst cases of federated methods by performance estimation (PEP).

* :mod:`verify.pep.setting`: the function class, methods, participation laws and noise (``Setting``).
* :mod:`verify.pep.size`: the SDP's size and cost, estimated before anything is built.
* :mod:`verify.pep.sdp`: the SDP, written directly in cvxpy (expectation over participation patterns, noise).
* :mod:`verify.pep.exact`: the exact rational recheck of the dual certificate.
* :mod:`verify.pep.core`: ``solve`` and the ``WorstCase`` record (its versions: :mod:`verify.pep.versions`).
* :mod:`verify.pep.lyapunov`: a per-round certificate valid for every horizon.
* :mod:`verify.pep.banded`: long horizons (K x R ~ 1,000): a windowed PEP on a chordal pattern, certified upper bound
  (built by :mod:`verify.pep.banded_build`, solved and rechecked by :mod:`verify.pep.banded_sdp`).
* :mod:`verify.pep.lower`: lower bounds from explicit quadratic instances (the banded route's bracket).
* :mod:`verify.pep.fixed_point`: the farthest fixed point of one round, a proved lower bound at every R.
* :mod:`verify.pep.compare`: the tightness of every encoded result that covers a setting (each result declares
  its rule beside it, :mod:`bounds.pep_cover`; this package names no paper).
* :mod:`verify.pep.sweep`: tightness of covering results against the horizon, engine replays, the report's settings.
* :mod:`verify.pep.nonconvex` (setting), ``nonconvex_rows`` (the PEP), ``nonconvex_solve`` (its SDP and recheck),
  ``nonconvex_core`` (``solve_nc``), ``nonconvex_record``, ``nonconvex_bracket``, ``nonconvex_cover``,
  ``nonconvex_sweep``: the same for L-smooth, possibly non-convex clients.
* :mod:`verify.pep.replay`: worst cases replayed in the simulation engine.
* :mod:`verify.pep.pepit_backend`: PEPit's formulation, the independent cross-check.

cvxpy, Clarabel and PEPit are imported inside the functions: `convbound --help` never loads them.
"""

from verify.pep.compare import coverage
from verify.pep.core import SOLVERS, WorstCase, solve
from verify.pep.replay import replay_quadratic, worst_curvature
from verify.pep.setting import LAW_SYNTAX, MEASURES, METHODS, Law, Setting, parse_law, snapshot_schedule, validate
from verify.pep.size import MAX_SECONDS, Size, check_size, estimate
from verify.pep.sweep import report_records, report_settings


def estimate_cost(s: Setting) -> tuple[float, float]:
    """(seconds, GB) the SDP is expected to need (order of magnitude; see verify.pep.size)."""
    size = estimate(s)
    return size.seconds, size.gb


__all__ = ["LAW_SYNTAX", "MAX_SECONDS", "MEASURES", "METHODS", "SOLVERS", "Law", "Setting", "Size", "WorstCase",
           "check_size", "coverage", "estimate", "estimate_cost", "parse_law", "replay_quadratic", "report_records",
           "report_settings", "snapshot_schedule", "solve", "validate", "worst_curvature"]
