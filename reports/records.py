"""Stage-two records in a report: falsify searches, PEP worst cases and participation audits.

**Input**: the JSON records that ``convbound falsify --json``, ``convbound worst-case --json`` and
``convbound audit --json`` print (``report --include FILE``), or a worst case the suite computes live.
**Output**: document entries ``{"source": text, "record": dict}`` under the keys of :data:`KINDS`
(``searches``, ``worst_cases``, ``audits``), checked field by field so that every renderer can use
them; a bad file is one line (``UserInputError``) naming the file and the first bad field.
Nothing here imports torch, cvxpy or PEPit.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bounds.core.errors import UserInputError

# document key -> (what the record is, the command that writes it)
KINDS: dict[str, tuple[str, str]] = {
    "searches": ("falsify search record", "convbound falsify ID --json"),
    "worst_cases": ("worst-case record", "convbound worst-case --json"),
    "audits": ("audit record", "convbound audit --json"),
}
VALID = "a falsify search record (convbound falsify ID --json), a worst-case record (convbound worst-case --json) " \
        "or an audit record (convbound audit --json)"

_NUM = (int, float)


class BadRecord(Exception):
    """A field of a record is missing or of the wrong type (message: the field and what it should be)."""


def kind_of(data: Any) -> str | None:
    """The document key a record belongs under (``searches`` | ``worst_cases`` | ``audits``), or None.

    Worst cases and audits carry ``"kind"``; a search record has none, so it is known by ``id`` with
    ``optimiser``, which only ``SearchRecord.to_dict()`` writes (its other fields are then checked, so
    a partial search is refused as such).
    """
    if not isinstance(data, Mapping):
        return None
    if data.get("kind") == "worst-case":
        return "worst_cases"
    if data.get("kind") == "audit":
        return "audits"
    if "kind" not in data and {"id", "optimiser"} <= set(data):
        return "searches"
    return None


def load_include(path: str) -> tuple[str, dict[str, Any]]:
    """``(document key, entry)`` for one ``--include`` file, or ``UserInputError`` in one line."""
    from bounds.core.files import read_text

    text = read_text(path, "--include", VALID)  # a regular file only: a FIFO would wait forever
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UserInputError(f"--include {path} is not a readable JSON file ({why}); give {VALID}") from None
    key = kind_of(data)
    if key is None:
        hint = ""
        if isinstance(data, Mapping) and str(data.get("schema", "")).startswith("convbound.report/"):
            hint = " (a report's results.json is rendered with --from-json)"
        elif isinstance(data, list):
            hint = " (a list, e.g. verify --json, is rendered with --from-json)"
        raise UserInputError(f"--include {path} is none of the records a report shows{hint}; give {VALID}")
    entry = {"source": f"included from {path}", "record": data}
    try:
        check_entry(key, entry, "record")
        trial_render(key, [entry])
    except BadRecord as exc:
        raise UserInputError(f"--include {path}: {exc}; give a complete {KINDS[key][0]} "
                             f"({KINDS[key][1]})") from None
    return key, entry


def trial_render(key: str, entries: Sequence[Mapping[str, Any]]) -> None:
    """Render the HTML fragment once, so that a value the checks let through fails here, not after the suite."""
    try:
        section_html(key, entries, {})
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, ZeroDivisionError) as exc:
        raise BadRecord(f"a field could not be rendered ({type(exc).__name__}: {exc})") from None


def add_entries(doc: dict[str, Any], included: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """Append included entries to the document, by kind, after those it already holds."""
    for key, entry in included:
        doc.setdefault(key, [])
        if doc[key] is None:
            doc[key] = []
        doc[key].append(entry)


# Checks ---------------------------------------------------------------------------------------------

def check_entries(doc: Mapping[str, Any]) -> None:
    """Every stage-two entry of a saved document (``BadRecord`` naming the first bad field)."""
    for key in KINDS:
        entries = doc.get(key)
        if entries is None:
            continue
        if not isinstance(entries, list):
            raise BadRecord(f"field '{key}' is {_kind(entries)}; expected a list")
        for i, entry in enumerate(entries):
            check_entry(key, entry, f"{key}[{i}]")


def check_entry(key: str, entry: Any, where: str) -> None:
    if not isinstance(entry, Mapping):
        raise BadRecord(f"field '{where}' is {_kind(entry)}; expected an object")
    if where != "record":  # a saved document wraps each record with its source
        _get(entry, "source", str, where)
        rec = _get(entry, "record", Mapping, where)
        where += ".record"
    else:
        rec = entry["record"]
    if kind_of(rec) != key:
        raise BadRecord(f"field '{where}' is not a {KINDS[key][0]}")
    _CHECKS[key](rec, where)


def _check_search(r: Mapping[str, Any], w: str) -> None:
    _get(r, "id", str, w)
    for name in ("result", "optimiser", "stopped_by"):
        _get(r, name, str, w)
    for name in ("seed", "evaluations", "admissible"):
        _get(r, name, int, w)
    best = _get(r, "best", Mapping, w)
    _get(best, "point", Mapping, w + ".best")
    _get(r, "default", Mapping, w)
    c = _get(r, "confirmation", Mapping, w)
    if "status" in c:  # nothing confirmed (no admissible point, or interrupted): a status, never a verdict
        from verify.verdict import NO_ADMISSIBLE, NOT_CONFIRMED

        if c["status"] not in (NO_ADMISSIBLE, NOT_CONFIRMED) or "verdict" in c:
            raise BadRecord(f"field '{w}.confirmation.status' is {c['status']!r} (with no verdict); expected "
                            f"{NO_ADMISSIBLE!r} or {NOT_CONFIRMED!r}")
    elif c or not r.get("interrupted"):  # a search interrupted before its confirmation has an empty one
        from verify.verdict import VERDICTS

        if _get(c, "verdict", str, w + ".confirmation") not in VERDICTS:
            raise BadRecord(f"field '{w}.confirmation.verdict' is {c['verdict']!r}; expected one of "
                            + ", ".join(VERDICTS))
    for name in ("lhs", "rhs", "ratio"):
        _number_or_null(c, name, w + ".confirmation")
    for name in ("ci", "ratio_ci"):
        _pair(c, name, w + ".confirmation")
    trace = _get(r, "trace", list, w)
    for i, t in enumerate(trace):
        t = _obj(t, f"{w}.trace[{i}]")
        _get(t, "evaluation", int, f"{w}.trace[{i}]")
        for name in ("ratio", "best"):
            _number_or_null(t, name, f"{w}.trace[{i}]")
    _texts(r, "notes", w)


def _check_worst_case(r: Mapping[str, Any], w: str) -> None:
    _get(r, "method", str, w)
    p = _get(r, "parameters", Mapping, w)
    _get(p, "measure", str, w + ".parameters")
    for name in ("value", "primal_value"):
        _number_or_null(r, name, w, required=True)
    _get(r, "solver", str, w)
    _get(r, "solver_status", str, w)
    _get(r, "solve_seconds", _NUM, w)
    cert = _get(r, "certificate", Mapping, w)
    _get(cert, "status", str, w + ".certificate")
    for i, c in enumerate(_get(r, "coverage", list, w)):
        c = _obj(c, f"{w}.coverage[{i}]")
        for name in ("key", "covers", "reason"):
            _get(c, name, str, f"{w}.coverage[{i}]")
        for name in ("bound", "ratio"):
            _number_or_null(c, name, f"{w}.coverage[{i}]")
    _texts(r, "notes", w)
    _check_sweep(r, w)


def _check_sweep(r: Mapping[str, Any], w: str) -> None:
    """The optional horizon sweep and engine replay of a worst-case record (verify.pep.sweep)."""
    sweep = r.get("sweep")
    if sweep is not None and not isinstance(sweep, list):
        raise BadRecord(f"field '{w}.sweep' is {_kind(sweep)}; expected a list")
    for i, row in enumerate(sweep or []):
        where = f"{w}.sweep[{i}]"
        row = _obj(row, where)
        _get(row, "R", int, where)
        _get(row, "kind", str, where)
        _number_or_null(row, "value", where)
        for key, res in _get(row, "results", Mapping, where).items():
            res = _obj(res, f"{where}.results.{key}")
            for name in ("bound", "ratio"):
                _number_or_null(res, name, f"{where}.results.{key}")
    rep = r.get("replay")
    if rep is not None and rep != {}:
        rep = _obj(rep, f"{w}.replay")
        _get(rep, "status", str, f"{w}.replay")
        for name in ("curvature", "engine_value", "difference"):
            _number_or_null(rep, name, f"{w}.replay")


def _check_audit(r: Mapping[str, Any], w: str) -> None:
    lg = _get(r, "log", Mapping, w)
    for name in ("rows", "rounds", "clients", "missing_pairs"):
        _get(lg, name, int, w + ".log")
    t = _get(r, "target", Mapping, w)
    _get(t, "text", str, w + ".target")
    _numbers(_get(t, "per_client", list, w + ".target"), w + ".target.per_client")
    rates = _get(r, "rates", Mapping, w)
    for name in ("r", "low", "high"):
        _numbers(_get(rates, name, list, w + ".rates"), f"{w}.rates.{name}")
    _get(rates, "level", _NUM, w + ".rates")
    ids = _get(rates, "client_ids", list, w + ".rates")
    n = len(rates["r"])
    for name in ("low", "high", "client_ids"):
        if len(rates[name] if name != "client_ids" else ids) != n:
            raise BadRecord(f"field '{w}.rates.{name}' has a different length from '{w}.rates.r' ({n})")
    if len(t["per_client"]) != n:
        raise BadRecord(f"field '{w}.target.per_client' has a different length from '{w}.rates.r' ({n})")
    rs = _get(r, "rstar", Mapping, w)
    _numbers(_get(rs, "r", list, w + ".rstar"), w + ".rstar.r")
    _get(rs, "source", str, w + ".rstar")
    b = _get(r, "bias", Mapping, w)
    _get(b, "alpha", _NUM, w + ".bias")
    _get(b, "method", str, w + ".bias")
    for name in ("flagged", "under_served"):
        for i, x in enumerate(_get(b, name, list, w + ".bias")):
            if not isinstance(x, int) or isinstance(x, bool) or not 0 <= x < n:
                raise BadRecord(f"field '{w}.bias.{name}[{i}]' is {_kind(x)}; expected a client index in 0..{n - 1}")
    m = _get(r, "availability_model", Mapping, w)
    _get(m, "kind", str, w + ".availability_model")
    for i, c in enumerate(_get(m, "candidates", list, w + ".availability_model")):
        where = f"{w}.availability_model.candidates[{i}]"
        c = _obj(c, where)
        _get(c, "kind", str, where)
        _get(c, "bic", _NUM, where)
    _get(_get(m, "goodness_of_fit", Mapping, w + ".availability_model"), "cells", str,
         w + ".availability_model.goodness_of_fit")
    v = _get(r, "variance", Mapping, w)
    _get(v, "objective", str, w + ".variance")
    for name in ("H_realised", "H_rstar", "ratio", "max_abs_dev_rstar"):
        _get(v, name, _NUM, w + ".variance")
    for i, c in enumerate(_get(r, "checks", list, w)):
        c = _obj(c, f"{w}.checks[{i}]")
        _get(c, "check", str, f"{w}.checks[{i}]")
        _get(c, "results", list, f"{w}.checks[{i}]")
        if c.get("status") not in (True, False, None):
            raise BadRecord(f"field '{w}.checks[{i}].status' is {_kind(c.get('status'))}; expected true, false or null")


_CHECKS: dict[str, Callable[[Mapping[str, Any], str], None]] = {
    "searches": _check_search, "worst_cases": _check_worst_case, "audits": _check_audit}


def _get(obj: Mapping[str, Any], name: str, kind: Any, where: str) -> Any:
    if name not in obj or obj[name] is None:
        raise BadRecord(f"field '{where}.{name}' is missing")
    value = obj[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        expected = {str: "text", list: "a list", Mapping: "an object", int: "an integer",
                    _NUM: "a number"}.get(kind, str(kind))
        raise BadRecord(f"field '{where}.{name}' is {_kind(value)}; expected {expected}")
    return value


def _obj(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise BadRecord(f"field '{where}' is {_kind(value)}; expected an object")
    return value


def _number_or_null(obj: Mapping[str, Any], name: str, where: str, required: bool = False) -> None:
    if required and name not in obj:
        raise BadRecord(f"field '{where}.{name}' is missing")
    x = obj.get(name)
    if x is not None and not _is_number(x):
        raise BadRecord(f"field '{where}.{name}' is {_kind(x)}; expected a number or null")


def _pair(obj: Mapping[str, Any], name: str, where: str) -> None:
    x = obj.get(name)
    if x is None:
        return
    if not isinstance(x, list) or len(x) != 2:
        raise BadRecord(f"field '{where}.{name}' is {_kind(x)}; expected [low, high]")
    _numbers(x, f"{where}.{name}")


def _numbers(values: list, where: str) -> None:
    for i, x in enumerate(values):
        if x is not None and not _is_number(x):
            raise BadRecord(f"field '{where}[{i}]' is {_kind(x)}; expected a number or null")


def _texts(obj: Mapping[str, Any], name: str, where: str) -> None:
    values = obj.get(name)
    if values is not None and not isinstance(values, list):
        raise BadRecord(f"field '{where}.{name}' is {_kind(values)}; expected a list of text")
    for i, x in enumerate(values or []):
        if not isinstance(x, str):
            raise BadRecord(f"field '{where}.{name}[{i}]' is {_kind(x)}; expected text")


def _is_number(x: Any) -> bool:
    return (isinstance(x, _NUM) and not isinstance(x, bool)) or x in ("inf", "-inf")


def _kind(x: Any) -> str:
    from reports.validate import _kind as describe

    return describe(x)


# HTML -----------------------------------------------------------------------------------------------

def section_html(key: str, entries: Sequence[Mapping[str, Any]], doc: Mapping[str, Any]) -> str:
    """The HTML ``<section>`` of one kind (searches, worst cases or audits), with each record's source."""
    records = [e["record"] for e in entries]
    sources = [str(e["source"]) for e in entries]
    if key == "searches":
        from reports.falsify_section import falsify_sections, render_html

        return render_html(falsify_sections(records, doc.get("verifications") or []), sources=sources)
    if key == "worst_cases":
        from reports.worstcase_section import worstcase_section

        return worstcase_section(records, sources=sources)
    from reports.audit_section import audit_html

    parts = ['<section id="audits"><h2>Participation audits</h2>']
    for i, (rec, src) in enumerate(zip(records, sources)):
        lg = rec["log"]
        parts.append(audit_html(rec, title=f"Audit of {lg.get('source', 'a log')}", ident=f"audit-{i + 1}",
                                heading="h3", source=src))
    parts.append("</section>")
    return "\n".join(parts)


# where each kind's section starts (HTML id) and its name in the table of contents
SECTION_TITLES = {"searches": ("falsify", "Searches"), "worst_cases": ("worst-cases", "Worst cases"),
                  "audits": ("audits", "Audits")}
