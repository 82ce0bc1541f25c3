"""Command outputs as store records, and store records as the evidence ``verify.decision`` decides from.

**Writing** (one function per kind): a falsify ``SearchRecord``, an orders table (``verify.search.orders``
rows of one scenario), a ``WorstCase`` (one record per result its coverage rows name), a ``Verification``
(the result it is about read off its check id), the hypotheses at the worked example.
**Reading** (:func:`evidence_by_result`): only fresh records (``verify.evidence.store.fresh``) count; a stale
one is counted and said. Orders rows: a ray whose extrapolated point was confirmed violated (``violated`` or
``violated unless``) is a search outcome at that instance (a refutation or a conditional one); rows
``same order`` or ``loose`` are passed checks (``agrees``); a row ``fails far along`` whose violation was not
confirmed contradicts the rate (a failed check, not a refutation); ``not fitted`` rows check nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from verify.evidence.keys import registered, resolved
from verify.evidence.store import (
    HYPOTHESES,
    ORDERS,
    SEARCH,
    VERIFICATION,
    WORST_CASE,
    StoredRecord,
    fresh,
    new_record,
)

#: Orders findings that count as a check the bound passed along the ray.
AGREEING = ("same order", "loose")
FAILS = "fails far along"


# Writing -----------------------------------------------------------------------------------------------

def search_record(rec: Any, *, piece: str = "", doc: Mapping[str, Any] | None = None) -> StoredRecord:
    """A falsify search (``doc``: its JSON when already made, e.g. with the shrunk point)."""
    from bounds.registry import get

    body = dict(doc if doc is not None else rec.to_dict())
    body["piece"] = piece or f"search:{rec.id}"
    # stored under the result's key: a scenario may name its result by id (its default variant's)
    return new_record(SEARCH, get(rec.result).key, body, seed=int(rec.seed), versions=_versions(body))


def orders_record(result_key: str, scenario: str, rows: Sequence[Any], *, seed: int, points: int,
                  axes: Sequence[str] | None, piece: str = "", terms: bool = True, tight: bool = True) -> StoredRecord:
    """The orders rows of one scenario (``axes``: the rays asked for, None: every ray; ``terms``, ``tight``: the
    bases ``verify.search.orders.order_table`` was asked for)."""
    from verify.search import orders

    body = {"kind": "orders", "scenario": scenario, "axes": list(axes) if axes is not None else None,
            "terms": terms, "tight": tight,
            "points": points, "seed": seed, "decades": orders.DECADES, "order_tol": orders.ORDER_TOL,
            "rows": [r.to_dict() if hasattr(r, "to_dict") else dict(r) for r in rows],
            "piece": piece or f"orders:{scenario}:{','.join(axes) if axes is not None else 'all'}"}
    return new_record(ORDERS, result_key, body, seed=seed)


def worst_case_records(wc: Any, *, piece: str = "", keys: Iterable[str] | None = None) -> list[StoredRecord]:
    """One record per result a worst case covers (its coverage rows ``yes`` or ``comparison``; ``keys``: only
    these)."""
    body = dict(wc.to_dict())
    wanted = None if keys is None else set(keys)
    out = []
    covered = (str(row.get("key")) for row in wc.coverage if row.get("covers") in ("yes", "comparison"))
    for key in dict.fromkeys(covered):
        if (wanted is None or key in wanted) and registered(key):
            out.append(new_record(WORST_CASE, key, {**body, "piece": piece or f"worst-case:{_setting(wc)}"}, seed=None,
                                  versions=_versions(body)))
    return out


def _setting(wc: Any) -> str:
    from verify.decision import setting_name

    return setting_name(wc.setting)


def verification_record(v: Any, *, piece: str = "") -> StoredRecord | None:
    """A ``Verification`` about the result its id names (None when its id names no registered result)."""
    key = result_of_check(v.id, v.variant)
    if key is None:
        return None
    body = dict(v.to_dict())
    body["piece"] = piece or f"verification:{v.id}"
    return new_record(VERIFICATION, key, body, seed=int(v.seed), versions=dict(v.versions))


def hypotheses_record(res: Any, *, piece: str = "") -> StoredRecord:
    """The result's hypotheses at its worked example (``verify.decision.hypotheses_at``)."""
    from verify.decision import hypotheses_at

    body = {**asdict(hypotheses_at(res)), "piece": piece or "hypotheses"}
    return new_record(HYPOTHESES, res.key, body, seed=None)


def result_of_check(check_id: str, variant: str = "") -> str | None:
    """The registered result a check id is about: the longest dotted prefix of the id that is a scenario (its
    result) or a registered key, the id's ``@variant`` (or ``variant``, a record's own) tried first:
    ``FAST.T1.control:step-cap`` -> ``FAST.T1``, ``F3AST.T3.5.control:schedule@explicit`` ->
    ``F3AST.T3.5@explicit``, ``FAST.C2.rate`` -> ``FAST.C2@corrected`` (scenario ``FAST.C2``)."""
    from verify.scenarios import registry

    scenarios = registry()
    base, _, tail = check_id.partition("@")
    wanted = tail or (variant if variant not in ("", "published") else "")
    parts = base.split(":")[0].split(".")
    for n in range(len(parts), 0, -1):
        stem = ".".join(parts[:n])
        if wanted and registered(f"{stem}@{wanted}"):
            return f"{stem}@{wanted}"
        if stem in scenarios and resolved(str(scenarios[stem].result)) is not None:
            return resolved(str(scenarios[stem].result))  # a scenario naming its result by id: the default variant
        if registered(stem):
            return stem
    return None


