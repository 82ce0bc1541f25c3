"""Availability-model files: TOML for every kind, and columnar files for many clients.

**Setting**: ``region --model FILE``, ``audit --model FILE`` and the bounds' ``--model`` read an
availability model from a file. TOML (``rate_region.tomlfile``) holds every kind, but parsing a
list of 10^6 numbers in TOML takes seconds; a columnar file holds the common large case, clients
available independently with per-client probabilities (``Independent``), and loads in a fraction
of a second.
**Format** (one row per client, in client order; docs/audit.md, "Large availability models"):
Parquet (``.parquet``, ``.pq``), CSV (``.csv``) or NumPy (``.npz``, one array per column):
``q`` (required): Pr(client available in a round), in [0, 1]; ``weight`` (optional): data weight,
finite and >= 0, normalised to sum 1 (default uniform); ``k`` (optional): the cap, one positive
integer, the same in every row (else ``--k``); ``client`` (optional): the client ids, strictly
increasing (the order in which ``audit`` sorts a log's clients), otherwise unused.
Anything else is refused with the valid names, so a misspelt column is never silently ignored.

Only regular files are read (a FIFO would block for ever, a directory or device is no model), and
the number of clients is bounded from the file's metadata (Parquet footer, zip directory, file size)
before the data are loaded.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from bounds.core.errors import UserInputError, unknown
from bounds.core.files import regular_file
from rate_region.models import MODEL_NAMES, named_model

COLUMNAR = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".npz": "npz"}
SUFFIXES = (".toml", *COLUMNAR)
COLUMNS = ("q", "weight", "k", "client")


def is_model_file(spec: str) -> bool:
    """Does ``spec`` name a model file (by suffix, or a path with a directory) rather than a named model?"""
    return spec.lower().endswith(SUFFIXES) or "/" in spec or os.sep in spec


def load_model_file(path, k: int | None = None, max_clients: int | None = None):
    """An availability model from a TOML, Parquet, CSV or NPZ file; ``k`` is the cap when the file has none.

    ``max_clients``: refuse a columnar file with more clients, judged from its metadata before the data
    are loaded (the CLI sets it from the machine: ``bounds.core.limits.region_max_clients``).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    valid = "a model file: TOML, or Parquet, CSV or NPZ with columns q, weight, k (docs/audit.md)"
    if suffix == ".toml":
        regular_file(path, "model file", valid)
        from rate_region.tomlfile import load_model

        return load_model(path)
    if suffix not in COLUMNAR:
        raise UserInputError(f"model file {path}: unknown suffix {suffix!r}; use one of {', '.join(SUFFIXES)}")
    if regular_file(path, "model file", valid).stat().st_size == 0:
        raise UserInputError(f"model file {path} is empty; it needs a column q (one row per client)")
    fmt = COLUMNAR[suffix]
    cols = _read_npz(path, max_clients) if fmt == "npz" else _read_table(path, fmt, max_clients)
    return _build(cols, path, k)


def _refuse_size(rows: int, path: Path, max_clients: int | None) -> None:
    if max_clients is not None and rows > max_clients:
        raise UserInputError(f"model file {path} holds about {float(rows):.3g} clients; the cap here is "
                             f"{float(max_clients):.3g} (memory and time of r*): give fewer clients")


def _check_names(names, path: Path) -> None:
    names = list(names)
    extra = [c for c in names if c not in COLUMNS]
    if extra:
        from bounds.core.errors import unknown

        raise UserInputError(f"model file {path}: {unknown('column', str(extra[0]), COLUMNS)}")
    if len(set(names)) != len(names):
        dup = next(c for c in names if names.count(c) > 1)
        raise UserInputError(f"model file {path}: column {dup!r} appears twice")
    if "q" not in names:
        raise UserInputError(f"model file {path}: no column 'q' (availability per client); columns present: "
                             f"{', '.join(map(str, names)) or 'none'}")


