"""Participation logs: read, validate and write one row per (round, client).

**Setting**: a federated run of T rounds over N clients; the log lists, for every round and client,
whether the client was available (connected, eligible) and whether it participated (was selected and
aggregated), optionally its data weight and whether the round was a FAST snapshot round.
**Quantity**: ``ParticipationLog`` holds the dense matrices available [T, N] and participated [T, N]
(bool), the sorted round and client ids, per-client weights p (mean of the weight column, normalised)
and the per-round snapshot flag. A (round, client) pair absent from the log counts as unavailable and
not participating; the number of such pairs is kept in ``missing`` and reported by the audit.

Formats: CSV (``.csv``), Parquet (``.parquet``, ``.pq``), JSON lines (``.jsonl``, ``.ndjson``).
Default column names equal the roles: round, client, available, participated, weight, snapshot
(the last two optional); ``parse_columns("round=r,client=c")`` renames them.

Engine choice: polars, read columnar and converted to numpy without row loops. Measured on a
10^6-row, 4-column log (2 shared cores): CSV read 0.09 s (polars) vs 0.13 s (pyarrow), Parquet
0.015 s vs 0.037 s; polars also reads JSON lines natively and its non-strict casts locate the first
bad row of a mixed-type column in one vectorised pass. Both are imported inside functions only.

Errors (``UserInputError``, exit 2) name the row (1-based data row, header not counted) and column.
Only regular files are read (``bounds.core.files.regular_file``: a FIFO would block for ever); a CSV header
naming a column twice is refused; round numbers are integers in [0, 2^53] (float64 holds each exactly);
client ids beyond 64-bit integers are kept as text; ``read_log(..., max_cells=...)`` refuses a log whose
rounds x clients grid exceeds the cap before the dense matrices are allocated (a Parquet log first by the
row count in its footer).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bounds.core.errors import UserInputError

ROLES = ("round", "client", "available", "participated", "weight", "snapshot")
REQUIRED = ("round", "client", "available", "participated")
# peak bytes per (round, client) cell of an audit: the dense bool matrices and the float copies of the fit and the
# effective sizes (tests/benchmarks/bench_audit.py: 10^7 cells, peak RSS 1.0 GB); bounds.core.limits sets the cap
BYTES_PER_CELL = 100
MAX_ROUND = 2**53  # the largest round number: beyond it float64 (and the text of a CSV) merges neighbours
FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl"}


@dataclass(frozen=True, eq=False)
class ParticipationLog:
    """A validated log as dense arrays (rounds sorted ascending, clients sorted by id)."""

    source: str
    rows: int
    round_ids: np.ndarray  # [T] int64
    client_ids: np.ndarray  # [N] (int64 or str)
    available: np.ndarray  # [T, N] bool
    participated: np.ndarray  # [T, N] bool
    weights: np.ndarray | None  # [N] p, sums to 1; None when the log has no weight column
    snapshot: np.ndarray | None  # [T] bool; None when the log has no snapshot column
    missing: int  # (round, client) pairs absent from the log

    @property
    def n_rounds(self) -> int:
        return int(self.round_ids.size)

    @property
    def n_clients(self) -> int:
        return int(self.client_ids.size)

    def describe(self) -> dict:
        return {"source": self.source, "rows": self.rows, "rounds": self.n_rounds, "clients": self.n_clients,
                "first_round": int(self.round_ids[0]), "last_round": int(self.round_ids[-1]),
                "missing_pairs": self.missing, "has_weights": self.weights is not None,
                "has_snapshot": self.snapshot is not None}


def parse_columns(text: str | None) -> dict[str, str]:
    """'round=r,client=c' -> {'round': 'r', 'client': 'c'}; roles must be among ``ROLES``."""
    out: dict[str, str] = {}
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        role, eq, name = item.partition("=")
        role, name = role.strip(), name.strip()
        if not eq or not name:
            raise UserInputError(f"--columns item {item!r} is not ROLE=NAME (roles: {', '.join(ROLES)})")
        if role not in ROLES:
            from bounds.core.errors import unknown

            raise unknown("log column role", role, ROLES)
        if role in out:
            raise UserInputError(f"--columns names role {role!r} twice ({out[role]!r} and {name!r}); one column per role")
        if name in out.values():
            other = next(r for r, n in out.items() if n == name)
            raise UserInputError(f"--columns maps column {name!r} to two roles ({other} and {role}); one role per column")
        out[role] = name
    return out


def _format(path: Path, fmt: str | None) -> str:
    if fmt is not None:
        if fmt not in set(FORMATS.values()):
            from bounds.core.errors import unknown

            raise unknown("log format", fmt, sorted(set(FORMATS.values())))
        return fmt
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise UserInputError(f"log {path}: cannot tell the format from suffix {suffix!r}; "
                             f"use one of {', '.join(FORMATS)} or pass --format csv|parquet|jsonl")
    return FORMATS[suffix]


def _read_frame(path: Path, fmt: str, max_cells: int | None = None):
    import polars as pl

    from bounds.core.files import regular_file

    # a FIFO would block for ever; a directory or device is no log
    regular_file(path, "log file", "a CSV, Parquet or JSON lines participation log (docs/audit.md)")
    try:
        if fmt == "parquet":
            if max_cells is not None:
                # a compressed file can hold far more rows than its size suggests: count them first (the
                # footer), since every row is a distinct (round, client) cell
                rows = int(pl.scan_parquet(path).select(pl.len()).collect().item())
                if rows > max_cells:
                    raise UserInputError(f"log {path} has {rows:.3g} rows, so at least as many (round, client) "
                                         f"cells; the cap here is {max_cells:.3g} cells: audit a shorter log")
            return pl.read_parquet(path)
        if fmt == "csv":
            _check_header(path)
        try:  # fast path: typed columns inferred by polars
            if fmt == "csv":
                return pl.read_csv(path, infer_schema_length=10_000)
            return pl.read_ndjson(path, infer_schema_length=None)
        except pl.exceptions.PolarsError:
            # a value that does not fit the inferred type: read every column as text, so that the
            # validation below finds the first bad row and names it
            if fmt == "csv":
                head = pl.read_csv(path, n_rows=0)
                return pl.read_csv(path, schema_overrides={c: pl.String for c in head.columns})
            import json

            with open(path, encoding="utf-8") as fh:
                keys = list(json.loads(fh.readline()))
            return pl.read_ndjson(path, schema={c: pl.String for c in keys})
    except UserInputError:
        raise
    except Exception as exc:  # polars raises its own zoo of errors for malformed files
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UserInputError(f"log {path}: cannot read as {fmt}: {first}") from None


def _check_header(path: Path) -> None:
    """A CSV header naming a column twice is refused (polars would rename the second copy and read on)."""
    import csv

    with open(path, "rb") as fh:
        line = fh.readline(1 << 20).decode("utf-8-sig", errors="replace")
    names = [n.strip() for n in next(csv.reader([line]), [])]
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise UserInputError(f"log {path}: the header names column {n!r} twice; one column per name")
        seen.add(n)


def _first_bad(mask: np.ndarray) -> int:
    return int(np.argmax(mask)) + 1


def _numeric(df, col: str, role: str, source: str) -> np.ndarray:
    """Column as float64; a null or non-number names its row."""
    import polars as pl

    s = df.get_column(col)
    if s.null_count():
        raise UserInputError(f"{source}: row {_first_bad(s.is_null().to_numpy())}, column {col!r} ({role}): "
                             "empty value; every row needs a number here")
    if s.dtype == pl.Boolean:
        return s.cast(pl.Float64).to_numpy()
    if s.dtype == pl.String:
        low = s.str.strip_chars().str.to_lowercase()
        low = low.replace({"true": "1", "false": "0"}) if role in ("available", "participated", "snapshot") else low
        num = low.cast(pl.Float64, strict=False)
    elif s.dtype.is_numeric():
        num = s.cast(pl.Float64)
    else:
        raise UserInputError(f"{source}: row 1, column {col!r} ({role}): values of type {s.dtype} "
                             "(mixed or nested); expected numbers")
    bad = num.is_null().to_numpy()
    if bad.any():
        i = int(np.argmax(bad))
        raise UserInputError(f"{source}: row {i + 1}, column {col!r} ({role}): {s[i]!r} is not a number "
                             "(mixed types in the column)")
    return num.to_numpy()


def _flag(values: np.ndarray, col: str, role: str, source: str) -> np.ndarray:
    bad = (values != 0) & (values != 1)
    if bad.any():
        raise UserInputError(f"{source}: row {_first_bad(bad)}, column {col!r} ({role}): "
                             f"{values[bad][0]:g} is not 0/1 (or true/false)")
    return values == 1


def _unique_ints(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(x, return_inverse=True) for integers; O(n) by counting when the ids are dense and >= 0."""
    lo, hi = int(x.min()), int(x.max())
    if lo >= 0 and hi < 4 * x.size + 1024:
        present = np.bincount(x, minlength=hi + 1) > 0
        index = np.cumsum(present) - 1
        return np.flatnonzero(present), index[x]
    return np.unique(x, return_inverse=True)


