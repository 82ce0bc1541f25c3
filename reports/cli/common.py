"""Helpers shared by the command modules: KEY=VALUE parsing, JSON output, atomic writes."""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import click

from bounds.errors import UserInputError
from reports.jsonable import jsonable


def parse_assignments(items: Iterable[str]) -> dict[str, str]:
    """Split ``KEY=VALUE`` words into a dict of raw strings (values are parsed by their owner)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise UserInputError(f"expected KEY=VALUE, got {item!r} (for example L=1 or eta_c=0.005)")
        if key in out:
            raise UserInputError(f"{key} given twice ({out[key]!r} and {value!r})")
        out[key] = value
    return out


def parse_number(key: str, text: str) -> float:
    """A float from user text, with a message that names the key when it is not a number."""
    try:
        value = float(text)
    except ValueError:
        raise UserInputError(f"{key}={text!r} is not a number (for example {key}=0.5 or {key}=1e-3)") from None
    if math.isnan(value):
        raise UserInputError(f"{key}=nan is not allowed; give a finite number")
    return value


def parse_float_list(key: str, text: str) -> list[float]:
    """Comma-separated floats, e.g. ``0.3,0.5``."""
    parts = [p for p in text.split(",") if p.strip()]
    if not parts:
        raise UserInputError(f"{key} needs comma-separated numbers, e.g. 0.3,0.5")
    return [parse_number(key, p) for p in parts]


def dumps(obj: Any) -> str:
    """Strict JSON (no NaN/Infinity tokens): non-finite floats become null or "inf"."""
    return json.dumps(jsonable(obj), indent=2, allow_nan=False)


def echo_json(obj: Any) -> None:
    click.echo(dumps(obj))


def atomic_write_text(path: str | os.PathLike[str], text: str, *, force: bool = False) -> Path:
    """Write ``text`` (UTF-8) atomically; see :func:`atomic_write_bytes`."""
    return atomic_write_bytes(path, text.encode("utf-8"), force=force)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, *, force: bool = False) -> Path:
    """Write ``data`` to ``path`` via a temporary file in the same directory and a rename.

    An existing file is never replaced unless ``force``; a missing parent directory is an error.
    """
    target = Path(path)
    if target.exists() and not force:
        raise UserInputError(f"{target} exists; pass --force to overwrite it")
    if not target.parent.exists():
        raise UserInputError(f"directory {target.parent} does not exist")
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def scheduler_options(fn):
    """``--scheduler`` and ``--workers`` (where independent tasks run; see ``verify.executor``)."""
    fn = click.option("--workers", type=int, default=None, metavar="N",
                      help="Worker processes of a local Dask cluster (implies --scheduler local).")(fn)
    fn = click.option("--scheduler", default=None, metavar="WHERE",
                      help="inprocess (default), local (a Dask cluster of --workers processes, default 2) "
                           "or tcp://HOST:PORT (a running Dask scheduler).")(fn)
    return fn
