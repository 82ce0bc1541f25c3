"""The report as plain data: what both renderers (HTML, PDF) read, and what results.json holds.

A report document is a JSON-able dict (schema ``convbound.report/1``)::

    {"schema", "title", "created", "quick", "seed", "device", "only",
     "environment": {...},
     "results":  [bounds Result.to_dict() + {"example": {"values", "check"} | None, "sweep": {...} | None}],
     "region":   {"title", "vertices", "points": {label: [r1, r2]}, "r_star", "H": {...}, ...} | None,
     "large_n":  {"N", "r_star" (list), "H", ...} | None,
     "sampler":  {"t": [...], "r": [[client rates per t]], "r_star": [...]} | None,
     "participation": {"name", "weights": [[client x round]]} | None,
     "comparisons": [{"title", "setting", "sorted_by", "rows": [{"key", "algorithm", "covered", "rounds",
                      "reached", "short", "note"}]}]  (``convbound compare`` on the quick settings),
     "verifications": [Verification.to_dict() ...],
     "expected_controls": [ids] | None,
     "searches":    [{"source": text, "record": falsify SearchRecord.to_dict()}],
     "worst_cases": [{"source": text, "record": verify.pep WorstCase.to_dict()}],
     "audits":      [{"source": text, "record": rate_region.audit AuditRecord.to_dict()}],
     "decisions":   {"evidence": {...}, "records": [verify.decision Decision.to_dict()]} | None
                    (``reports.decision_section``: ``convbound decide`` on the report's evidence; heads the report),
     "sections_failed": {section: reason}}

``source`` says where a record came from: computed live by the suite, or ``report --include FILE``
(see ``reports.records``). Nothing here imports torch or the bounds registry: a saved results.json renders
on its own; the verdict words are ``verify.verdict``'s (torch-free).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from verify.verdict import HOLDS, VIOLATED, VIOLATED_UNLESS

SCHEMA = "convbound.report/1"


@dataclass(frozen=True)
class Alert:
    """A finding that must be seen at the top of the report (level 'alert') or noticed ('notice')."""

    level: str
    message: str
    anchor: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"level": self.level, "message": self.message, "anchor": self.anchor}


@dataclass(frozen=True)
class SummaryRow:
    """One line of the verdict table: what, its verdict, and where its section is."""

    section: str
    id: str
    title: str
    kind: str
    verdict: str
    detail: str
    anchor: str
    expected: str = ""

    @property
    def as_expected(self) -> bool | None:
        """For checks: whether the verdict is the one that counts as success; None for results."""
        return None if not self.expected else self.verdict == self.expected

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "as_expected": self.as_expected}


def anchor(prefix: str, ident: str) -> str:
    """A stable HTML id from an arbitrary ID (``FAST.T2@corrected`` -> ``res-FAST-T2-corrected``)."""
    return prefix + "-" + re.sub(r"[^A-Za-z0-9_-]+", "-", str(ident)).strip("-")


def is_control(v: Mapping[str, Any]) -> bool:
    return bool(v.get("control")) or v.get("kind") == "control"


def hypotheses_verdict(result: Mapping[str, Any]) -> tuple[str, str]:
    """Verdict of a bounds result's hypotheses at its example values, and a one-line detail."""
    example = result.get("example")
    if not example or not example.get("check"):
        return "statement", "no worked-example values: statement only"
    conds = example["check"].get("conditions", [])
    failed = [c["name"] for c in conds if c.get("holds") is False]
    # "open": "condition" marks a hypothesis no number can decide (participation, availability); a
    # record without the field (older results.json) counts every undecided hypothesis as unverified
    given = [c["name"] for c in conds if c.get("holds") is None and c.get("open") == "condition"]
    unverified = [c for c in conds if c.get("holds") is None and c.get("open") != "condition"]
    if failed:
        return "fails", "hypotheses fail at the example: " + "; ".join(failed)
    if unverified:
        needs = sorted({n for c in unverified for n in c.get("needs") or []})
        return "unverified", ("unverified" + (f" (needs {', '.join(needs)}, constants not in the sources)" if needs
                                              else "") + ": " + "; ".join(c["name"] for c in unverified)
                              + (f"; given: {'; '.join(given)}" if given else ""))
    if given:
        decided = len(conds) - len(given)
        # with nothing decided by a number, "the other 0 hypotheses hold" would claim a check that never ran
        head = (f"the other {decided} hypotheses hold at the example" if decided
                else "no numeric hypothesis to check at the example")
        return "holds given conditions", f"{head}; given (no number decides them): {'; '.join(given)}"
    if not conds:
        return "evaluated", "no hypotheses; bound evaluated at the example"
    return "holds", f"all {len(conds)} hypotheses hold at the example"


