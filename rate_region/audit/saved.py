"""Field checks of a saved audit record (``AuditRecord.from_dict``; ``convbound audit --json``).

**Rule**: every field the report's audit section reads is present with its type, and the per-client lists
have one entry per client; the first that is not is one :class:`~bounds.core.record.BadRecord` line
naming it (``field 'record.variance.H_rstar' is missing``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bounds.core.record import BadRecord, describe, get, numbers, obj

_NUM = (int, float)


def check_audit(r: Mapping[str, Any], w: str) -> None:
    lg = get(r, "log", Mapping, w)
    for name in ("rows", "rounds", "clients", "missing_pairs"):
        get(lg, name, int, w + ".log")
    t = get(r, "target", Mapping, w)
    get(t, "text", str, w + ".target")
    numbers(get(t, "per_client", list, w + ".target"), w + ".target.per_client")
    rates = get(r, "rates", Mapping, w)
    for name in ("r", "low", "high"):
        numbers(get(rates, name, list, w + ".rates"), f"{w}.rates.{name}")
    get(rates, "level", _NUM, w + ".rates")
    ids = get(rates, "client_ids", list, w + ".rates")
    n = len(rates["r"])
    for name in ("low", "high", "client_ids"):
        if len(rates[name] if name != "client_ids" else ids) != n:
            raise BadRecord(f"field '{w}.rates.{name}' has a different length from '{w}.rates.r' ({n})")
    if len(t["per_client"]) != n:
        raise BadRecord(f"field '{w}.target.per_client' has a different length from '{w}.rates.r' ({n})")
    rs = get(r, "rstar", Mapping, w)
    numbers(get(rs, "r", list, w + ".rstar"), w + ".rstar.r")
    get(rs, "source", str, w + ".rstar")
    _check_bias(get(r, "bias", Mapping, w), n, w + ".bias")
    _check_model(get(r, "availability_model", Mapping, w), w + ".availability_model")
    v = get(r, "variance", Mapping, w)
    get(v, "objective", str, w + ".variance")
    for name in ("H_realised", "H_rstar", "ratio", "max_abs_dev_rstar"):
        get(v, name, _NUM, w + ".variance")
    for i, c in enumerate(get(r, "checks", list, w)):
        c = obj(c, f"{w}.checks[{i}]")
        get(c, "check", str, f"{w}.checks[{i}]")
        get(c, "results", list, f"{w}.checks[{i}]")
        if c.get("status") not in (True, False, None):
            raise BadRecord(f"field '{w}.checks[{i}].status' is {describe(c.get('status'))}; expected true, false "
                            "or null")


def _check_bias(b: Mapping[str, Any], n: int, w: str) -> None:
    get(b, "alpha", _NUM, w)
    get(b, "method", str, w)
    for name in ("flagged", "under_served"):
        for i, x in enumerate(get(b, name, list, w)):
            if not isinstance(x, int) or isinstance(x, bool) or not 0 <= x < n:
                raise BadRecord(f"field '{w}.{name}[{i}]' is {describe(x)}; expected a client index in 0..{n - 1}")


def _check_model(m: Mapping[str, Any], w: str) -> None:
    get(m, "kind", str, w)
    for i, c in enumerate(get(m, "candidates", list, w)):
        where = f"{w}.candidates[{i}]"
        c = obj(c, where)
        get(c, "kind", str, where)
        get(c, "bic", _NUM, where)
    get(get(m, "goodness_of_fit", Mapping, w), "cells", str, w + ".goodness_of_fit")