def _read_table(path: Path, fmt: str, max_clients: int | None) -> dict[str, np.ndarray]:
    """Parquet or CSV through polars; every column read as text or numbers, validated in ``_build``."""
    import polars as pl

    try:
        if fmt == "parquet":
            names = list(pl.read_parquet_schema(path))
            _check_names(names, path)
            rows = int(pl.scan_parquet(path).select(pl.len()).collect().item())
            _refuse_size(rows, path, max_clients)
            df = pl.read_parquet(path)
        else:
            with open(path, "rb") as fh:
                header = fh.readline(1 << 16).decode("utf-8-sig", errors="replace").strip()
            import csv

            names = next(csv.reader([header]), [])
            _check_names(names, path)
            df = pl.read_csv(path, schema_overrides={c: pl.String for c in names}, raise_if_empty=True)
    except UserInputError:
        raise
    except Exception as exc:  # polars and pyarrow raise their own zoo of errors for malformed files
        text = str(exc).strip()
        first = text.splitlines()[0] if text else type(exc).__name__
        raise UserInputError(f"model file {path}: cannot read as {fmt}: {first[:200]}") from None
    out: dict[str, np.ndarray] = {}
    for name in df.columns:
        s = df.get_column(name)
        if s.null_count():
            row = int(np.argmax(s.is_null().to_numpy())) + 1
            raise UserInputError(f"model file {path}: row {row}, column {name!r}: empty value")
        if name == "client":  # integer ids compare as numbers (as the audit sorts them), others as text
            as_int = s.cast(pl.String).str.strip_chars().cast(pl.Int64, strict=False)
            out[name] = as_int.to_numpy() if as_int.null_count() == 0 else s.cast(pl.String).to_numpy()
            continue
        if s.dtype == pl.String:
            num = s.str.strip_chars().cast(pl.Float64, strict=False)
        elif s.dtype.is_numeric() or s.dtype == pl.Boolean:
            num = s.cast(pl.Float64, strict=False)
        else:
            raise UserInputError(f"model file {path}: column {name!r} holds {s.dtype} values; expected numbers")
        bad = num.is_null().to_numpy()
        if bad.any():
            row = int(np.argmax(bad))
            raise UserInputError(f"model file {path}: row {row + 1}, column {name!r}: {str(s[row])[:40]!r} "
                                 "is not a number")
        out[name] = num.to_numpy()
    _refuse_size(df.height, path, max_clients)  # a CSV's size is its text: read, then counted
    return out


def _read_npz(path: Path, max_clients: int | None) -> dict[str, np.ndarray]:
    """One array per column; each array's shape is read from its header before anything is loaded."""
    import zipfile

    shapes: dict[str, tuple] = {}
    try:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
                with zf.open(info) as fh:
                    fmt = np.lib.format
                    version = fmt.read_magic(fh)
                    read = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
                    shape, _, _ = read(fh)
                shapes[name] = tuple(shape)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise UserInputError(f"model file {path}: not a NumPy .npz archive of arrays ({str(exc)[:120]})") from None
    _check_names(list(shapes), path)
    _refuse_size(max((int(np.prod(s)) for s in shapes.values()), default=0), path, max_clients)
    out: dict[str, np.ndarray] = {}
    try:
        with np.load(path, allow_pickle=False) as data:
            for name in shapes:
                a = data[name]
                if a.dtype.kind not in "biuf" and not (name == "client" and a.dtype.kind in "US"):
                    raise UserInputError(f"model file {path}: array {name!r} holds {a.dtype} values; expected numbers")
                if a.ndim > 1 or (a.ndim == 0 and name != "k"):
                    raise UserInputError(f"model file {path}: array {name!r} has shape {a.shape}; "
                                         "expected one value per client")
                out[name] = np.atleast_1d(a.astype(float) if a.dtype.kind in "biuf" else a)
    except UserInputError:
        raise
    except Exception as exc:  # truncated members, pickled objects, bad headers
        text = str(exc).strip()
        first = text.splitlines()[0] if text else type(exc).__name__
        raise UserInputError(f"model file {path}: cannot read as npz: {first[:200]}") from None
    return out