def summary_rows(doc: Mapping[str, Any]) -> list[SummaryRow]:
    """Rows of the verdict table, in report order: checks first (they carry the evidence)."""
    rows: list[SummaryRow] = []
    for v in doc.get("verifications") or []:
        kind = "control" if is_control(v) else str(v.get("kind", "check"))
        detail = _ratio_detail(v)
        rows.append(SummaryRow("verify", str(v.get("id")), str(v.get("title", "")), kind,
                               str(v.get("verdict", "unverified")), detail, anchor("chk", v.get("id")),
                               str(v.get("expected") or (VIOLATED if is_control(v) else HOLDS))))
    for r in doc.get("results") or []:
        verdict, detail = hypotheses_verdict(r)
        rows.append(SummaryRow("bounds", str(r.get("key", r.get("id"))), str(r.get("title", "")),
                               str(r.get("kind", "")), verdict, detail, anchor("res", r.get("key", r.get("id")))))
    return rows


def is_rate_fit(v: Mapping[str, Any]) -> bool:
    """Whether a check record's LHS, RHS and ratio are a fitted slope, a predicted exponent and their quotient
    (a rate check or its control), not the two sides of a bound."""
    return v.get("kind") == "rate" or (v.get("series") or {}).get("fit_slope") is not None


def _ratio_detail(v: Mapping[str, Any]) -> str:
    parts = []
    if isinstance(v.get("ratio"), (int, float)):
        parts.append(f"{'slope/predicted' if is_rate_fit(v) else 'LHS/RHS'} = {fmt(v['ratio'])}")
    if v.get("unless"):  # a conditional violation: the hypotheses it rests on
        parts.append("unless " + "; ".join(map(str, v["unless"])) + " fails")
    return ", ".join(parts)


def alerts(doc: Mapping[str, Any]) -> list[Alert]:
    """Violated certificates, controls that did not fail, missing controls, sections that did not run."""
    out: list[Alert] = []
    checks = list(doc.get("verifications") or [])
    for v in checks:
        ident = str(v.get("id"))
        verdict = v.get("verdict")
        if is_control(v):
            if verdict != VIOLATED:
                out.append(Alert("alert", f"Negative control {ident} did not report 'violated' (verdict: {verdict}): "
                                          "the check may be unable to detect a false bound.", anchor("chk", ident)))
        elif verdict == VIOLATED_UNLESS:
            # a refutation conditional on named hypotheses: a finding, never summarised as 'no violation'
            out.append(Alert("alert" if v.get("expected") != verdict else "notice",
                             f"Finding: certificate {ident} is violated unless {'; '.join(v.get('unless') or ())} "
                             "fails at its instance: the measured left side exceeds the bound, and only that "
                             "hypothesis failing there would save the theorem (see its notes).", anchor("chk", ident)))
        elif verdict == VIOLATED and v.get("expected") != VIOLATED:
            out.append(Alert("alert", f"Certificate {ident} is violated: the measured left side exceeds the bound.",
                             anchor("chk", ident)))
        elif verdict == VIOLATED:
            # a documented finding (e.g. a corrected form refuted): expected, but never buried in a section
            out.append(Alert("notice", f"Finding: certificate {ident} is violated, as documented: the measured left "
                                       "side exceeds this form of the bound (see its notes).", anchor("chk", ident)))
        elif v.get("expected") == VIOLATED and verdict == HOLDS:
            # a check expected to expose a false published bound did not: worth a look, not an alarm
            out.append(Alert("notice", f"{ident} was expected to be violated but holds at this instance.",
                             anchor("chk", ident)))
    # A certificate that holds proves something only if a negative control shows that the same
    # measurement can fail. A certificate of a result's bound (its record names the result) is backed by
    # a control of that result anywhere in the run: the same LHS measured against the same RHS (FAST.T1
    # at the drift group's instances is backed by FAST.T1's step-cap control). Other certificates (a
    # contrast such as the drift effect) need controls of their own check group (verify's run_suite unit).
    controlled = {_result_of(v) for v in checks if is_control(v)} - {None}
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for v in checks:
        if v.get("group"):
            groups.setdefault(str(v["group"]), []).append(v)
    for group, members in groups.items():
        holding = [v for v in members if not is_control(v) and v.get("kind") == "certificate"
                   and v.get("verdict") == HOLDS and _result_of(v) not in controlled]
        # a sibling that is violated as expected (e.g. a refuted variant at the same instance) also shows it
        controls = [v for v in members if is_control(v) or (v.get("verdict") == VIOLATED
                                                             and v.get("expected") == VIOLATED)]
        if len(controls) < len(holding):
            ids = ", ".join(str(v["id"]) for v in holding)
            what = ("no negative control" if not controls else
                    f"only {len(controls)} negative control{'s' if len(controls) != 1 else ''}")
            out.append(Alert("alert", f"Check group {group}: "
                                      + (f"{len(holding)} certificates hold" if len(holding) != 1 else "1 certificate holds")
                                      + f" ({ids}) but the group has {what}: nothing shows these checks can "
                                      "fail (a control is missing).", anchor("chk", holding[0]["id"])))
    present = {str(v.get("id")) for v in checks if is_control(v)}
    expected = doc.get("expected_controls")
    if expected:
        for ident in expected:
            if str(ident) not in present:
                out.append(Alert("alert", f"Negative control {ident} is missing from this run.", ""))
    elif checks and not present:
        out.append(Alert("alert", "No negative control was run: nothing shows that these checks can fail.", ""))
    out += _record_notices(doc)
    for section, reason in (doc.get("sections_failed") or {}).items():
        out.append(Alert("notice", f"Section '{section}' is not in this report: {reason}", ""))
    return out


