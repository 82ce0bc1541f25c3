"""The evidence store: one SQLite table of immutable records (stdlib ``sqlite3``, WAL).

**Quantity**: a record is ``(id, kind, result_key, seed, formula_hash, hypotheses_hash, code_version, created,
versions JSON, body JSON)``; ``kind`` is one of :data:`KINDS`, ``body`` the record as its command writes it
(``falsify --json``, an orders table's rows, ``worst-case --json``, one ``verify --json`` entry, the hypotheses
at the worked example), with ``piece`` naming which part of a campaign it is. ``id`` is a hash of everything but
``created``, so importing a record twice adds it once. Records are never updated or deleted (triggers refuse it).
**Where**: the user's store is ``--store PATH``, else ``$CONVBOUND_STORE``, else :func:`default_path`
(``platformdirs.user_data_dir("convbound")/evidence.sqlite``, e.g. ``~/.local/share/convbound/evidence.sqlite``);
reading merges it with the store shipped as package data (``verify/evidence/shipped.sqlite``), the user's
records first.
**Concurrency**: every write is one ``BEGIN IMMEDIATE`` transaction with a busy timeout, so two processes
writing one store lose nothing and a reader never sees half of a batch (WAL lets readers run meanwhile); on
Dask only the client writes (workers return records).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bounds.core.errors import UserInputError

SEARCH, ORDERS, WORST_CASE, VERIFICATION, HYPOTHESES = "search", "orders", "worst-case", "verification", "hypotheses"
#: The kinds of evidence a record may hold.
KINDS = (SEARCH, ORDERS, WORST_CASE, VERIFICATION, HYPOTHESES)
#: Environment variable naming the user's store.
ENV = "CONVBOUND_STORE"
#: The store shipped with the package (read-only; rebuilt by ``convbound store rebuild-shipped``).
SHIPPED = Path(__file__).resolve().parent / "shipped.sqlite"
BUSY_MS = 120_000  # a writer waits this long for another's transaction (a campaign's records are small)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, result_key TEXT NOT NULL, seed INTEGER,
    formula_hash TEXT NOT NULL, hypotheses_hash TEXT NOT NULL, code_version TEXT NOT NULL,
    created TEXT NOT NULL, versions TEXT NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS records_by_result ON records (result_key, kind);
CREATE TRIGGER IF NOT EXISTS records_immutable BEFORE UPDATE ON records
    BEGIN SELECT RAISE(ABORT, 'evidence records are immutable'); END;
CREATE TRIGGER IF NOT EXISTS records_kept BEFORE DELETE ON records
    BEGIN SELECT RAISE(ABORT, 'evidence records are never deleted'); END;
"""
_COLUMNS = ("id", "kind", "result_key", "seed", "formula_hash", "hypotheses_hash", "code_version", "created",
            "versions", "body")


@dataclass(frozen=True)
class StoredRecord:
    """One record (module docstring); ``source`` says which store it was read from (not stored)."""

    kind: str
    result_key: str
    seed: int | None
    formula_hash: str
    hypotheses_hash: str
    code_version: str
    body: Mapping[str, Any]
    versions: Mapping[str, str] = field(default_factory=dict)
    created: str = ""
    id: str = ""
    source: str = ""

    @property
    def piece(self) -> str:
        """Which piece of evidence this is (a campaign's unit of work; "" for an imported record)."""
        return str(self.body.get("piece", ""))


def new_record(kind: str, result_key: str, body: Mapping[str, Any], *, seed: int | None,
               versions: Mapping[str, str] | None = None) -> StoredRecord:
    """A record about ``result_key`` stamped with the result's current hashes and the scoring code's version."""
    from verify.evidence.keys import code_version, current

    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    fh, hh = current(result_key)
    rec = StoredRecord(kind=kind, result_key=result_key, seed=seed, formula_hash=fh, hypotheses_hash=hh,
                       code_version=code_version(), body=dict(body), versions=dict(versions or {}),
                       created=datetime.now(UTC).isoformat(timespec="seconds"))
    return _with_id(rec)


def _with_id(rec: StoredRecord) -> StoredRecord:
    from dataclasses import replace

    payload = json.dumps([rec.kind, rec.result_key, rec.seed, rec.formula_hash, rec.hypotheses_hash,
                          rec.code_version, rec.versions, rec.body], sort_keys=True, default=str)
    return replace(rec, id=hashlib.sha256(payload.encode()).hexdigest()[:32])


def default_path() -> Path:
    """The user's store when neither ``--store`` nor ``$CONVBOUND_STORE`` names one."""
    import platformdirs

    return Path(platformdirs.user_data_dir("convbound")) / "evidence.sqlite"


def user_path(store: str | None = None) -> Path:
    """``store`` (``--store``), else ``$CONVBOUND_STORE``, else :func:`default_path`."""
    chosen = store if store is not None else os.environ.get(ENV) or None
    if chosen is not None and not str(chosen).strip():
        raise UserInputError("--store '': give the path of an SQLite file (created when absent)")
    return Path(chosen).expanduser() if chosen is not None else default_path()


