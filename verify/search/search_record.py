"""The record of a falsification search (:class:`SearchRecord`) and the words that describe it.

**Setting**: one search of one scenario by ``verify.search.falsify.search`` and its confirmation.
**Quantity**: the points tried (admissible, outside the domains, cut by cost), the best point, its
confirmation and the finding in words that never claim more than the search covered.
**Statement**: ``finding`` claims a violation only where the confirmation's verdict is a violation (plain
or conditional); otherwise it says what was covered and that it is not a proof.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bounds.core.errors import UserInputError
from bounds.core.face import notebook_face, short
from bounds.core.record import Record, register
from verify.instance import INSTANCE_FORMAT
from verify.verdict import HOLDS, VIOLATED, VIOLATED_UNLESS, finding_kind

__all__ = ["SearchRecord", "fidelity_said", "finding", "space_summary"]


def _search_summary(s: SearchRecord) -> str:
    c = s.confirmation or {}
    kind = finding_kind(str(c.get("verdict")))
    found = (f"{kind} confirmed, LHS/RHS {short(c.get('ratio'))}" + (f" (unless {'; '.join(c['unless'])} fails)"
                                                                      if c.get("unless") else "") if kind else
             f"no violation among {s.admissible} admissible points searched (not a proof)")
    return f"{s.id}: {s.optimiser}, {s.evaluations} evaluations, seed {s.seed}; {found}"


def _search_rows(s: SearchRecord) -> list[tuple[str, Any]]:
    c = s.confirmation or {}
    return [("result", s.result), ("optimiser", s.optimiser), ("evaluations", s.evaluations),
            ("admissible", s.admissible), ("stopped by", s.stopped_by),
            ("points", fidelity_said(s.fidelity).lstrip("; ") or "none scored"),
            ("best point", s.best.get("point")), ("best score", short(s.best.get("score"))),
            ("confirmation", f"{c.get('verdict')} at {c.get('trials')} fresh trials" if c.get("verdict")
             else c.get("status", "no confirmation"))]


@register
@notebook_face(_search_summary, rows=_search_rows)
@dataclass
class SearchRecord(Record):
    """A search and its confirmation; ``to_dict()`` is the JSON record, ``from_dict`` reads it back."""

    KIND = "search"

    id: str
    result: str
    optimiser: str
    seed: int
    budget: int
    time_limit: float | None
    trials: int
    population: int
    evaluations: int = 0
    admissible: int = 0
    outside_domain: int = 0
    best: dict[str, Any] = field(default_factory=dict)
    default: dict[str, Any] = field(default_factory=dict)
    confirmation: dict[str, Any] = field(default_factory=dict)
    trace: list[dict[str, Any]] = field(default_factory=list)
    interrupted: bool = False
    stopped_by: str = "budget"
    elapsed_s: float = 0.0
    device: str = "cpu"
    notes: list[str] = field(default_factory=list)
    space: list[dict[str, Any]] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)
    plugin: dict[str, str] = field(default_factory=dict)  # {"path", "sha256"} of a plugin scenario's file
    claims_tried: int = 0   # confirmations spent on apparent violations (stop_at_violation)
    first_violation: dict[str, Any] = field(default_factory=dict)
    finding: str = ""
    fidelity: dict[str, Any] = field(default_factory=dict)  # shares exact / simulated / cut (verify.search.cost)

    @classmethod
    def read(cls, data: Mapping[str, Any], where: str) -> SearchRecord:
        from verify.search.saved import check_search

        check_search(data, where)
        # the sizes the report does not show: a record without them (hand-made) reads as 0, "not recorded"
        return super().read({"budget": 0, "time_limit": None, "trials": 0, "population": 0, **data}, where)

    def instance_file(self) -> dict[str, Any]:
        """The replayable instance: scenario, point, trials, seeds (and the numbers to expect)."""
        c = self.confirmation
        if not c.get("seeds"):
            raise UserInputError("this search has no confirmation to replay (it was interrupted before one)")
        from bounds.core.jsonable import jsonable as _plain

        return _plain({"format": INSTANCE_FORMAT, "scenario": self.id, "point": self.best["point"],
                       "trials": c["trials"], "seeds": c["seeds"], "level": c["level"], "device": self.device,
                       "expect": {k: c[k] for k in ("verdict", "lhs", "ci", "rhs")},
                       **({"plugin": self.plugin} if self.plugin else {})})


def space_summary(rec: SearchRecord) -> str:
    """The searched space in one line: its axes and the problem families searched."""
    axes = [a["name"] for a in rec.space if a.get("choices") is None and a["low"] < a["high"]
            or a.get("choices") and len(a["choices"]) > 1]
    fam = next((a["choices"] for a in rec.space if a["name"] == "problem" and a.get("choices")), None)
    return (f"{rec.id}'s space ({len(axes)} axes: {', '.join(axes)}"
            + (f"; families {', '.join(map(str, fam))}" if fam else "") + ")" + fidelity_said(rec.fidelity))


def fidelity_said(f: Mapping[str, Any]) -> str:
    """``; points scored exactly x%, simulated y%, cut by cost z%`` (empty before a search has run)."""
    if not f or not f.get("points"):
        return ""
    return (f"; of {f['points']} points: scored exactly {100 * f['exact']:.0f}%, simulated "
            f"{100 * f['simulated']:.0f}%, cut by cost {100 * f['cut']:.0f}% (not scored)")


def _cross_said(x: Mapping[str, Any] | None) -> str:
    if not x:
        return ""
    if "skipped" in x:
        return f"; Monte Carlo cross-check skipped: {x['skipped']}"
    return (f"; Monte Carlo cross-check on {x['trials']} trials: CI [{x['ci'][0]:.4g}, {x['ci'][1]:.4g}], "
            + ("agrees" if x["agrees"] else "DISAGREES with the exact value"))


def finding(rec: SearchRecord) -> str:
    """What the search showed, in words that never claim more than it covered: a confirmed violation, plain or
    conditional (``violated unless``: it opens the line, with the hypotheses it rests on), or what was covered."""
    c = rec.confirmation
    if c.get("verdict") in (VIOLATED, VIOLATED_UNLESS):
        at = rec.first_violation.get("evaluation", rec.best.get("evaluation"))
        head = (f"violation confirmed at evaluation {at}" if c["verdict"] == VIOLATED else
                f"violated unless {'; '.join(c.get('unless') or ())} fails: conditional violation confirmed at "
                f"evaluation {at}")
        if c.get("method") == "exact":
            said = (f"{head} (exact LHS: {c['lhs']:.4g} - rounding bound = {c['ci'][0]:.4g} > RHS {c['rhs']:.4g}, "
                    f"ratio {c['ratio']:.4g}{_cross_said(c.get('cross_check'))})")
        else:
            said = (f"{head} ({c['trials']} fresh trials: LHS CI low {c['ci'][0]:.4g} > RHS {c['rhs']:.4g}, "
                    f"ratio {c['ratio']:.4g})")
        if c["verdict"] == VIOLATED_UNLESS:
            said += ("; a refutation of the theorem unless " + " or ".join(c.get("unless_needs") or ())
                     + "; supplying the missing constants decides it")
        return said
    said = {HOLDS: "not violated there"}.get(str(c.get("verdict")), str(c.get("verdict") or c.get("status") or ""))
    ratio = f", ratio {c['ratio']:.4g}" if isinstance(c.get("ratio"), float) else ""
    return (f"no violation among {rec.admissible} admissible points of {space_summary(rec)}; not a proof"
            + (f" (its best point, confirmed: {said}{ratio})" if c.get("verdict") else
               f" ({said})" if said else ""))