def _result_of(v: Mapping[str, Any]) -> str | None:
    """The result whose bound a check record measures (``instance.result``), None for other checks."""
    instance = v.get("instance")
    result = instance.get("result") if isinstance(instance, Mapping) else None
    return str(result) if result else None


def _record_notices(doc: Mapping[str, Any]) -> list[Alert]:
    """Findings of included records, noticed at the top: a confirmed violation (plain or conditional, with the
    hypotheses it rests on) found by a search, a worst
    case the dual certificate does not back, an audit check that is not met."""
    out: list[Alert] = []
    seen: set[str] = set()
    for e in doc.get("searches") or []:
        rec = e["record"]
        c = rec.get("confirmation") or {}
        ident = str(rec["id"])
        where = anchor("falsify", ident) if ident not in seen else ""
        seen.add(ident)
        how = "exact LHS" if c.get("method") == "exact" else f"{c.get('trials')} fresh trials"
        if c.get("verdict") == VIOLATED:
            out.append(Alert("notice", f"Finding: the search on {ident} ({rec.get('optimiser')}) found an instance "
                                       f"where the bound is violated: confirmed LHS/RHS = {fmt(c.get('ratio'))} "
                                       f"({how}).{_minimal(rec)}", where))
        elif c.get("verdict") == VIOLATED_UNLESS:
            out.append(Alert("notice", f"Finding: the search on {ident} ({rec.get('optimiser')}) found an instance "
                                       f"where the bound is violated unless {'; '.join(c.get('unless') or ())} fails "
                                       f"there (a conditional violation): confirmed LHS/RHS = {fmt(c.get('ratio'))} "
                                       f"({how}).{_minimal(rec)}", where))
    for e in doc.get("worst_cases") or []:
        rec = e["record"]
        status = (rec.get("certificate") or {}).get("status")
        if status not in ("certified", "approximate"):
            out.append(Alert("notice", f"The worst case of {rec.get('method')} ({e['source']}) is not backed by a "
                                       f"dual certificate (status: {status}).", "worst-cases"))
    for i, e in enumerate(doc.get("audits") or []):
        for c in e["record"].get("checks") or []:
            if c.get("status") is False:
                out.append(Alert("notice", f"Audit of {e['record']['log'].get('source')}: participation "
                                           f"hypothesis '{c.get('check')}' is not met ({c.get('reason')}).",
                                 f"audit-{i + 1}"))
    return out


def point_text(point: Mapping[str, Any]) -> str:
    """``k = v, ...`` with reals to 4 significant digits."""
    return ", ".join(f"{k} = {fmt(v, 4) if isinstance(v, float) else v}" for k, v in point.items())


def shrunk_fields(shrunk: Mapping[str, Any] | None) -> dict[str, Any]:
    """The minimal counterexample of a confirmed violation (``verify.search.shrink``) and its closed form, if derived."""
    if not shrunk:
        return {"shrunk_point": None, "shrunk_confirmation": None, "closed_form": None}
    cf = shrunk.get("closed_form") or {}
    return {"shrunk_point": dict(shrunk.get("shrunk") or {}), "shrunk_confirmation": shrunk.get("confirmation") or {},
            "closed_form": cf if cf.get("derived") else None}