def _build(cols: dict[str, np.ndarray], path: Path, k: int | None):
    from rate_region.availability import Independent

    q = cols["q"]
    n = q.size
    if n == 0:
        raise UserInputError(f"model file {path} has no rows; it needs one row per client")
    for name, col in cols.items():
        if name == "k" and col.size == 1:
            continue
        if col.size != n:
            raise UserInputError(f"model file {path}: column {name!r} has {col.size} values but q has {n}")
    bad = ~np.isfinite(q) | (q < 0) | (q > 1)
    if bad.any():
        i = int(np.argmax(bad))
        raise UserInputError(f"model file {path}: row {i + 1}, column 'q': {q[i]:g} is not a probability in [0, 1]")
    weights = None
    if "weight" in cols:
        w = cols["weight"]
        bad = ~np.isfinite(w) | (w < 0)
        if bad.any():
            i = int(np.argmax(bad))
            raise UserInputError(f"model file {path}: row {i + 1}, column 'weight': {w[i]:g}; weights are finite "
                                 "and >= 0")
        top = float(w.max())
        if top <= 0:
            raise UserInputError(f"model file {path}: column 'weight' is zero everywhere; weights are normalised "
                                 "to sum 1, so at least one must be positive")
        weights = w / top  # scaled first: a sum of weights near 1e308 would overflow
        weights = weights / weights.sum()
    if "client" in cols:
        c = cols["client"]
        if c.size > 1 and not bool(np.all(c[1:] > c[:-1])):
            i = int(np.argmax(~(c[1:] > c[:-1]))) + 2
            raise UserInputError(f"model file {path}: row {i}, column 'client': ids must be strictly increasing "
                                 "(sort the rows by client, as the audit sorts a log's clients)")
    cap = k
    if "k" in cols:
        kk = cols["k"]
        if not np.all(kk == kk[0]):
            i = int(np.argmax(kk != kk[0])) + 1
            raise UserInputError(f"model file {path}: row {i}, column 'k': {kk[i - 1]:g} differs from row 1; "
                                 "the cap is one number, the same in every row")
        v = float(kk[0])
        if not np.isfinite(v) or v != np.floor(v) or not 1 <= v <= n:
            raise UserInputError(f"model file {path}: column 'k' is {v:g}; the cap is an integer from 1 to the "
                                 f"number of clients ({n})")
        cap = int(v) if k is None else k
    if cap is None:
        raise UserInputError(f"model file {path} has no column 'k' (the cap per round); add one (region and audit "
                             "also take --k)")
    return Independent.build(q, cap, weights, name=path.stem)


# A model by name or by file. Here, not in rate_region.models: a TOML file may name a model (tomlfile imports
# models), so the module that reads files is the one that also dispatches names and files.
def load_model(path, k: int | None = None, max_clients: int | None = None) -> Any:
    """An availability model from a file: TOML, or Parquet, CSV or NPZ (this module's format)."""
    return load_model_file(path, k, max_clients)


def get_model(spec: str, clients: int | None = None, seed: int = 0, k: int | None = None,
              max_clients: int | None = None) -> Any:
    """A name from ``MODEL_NAMES`` or a path to a model file (``k``: the cap of a columnar file without one;
    ``max_clients``: refuse a larger file before loading it)."""
    if spec in MODEL_NAMES:
        return named_model(spec, clients, seed)
    if is_model_file(spec):
        if clients is not None:
            raise UserInputError(f"clients={clients} applies to named models only; a model file fixes its own clients",
                                 param="clients")
        return load_model(spec, k, max_clients)
    raise unknown("availability model", spec, MODEL_NAMES)
