"""The one reader of saved evidence: report documents, records and included files, through ``from_dict``.

**Input**: a report's ``results.json`` (schema ``convbound.report/1``), the list ``convbound verify --json``
prints (wrapped into a document holding only its verifications; the other sections are listed as not in
the report, with the reason), and the records ``report --include`` adds (``falsify --json``,
``worst-case --json``, ``audit --json``). Instance files (``verify --instance``) are read by
``verify.instance.load_instance`` through the same record model (``InstanceFile.from_dict``).
**Rule**: a record is read by its class's ``from_dict`` (``bounds.core.record``), chosen by its
``schema`` tag or, for files written before 0.2.0, by the fields only that kind writes; the document's
own fields are checked against :data:`DOCUMENT_FIELDS`. A bad file is one ``UserInputError`` line
naming the file, the first bad field and what would be valid; never a traceback from a template.
Nothing here imports torch, cvxpy or PEPit.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bounds.core.errors import UserInputError
from bounds.core.record import BadRecord, Record, describe, get, kind_of_tag, numbers, record_class
from reports.document import SCHEMA
from reports.records import KINDS, VALID, trial_render

#: Where each kind's class lives (imported when a record of that kind is read). Adding a kind: its
#: class (a ``bounds.core.record.Record``) and one line here.
RECORD_MODULES = {"verification": "verify.record", "search": "verify.search.search_record", "worst-case": "verify.pep.core",
                  "audit": "rate_region.audit.core", "comparison": "bounds.compare", "instance": "verify.instance",
                  "decision": "verify.decision"}
#: document key -> record kind of the entries it holds
ENTRY_KINDS = {"searches": "search", "worst_cases": "worst-case", "audits": "audit"}

#: The report document's top-level fields (one schema for the validator and the renderers): name ->
#: (accepted types, default). ``as_report_document`` checks each present field's type and fills every
#: absent or null one with its default, so the templates read any field without a guard; a default of
#: None means "section not in the report" (the templates test it before reading inside).
DOCUMENT_FIELDS: dict[str, tuple[tuple[type, ...], Any]] = {
    "schema": ((str,), SCHEMA),
    "title": ((str,), "convbound report"),
    "quick": ((bool,), None),
    "seed": ((int, list), None),
    "device": ((str,), None),
    "only": ((list,), None),
    "environment": ((Mapping,), {}),
    "results": ((list,), []),
    "region": ((Mapping,), None),
    "large_n": ((Mapping,), None),
    "sampler": ((Mapping,), None),
    "participation": ((Mapping,), None),
    "comparisons": ((list,), []),
    "verifications": ((list,), []),
    "expected_controls": ((list,), None),
    "searches": ((list,), []),
    "worst_cases": ((list,), []),
    "audits": ((list,), []),
    "decisions": ((Mapping,), None),
    "sections_failed": ((Mapping,), {}),
    "timings_s": ((Mapping,), {}),
}

#: ``environment``'s fields (``reports.environment.environment`` writes them); "" reads "not recorded".
ENVIRONMENT_FIELDS: dict[str, tuple[tuple[type, ...], Any]] = {
    "created": ((str,), ""),
    "python": ((str,), ""),
    "platform": ((str,), ""),
    "machine": ((str,), ""),
    "device": ((str,), ""),
    "seed": ((int, list, str), ""),
    "packages": ((Mapping,), {}),
    "git": ((Mapping,), None),
    "command": ((str,), ""),
}

_WANT = {str: "text", list: "a list", Mapping: "an object", int: "an integer", bool: "true or false"}


# Records ------------------------------------------------------------------------------------------

def record_type(kind: str) -> type[Record]:
    """The class that reads records of ``kind`` (its module imported on first use)."""
    cls = record_class(kind)
    if cls is None and kind in RECORD_MODULES:
        importlib.import_module(RECORD_MODULES[kind])
        cls = record_class(kind)
    if cls is None:
        raise BadRecord(f"records of kind {kind!r} have no reader in this version of convbound")
    return cls


def kind_of(data: Any) -> str | None:
    """The record kind of ``data`` (``search``, ``worst-case``, ``audit``, ...), or None.

    A ``schema`` tag decides; without one (written before 0.2.0) worst cases and audits carry ``"kind"``
    and a search record is known by ``id`` with ``optimiser``, which only ``SearchRecord`` writes (its
    other fields are then checked, so a partial search is refused as such).
    """
    if not isinstance(data, Mapping):
        return None
    if "schema" in data:
        try:
            return kind_of_tag(data["schema"])[0]
        except BadRecord:
            return None
    if data.get("kind") in ("worst-case", "audit"):
        return str(data["kind"])
    if "kind" not in data and {"id", "optimiser"} <= set(data):
        return "search"
    return None


def read_record(data: Any, where: str = "record", kind: str | None = None) -> Record:
    """The record saved as ``data`` (of ``kind`` when given), or ``BadRecord`` naming the first bad field."""
    found = kind_of(data)
    if kind is not None and found not in (kind, None):
        raise BadRecord(f"field '{where}' is a {found} record; expected a {kind} record")
    if (kind or found) is None:
        raise BadRecord(f"field '{where}' is {describe(data)}, none of the records convbound writes")
    return record_type(kind or found).from_dict(data, where)  # type: ignore[arg-type]


def load_include(path: str) -> tuple[str, dict[str, Any]]:
    """``(document key, entry)`` for one ``--include`` file, or ``UserInputError`` in one line."""
    from bounds.core.files import read_json

    data = read_json(path, "--include", VALID)  # a regular file only: a FIFO would wait forever
    key = {v: k for k, v in ENTRY_KINDS.items()}.get(kind_of(data) or "")
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


def saved_findings(only: Sequence[str] | None = None, root: Path | None = None) -> list[tuple[str, dict[str, Any]]]:
    """``("searches", entry)`` for each confirmed finding (violated, violated unless) among the saved falsify
    runs: the fresh search records of the evidence store (the user's and the shipped one, ``verify.evidence``),
    or the JSON files under ``root`` (searched recursively) when given; restricted to ``only``'s results and
    scenarios when given. A saved record that is not a complete search record is skipped: these are the
    project's own records, read only to surface findings."""
    from verify.verdict import is_finding

    out = []
    for label, data in _saved_search_data(root):
        if kind_of(data) != ENTRY_KINDS["searches"]:
            continue
        ident, result = str(data.get("id")), str(data.get("result") or data.get("id"))
        if only and not ({ident, result, ident.split("@")[0], result.split("@")[0]} & set(only)):
            continue
        if not is_finding(str((data.get("confirmation") or {}).get("verdict"))):
            continue
        entry = {"source": f"saved run {label}", "record": data}
        try:
            check_entry("searches", entry, "record")
        except BadRecord:
            continue
        out.append(("searches", entry))
    return _one_per_scenario(out)


def _saved_search_data(root: Path | None) -> list[tuple[str, Any]]:
    """``(label, JSON)`` of each saved search: the store's fresh search records, or the files under ``root``."""
    if root is None:
        from verify.evidence.store import SEARCH, fresh_ones, read_all

        return [(f"{r.source} {r.id[:10]}", {k: v for k, v in r.body.items() if k != "piece"})
                for r in fresh_ones(read_all(kind=SEARCH))]
    out = []
    for f in sorted(root.rglob("*.json")) if root.is_dir() else ():
        try:
            out.append((str(f.relative_to(root.parent)), json.loads(f.read_text(encoding="utf-8"))))
        except (OSError, ValueError):
            continue
    return out


def _one_per_scenario(found: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """One finding per scenario: a shrunk one first (it carries the minimal counterexample), then the
    largest confirmed ratio; its source counts the other saved runs that confirm the same scenario."""
    by_id: dict[str, list[dict[str, Any]]] = {}
    for _, entry in found:
        by_id.setdefault(str(entry["record"]["id"]), []).append(entry)

    def rank(e: dict[str, Any]) -> tuple[bool, float]:
        ratio = (e["record"].get("confirmation") or {}).get("ratio")
        return bool(e["record"].get("shrunk")), float(ratio) if isinstance(ratio, (int, float)) else 0.0

    out = []
    for entries in by_id.values():
        best = max(entries, key=rank)
        more = len(entries) - 1
        source = best["source"] + (f" (one of {more + 1} saved runs that confirm a finding here)" if more else "")
        out.append(("searches", {**best, "source": source}))
    return out


def check_entries(doc: Mapping[str, Any]) -> None:
    """Every stage-two entry of a saved document (``BadRecord`` naming the first bad field)."""
    for key in KINDS:
        entries = doc.get(key)
        if entries is None:
            continue
        if not isinstance(entries, list):
            raise BadRecord(f"field '{key}' is {describe(entries)}; expected a list")
        for i, entry in enumerate(entries):
            check_entry(key, entry, f"{key}[{i}]")


def check_entry(key: str, entry: Any, where: str) -> None:
    """One entry ``{"source", "record"}`` of ``doc[key]`` (``where == "record"``: a bare included record)."""
    if not isinstance(entry, Mapping):
        raise BadRecord(f"field '{where}' is {describe(entry)}; expected an object")
    if where != "record":  # a saved document wraps each record with its source
        get(entry, "source", str, where)
        rec = get(entry, "record", Mapping, where)
        where += ".record"
    else:
        rec = entry["record"]
    if kind_of(rec) != ENTRY_KINDS[key]:
        raise BadRecord(f"field '{where}' is not a {KINDS[key][0]}")
    read_record(rec, where, ENTRY_KINDS[key])


# Documents ----------------------------------------------------------------------------------------

def normalised(doc: Mapping[str, Any]) -> dict[str, Any]:
    """``doc`` with every field of :data:`DOCUMENT_FIELDS` and :data:`ENVIRONMENT_FIELDS` present
    (absent or null ones take their defaults); ``BadRecord`` names the first field of the wrong type."""
    out = dict(doc)
    for fields, target, prefix in ((DOCUMENT_FIELDS, out, ""), (ENVIRONMENT_FIELDS, None, "environment.")):
        if target is None:
            target = out["environment"] = dict(out["environment"])
        for name, (types, default) in fields.items():
            value = target.get(name)
            if value is None:
                target[name] = default.copy() if isinstance(default, (dict, list)) else default
            elif not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
                want = " or ".join(_WANT[t] for t in types)
                raise BadRecord(f"field '{prefix}{name}' is {describe(value)}; expected {want}")
    return out


def as_report_document(data: Any, source: str) -> dict[str, Any]:
    """``data`` as a report document, or ``UserInputError`` naming the first bad field."""
    try:
        if isinstance(data, list):
            return normalised(_from_verify_list(data))
        if not isinstance(data, dict):
            raise BadRecord(f"the top level is {describe(data)}; expected an object (results.json) or a list "
                            "(verify --json)")
        if data.get("schema") != SCHEMA:
            raise BadRecord(f"field 'schema' is {data.get('schema')!r}; expected {SCHEMA!r}")
        _check_document(data)
        return normalised(data)
    except BadRecord as exc:
        raise UserInputError(f"{source}: {exc}; give a results.json written by 'convbound report' "
                             "or the output of 'convbound verify --json'") from None


def _from_verify_list(items: list[Any]) -> dict[str, Any]:
    if not items:
        raise BadRecord("the list is empty; expected the records printed by 'convbound verify --json'")
    for i, v in enumerate(items):
        read_record(v, f"[{i}]", "verification")
    seeds = sorted({v.get("seed") for v in items if isinstance(v.get("seed"), int)})
    devices = sorted({str(v["device"]) for v in items if v.get("device")})
    versions: Mapping[str, Any] = next((v["versions"] for v in items if isinstance(v.get("versions"), Mapping)), {})
    missing = "not in a 'convbound verify --json' file"
    return {
        "schema": SCHEMA, "title": "convbound verification report (from verify --json)", "quick": None,
        "environment": {"device": ", ".join(devices), "seed": seeds[0] if len(seeds) == 1 else seeds,
                        "packages": dict(versions), "command": "convbound verify --json"},
        "results": [], "region": None, "large_n": None, "sampler": None, "participation": None,
        "verifications": items, "expected_controls": None,
        "sections_failed": {name: missing for name in ("bounds", "region", "large_n", "sampler", "participation")},
    }


def _check_document(doc: Mapping[str, Any]) -> None:
    get(doc, "title", str, "", optional=True)
    get(doc, "environment", Mapping, "", optional=True)
    for i, r in enumerate(get(doc, "results", list, "", optional=True) or []):
        _check_result(r, f"results[{i}]")
    for i, v in enumerate(get(doc, "verifications", list, "", optional=True) or []):
        read_record(v, f"verifications[{i}]", "verification")
    for name in ("region", "large_n", "sampler", "participation", "sections_failed", "timings_s"):
        get(doc, name, Mapping, "", optional=True)
    for i, c in enumerate(get(doc, "expected_controls", list, "", optional=True) or []):
        if not isinstance(c, str):
            raise BadRecord(f"field 'expected_controls[{i}]' is {describe(c)}; expected a check ID (text)")
    check_entries(doc)
    _check_decisions(doc.get("decisions"))
    region = doc.get("region")
    if region:
        get(region, "vertices", list, "region", optional=True)
        for label, pt in (get(region, "points", Mapping, "region", optional=True) or {}).items():
            numbers(pt, f"region.points.{label}")
    sampler = doc.get("sampler")
    if sampler:
        numbers(get(sampler, "t", list, "sampler"), "sampler.t")
        get(sampler, "r", list, "sampler")
    if doc.get("participation"):
        get(doc["participation"], "weights", list, "participation")


def _check_result(r: Any, where: str) -> None:
    from verify.record import check_conditions

    if not isinstance(r, Mapping):
        raise BadRecord(f"field '{where}' is {describe(r)}; expected an object (a result)")
    if not isinstance(r.get("key", r.get("id")), str):
        raise BadRecord(f"field '{where}.id' is missing or not text")
    get(r, "title", str, where)
    get(r, "kind", str, where)
    for part in ("terms", "hypotheses"):
        for i, t in enumerate(get(r, part, list, where, optional=True) or []):
            if not isinstance(t, Mapping):
                raise BadRecord(f"field '{where}.{part}[{i}]' is {describe(t)}; expected an object")
            get(t, "name", str, f"{where}.{part}[{i}]")
    example = get(r, "example", Mapping, where, optional=True)
    check = get(example, "check", Mapping, where + ".example", optional=True) if example else None
    if check:
        check_conditions(check.get("conditions"), where + ".example.check.conditions")
    sweep = get(r, "sweep", Mapping, where, optional=True)
    if sweep:
        numbers(get(sweep, "x", list, where + ".sweep"), where + ".sweep.x")
        for name, values in (get(sweep, "terms", Mapping, where + ".sweep", optional=True) or {}).items():
            numbers(values, f"{where}.sweep.terms.{name}")


def _check_decisions(section: Any) -> None:
    """``decisions``: ``{"evidence": {...}, "records": [Decision]}`` (``reports.decision_section``), each record
    read by ``Decision.from_dict``."""
    if section is None:
        return
    if not isinstance(section, Mapping):
        raise BadRecord(f"field 'decisions' is {describe(section)}; expected an object")
    get(section, "evidence", Mapping, "decisions", optional=True)
    for i, d in enumerate(get(section, "records", list, "decisions")):
        read_record(d, f"decisions.records[{i}]", "decision")
