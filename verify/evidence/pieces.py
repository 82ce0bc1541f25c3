"""The pieces of evidence a campaign gathers about one result, cheapest decisive first, and how each is run.

**Pieces** (:func:`plan`, in this order):

1. ``hypotheses:KEY``: the hypotheses at the worked example (milliseconds);
2. ``orders:SCENARIO:AXIS``: the orders rows along one scale axis of each scenario of the result
   (``verify.search.orders.order_table`` restricted to the axis, ``points`` evaluations per ray; exact scoring
   only, seconds to a minute each); one record per axis, so an interrupted table keeps its finished axes;
3. ``worst-case:SETTING``: each PEP setting of ``verify.pep.sweep.report_settings`` that a paper module's rule
   says covers the result (a certified worst case, seconds); one solve writes a record for every result it
   covers. The non-convex worst case is not gathered here yet (its record type differs: ``worst-case
   --nonconvex --json`` files are not read by ``decide``);
4. ``verification:GROUP``: each ``convbound verify --quick`` check group about the result (seconds);
5. ``search:SCENARIO:bBUDGET``: a falsify search of each scenario (``--budget`` points, ``--time`` seconds).

**Run** (:func:`run_piece`, the executor's task): a pure function of its arguments that returns the records as
plain dicts with the CPU seconds it used (``cpu_s``, the process's own: not the wall time, which depends on
what else the machine runs); only the caller writes them (one writer per store, also on Dask). A piece that was interrupted
returns nothing (an interrupted search raises ``KeyboardInterrupt`` again rather than return half a record).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

HYPOTHESES, ORDERS, WORST_CASE, VERIFICATION, SEARCH = "hypotheses", "orders", "worst-case", "verification", "search"


@dataclass(frozen=True)
class Piece:
    """One unit of a campaign: ``kind`` (the record kind), ``key`` (the result it is gathered for), ``label``
    (unique across results: a rerun skips a label the store has at the seed), ``args`` (what :func:`run_piece`
    needs besides them)."""

    kind: str
    key: str
    label: str
    args: tuple[tuple[str, Any], ...] = ()


def plan(key: str, *, budget: int) -> list[Piece]:
    """Every piece that could be gathered about ``key``, cheapest decisive first (module docstring)."""
    import bounds
    from verify.scenarios import of_result
    from verify.search.orders import CLASSIFIED_KINDS
    from verify.search.rays import order_rays
    from verify.search.search_options import SEARCHED_KINDS

    scenarios = of_result(key)
    out = [Piece(HYPOTHESES, key, f"hypotheses:{key}")]
    # orders rays only where the table classifies the result's kind (another kind's rows would all be "not fitted")
    for sc in scenarios if bounds.get(key).kind.value in CLASSIFIED_KINDS else ():
        axes = list(dict.fromkeys(r.axis for r in order_rays(sc.space)))
        out += [Piece(ORDERS, key, f"orders:{sc.id}:{axis}", (("scenario", sc.id), ("axis", axis))) for axis in axes]
    out += [Piece(WORST_CASE, key, f"worst-case:{name}", (("setting", i),)) for i, name in _covering_settings(key)]
    out += [Piece(VERIFICATION, key, f"verification:{gid}", (("group", gid),)) for gid in _groups(key)]
    searched = bounds.get(key).kind.value in SEARCHED_KINDS  # falsify refuses the other kinds (verify checks them)
    out += [Piece(SEARCH, key, f"search:{sc.id}:b{budget}", (("scenario", sc.id),)) for sc in scenarios if searched]
    return out


def _covering_settings(key: str) -> list[tuple[int, str]]:
    from verify.decision import setting_name
    from verify.pep.compare import rule
    from verify.pep.sweep import report_settings

    return [(i, setting_name(s)) for i, s in enumerate(report_settings()) if rule(key, s).covers != "no"]


def _groups(key: str) -> list[str]:
    from verify.evidence.records import group_results
    from verify.suite import registry

    return [gid for gid in registry() if key in group_results(gid)]


def run_piece(kind: str, key: str, label: str, seed: int, args: dict[str, Any], budget: int,
              time_limit: float | None, points: int) -> dict[str, Any]:
    """Gather one piece (the executor's task): ``{"records": [StoredRecord fields as dicts], "refused": "",
    "cpu_s": CPU seconds}``, or no records and ``refused`` the one-line reason a library refusal
    (``UserInputError``) gave. ``time_limit`` (seconds) bounds a search (its own wall-clock limit)."""
    from bounds.core.errors import UserInputError

    t0, c0 = time.perf_counter(), time.process_time()
    try:
        out = _gather(kind, key, label, seed, args, budget, time_limit, points)
    except UserInputError as exc:  # a typed refusal (a size past a limit, a point the scenario refuses)
        return {"records": [], "refused": str(exc), "cpu_s": time.process_time() - c0}
    seconds, cpu = round(time.perf_counter() - t0, 3), round(time.process_time() - c0, 3)
    return {"records": [{**asdict(r), "body": {**r.body, "piece": label, "seconds": seconds, "cpu_s": cpu}, "id": ""}
                        for r in out], "refused": "", "cpu_s": cpu}


def _gather(kind: str, key: str, label: str, seed: int, args: dict[str, Any], budget: int, time_limit: float | None,
            points: int) -> list[Any]:
    from verify.evidence import records as rec

    if kind == HYPOTHESES:
        from bounds.registry import get

        out = [rec.hypotheses_record(get(key), piece=label)]
    elif kind == ORDERS:
        out = [_orders(key, label, seed, args, points)]
    elif kind == WORST_CASE:
        from verify.pep.core import solve
        from verify.pep.sweep import report_settings

        out = rec.worst_case_records(solve(report_settings()[int(args["setting"])]), piece=label)
    elif kind == VERIFICATION:
        from verify.suite import run_group

        got = [rec.verification_record(v, piece=label) for v in run_group(str(args["group"]), quick=True, seed=seed)]
        out = [r for r in got if r is not None]
    elif kind == SEARCH:
        out = [_search(label, seed, args, budget, time_limit)]
    else:
        raise ValueError(f"piece kind {kind!r} is not one of {HYPOTHESES}, {ORDERS}, {WORST_CASE}, {VERIFICATION}, "
                         f"{SEARCH}")
    return out


@lru_cache(maxsize=8)
def _dominant(scenario_id: str, seed: int) -> dict[str, dict[str, Any]]:
    """``verify.search.orders.term_bases`` of a scenario at a seed, once per process: every axis piece of the
    scenario starts from the same bases, and building them is most of a small table's cost (FAST.T2's bases
    build up to 1,000-client instances)."""
    from verify.scenarios import registry
    from verify.search.orders import term_bases

    return term_bases(registry()[scenario_id], seed=seed)


def _orders(key: str, label: str, seed: int, args: dict[str, Any], points: int) -> Any:
    from verify.evidence.records import orders_record
    from verify.scenarios import registry
    from verify.search.orders import order_table

    sc = registry()[str(args["scenario"])]
    rows = order_table(sc, only=[str(args["axis"])], points=points, seed=seed,
                       dominant_bases=copy.deepcopy(_dominant(sc.id, seed)))
    return orders_record(key, sc.id, rows, seed=seed, points=points, axes=[str(args["axis"])], piece=label)


def _search(label: str, seed: int, args: dict[str, Any], budget: int, time_limit: float | None) -> Any:
    from verify.evidence.records import search_record
    from verify.scenarios import registry
    from verify.search.falsify import search

    found = search(registry()[str(args["scenario"])], budget=budget, seed=seed, time_limit=time_limit)
    if found.interrupted:  # Ctrl-C inside the search: no half record; the campaign stops here
        raise KeyboardInterrupt
    return search_record(found, piece=label)


def pending(pieces: Sequence[Piece], done: set[str]) -> list[Piece]:
    """The pieces whose label the store does not have yet."""
    return [p for p in pieces if p.label not in done]