def counterexample_text(s: Mapping[str, Any]) -> str:
    """One line: the shrunk point with its confirmed LHS, RHS and verdict ('' when the search shrank nothing)."""
    if not s.get("shrunk_point"):
        return ""
    c = s.get("shrunk_confirmation") or {}
    return (f"{point_text(s['shrunk_point'])}: LHS {fmt(c.get('lhs'))} vs RHS {fmt(c.get('rhs'))} "
            f"(LHS/RHS {fmt(c.get('ratio'))}, {c.get('verdict')})")


def closed_form_text(s: Mapping[str, Any]) -> str:
    """The derived LHS(R) beside RHS(R) and where LHS > RHS ('' when no closed form was derived)."""
    cf = s.get("closed_form")
    if not cf:
        return ""
    where = ", ".join(f"[{a}, {b}]" for a, b in cf.get("violated_for_R") or []) or "none in the axis"
    return (f"LHS(R) = {cf.get('lhs_of_R')} against RHS(R) = {cf.get('rhs_of_R')} ({cf.get('setting')}); "
            f"at the point LHS {fmt(cf.get('lhs_closed_form'))} ({cf.get('compared_with', 'exact path')} "
            f"{fmt(cf['lhs_exact_path'] if cf.get('lhs_exact_path') is not None else cf.get('lhs_monte_carlo'))}); "
            f"LHS > RHS for R in {where}")


def _minimal(rec: Mapping[str, Any]) -> str:
    """' Minimal counterexample: ...' (and its closed form) from a search record's ``shrunk``, else ''."""
    fields = shrunk_fields(rec.get("shrunk"))
    text = counterexample_text(fields)
    closed = closed_form_text(fields)
    return (f" Minimal counterexample: {text}." if text else "") + (f" Closed form: {closed}." if closed else "")


def verdict_counts(rows: list[SummaryRow]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.verdict] = counts.get(row.verdict, 0) + 1
    return counts


def fmt(x: Any, digits: int = 4) -> str:
    """A number for people: 4 significant digits, scientific when small or large; lists elementwise."""
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, (list, tuple)):
        if len(x) > 8:
            return "[" + ", ".join(fmt(v, digits) for v in x[:4]) + f", … ({len(x)} values)]"
        return "[" + ", ".join(fmt(v, digits) for v in x) + "]"
    if isinstance(x, str):
        return x
    if isinstance(x, int):
        return str(x)
    try:
        xf = float(x)
    except (TypeError, ValueError):
        return str(x)
    if xf != xf:
        return "nan"
    if xf in (float("inf"), float("-inf")):
        return "∞" if xf > 0 else "−∞"
    if xf == 0 or 1e-3 <= abs(xf) < 1e5:
        return f"{xf:.{digits}g}"
    return f"{xf:.{digits - 1}e}"


def _exact_error_bound(v: Mapping[str, Any]) -> Any:
    """The floating-point error bound of an exact (closed-form, unsampled) record, else None."""
    inst = v.get("instance")
    return inst.get("error_bound") if isinstance(inst, Mapping) and not v.get("trials") else None


def trials_label(v: Mapping[str, Any]) -> str:
    """'400 trials' for a sampled check; 'exact (floating-point error bound 1e-12)' for a closed-form one.

    An exact record has 0 trials: printing "0 trials" beside an interval reads as a sampled check that
    drew nothing, so the record says how it was computed instead.
    """
    bound = _exact_error_bound(v)
    if bound is not None:
        return f"exact (floating-point error bound {fmt(bound)})"
    return f"{v.get('trials')} trials" if v.get("trials") else "no trials (not sampled)"


def ci_label(v: Mapping[str, Any]) -> str:
    """'99% CI' from the check's confidence level (instance.level); 'CI (level not recorded)' without one.

    An exact record's interval is its value plus or minus its floating-point error bound, not a
    confidence interval, and is labelled so.
    """
    if _exact_error_bound(v) is not None:
        return "exact ± floating-point error bound"
    level = (v.get("instance") or {}).get("level") if isinstance(v.get("instance"), Mapping) else None
    if level is None:
        return "CI (level not recorded)"
    try:
        return f"{float(level) * 100:g}% CI"
    except (TypeError, ValueError):
        return "CI (level not recorded)"