def _fits_int64(s) -> bool:
    """Does an integer column fit int64 (polars reads larger CSV integers as i128 or u64)?"""
    lo, hi = s.min(), s.max()
    return lo is None or (-(2**63) <= int(lo) and int(hi) < 2**63)


def _rounds(df, col: str, source: str) -> np.ndarray:
    """Round numbers as int64: integers in [0, MAX_ROUND] (float64 holds each exactly, so no two merge)."""
    import polars as pl

    s = df.get_column(col)
    if s.dtype == pl.Boolean:
        raise UserInputError(f"{source}: row 1, column {col!r} (round): true/false values; a round is an integer")
    if s.dtype.is_integer() and s.null_count() == 0:
        lo, hi = int(s.min()), int(s.max())
        if lo >= 0 and hi <= MAX_ROUND:
            return s.cast(pl.Int64).to_numpy()
        bad = ((s < 0) | (s > MAX_ROUND)).to_numpy()
        raise UserInputError(f"{source}: row {_first_bad(bad)}, column {col!r} (round): {s[_first_bad(bad) - 1]} "
                             f"is not a round number in [0, 2^53]")
    rnd = _numeric(df, col, "round", source)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(rnd) | (rnd < 0) | (rnd > MAX_ROUND) | (rnd != np.floor(rnd))
    if bad.any():
        raise UserInputError(f"{source}: row {_first_bad(bad)}, column {col!r} (round): "
                             f"{str(s[_first_bad(bad) - 1])[:40]} is not a round number (an integer in [0, 2^53])")
    return rnd.astype(np.int64)


