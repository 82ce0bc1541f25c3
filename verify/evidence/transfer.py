"""Records in and out of a store: import JSON files a command wrote, export JSON Lines, rebuild the shipped store.

**Import** (:func:`records_from_file`): a file is evidence when it is one of: a falsify search record
(``falsify --json`` / ``--out``: a ``convbound.search/`` schema tag, or before 0.2.0 an ``optimiser``), an orders
table (``orders --json``: ``{"kind": "orders", "rows": [...]}``, or a benchmark record that holds one under
``orders``), a worst case (``worst-case --json``), a list of verification records (``verify --json``), or a store
export (JSON Lines of whole records, hashes kept). Anything else (instance files, benchmark summaries, timings)
is not evidence and is skipped with its reason. Imported command outputs are stamped with the result's
*current* formula hash (the file does not say which formula it was about: the importer vouches for it) and
the code version ``imported (convbound VERSION)`` from the record's own versions.
**Rebuild** (:func:`rebuild_shipped`): the shipped store is written from the given sources (stores, exports,
files), fresh records only, into a temporary file renamed over ``verify/evidence/shipped.sqlite`` (rollback
journal, so an installed copy opens it immutable).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from bounds.core.errors import UserInputError
from verify.evidence.store import KINDS, ORDERS, SHIPPED, Store, StoredRecord, fresh_ones, new_record


def _imported(body: Mapping[str, Any]) -> str:
    v = body.get("versions")
    ver = v.get("convbound") if isinstance(v, Mapping) else None
    return f"imported (convbound {ver or 'version not recorded'})"


def _search(data: Mapping[str, Any], label: str) -> list[StoredRecord]:
    from verify.evidence.keys import registered
    from verify.search.falsify import SearchRecord

    rec = SearchRecord.from_dict(data, label)
    if not registered(rec.result):
        return []
    body = {**data, "piece": f"search:{rec.id}:imported {label}"}
    return [replace(new_record("search", rec.result, body, seed=int(rec.seed)), code_version=_imported(data), id="")]


def _orders(data: Mapping[str, Any], label: str) -> list[StoredRecord]:
    from verify.evidence.keys import registered

    by: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for row in data.get("rows") or ():
        if isinstance(row, Mapping) and registered(str(row.get("result"))):
            by.setdefault((str(row["result"]), str(row.get("scenario"))), []).append(row)
    seed = int(data.get("seed") or 0)
    return [replace(new_record(ORDERS, key, {"kind": "orders", "scenario": sc, "axes": None, "seed": seed,
                                             "rows": rows, "piece": f"orders:{sc}:imported {label}"}, seed=seed),
                    code_version=_imported(data), id="") for (key, sc), rows in by.items()]


def _worst_case(data: Mapping[str, Any], label: str) -> list[StoredRecord]:
    from verify.evidence.records import worst_case_records
    from verify.pep.core import WorstCase

    return [replace(r, code_version=_imported(data), id="")
            for r in worst_case_records(WorstCase.from_dict(data, label), piece=f"worst-case:imported {label}")]


def _verifications(data: Sequence[Any], label: str) -> list[StoredRecord]:
    from verify.evidence.records import verification_record
    from verify.record import Verification

    out = []
    for i, item in enumerate(data):
        r = verification_record(Verification.from_dict(item, f"{label}[{i}]"))
        if r is not None:
            out.append(replace(r, code_version=_imported(item), id=""))
    return out


def kind_of_file(data: Any) -> str | None:
    """Which importer reads ``data`` (None: not evidence)."""
    if isinstance(data, list):
        return "verification" if data and all(isinstance(x, Mapping) and "verdict" in x and "expected" in x
                                              for x in data) else None
    if not isinstance(data, Mapping):
        return None
    tag = str(data.get("schema") or "")
    if tag.startswith("convbound.search/") or (not tag and "optimiser" in data and "confirmation" in data):
        return "search"
    if data.get("kind") == "orders" and isinstance(data.get("rows"), list):
        return "orders"
    if isinstance(data.get("orders"), Mapping) and data["orders"].get("kind") == "orders":
        return "benchmark orders"
    if "method" in data and "coverage" in data and "certificate" in data:
        return "worst-case"
    return None


def records_from_file(path: Path) -> tuple[list[StoredRecord], str]:
    """The records a file holds, and what it was (or why it is not evidence)."""
    from bounds.core.record import BadRecord

    label = path.name
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [_from_export(json.loads(line), f"{label}:{i + 1}") for i, line in enumerate(text.splitlines())
                if line.strip()], "store export"
    try:
        data = json.loads(text)
    except ValueError:
        return [], "not JSON"
    kind = kind_of_file(data)
    readers: dict[str, Callable[[Any, str], list[StoredRecord]]] = {"search": _search, "orders": _orders, "worst-case": _worst_case, "verification": _verifications,
               "benchmark orders": lambda d, lab: _orders({**d["orders"], "versions": d.get("versions")}, lab)}
    if kind is None:
        return [], "not evidence (no search, orders, worst-case or verification record)"
    try:
        return readers[kind](data, label), kind
    except BadRecord as exc:
        return [], f"not a complete {kind} record ({exc})"


def _from_export(d: Any, where: str) -> StoredRecord:
    if not isinstance(d, Mapping) or d.get("kind") not in KINDS or not isinstance(d.get("body"), Mapping):
        raise UserInputError(f"{where}: not a store record; give a file written by 'convbound store export'")
    fields = {k: d[k] for k in StoredRecord.__dataclass_fields__ if k in d and k != "source"}
    try:
        return StoredRecord(**fields)
    except TypeError as exc:
        raise UserInputError(f"{where}: not a store record ({exc}); give a file written by 'convbound store "
                             "export'") from None


def collect(sources: Sequence[str]) -> tuple[list[StoredRecord], list[str]]:
    """Records from each source (a store ``.sqlite``, an export ``.jsonl``, a JSON file, or a folder of them,
    searched recursively), and one line per file that was skipped and why."""
    records: list[StoredRecord] = []
    skipped: list[str] = []
    for src in sources:
        p = Path(src)
        if not p.exists():
            raise UserInputError(f"{src}: no such file or folder; give a store (.sqlite), an export (.jsonl), "
                                 "a record (.json) or a folder of them")
        files = sorted(f for f in p.rglob("*") if f.suffix in (".json", ".jsonl", ".sqlite")) if p.is_dir() else [p]
        for f in files:
            if f.suffix == ".sqlite":
                with Store(f, readonly=True) as s:
                    try:
                        records += s.records()
                    except UserInputError:
                        skipped.append(f"{f}: not an evidence store")
                continue
            got, what = records_from_file(f)
            records += got
            if not got:
                skipped.append(f"{f}: {what}")
    return records, skipped


def export_lines(records: Iterable[StoredRecord]) -> Iterable[str]:
    """One JSON line per record (every column; ``source`` left out)."""
    for r in records:
        d = asdict(r)
        d.pop("source", None)
        yield json.dumps(d, sort_keys=True, default=str)


def rebuild_shipped(sources: Sequence[str], target: Path = SHIPPED) -> tuple[int, int, list[str]]:
    """Write ``target`` from the fresh records of ``sources``: ``(kept, stale left out, skipped files)``."""
    records, skipped = collect(sources)
    kept = fresh_ones(records)
    tmp = target.with_name(target.name + ".tmp")
    tmp.unlink(missing_ok=True)
    with Store(tmp) as s:
        s.add(kept)
        n = s.count()
    conn = sqlite3.connect(tmp, isolation_level=None)
    conn.execute("PRAGMA journal_mode = DELETE")  # one file: read immutable from package data
    conn.execute("VACUUM")
    conn.close()
    os.replace(tmp, target)
    return n, len(records) - len(kept), skipped
