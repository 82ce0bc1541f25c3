"""Compare an implementation's per-round moments with the reference's, at a stated family-wise error rate.

**Quantity**: for every scenario, round r = 1..R and quantity j (E[x - x*] per coordinate, E[(x - x*)(x - x*)^T]
upper triangle), z = (mean over T trials - reference) / se, where se^2 = var / T + se_ref^2 + (FLOAT_TOL (1 + |ref|))^2:
var is the larger of the sample variance and the reference's (the null law's own variance: exact
E[e_j^2] - E[e_j]^2 for a mean coordinate, from a reference simulation for a second moment). Why not the sample
variance alone: a second moment is right-skewed, and a sample whose mean is low also has a low variance, so
the plain t statistic's lower tail is far heavier than normal (a correct SCAFFOLD was flagged at -4.6 se); se_ref is 0 on the exact path, and FLOAT_TOL
absorbs rounding (float64 runs of the same maths differ by far less).
**Decision** (Bonferroni over all N = scenarios x rounds x quantities tests): departs when some |z| exceeds
z* = t_{1 - alpha / (2N), T - 1}; under the null each test exceeds it with probability <= alpha / N (normal
approximation of the trial mean), so a conforming implementation is flagged with probability <= alpha.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

import numpy as np

from bounds.core.stats import t_quantile

from .diagnose import Diagnosis
from .reference import ReferenceMoments, quantity_names

FLOAT_TOL = 1e-9
ALPHA = 1e-3


@dataclass(frozen=True)
class Departure:
    """One test beyond the threshold: where, what was measured, what the reference says, by how many se."""

    scenario: str
    round: int
    quantity: str
    measured: float
    reference: float
    se: float
    z: float


@dataclass(frozen=True)
class ScenarioReport:
    """What one scenario covered and its largest deviation (in standard errors)."""

    name: str
    family: str
    sigma: float
    setting: dict[str, Any]
    rounds: int
    trials: int
    reference: str
    why_not_exact: str
    law: str
    max_abs_z: float
    departures: int
    wall_seconds: float
    reference_trials: int = 0


@dataclass(frozen=True)
class ConformanceResult:
    """The verdict of a conformance check (``kind = "conformance"``), with what it covered.

    ``status``: "conforms" (no test beyond z*; says what was covered, not a proof) or "departs" (``first``: the
    earliest departing test, ties broken by |z|; ``not_run``: scenarios left out after it when asked to stop
    early); ``alpha`` the family-wise error rate, ``tests`` N and
    ``threshold_z`` z* (Bonferroni); ``likely``: the departure's likely bug class and the algorithm line it breaks
    (:mod:`verify.conformance.diagnose`); ``seed``, ``trials`` and ``versions`` make it reproducible.
    """

    kind: ClassVar[str] = "conformance"
    implementation: str
    form: str
    algorithm: str
    law: str
    status: str
    message: str
    alpha: float
    correction: str
    tests: int
    threshold_z: float
    first: Departure | None
    departures: int
    scenarios: tuple[ScenarioReport, ...]
    seed: int
    trials: int
    wall_seconds: float
    versions: dict[str, str] = field(default_factory=dict)
    not_run: tuple[str, ...] = ()
    likely: Diagnosis | None = None
    schema: int = 1

    @property
    def conforms(self) -> bool:
        return self.status == "conforms"

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["kind"] = self.kind
        return out

    def __repr__(self) -> str:
        return f"ConformanceResult({self.status}: {self.implementation} as {self.algorithm}/{self.law}, " \
               f"{self.tests} tests, max departures {self.departures})"[:200]


def z_scores(values: np.ndarray, ref: ReferenceMoments, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean [R + 1, Q], se [R + 1, Q], z [R + 1, Q]) of the trial values [R + 1, T, Q] against ``ref``.

    A quantity with a non-finite trial value (the implementation diverged) gets z = inf.
    """
    T = values.shape[1]
    finite = np.isfinite(values).all(1)
    with np.errstate(all="ignore"):
        mean = values.mean(1)
        var = np.maximum(values.var(1, ddof=1), ref.var)
        if ref.method == "exact":
            diag = [d + k for k, (i, j) in enumerate(zip(*np.triu_indices(d))) if i == j]
            var[:, :d] = np.maximum(var[:, :d], ref.values[:, diag] - ref.values[:, :d] ** 2)
        se = np.sqrt(var / T + ref.se**2 + (FLOAT_TOL * (1 + np.abs(ref.values))) ** 2)
        z = np.where(finite, (mean - ref.values) / se, np.inf)
    return mean, se, z


def threshold(alpha: float, tests: int, trials: int) -> float:
    """z* = t_{1 - alpha / (2 tests), trials - 1} (two-sided Bonferroni)."""
    return float(t_quantile(1 - alpha / tests, trials - 1))


def departures(name: str, mean: np.ndarray, ref: ReferenceMoments, se: np.ndarray, z: np.ndarray,
               zstar: float, d: int) -> list[Departure]:
    """Every test of rounds 1..R with |z| > z*, in order of round then |z| (largest first)."""
    names = quantity_names(d)
    hits = [(r, j) for r in range(1, z.shape[0]) for j in range(z.shape[1]) if not abs(z[r, j]) <= zstar]
    hits.sort(key=lambda rj: (rj[0], -abs(z[rj]) if math.isfinite(z[rj]) else -math.inf))
    return [Departure(name, r, names[j], float(mean[r, j]), float(ref.values[r, j]), float(se[r, j]),
                      float(z[r, j])) for r, j in hits]


def reference_words(reports: list[ScenarioReport]) -> str:
    """Which kind of reference the check used: exact moments, or a two-sample test against a simulation of
    convbound's reference implementation (with the reason the exact path declined)."""
    sims = [r for r in reports if r.reference != "exact"]
    if not sims:
        return "exact moments"
    what = (f"a {sims[0].reference_trials:,}-trial simulation of the reference as a two-sample test "
            f"({sims[0].why_not_exact})")
    return what if len(sims) == len(reports) else f"exact moments ({len(sims)} scenario(s): {what})"


def describe(result_status: str, first: Departure | None, tests: int, zstar: float, alpha: float,
             reports: list[ScenarioReport], not_run: list[str] | None = None,
             likely: Diagnosis | None = None) -> str:
    """The one-paragraph message of a result."""
    if first is not None:
        left = f"; stopped there, {len(not_run)} scenario(s) not run" if not_run else ""
        why = f"; likely bug: {likely.description} (breaks: {likely.line})" if likely else ""
        return (f"departs: {first.quantity} at round {first.round} of scenario {first.scenario!r} is "
                f"{first.measured:.6g} against the reference's {first.reference:.6g} ({first.z:+.1f} standard "
                f"errors; threshold {zstar:.2f}, Bonferroni over {tests} tests at family-wise alpha = {alpha:g}, "
                f"reference: {reference_words(reports)}{left}){why}")
    ref = reference_words(reports)
    worst = max((r.max_abs_z for r in reports), default=0.0)
    return (f"conforms: no departure beyond {zstar:.2f} standard errors (Bonferroni over {tests} tests at family-wise "
            f"alpha = {alpha:g}; largest |z| {worst:.2f}) in {len(reports)} scenarios x {reports[0].rounds} rounds "
            f"against {ref}, mean and second moment of the model; covered, not proved: a difference below about "
            f"{zstar:.1f} standard errors, outside these scenarios or after round {reports[0].rounds} is not seen")