def _codes(df, col: str, source: str) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique client ids and each row's index into them."""
    import polars as pl

    s = df.get_column(col)
    if s.null_count():
        raise UserInputError(f"{source}: row {_first_bad(s.is_null().to_numpy())}, column {col!r} (client): empty value")
    if s.dtype == pl.String:
        stripped = s.str.strip_chars()
        as_int = stripped.cast(pl.Int64, strict=False)
        is_int = (as_int.is_not_null() | stripped.str.contains(r"^[+-]?[0-9]+$")).to_numpy()
        if is_int.all():
            if as_int.is_not_null().all():
                s = as_int  # otherwise some id is beyond int64: all stay text
        elif is_int.any():  # integers and text mixed: the first row of the minority type is the odd one
            odd = ~is_int if 2 * is_int.sum() >= is_int.size else is_int
            i = int(np.argmax(odd))
            kind, other = ("text", "integers") if not is_int[i] else ("an integer", "text")
            raise UserInputError(f"{source}: row {i + 1}, column {col!r} (client): {s[i]!r} is {kind} while "
                                 f"most ids are {other} (mixed types in the column)")
    if s.dtype.is_integer() and not _fits_int64(s):
        s = s.cast(pl.String)  # ids beyond int64 (hashes, 2^64): labels, kept as text
    if s.dtype.is_integer():
        return _unique_ints(s.cast(pl.Int64).to_numpy())
    if s.dtype == pl.String:
        # dense rank of the text ids = index into their sorted unique values, in one columnar pass
        codes = s.rank("dense").to_numpy().astype(np.int64) - 1
        return np.asarray(s.unique().sort().to_list(), dtype=str), codes
    raise UserInputError(f"{source}: row 1, column {col!r} (client): ids of type {s.dtype}; use integers or text")


