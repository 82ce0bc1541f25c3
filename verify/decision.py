"""One decision per result from every kind of evidence: the evidence types, the one rule, the record.

**Setting**: an encoded result (``bounds``) and the evidence gathered about it by
``verify.decision_sources`` (hypotheses at its worked example, saved or fresh falsify searches, an
asymptotic-orders table where one is available, certified PEP worst cases whose setting covers it).
**Rule** (:func:`decide`, pure; first match wins):

1. ``refuted``: a search confirmed a violation (the instance is the minimal one where the search shrank it,
   then the search's confirmed point);
2. ``refuted unless H fails``: a search confirmed a violation whose only undecided hypotheses are ``H``
   (confirmation verdict ``violated unless ...``); never summarised as consistent; where ``H`` declares
   what failing it would mean at the point (``bounds.Hypothesis.floor_of``: no admissible value at all),
   the reason says so in those words;
3. ``certified at stated settings``: a PEP worst case over the class, its dual certificate passing the
   exact rational recheck, is at most the bound (ratio <= 1) at a setting where the result's hypotheses
   hold: a proof at those settings only (named);
4. ``open``: a search ended inconclusive (its best point's confirmation was inconclusive, or unverified with
   an interval not within the bound: worded as such, with its ratio, never as a failed check), a check did not
   pass (a certified PEP ratio above 1, an orders table that contradicts the rate), or there is no evidence
   about the bound at all; ``missing`` says what would decide it (constants the sources lost, a class no PEP
   here covers, no search recorded);
5. ``consistent so far``: every check that ran passed; ``covered`` says what they covered (searched
   regions, PEP settings); not a proof.

A best point ``unverified`` because a hypothesis is undecided there, with its interval within the bound,
passes: an undecided hypothesis can only excuse an exceedance, and there is none. A search of an ORDER result
checks nothing by itself (its constant is hidden: a point bounds that constant from below only); it is shown
as that lower bound, and the result's scaling is checked by the orders rays.

Hypotheses at the worked example are context, not a check of the bound: they decide whether the
example is inside the theorem and name the constants the sources lost.
**Travel** (:func:`with_rests_on`, pure): a result read off others (``bounds.Provenance.rests_on``: a
corollary's theorem, a rate read off a bound) keeps its own outcome and carries theirs beside it
("rests on FAST.T1: refuted unless ..."): a refuted theorem does not refute its corollary's scaling, but
takes away the proof the corollary cites.
**Notation**: ``key`` is a registry key (``ID`` or ``ID@variant``); a ratio is always LHS / RHS (search:
measured / bound; PEP: certified worst case / bound).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bounds.core.face import notebook_face, short
from bounds.core.record import BadRecord, Record, get, register

REFUTED = "refuted"
REFUTED_UNLESS = "refuted unless"  # followed by the hypotheses, e.g. "refuted unless q >= q_min(G1,G2,G3)"
CERTIFIED = "certified at stated settings"
CONSISTENT = "consistent so far"
OPEN = "open"
#: The outcomes; a conditional refutation reads ``refuted unless <hypothesis>``.
OUTCOMES = (REFUTED, REFUTED_UNLESS, CERTIFIED, CONSISTENT, OPEN)
#: Confirmation verdicts that pass a search check (``none``: no admissible point, nothing was checked).
PASSING = ("holds",)
#: Confirmation verdicts that checked nothing (no admissible point; a best point outside the hypotheses):
#: neither a pass nor a failed check.
NOTHING_CHECKED = ("none", "inapplicable")
CONDITIONAL_PREFIX = "violated unless"


@dataclass(frozen=True)
class HypothesesAt:
    """The result's hypotheses at its worked example (``bounds.Result.check``): ``verdict`` is a
    ``bounds.evaluate`` check verdict or ``no worked example``; ``given`` the conditions no number decides,
    ``needs`` the constants the sources lost, ``fails`` the hypotheses false there."""

    verdict: str
    given: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    fails: tuple[str, ...] = ()


@dataclass(frozen=True)
class SearchOutcome:
    """One falsify search's confirmed best point: ``verdict`` (the confirmation's word), ``ratio`` (LHS/RHS
    there), ``covered`` (the searched space and the admissible points), ``instance`` (the confirmed point),
    ``unless`` (the hypotheses a conditional violation rests on), ``unless_needs`` (what the theorem would
    need for the point not to count, as ``verify.verdict.unless_clause`` words it), ``source`` (file or "run
    now"), ``minimal_instance`` (the point the search's shrink step reduced a confirmed violation to,
    ``verify.search.shrink``; empty when it shrank nothing) and ``minimal_ratio`` (LHS/RHS confirmed there),
    ``unless_meaning`` (for each hypothesis in ``unless`` that declares it, ``bounds.Hypothesis.if_fails_at``
    at the confirmed point: failing it would leave no admissible value), ``within`` (an ``unverified`` best
    point whose confidence interval alone is within the bound, ``verify.verdict.decide`` with the hypotheses
    taken as met: a hypothesis left undecided can only excuse an exceedance, and there is none, so the point
    passes) and ``hidden_constant`` (a search of an ORDER result: the best point's lower bound on the hidden
    constant, LHS over the order's argument; one point bounds that constant from below only, so such a search
    is context, never a check; the result's scaling is checked by the orders rays)."""

    verdict: str
    ratio: float | None
    covered: str
    source: str
    instance: Mapping[str, Any] = field(default_factory=dict)
    unless: tuple[str, ...] = ()
    unless_needs: tuple[str, ...] = ()
    minimal_instance: Mapping[str, Any] = field(default_factory=dict)
    minimal_ratio: float | None = None
    unless_meaning: tuple[str, ...] = ()
    within: bool = False
    hidden_constant: float | None = None

    @property
    def conditional(self) -> bool:
        return self.verdict.startswith(CONDITIONAL_PREFIX)

    @property
    def passed(self) -> bool:
        """The bound held at the confirmed best point: ``holds``, or ``unverified`` with the interval within the
        bound (``within``: the undecided hypotheses could only excuse an exceedance, and there is none)."""
        return self.verdict in PASSING or (self.within and self.hidden_constant is None)

    @property
    def inconclusive(self) -> bool:
        """Neither a pass, a finding, nor a search that checked nothing or only bounds a hidden constant."""
        return not (self.passed or self.verdict in NOTHING_CHECKED or self.hidden_constant is not None
                    or self.verdict == "violated" or self.conditional)


@dataclass(frozen=True)
class Orders:
    """The asymptotic-orders table: ``status`` ``agrees`` | ``contradicts`` | ``not computed``; ``detail``
    one line (the exponents compared, or why not computed)."""

    status: str
    detail: str


@dataclass(frozen=True)
class WorstCaseRatio:
    """A PEP worst case over a class that covers the result: ``setting`` (named), ``ratio`` = certified
    worst case / bound, ``certified`` (the dual passed the exact recheck), ``hypotheses_hold`` (the
    result's hypotheses at the setting), ``covers`` ``yes`` (per-instance bound) | ``comparison``."""

    setting: str
    ratio: float | None
    certified: bool
    hypotheses_hold: bool | None
    source: str
    covers: str = "yes"

    @property
    def proves(self) -> bool:
        return (self.covers == "yes" and self.certified and self.hypotheses_hold is True
                and self.ratio is not None and self.ratio <= 1.0)


@dataclass(frozen=True)
class VerificationCheck:
    """One ``convbound verify`` record about the result (a certificate, a rate check or a negative control):
    its ``verdict`` against the ``expected`` one at its ``instance``. A certificate or rate check as expected is
    a passed check at that instance, one that is not is a failed check; a negative control as expected shows the
    instrument detects a planted violation (context), one that is not is a failed check."""

    check: str
    verdict: str
    expected: str
    control: bool
    ratio: float | None
    source: str
    instance: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.verdict == self.expected


@dataclass(frozen=True)
class Evidence:
    """Everything gathered for one result; ``no_pep`` says why no PEP setting covers it (empty when one does);
    ``stale`` counts stored records about an earlier formula of the result (ignored, said); ``orders_apply``: the
    orders table classifies the result's kind (else orders are not missing evidence: none could be computed)."""

    key: str
    hypotheses: HypothesesAt
    searches: tuple[SearchOutcome, ...] = ()
    orders: Orders = Orders("not computed", "not asked")
    worst_cases: tuple[WorstCaseRatio, ...] = ()
    no_pep: str = ""
    scenarios: tuple[str, ...] = ()   # the scenarios a search of this result can run (verify.scenarios.registry)
    no_scenario: str = ""             # why it has none (verify.scenarios.settings.WITHOUT_SCENARIO), when none
    verifications: tuple[VerificationCheck, ...] = ()
    stale: int = 0
    orders_apply: bool = True         # the orders table classifies this result's kind (verify.search.orders)


def _r(x: float | None) -> str:
    return "-" if x is None else f"{x:.4g}"


def _shown(refuting: list[SearchOutcome]) -> SearchOutcome:
    """The refutation a decision names: one the search shrank to a minimal instance first (the instance a reader
    can check by hand), then the largest ratio; a point found along an orders ray has no minimal instance."""
    return max(refuting, key=lambda s: (bool(s.minimal_instance), s.ratio or 0.0))


def decide(ev: Evidence) -> tuple[str, str, tuple[str, ...], tuple[str, ...]]:
    """The one rule (module docstring): ``(outcome, why, covered, missing)``."""
    violated = [s for s in ev.searches if s.verdict == "violated"]
    if violated:
        s = _shown(violated)
        return REFUTED, f"confirmed violation, {_where(s)}", (), ()
    conditional = [s for s in ev.searches if s.conditional]
    if conditional:
        s = _shown(conditional)
        # the point stops counting if any one named hypothesis fails there (verify.verdict.verdict_of)
        unless = " or ".join(s.unless) or "an assumed hypothesis"
        if s.unless_meaning:  # declared by the hypothesis (bounds.Hypothesis.floor_of), not read from words
            needs = f"{unless} fails at that point; " + "; ".join(s.unless_meaning)
        else:
            needs = " or ".join(s.unless_needs) or f"{unless} fails at that point"
        return (f"{REFUTED_UNLESS} {unless} fails", f"conditional violation confirmed, {_where(s)}; a refutation "
                f"unless {needs}", (), ())
    covered = tuple(f"search: {s.covered} ({s.source}; {_best(s)})" for s in ev.searches)
    covered += tuple(f"PEP: {w.setting} (ratio {_r(w.ratio)}, {_pep_status(w)})" for w in ev.worst_cases)
    covered += (f"orders: {ev.orders.detail}",) if ev.orders.status == "agrees" else ()
    covered += tuple(f"verification {v.check}: {v.verdict} as expected at its instance ({v.source})"
                     for v in ev.verifications if v.ok)
    covered += (f"stale evidence ignored: {ev.stale} stored record(s) about an earlier formula",) if ev.stale else ()
    proofs = [w for w in ev.worst_cases if w.proves]
    if proofs:
        named = "; ".join(f"{w.setting} (ratio {_r(w.ratio)})" for w in proofs)
        return CERTIFIED, f"certified worst case <= bound at {named}; a proof at these settings only", covered, ()
    # a search whose best point was neither confirmed nor cleared is inconclusive, not a failed check
    inconclusive = [f"search inconclusive: best point {s.verdict}, ratio {_r(s.ratio)} ({s.source})"
                    for s in ev.searches if s.inconclusive]
    failed: list[str] = []
    # a PEP setting counts only where its certificate passed and the result's hypotheses hold there
    counted = [w for w in ev.worst_cases if w.certified and w.hypotheses_hold is True and w.ratio is not None]
    failed += [f"PEP {w.setting}: certified ratio {_r(w.ratio)} > 1 (the PEP class may be larger than the "
               "theorem's: not a violation, not a pass)" for w in counted if (w.ratio or 0.0) > 1.0]
    if ev.orders.status == "contradicts":
        failed.append(f"orders: {ev.orders.detail}")
    failed += [f"verification {v.check}: {v.verdict}, expected {v.expected} ({v.source})"
               for v in ev.verifications if not v.ok]
    passed = [s for s in ev.searches if s.passed]
    checks = [v for v in ev.verifications if v.ok and not v.control]
    passed_pep = [w for w in counted if (w.ratio or 0.0) <= 1.0]
    missing = _missing(ev)
    if failed or inconclusive:
        why = "; ".join(inconclusive + (["a check did not pass: " + "; ".join(failed)] if failed else []))
        return OPEN, why, covered, missing
    if passed or passed_pep or ev.orders.status == "agrees" or checks:
        why = "every check passed (not a proof): " + _tally(passed, passed_pep, ev.orders, checks)
        return CONSISTENT, why, covered, missing
    return OPEN, "no evidence about the bound: " + "; ".join(missing), covered, missing


def _tally(searches: list[SearchOutcome], pep: list[WorstCaseRatio], orders: Orders,
           checks: list[VerificationCheck]) -> str:
    parts = []
    if searches:
        best = max((s.ratio for s in searches if s.ratio is not None), default=None)
        parts.append(f"{len(searches)} search(es) held at their confirmed best point (largest ratio {_r(best)})")
    if pep:
        parts.append(f"{len(pep)} PEP setting(s) with certified ratio <= 1 as a comparison")
    if orders.status == "agrees":
        parts.append(f"orders agree ({orders.detail})")
    if checks:
        parts.append(f"{len(checks)} verification check(s) as expected at their instances")
    return "; ".join(parts)


def _best(s: SearchOutcome) -> str:
    """A search's best point in words: its verdict and ratio, what an ``unverified`` one within the bound means,
    and, for an ORDER result, the hidden constant's lower bound instead of a ratio."""
    if s.hidden_constant is not None:
        return (f"an order result: the best point bounds the hidden constant from below by {_r(s.hidden_constant)}; "
                "context, not a check of the bound")
    if s.within and s.verdict not in PASSING:
        return (f"best point {s.verdict} (a hypothesis undecided there), its interval within the bound: ratio "
                f"{_r(s.ratio)}")
    return f"best point {s.verdict}, ratio {_r(s.ratio)}"


def _pep_status(w: WorstCaseRatio) -> str:
    if not w.certified:
        return "certificate not certified: not counted"
    if w.hypotheses_hold is not True:
        return "the result's hypotheses " + ("fail" if w.hypotheses_hold is False else "are undecided") \
            + " at this setting: not counted"
    return "certified" + ("" if w.covers == "yes" else f", a {w.covers}")


def _missing(ev: Evidence) -> tuple[str, ...]:
    out = []
    if ev.hypotheses.needs:
        out.append(f"constants the sources lost: {', '.join(ev.hypotheses.needs)}")
    if not ev.searches and ev.no_scenario:
        out.append(f"no scenario to search ({ev.no_scenario})")
    elif not ev.searches:
        out.append("no search recorded" + (f" (scenario {', '.join(ev.scenarios)} ready: convbound falsify "
                                           f"{ev.scenarios[0]})" if ev.scenarios else ""))
    elif all(s.verdict in NOTHING_CHECKED for s in ev.searches):
        out.append("the searches recorded checked no point inside the hypotheses")
    elif all(s.hidden_constant is not None for s in ev.searches) and ev.orders.status != "agrees":
        out.append("an order result's searches bound its hidden constant only: its scaling needs orders rays "
                   "that were fitted")
    if not ev.worst_cases:
        out.append(f"no PEP setting covers its class ({ev.no_pep or 'no worst case computed or given'})")
    if ev.orders.status == "not computed" and ev.orders_apply:
        out.append(f"orders: not computed ({ev.orders.detail})")
    return tuple(out)


def _where(s: SearchOutcome) -> str:
    """Where a violation was confirmed: the minimal instance first (where the search shrank it), then the
    search's own point, each with its ratio."""
    found = f"ratio {_r(s.ratio)} ({s.source}) at {_point(s.instance)}"
    if not s.minimal_instance:
        return found
    return f"ratio {_r(s.minimal_ratio)} at the minimal instance {_point(s.minimal_instance)}; shrunk from {found}"


def _point(point: Mapping[str, Any]) -> str:
    if not point:
        return "its confirmed point"
    return ", ".join(f"{k}={short(v) if isinstance(v, float) else v}" for k, v in point.items())


# The record --------------------------------------------------------------------------------------------

def _summary(d: Decision) -> str:
    return f"{d.id}: {d.outcome}; {d.why}"


def _rows(d: Decision) -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = [("outcome", d.outcome), ("why", d.why),
                                   ("hypotheses at the example", d.hypotheses.get("verdict", ""))]
    rows += [("rests on", rests_on_line(r)) for r in d.rests_on]
    rows += [("covered", c) for c in d.covered] + [("missing", m) for m in d.missing]
    rows += [("orders", d.orders.get("status", "") + ": " + d.orders.get("detail", ""))]
    return rows


@register
@notebook_face(_summary, rows=_rows)
@dataclass(frozen=True)
class Decision(Record):
    """The decision on one result.

    Args:
        id: the result's key; outcome: one of :data:`OUTCOMES` (``refuted unless H fails`` spelled out);
        why: one line; covered: what the passing checks covered; missing: what would decide an open one;
        instance: the refuting point the search found (empty unless refuted); minimal_instance: the point it
        was shrunk to (empty when not shrunk; shown first); conditions: the hypotheses a conditional
        refutation rests on; conditions_meaning: what failing them would mean at the point, where the
        hypothesis declares it (no admissible value at all); rests_on: the decisions of the results this one
        is read off (``id``, ``outcome``, ``word``, ``why``; see :func:`with_rests_on`); hypotheses, searches,
        orders, worst_cases, verifications: the evidence as JSON; versions: provenance.
    """

    KIND = "decision"

    id: str
    outcome: str
    why: str
    covered: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    instance: Mapping[str, Any] = field(default_factory=dict)
    conditions: tuple[str, ...] = ()
    hypotheses: Mapping[str, Any] = field(default_factory=dict)
    minimal_instance: Mapping[str, Any] = field(default_factory=dict)
    conditions_meaning: tuple[str, ...] = ()
    rests_on: tuple[Mapping[str, Any], ...] = ()
    searches: tuple[Mapping[str, Any], ...] = ()
    orders: Mapping[str, Any] = field(default_factory=dict)
    worst_cases: tuple[Mapping[str, Any], ...] = ()
    versions: Mapping[str, str] = field(default_factory=dict)
    verifications: tuple[Mapping[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if not any(self.outcome == o or self.outcome.startswith(REFUTED_UNLESS + " ") for o in OUTCOMES
                   if o != REFUTED_UNLESS):
            raise ValueError(f"outcome {self.outcome!r} is not one of {', '.join(OUTCOMES)}")

    @property
    def word(self) -> str:
        """The outcome without its condition (one of :data:`OUTCOMES`)."""
        return REFUTED_UNLESS if self.outcome.startswith(REFUTED_UNLESS + " ") else self.outcome

    @classmethod
    def read(cls, data: Mapping[str, Any], where: str) -> Decision:
        for name in ("id", "outcome", "why"):
            get(data, name, str, where)
        for name in ("covered", "missing", "conditions", "conditions_meaning", "searches", "worst_cases",
                     "verifications", "rests_on"):
            get(data, name, list, where, optional=True)
        kw: dict[str, Any] = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items()
                              if k in cls.__dataclass_fields__}
        try:
            return cls(**kw)
        except ValueError as exc:
            raise BadRecord(f"field '{where}.outcome': {exc}") from None


def decision_of(ev: Evidence, versions: Mapping[str, str] | None = None) -> Decision:
    """``decide(ev)`` as a :class:`Decision` record carrying its evidence."""
    from dataclasses import asdict

    outcome, why, covered, missing = decide(ev)
    refuting = [s for s in ev.searches if s.verdict == "violated" or s.conditional]
    best = _shown(refuting) if refuting else None
    return Decision(id=ev.key, outcome=outcome, why=why, covered=covered, missing=missing,
                    instance=dict(best.instance) if best else {},
                    minimal_instance=dict(best.minimal_instance) if best else {},
                    conditions=best.unless if best and best.conditional else (),
                    conditions_meaning=best.unless_meaning if best and best.conditional else (),
                    hypotheses=asdict(ev.hypotheses), searches=tuple(asdict(s) for s in ev.searches),
                    orders=asdict(ev.orders), worst_cases=tuple(asdict(w) for w in ev.worst_cases),
                    versions=dict(versions or {}), verifications=tuple(asdict(v) for v in ev.verifications))


# Travel: a decision beside the decisions of what it rests on ----------------------------------------------

def with_rests_on(d: Decision, rests_on: tuple[str, ...], decided: Mapping[str, Decision]) -> Decision:
    """``d`` carrying the decision of each result it rests on (``bounds.Provenance.rests_on``, in order), from
    ``decided`` (registry key -> its decision); its own outcome is kept (module docstring, **Travel**).

    A key missing from ``decided`` is an error of the caller (it must decide what a result rests on), not a
    silent gap: ``KeyError`` naming it.
    """
    from dataclasses import replace

    carried = tuple({"id": k, "outcome": decided[k].outcome, "word": decided[k].word, "why": decided[k].why}
                    for k in rests_on)
    return replace(d, rests_on=carried)


def rests_on_line(r: Mapping[str, Any]) -> str:
    """One carried decision in words: ``rests on FAST.T1: refuted unless ... fails``."""
    return f"rests on {r['id']}: {r['outcome']}"


# Evidence read off a result and a PEP setting (here, beside the types they fill, so the store and the
# sources share them without importing each other) ----------------------------------------------------------

def hypotheses_at(res: Any) -> HypothesesAt:
    """``res``'s hypotheses decided at its worked example (``no worked example`` when it has none)."""
    if not res.example:
        return HypothesesAt("no worked example")
    report = res.check(res.example_values)
    fails = tuple(c.name for c in report.conditions if c.holds is False)
    return HypothesesAt(report.verdict, tuple(report.given), tuple(report.needs), fails)


_NAMED = ("L", "mu", "zeta", "eta", "sigma", "Delta")


def setting_name(setting: Any) -> str:
    """A PEP setting in one line: method, sizes, constants, law (strongly convex or non-convex class)."""
    d = setting.to_dict()
    consts = " ".join(f"{k}={d[k]:g}" for k in _NAMED if isinstance(d.get(k), (int, float)))
    return f"{d['method']} K={d['K']} R={d['R']} M={d['M']} {consts} {d['measure']}, {d['participation']}"
