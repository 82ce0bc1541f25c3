"""Verdicts: a measured left-hand side with a confidence interval against a right-hand side.

**Setting**: a result ``LHS <kind> RHS`` (``bounds.Kind``); LHS is estimated by Monte Carlo as a
mean with a confidence interval [low, high]; RHS is evaluated exactly at the instance's constants.
**Statement**: UPPER holds when high <= RHS, is violated when low > RHS, else inconclusive;
LOWER is the mirror image; EQUALITY holds when RHS lies in [low - tol, high + tol]; a hypothesis
that fails makes it ``inapplicable``. At a point where a hypothesis is only assumed (or undecided:
it needs a constant the sources do not give), an interval that clears the RHS is a *conditional
violation*, ``violated unless``: confirmed exactly as a violation is, it names the hypotheses whose
failure at the point is the only way the theorem survives (:func:`verdict_of`, ``Verdict.unless``);
without such an exceedance the verdict is ``unverified``.
This module holds the closed set of verdict words and every rule that turns estimates into one.
Torch-free: imported by the report renderer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from bounds.core.stats import MEAN_LEVEL, check_level, t_quantile

HOLDS = "holds"
VIOLATED = "violated"
VIOLATED_UNLESS = "violated unless"  # a violation conditional on named hypotheses (``Verdict.unless``)
INCONCLUSIVE = "inconclusive"
UNVERIFIED = "unverified"
INAPPLICABLE = "inapplicable"
PENDING = "pending"
VERDICTS = (HOLDS, VIOLATED, VIOLATED_UNLESS, INCONCLUSIVE, UNVERIFIED, INAPPLICABLE, PENDING)
# Verdicts that refute a bound at a point: plainly, or unless the named hypotheses fail there.
FINDINGS = (VIOLATED, VIOLATED_UNLESS)


def is_finding(word: str) -> bool:
    """Whether ``word`` refutes the bound at its point (a violation, plain or conditional).

    >>> is_finding("violated unless"), is_finding("unverified")
    (True, False)
    """
    return word in FINDINGS


def finding_kind(word: str) -> str:
    """``"violation"``, ``"conditional violation"`` or ``""`` (not a finding) for a verdict word."""
    return {VIOLATED: "violation", VIOLATED_UNLESS: "conditional violation"}.get(word, "")


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo mean with a two-sided t confidence interval."""

    mean: float
    low: float
    high: float
    stderr: float
    n: int
    level: float

    def to_dict(self) -> dict:
        return {"mean": self.mean, "ci": [self.low, self.high], "stderr": self.stderr, "n": self.n,
                "level": self.level}


def mean_ci(samples: Sequence[float] | np.ndarray, level: float = MEAN_LEVEL) -> Estimate:
    """Mean of independent samples with a Student-t interval (exact point interval if n == 1 or no spread)."""
    x = np.asarray(samples, dtype=float).ravel()
    if x.size == 0:
        raise ValueError("mean_ci needs at least one sample")
    check_level(level)
    mean = float(x.mean())
    if x.size == 1:
        return Estimate(mean, -math.inf, math.inf, math.inf, 1, level)
    se = float(x.std(ddof=1) / math.sqrt(x.size))
    half = float(t_quantile(level, x.size - 1)) * se
    return Estimate(mean, mean - half, mean + half, se, int(x.size), level)


# Relative rounding allowed for the RHS, evaluated in float64 from its symbolic expression (tens of operations,
# each within half an ulp: far below 1e-12). A violation is claimed only past it, so that an exactly tight bound
# scored exactly (LHS = RHS up to rounding: the planted benchmark's correct bounds reach LHS/RHS = 1 + 2e-12)
# is never called violated by the RHS's rounding alone.
RHS_REL = 1e-12