def read_log(path, columns: dict[str, str] | None = None, fmt: str | None = None,
             max_cells: int | None = None) -> ParticipationLog:
    """Read and validate a participation log (see the module docstring for formats and columns).

    ``max_cells``: the most (round, client) cells the dense matrices may hold; a log whose distinct rounds
    times distinct clients exceed it is refused before they are allocated (the CLI sets it from the
    machine's memory: ``reports.cli.cmd_audit``).
    """
    path = Path(path)
    names = {r: r for r in ROLES} | (columns or {})
    kind = _format(path, fmt)
    df = _read_frame(path, kind, max_cells)
    source = str(path)
    present = set(df.columns)
    for role in REQUIRED:
        if names[role] not in present:
            raise UserInputError(
                f"{source}: column {names[role]!r} ({role}) missing; columns present: {', '.join(df.columns[:12])}; "
                f"map it with --columns {role}=NAME")
    if df.height == 0:
        raise UserInputError(f"{source}: the log has no rows")

    # Validate column by column (the first bad row of each names itself)
    rnd = _rounds(df, names["round"], source)
    avail = _flag(_numeric(df, names["available"], "available", source), names["available"], "available", source)
    part = _flag(_numeric(df, names["participated"], "participated", source), names["participated"], "participated",
                 source)
    bad = part & ~avail
    if bad.any():
        raise UserInputError(f"{source}: row {_first_bad(bad)}, column {names['participated']!r} (participated): "
                             "the client participates although available=0 in that row")
    client_ids, ci = _codes(df, names["client"], source)
    round_ids, ri = _unique_ints(rnd)
    T, N = round_ids.size, client_ids.size
    if max_cells is not None and T * N > max_cells:
        raise UserInputError(f"{source}: {T} rounds x {N} clients = {float(T * N):.3g} (round, client) cells "
                             f"(absent pairs count as unavailable), about {T * N * BYTES_PER_CELL / 1e9:.3g} GB to "
                             f"audit; the cap here is {float(max_cells):.3g} cells: audit fewer rounds or clients")
    flat = ri.astype(np.int64) * N + ci
    counts = np.bincount(flat, minlength=T * N)
    if counts.max() > 1:
        order = np.argsort(flat, kind="stable")  # stable: of two equal keys the later row comes second
        same = flat[order][1:] == flat[order][:-1]
        row = int(order[1:][same].min()) + 1
        raise UserInputError(f"{source}: row {row}, column {names['client']!r} (client): client "
                             f"{client_ids[ci[row - 1]]} appears twice in round {rnd[row - 1]}; one row per (round, client)")

    A = np.zeros(T * N, dtype=bool)
    S = np.zeros(T * N, dtype=bool)
    A[flat] = avail
    S[flat] = part
    weights = None
    if names["weight"] in present:
        w = _numeric(df, names["weight"], "weight", source)
        bad = (w < 0) | ~np.isfinite(w)
        if bad.any():
            raise UserInputError(f"{source}: row {_first_bad(bad)}, column {names['weight']!r} (weight): "
                                 f"{w[bad][0]:g}; weights are finite and >= 0")
        top = float(w.max())
        w = w / top if top > 0 else w  # scaled first: sums of weights near 1e308 would overflow
        tot = np.bincount(ci, weights=w, minlength=N) / np.maximum(np.bincount(ci, minlength=N), 1)
        if tot.sum() <= 0:
            raise UserInputError(f"{source}: column {names['weight']!r} (weight) is zero everywhere")
        weights = tot / tot.sum()
    snapshot = None
    if names["snapshot"] in present:
        sv = _flag(_numeric(df, names["snapshot"], "snapshot", source), names["snapshot"], "snapshot", source)
        snapshot = np.bincount(ri, weights=sv, minlength=T) > 0
    return ParticipationLog(source, int(df.height), round_ids, client_ids, A.reshape(T, N), S.reshape(T, N),
                            weights, snapshot, int(T * N - df.height))


def log_frame(available: np.ndarray, participated: np.ndarray, weights: np.ndarray | None = None,
              snapshot: np.ndarray | None = None, round_ids: np.ndarray | None = None,
              client_ids: np.ndarray | None = None):
    """A polars frame of a dense log (every round x client), built without row loops."""
    import polars as pl

    A = np.asarray(available, dtype=bool)
    S = np.asarray(participated, dtype=bool)
    T, N = A.shape
    rid = np.arange(T) if round_ids is None else np.asarray(round_ids)
    cid = np.arange(N) if client_ids is None else np.asarray(client_ids)
    cols = {"round": np.repeat(rid, N), "client": np.tile(cid, T),
            "available": A.ravel().astype(np.int8), "participated": S.ravel().astype(np.int8)}
    if weights is not None:
        cols["weight"] = np.tile(np.asarray(weights, dtype=float), T)
    if snapshot is not None:
        cols["snapshot"] = np.repeat(np.asarray(snapshot, dtype=np.int8), N)
    return pl.DataFrame(cols)


def write_log(path, available, participated, weights=None, snapshot=None, round_ids=None, client_ids=None) -> Path:
    """Write a dense log in the format named by the suffix of ``path``."""
    path = Path(path)
    df = log_frame(available, participated, weights, snapshot, round_ids, client_ids)
    kind = _format(path, None)
    if kind == "csv":
        df.write_csv(path)
    elif kind == "parquet":
        df.write_parquet(path)
    else:
        df.write_ndjson(path)
    return path
