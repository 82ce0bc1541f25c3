"""Worked-example inputs from the spec, per result key (used by reports, benchmarks and docs).

Kept apart from the paper modules so one table lists every instance a reader can rerun with
``convbound check KEY ...``. A paper module may instead set ``Result.example`` itself.
"""

from __future__ import annotations

_T1: dict[str, object] = dict(L=1, K=5, m=10, n=5, q=0.5, sigma=1, sigma_G=0.5, zeta=1, R=1000, eta_c=0.005)
_T2: dict[str, object] = dict(mu=0.1, L=1, K=5, m=10, n=10, eta_c=0.001, sigma_G=0.01, sigma=1, kappa=1, R=1000, q=0.8)

EXAMPLES: dict[str, dict[str, object]] = {
    "FAST.T1": _T1,
    "FAST.T2": _T2,
    "FAST.T2@corrected": _T2,
}