def group_results(group_id: str) -> list[str]:
    """The results a verification check group is about: :func:`result_of_check`, else every variant of the
    longest dotted prefix that is a result's id (``SCAF.T3`` -> ``SCAF.T3@sc``, ``SCAF.T3@convex``, ...)."""
    from bounds.registry import all_results

    key = result_of_check(group_id)
    if key is not None:
        return [key]
    parts = group_id.split(":")[0].split(".")
    for n in range(len(parts), 0, -1):
        keys = [r.key for r in all_results() if r.id == ".".join(parts[:n])]
        if keys:
            return keys
    return []


def _versions(body: Mapping[str, Any]) -> dict[str, str]:
    v = body.get("versions")
    return {str(k): str(x) for k, x in v.items()} if isinstance(v, Mapping) else {}


# Reading -----------------------------------------------------------------------------------------------

@dataclass
class StoredEvidence:
    """The fresh evidence the store holds about one result, as the decision's sources read it."""

    searches: list[tuple[str, Any]] = field(default_factory=list)        # (source, SearchRecord)
    worst_cases: list[tuple[str, Any]] = field(default_factory=list)     # (source, WorstCase)
    orders: list[tuple[str, Mapping[str, Any]]] = field(default_factory=list)  # (source, row)
    verifications: list[tuple[str, Any]] = field(default_factory=list)   # (source, Verification)
    stale: int = 0


def evidence_by_result(records: Iterable[StoredRecord]) -> dict[str, StoredEvidence]:
    """Fresh records grouped by result (a record the record types refuse is skipped: it is kept, not read)."""
    from bounds.core.record import BadRecord
    from verify.pep.core import WorstCase
    from verify.record import Verification
    from verify.search.shrunk_record import ShrunkSearchRecord as SearchRecord  # keeps the minimal point

    hashes: dict[str, tuple[str, str]] = {}
    out: dict[str, StoredEvidence] = {}
    for rec in records:
        key = resolved(rec.result_key)  # a record written under a bare id (before 0.3.0) is its default variant's
        if key is None:
            continue
        if key != rec.result_key:
            rec = replace(rec, result_key=key)
        if key not in hashes:
            from verify.evidence.keys import current

            hashes[key] = current(key)
        ev = out.setdefault(key, StoredEvidence())
        if not fresh(rec, hashes):
            ev.stale += 1
            continue
        source = f"{rec.source} {rec.id[:10]}"
        try:
            if rec.kind == SEARCH:
                ev.searches.append((source, SearchRecord.from_dict(rec.body, "record")))
            elif rec.kind == WORST_CASE:
                ev.worst_cases.append((source, WorstCase.from_dict(rec.body, "record")))
            elif rec.kind == VERIFICATION:
                ev.verifications.append((source, Verification.from_dict(rec.body, "record")))
            elif rec.kind == ORDERS:
                ev.orders += [(source, row) for row in rec.body.get("rows") or () if isinstance(row, Mapping)]
        except BadRecord:
            continue
    return out


def orders_status(rows: Sequence[tuple[str, Mapping[str, Any]]]) -> tuple[str, str]:
    """``(status, detail)`` of stored orders rows: ``contradicts`` when a row fails far along without a confirmed
    violation, ``agrees`` when some row was fitted and none contradicts, else ``not computed``."""
    from verify.verdict import is_finding

    if not rows:
        return "not computed", "no orders record in the store ('convbound campaign ID' gathers them where the result has a scenario)"
    fitted = [r for _, r in rows if r.get("finding") in AGREEING + (FAILS,)]
    unconfirmed = [r for _, r in rows if r.get("finding") == FAILS
                   and not is_finding(str(((r.get("violation") or {}).get("confirmation") or {}).get("verdict")))]
    confirmed = [r for _, r in rows if r.get("finding") == FAILS and r not in unconfirmed]
    if unconfirmed:
        r = unconfirmed[0]
        return "contradicts", (f"{len(unconfirmed)} of {len(rows)} rays fail far along without a confirmed "
                               f"violation (first: {r.get('scenario')} {r.get('base_label')} {r.get('ray')})")
    if not fitted:  # the first row's reason says what the rays lack (an exact form of the measure, a longer axis)
        first = next((str(r.get("why")) for _, r in rows if r.get("why")), "")
        return "not computed", f"none of {len(rows)} stored rays was fitted" + (f"; first: {first}" if first else "")
    agree = len(fitted) - len(confirmed)
    return "agrees", (f"{agree} of {len(rows)} rays agree (same order or loose over their range)"
                      + (f"; {len(confirmed)} confirmed a violation" if confirmed else ""))


def orders_findings(rows: Sequence[tuple[str, Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """The confirmed violations along stored rays, as search outcomes' fields (``verify.decision.SearchOutcome``)."""
    from verify.verdict import is_finding

    out = []
    for source, r in rows:
        v = r.get("violation") or {}
        conf = v.get("confirmation") or {}
        verdict = str(conf.get("verdict"))
        if r.get("finding") != FAILS or not is_finding(verdict):
            continue
        ratio = conf.get("ratio")
        unless = tuple(str(u) for u in conf.get("unless") or ())
        out.append({"verdict": verdict, "ratio": float(ratio) if isinstance(ratio, (int, float)) else None,
                    "covered": f"orders ray {r.get('ray')} from {r.get('base_label')} of {r.get('scenario')}",
                    "source": f"orders {source}", "instance": dict(v.get("point") or {}), "unless": unless,
                    "unless_needs": tuple(str(n) for n in conf.get("unless_needs") or ()) if unless else ()})
    return out
