"""Checks that a saved document can be rendered, before rendering it: one line naming the first field
that is missing or of the wrong type (``report --from-json``), never a traceback from a template.

Two inputs are accepted: a report document (``results.json`` written by ``convbound report``,
schema ``convbound.report/1``) and the JSON list that ``convbound verify --json`` prints, which is
wrapped into a report document holding only its verifications (the other sections are listed as
not in the report, with the reason).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bounds.core.errors import UserInputError
from reports.document import SCHEMA

_NUMBER = (int, float)
_NUM_TEXT = ("inf", "-inf")  # how bounds.core.jsonable writes infinities


class _Bad(Exception):
    pass


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


def normalised(doc: Mapping[str, Any]) -> dict[str, Any]:
    """``doc`` with every field of :data:`DOCUMENT_FIELDS` and :data:`ENVIRONMENT_FIELDS` present
    (absent or null ones take their defaults); ``_Bad`` names the first field of the wrong type."""
    out = dict(doc)
    for fields, target, prefix in ((DOCUMENT_FIELDS, out, ""), (ENVIRONMENT_FIELDS, None, "environment.")):
        if target is None:
            target = out["environment"] = dict(out["environment"])
        for name, (types, default) in fields.items():
            value = target.get(name)
            if value is None:
                target[name] = default.copy() if isinstance(default, (dict, list)) else default
            elif not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
                want = " or ".join({str: "text", list: "a list", Mapping: "an object", int: "an integer",
                                    bool: "true or false"}[t] for t in types)
                raise _Bad(f"field '{prefix}{name}' is {_kind(value)}; expected {want}")
    return out


def as_report_document(data: Any, source: str) -> dict[str, Any]:
    """``data`` as a report document, or ``UserInputError`` naming the first bad field."""
    try:
        if isinstance(data, list):
            return normalised(_from_verify_list(data))
        if not isinstance(data, dict):
            raise _Bad(f"the top level is {_kind(data)}; expected an object (results.json) or a list (verify --json)")
        if data.get("schema") != SCHEMA:
            raise _Bad(f"field 'schema' is {data.get('schema')!r}; expected {SCHEMA!r}")
        _check_document(data)
        return normalised(data)
    except _Bad as exc:
        raise UserInputError(f"{source}: {exc}; give a results.json written by 'convbound report' "
                             "or the output of 'convbound verify --json'") from None


def _from_verify_list(items: list[Any]) -> dict[str, Any]:
    if not items:
        raise _Bad("the list is empty; expected the records printed by 'convbound verify --json'")
    for i, v in enumerate(items):
        _check_verification(v, f"[{i}]")
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
    _field(doc, "title", str, "", optional=True)
    _field(doc, "environment", Mapping, "", optional=True)
    results = _field(doc, "results", list, "", optional=True) or []
    for i, r in enumerate(results):
        _check_result(r, f"results[{i}]")
    for i, v in enumerate(_field(doc, "verifications", list, "", optional=True) or []):
        _check_verification(v, f"verifications[{i}]")
    for name in ("region", "large_n", "sampler", "participation", "sections_failed", "timings_s"):
        _field(doc, name, Mapping, "", optional=True)
    controls = _field(doc, "expected_controls", list, "", optional=True)
    for i, c in enumerate(controls or []):
        if not isinstance(c, str):
            raise _Bad(f"field 'expected_controls[{i}]' is {_kind(c)}; expected a check ID (text)")
    from reports.records import BadRecord, check_entries

    try:
        check_entries(doc)
    except BadRecord as exc:
        raise _Bad(str(exc)) from None
    region = doc.get("region")
    if region:
        _field(region, "vertices", list, "region.", optional=True)
        points = _field(region, "points", Mapping, "region.", optional=True) or {}
        for label, pt in points.items():
            _numbers(pt, f"region.points.{label}")
    sampler = doc.get("sampler")
    if sampler:
        _numbers(_field(sampler, "t", list, "sampler."), "sampler.t")
        _field(sampler, "r", list, "sampler.")
    participation = doc.get("participation")
    if participation:
        _field(participation, "weights", list, "participation.")


def _check_result(r: Any, where: str) -> None:
    if not isinstance(r, Mapping):
        raise _Bad(f"field '{where}' is {_kind(r)}; expected an object (a result)")
    pre = where + "."
    if not isinstance(r.get("key", r.get("id")), str):
        raise _Bad(f"field '{pre}id' is missing or not text")
    _field(r, "title", str, pre)
    _field(r, "kind", str, pre)
    for part in ("terms", "hypotheses"):
        for i, t in enumerate(_field(r, part, list, pre, optional=True) or []):
            if not isinstance(t, Mapping):
                raise _Bad(f"field '{pre}{part}[{i}]' is {_kind(t)}; expected an object")
            _field(t, "name", str, f"{pre}{part}[{i}].")
    example = _field(r, "example", Mapping, pre, optional=True)
    if example:
        check = _field(example, "check", Mapping, pre + "example.", optional=True)
        if check:
            _conditions(check.get("conditions"), pre + "example.check.conditions")
    sweep = _field(r, "sweep", Mapping, pre, optional=True)
    if sweep:
        _numbers(_field(sweep, "x", list, pre + "sweep."), pre + "sweep.x")
        for name, values in (_field(sweep, "terms", Mapping, pre + "sweep.") or {}).items():
            _numbers(values, f"{pre}sweep.terms.{name}")


def _check_verification(v: Any, where: str) -> None:
    from verify.verdict import VERDICTS  # the one list of verdict names

    if not isinstance(v, Mapping):
        raise _Bad(f"field '{where}' is {_kind(v)}; expected an object (a verification record)")
    pre = where + "."
    _field(v, "id", str, pre)
    for name in ("verdict", "expected"):
        value = _field(v, name, str, pre, optional=(name == "expected"))
        if value is not None and value not in VERDICTS:
            raise _Bad(f"field '{pre}{name}' is {value!r}; expected one of {', '.join(VERDICTS)}")
    for name in ("lhs", "rhs", "ratio"):
        if name in v and v[name] is not None and not _is_number(v[name]):
            raise _Bad(f"field '{pre}{name}' is {_kind(v[name])}; expected a number or null")
    ci = v.get("ci")
    if ci is not None:
        if not isinstance(ci, list) or len(ci) != 2:
            raise _Bad(f"field '{pre}ci' is {_kind(ci)}; expected [low, high]")
        _numbers(ci, pre + "ci")
    _field(v, "title", str, pre, optional=True)
    _field(v, "kind", str, pre, optional=True)
    _field(v, "instance", Mapping, pre, optional=True)
    series = _field(v, "series", Mapping, pre, optional=True)
    if series:
        for name in ("x", "lhs", "ci_low", "ci_high", "rhs"):
            if name in series:
                _numbers(series[name], f"{pre}series.{name}")
        if "fit_ci" in series and series["fit_ci"] is not None:
            _numbers(series["fit_ci"], f"{pre}series.fit_ci")
    conds = v.get("conditions")
    if isinstance(conds, list):
        _conditions(conds, pre + "conditions")
    elif conds not in (None, {}):  # an empty object is tolerated: older records wrote {} for "none"
        raise _Bad(f"field '{pre}conditions' is {_kind(conds)}; expected a list of conditions")
    notes = v.get("notes")
    if notes is not None and not isinstance(notes, (list, str)):
        raise _Bad(f"field '{pre}notes' is {_kind(notes)}; expected a list of text")


def _conditions(conds: Any, where: str) -> None:
    if conds is None:
        return
    if not isinstance(conds, list):
        raise _Bad(f"field '{where}' is {_kind(conds)}; expected a list of conditions")
    for i, c in enumerate(conds):
        if not isinstance(c, Mapping):
            raise _Bad(f"field '{where}[{i}]' is {_kind(c)}; expected an object")
        if "name" not in c and "checks" in c:
            # a rate check records its hypotheses per point of its series: {"R": ..., "checks": [...]}
            _conditions(_field(c, "checks", list, f"{where}[{i}]."), f"{where}[{i}].checks")
            continue
        _field(c, "name", str, f"{where}[{i}].")
        if c.get("holds") not in (True, False, None):
            raise _Bad(f"field '{where}[{i}].holds' is {_kind(c.get('holds'))}; expected true, false or null")
        for name in ("lhs", "rhs", "margin"):
            if c.get(name) is not None and not _is_number(c[name]):
                raise _Bad(f"field '{where}[{i}].{name}' is {_kind(c[name])}; expected a number or null")


def _field(obj: Mapping[str, Any], name: str, kind: Any, prefix: str, optional: bool = False) -> Any:
    if name not in obj or obj[name] is None:
        if optional:
            return None
        raise _Bad(f"field '{prefix}{name}' is missing")
    value = obj[name]
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool) and kind in (int, float)):
        expected = {str: "text", list: "a list", Mapping: "an object"}.get(kind, getattr(kind, "__name__", str(kind)))
        raise _Bad(f"field '{prefix}{name}' is {_kind(value)}; expected {expected}")
    return value


def _numbers(values: Any, where: str) -> None:
    if not isinstance(values, list):
        raise _Bad(f"field '{where}' is {_kind(values)}; expected a list of numbers")
    for i, x in enumerate(values):
        if x is not None and not _is_number(x):
            raise _Bad(f"field '{where}[{i}]' is {_kind(x)}; expected a number or null")


def _is_number(x: Any) -> bool:
    return (isinstance(x, _NUMBER) and not isinstance(x, bool)) or x in _NUM_TEXT


def _kind(x: Any) -> str:
    if x is None:
        return "null"
    if isinstance(x, bool):
        return f"the boolean {str(x).lower()}"
    if isinstance(x, str):
        shown = x if len(x) <= 40 else x[:37] + "..."
        return f"the text {shown!r}"
    if isinstance(x, (int, float)):
        return f"the number {x}"
    if isinstance(x, list):
        return f"a list of {len(x)}"
    if isinstance(x, Mapping):
        return "an object"
    return type(x).__name__