class Store:
    """One SQLite evidence store (created on first write; ``readonly`` opens an existing file immutable)."""

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._conn: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None:
            return self._conn
        try:
            if self.readonly:  # package data: never written, maybe on a read-only file system
                conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?immutable=1", uri=True)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=BUSY_MS / 1000, isolation_level=None)
                conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
                conn.execute("PRAGMA journal_mode = WAL")
                conn.executescript(_SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise UserInputError(f"evidence store {self.path}: cannot open ({exc}); give --store PATH of an "
                                 "SQLite file in a writable folder") from None
        self._conn = conn
        return conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction: all of it is committed, or (an error, SIGINT) none of it."""
        conn = self._connect()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def add(self, records: Iterable[StoredRecord]) -> int:
        """Write ``records`` in one transaction; returns how many were new (an identical record is kept once)."""
        if self.readonly:
            raise UserInputError(f"evidence store {self.path} is read-only (the shipped store); write to --store")
        rows = [_row(r if r.id else _with_id(r)) for r in records]
        with self._write() as conn:
            before = conn.total_changes
            conn.executemany(f"INSERT OR IGNORE INTO records ({', '.join(_COLUMNS)}) "
                             f"VALUES ({', '.join('?' * len(_COLUMNS))})", rows)
            return conn.total_changes - before

    def records(self, result_key: str | None = None, kind: str | None = None, *,
                about: Collection[str] | None = None) -> list[StoredRecord]:
        """Every record (about ``result_key``, of ``kind``, stored under one of the names ``about`` when given),
        oldest first. Why ``about``: a decision about one result (``check``, ``show``) need not parse the
        bodies of every other result's records, most of a store's reading time."""
        if self.readonly and not self.path.is_file():
            return []
        where, args = [], []
        for col, val in (("result_key", result_key), ("kind", kind)):
            if val is not None:
                where.append(f"{col} = ?")
                args.append(val)
        if about is not None:
            names = sorted(set(about))
            where.append(f"result_key IN ({', '.join('?' * len(names))})")
            args += names
        sql = f"SELECT {', '.join(_COLUMNS)} FROM records" + (" WHERE " + " AND ".join(where) if where else "")
        try:
            rows = self._connect().execute(sql + " ORDER BY created, id", args).fetchall()
        except sqlite3.DatabaseError as exc:
            raise UserInputError(f"evidence store {self.path}: not a readable store ({exc}); give --store PATH "
                                 "of a store written by convbound") from None
        label = ("shipped store" if self.readonly else f"store {self.path}")
        return [_record(r, label) for r in rows]

    def count(self) -> int:
        return int(self._connect().execute("SELECT count(*) FROM records").fetchone()[0])


def _row(r: StoredRecord) -> tuple[Any, ...]:
    return (r.id, r.kind, r.result_key, r.seed, r.formula_hash, r.hypotheses_hash, r.code_version, r.created,
            json.dumps(r.versions, sort_keys=True), json.dumps(r.body, sort_keys=True, default=str))


def _record(row: Sequence[Any], source: str) -> StoredRecord:
    rid, kind, key, seed, fh, hh, cv, created, versions, body = row
    return StoredRecord(kind=kind, result_key=key, seed=seed, formula_hash=fh, hypotheses_hash=hh, code_version=cv,
                        body=json.loads(body), versions=json.loads(versions), created=created, id=rid, source=source)


def read_all(store: str | None = None, *, shipped: bool = True, result_key: str | None = None,
             kind: str | None = None, about: Collection[str] | None = None) -> list[StoredRecord]:
    """The user's records then the shipped ones (a record in both is read once, from the user's store), those
    stored under one of the names ``about`` when given (:meth:`Store.records`). A user's store that does not
    exist yet reads as empty (it is not created by reading)."""
    out: list[StoredRecord] = []
    path = user_path(store)
    if path.is_file():
        with Store(path) as s:
            out += s.records(result_key, kind, about=about)
    if shipped:
        seen = {r.id for r in out}
        with Store(SHIPPED, readonly=True) as s:
            out += [r for r in s.records(result_key, kind, about=about) if r.id not in seen]
    return out


def fresh(rec: StoredRecord, hashes: Mapping[str, tuple[str, str]] | None = None) -> bool:
    """The record is about the result's current formula (``hashes``: key -> current hashes, to reuse); a
    record about a result not registered now (a plugin not loaded) is not fresh."""
    from verify.evidence.keys import current, registered

    if not (hashes and rec.result_key in hashes) and not registered(rec.result_key):
        return False
    now = hashes[rec.result_key] if hashes and rec.result_key in hashes else current(rec.result_key)
    return rec.formula_hash == now[0]


def fresh_ones(records: Iterable[StoredRecord]) -> list[StoredRecord]:
    """The :func:`fresh` ones of ``records``, each result's current hashes computed once (a formula's hash
    prints its sympy expressions: 6 ms a result, against a store of hundreds of records)."""
    from verify.evidence.keys import current, registered

    hashes: dict[str, tuple[str, str]] = {}
    out = []
    for rec in records:
        if rec.result_key not in hashes and registered(rec.result_key):
            hashes[rec.result_key] = current(rec.result_key)
        if fresh(rec, hashes):
            out.append(rec)
    return out


def writing_path(store: str | None, no_store: bool) -> Path | None:
    """Where a command that produces evidence writes it: nowhere with ``--no-store``; ``--store PATH``; else
    ``$CONVBOUND_STORE`` when set; else nowhere (only ``convbound campaign`` writes to the default store
    unasked: a one-off ``falsify`` or ``verify`` is often an experiment a user does not mean to keep)."""
    if no_store:
        if store is not None:
            raise UserInputError("give --store PATH or --no-store, not both")
        return None
    if store is not None or os.environ.get(ENV):
        return user_path(store)
    return None


def write(path: Path | None, records: Iterable[StoredRecord]) -> int:
    """Write ``records`` to the store at ``path`` in one transaction (nothing when ``path`` is None)."""
    if path is None:
        return 0
    with Store(path) as s:
        return s.add(records)
