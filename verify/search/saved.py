"""Field checks of saved search and worst-case records (``SearchRecord.from_dict``, ``WorstCase.from_dict``).

**Rule**: every field a renderer or a replay reads is present with its type; the first that is not is one
:class:`~bounds.core.record.BadRecord` line naming it (``field 'record.best.point' is missing``). A field
nothing reads is not checked, so records of later versions with more fields still read.
Torch-free and PEPit-free: the report reads these records without either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bounds.core.record import BadRecord, describe, get, number_or_null, obj, pair, texts

_NUM = (int, float)


def check_search(r: Mapping[str, Any], w: str) -> None:
    """A falsify search record (``convbound falsify ID --json``)."""
    get(r, "id", str, w)
    for name in ("result", "optimiser", "stopped_by"):
        get(r, name, str, w)
    for name in ("seed", "evaluations", "admissible"):
        get(r, name, int, w)
    best = get(r, "best", Mapping, w)
    if best or r["admissible"]:  # a search that found no admissible point has no best point
        get(best, "point", Mapping, w + ".best")
    get(r, "default", Mapping, w)
    c = get(r, "confirmation", Mapping, w)
    if "status" in c:  # nothing confirmed (no admissible point, or interrupted): a status, never a verdict
        from verify.verdict import NO_ADMISSIBLE, NOT_CONFIRMED

        if c["status"] not in (NO_ADMISSIBLE, NOT_CONFIRMED) or "verdict" in c:
            raise BadRecord(f"field '{w}.confirmation.status' is {c['status']!r} (with no verdict); expected "
                            f"{NO_ADMISSIBLE!r} or {NOT_CONFIRMED!r}")
    elif c or not r.get("interrupted"):  # a search interrupted before its confirmation has an empty one
        from verify.verdict import VERDICTS

        if get(c, "verdict", str, w + ".confirmation") not in VERDICTS:
            raise BadRecord(f"field '{w}.confirmation.verdict' is {c['verdict']!r}; expected one of "
                            + ", ".join(VERDICTS))
    for name in ("lhs", "rhs", "ratio"):
        number_or_null(c, name, w + ".confirmation")
    for name in ("ci", "ratio_ci"):
        pair(c, name, w + ".confirmation")
    for i, t in enumerate(get(r, "trace", list, w)):
        t = obj(t, f"{w}.trace[{i}]")
        get(t, "evaluation", int, f"{w}.trace[{i}]")
        for name in ("ratio", "best"):
            number_or_null(t, name, f"{w}.trace[{i}]")
    texts(r, "notes", w)


def check_worst_case(r: Mapping[str, Any], w: str) -> None:
    """A worst-case record (``convbound worst-case --json``), its sweep and engine replay included."""
    get(r, "method", str, w)
    p = get(r, "parameters", Mapping, w)
    get(p, "measure", str, w + ".parameters")
    for name in ("value", "primal_value"):
        number_or_null(r, name, w, required=True)
    get(r, "solver", str, w)
    get(r, "solver_status", str, w)
    get(r, "solve_seconds", _NUM, w)
    cert = get(r, "certificate", Mapping, w)
    get(cert, "status", str, w + ".certificate")
    for i, c in enumerate(get(r, "coverage", list, w)):
        c = obj(c, f"{w}.coverage[{i}]")
        for name in ("key", "covers", "reason"):
            get(c, name, str, f"{w}.coverage[{i}]")
        for name in ("bound", "ratio"):
            number_or_null(c, name, f"{w}.coverage[{i}]")
    texts(r, "notes", w)
    _check_sweep(r, w)


def _check_sweep(r: Mapping[str, Any], w: str) -> None:
    """The optional horizon sweep and engine replay of a worst-case record (verify.pep.sweep)."""
    sweep = r.get("sweep")
    if sweep is not None and not isinstance(sweep, list):
        raise BadRecord(f"field '{w}.sweep' is {describe(sweep)}; expected a list")
    for i, row in enumerate(sweep or []):
        where = f"{w}.sweep[{i}]"
        row = obj(row, where)
        get(row, "R", int, where)
        get(row, "kind", str, where)
        number_or_null(row, "value", where)
        for key, res in get(row, "results", Mapping, where).items():
            res = obj(res, f"{where}.results.{key}")
            for name in ("bound", "ratio"):
                number_or_null(res, name, f"{where}.results.{key}")
    rep = r.get("replay")
    if rep is not None and rep != {}:
        rep = obj(rep, f"{w}.replay")
        get(rep, "status", str, f"{w}.replay")
        for name in ("curvature", "engine_value", "difference"):
            number_or_null(rep, name, f"{w}.replay")