def decide(kind: str, low: float, high: float, rhs: float, *, hypotheses: bool | None = True,
           tol: float = 0.0) -> str:
    """Verdict for a confidence interval [low, high] of the LHS against ``rhs``.

    Args:
        kind: ``upper`` | ``lower`` | ``equality`` | ``threshold`` (``bounds.Kind`` values). A threshold's
            LHS is the least value that suffices (e.g. the last round a chain is still farther than eps, against
            the burn-in that claims every later round is within it): the threshold holds when LHS <= RHS, as an
            upper bound does.
        low, high: confidence interval of the measured LHS (low <= high).
        rhs: right-hand side at the instance's exact constants.
        hypotheses: ``bounds`` check outcome: True (all hold), None (some need unrecovered
            constants) or False (some fail: the instance is outside the result).
        tol: absolute tolerance for ``equality``.
    """
    if low > high:
        raise ValueError(f"confidence interval [{low}, {high}] has low > high")
    if hypotheses is False:
        return INAPPLICABLE
    if hypotheses is None:
        return UNVERIFIED
    if kind == "threshold":  # the least sufficient value (LHS) against the threshold that claims to suffice
        kind = "upper"
    if not math.isfinite(rhs):
        return INCONCLUSIVE if math.isnan(rhs) else (HOLDS if (rhs > 0) == (kind == "upper") else VIOLATED)
    margin = RHS_REL * abs(rhs)
    if kind == "upper":
        return HOLDS if high <= rhs else VIOLATED if low > rhs + margin else INCONCLUSIVE
    if kind == "lower":
        return HOLDS if low >= rhs else VIOLATED if high < rhs - margin else INCONCLUSIVE
    if kind == "equality":
        return HOLDS if low - tol <= rhs <= high + tol else VIOLATED
    raise ValueError(f"kind {kind!r} has no pointwise verdict; valid: upper, lower, equality")


def ratio(lhs: float, rhs: float) -> float:
    """Tightness LHS / RHS (nan when RHS is 0 or not finite)."""
    if rhs == 0 or not math.isfinite(rhs):
        return math.nan
    return lhs / rhs


def is_success(verdict: str, expected: str) -> bool:
    """A verdict counts as success only when it is the expected one (``violated`` for a control)."""
    return verdict == expected


class Verdict(NamedTuple):
    """A verdict word, the notes that explain it, and (``violated unless``) the hypotheses it rests on."""

    word: str
    notes: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()


def open_hypotheses(conditions: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The hypotheses a point's verdict rests on without deciding them: assumed met, or undecided."""
    return [c for c in conditions if c.get("assumed") or c.get("holds") is None]


def unless_clause(c: Mapping[str, Any]) -> str:
    """What the theorem needs for a conditional violation not to count: this hypothesis fails at the point,
    with the recorded reason it was taken as met (or why it is undecided)."""
    if c.get("assumed"):
        return f"'{c['name']}' fails at this point (it was assumed met: {c['assumed']})"
    why = str(c.get("reason") or "no number decides it").removeprefix("unverified: ")
    return f"'{c['name']}' fails at this point (undecided: {why})"


def verdict_of(est: Any) -> Verdict:
    """The one verdict of a scored point (``verify``, falsify's confirmation, ``verify --instance``,
    ``assert_bound_holds``, a hand-built certificate).

    **Statement**: UPPER/LOWER/EQUALITY: :func:`decide` on the interval; a hypothesis decided False makes
    the point ``inapplicable``. Where hypotheses are assumed or undecided, an interval that clears the RHS
    (as :func:`decide` confirms a violation: exact LHS minus its rounding bound, or the Monte Carlo low
    end, above the RHS plus its rounding margin) is ``violated unless`` those hypotheses fail here (named
    in ``unless``); otherwise an undecided hypothesis leaves the point ``unverified``. ORDER: the constant
    is hidden, a point bounds it from below only: ``unverified`` (``inapplicable`` outside the hypotheses).

    Args:
        est: a ``verify.scenario.PointEstimate`` (kind, ci, rhs, hypotheses, conditions).
    """
    notes: list[str] = []
    applied = [c for c in est.conditions if c.get("assumed")]
    if applied:
        notes.append("assumed met: " + "; ".join(f"{c['name']}: {c['assumed']}" for c in applied))
    if est.kind == "order":
        notes.append("ORDER result: the constant is hidden, one point bounds it from below only")
        return Verdict(INAPPLICABLE if est.hypotheses is False else UNVERIFIED, tuple(notes))
    low, high = est.ci
    if est.hypotheses is False:
        return Verdict(INAPPLICABLE, tuple(notes))
    inequality = decide(est.kind, low, high, est.rhs, hypotheses=True)
    pending = open_hypotheses(est.conditions)
    if inequality == VIOLATED and pending:
        notes.append("conditional violation: the interval clears the RHS; the point does not count only if "
                     + " or ".join(unless_clause(c) for c in pending))
        return Verdict(VIOLATED_UNLESS, tuple(notes), tuple(str(c["name"]) for c in pending))
    if est.hypotheses is None:
        return Verdict(UNVERIFIED, tuple(notes))
    return Verdict(inequality, tuple(notes))


def control_verdict(kind: str, low: float, high: float, rhs: float, *, broken: bool) -> str:
    """A negative control: the inequality decided on its own (the theorem says nothing outside its
    hypotheses, so ``inapplicable`` would hide the failure) when the named hypothesis is decided False at
    the point (``broken``); else ``inapplicable`` (the control no longer tests what it says)."""
    return decide(kind, low, high, rhs, hypotheses=True) if broken else INAPPLICABLE


def exact_verdict(lhs: float, rhs: float, bound: float, *, hypotheses: bool | None, broken: bool,
                  control: bool) -> str:
    """An exactly computed LHS against an equality's RHS within its floating-point ``bound``. A control is
    decided on its own where a hypothesis is broken, ``inapplicable`` where none is."""
    if control:
        return decide("equality", lhs, lhs, rhs, tol=bound) if broken else INAPPLICABLE
    return decide("equality", lhs, lhs, rhs, hypotheses=hypotheses, tol=bound)


def contrast_verdict(a: Estimate, b: Estimate, diff: Estimate) -> str:
    """An effect ``b > a`` (paired trials): ``holds`` when b's interval lies wholly above a's and the paired
    difference's interval above 0, else ``violated``."""
    return HOLDS if b.low > a.high and diff.low > 0 else VIOLATED


def slope_verdict(agrees: bool) -> str:
    """A rate: ``holds`` when the predicted exponent lies in the fitted slope's interval widened by its
    tolerance (``verify.fit.SlopeFit.agrees``), else ``violated``."""
    return HOLDS if agrees else VIOLATED


def constant_verdict(spread: float, limit: float, hypotheses: Sequence[bool | None],
                     pending: Sequence[str], *, control: bool) -> Verdict:
    """An ORDER result's shape over a sweep: the fitted constant LHS/argument keeps max/min <= ``limit``.

    The shape is ``holds`` or ``violated``; for a certificate (not a ``control``), a hypothesis decided
    False at a point makes the sweep ``inapplicable``; hypotheses assumed or undecided (``pending``, by
    name) make a bounded shape ``unverified`` and an unbounded one ``violated unless`` they fail.
    """
    shape = HOLDS if spread <= limit else VIOLATED
    if control:
        return Verdict(shape)
    if any(h is False for h in hypotheses):
        return Verdict(INAPPLICABLE)
    if pending or any(h is None for h in hypotheses):
        names = tuple(sorted(set(pending)))
        note = "hypotheses assumed or undecided at the sweep's points: " + ("; ".join(names) or "see conditions")
        return Verdict(VIOLATED_UNLESS if shape == VIOLATED else UNVERIFIED, (note,),
                       names if shape == VIOLATED else ())
    return Verdict(shape)


def confirmed(word: str) -> bool:
    """A search's claim is confirmed (``--stop-at-violation`` stops) when its confirmation is a finding."""
    return is_finding(word)


# A search with nothing confirmed: no admissible point, or interrupted before its confirmation ran. Its
# confirmation carries no verdict word (``status`` says which), so no field called verdict leaves the set.
NO_ADMISSIBLE = "no admissible point"
NOT_CONFIRMED = "interrupted before confirmation"

# Words for the audit's participation checks (True / False / None): statuses of hypotheses, not verdicts.
# The audit's status words (met / not met / unverified) are not verdicts: they live with the audit, in
# rate_region.audit.checks (rate_region sits above verify and may not import this module).

# What each verdict word means, for legends (the report's); ``{level}`` is the confidence level used.
MEANINGS = {
    HOLDS: "the measured left side (upper {level} confidence limit, or exact value plus its rounding bound) stays "
           "within the bound",
    VIOLATED: "it exceeds the bound (lower {level} confidence limit, or exact value minus its rounding bound, above "
              "it; a negative control must say this)",
    VIOLATED_UNLESS: "it exceeds the bound as a violation does, at a point where a hypothesis is only assumed or "
                     "undecided: a refutation unless that named hypothesis fails there",
    INCONCLUSIVE: "the confidence interval straddles the bound",
    UNVERIFIED: "a hypothesis needs a constant the sources do not give, and the bound is not exceeded",
    INAPPLICABLE: "a hypothesis fails at the instance: the theorem says nothing there",
    PENDING: "not run yet",
}


def legend(levels: Sequence[float] = ()) -> list[tuple[str, str]]:
    """(word, meaning) for every verdict, with the confidence level(s) used (default: ``MEAN_LEVEL``)."""
    used = sorted({float(x) for x in levels}) or [MEAN_LEVEL]
    said = " / ".join(f"{x:.0%}" if round(x * 100, 6) == round(x * 100) else f"{x:.2%}" for x in used)
    return [(w, MEANINGS[w].format(level=said)) for w in VERDICTS]
