"""Where a decision's evidence comes from: one small function per source (``verify.decision`` decides).

**Sources**:

- hypotheses at the worked example: :func:`verify.decision.hypotheses_at` (``bounds.Result.check``);
- the evidence store (``verify.evidence``): the user's store (``--store``, ``$CONVBOUND_STORE`` or the default
  path) merged with the store shipped with the package, fresh records only (:func:`stored_evidence`): saved
  searches, orders rows, worst cases and verification records;
- searches: the store's, or instead ``--search`` files (:func:`load_searches`), and :func:`search_outcomes`
  keeps those about one result; :func:`run_searches` runs fresh ones with a small budget (only when asked: a
  decision over every result must stay well under a minute);
- the asymptotic-orders table: :func:`orders_for` over the stored orders rows (``verify.evidence.records``: a
  ray whose violation was confirmed is a search outcome at its instance; rays of the same order or loose agree);
- PEP worst cases: :func:`worst_case_ratios` reads the ``coverage`` rows of ``WorstCase`` records
  (``verify.pep``: certified worst case / bound per covered result); :func:`live_worst_cases` solves the
  report's quick setting (FAST.T2's tightness: local GD, K = 2, R = 3, M = 2, about 2 s);
- verification checks: ``convbound verify`` records in the store (``report --quick``'s checks once written).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bounds.core.errors import UserInputError
from verify.decision import (
    CONDITIONAL_PREFIX,
    Decision,
    Evidence,
    Orders,
    SearchOutcome,
    VerificationCheck,
    WorstCaseRatio,
    decision_of,
    hypotheses_at,
    setting_name,
    with_rests_on,
)
from verify.evidence.records import StoredEvidence
from verify.verdict import HOLDS, UNVERIFIED
from verify.verdict import decide as decide_interval


@dataclass(frozen=True)
class DecideOptions:
    """Which evidence to gather: ``searches`` (files; None: the store's), ``search_budget`` (0: run no
    search), ``seed`` (of fresh searches), ``worst_cases`` (files), ``live_pep`` (solve the cheap setting),
    ``store`` (the user's store path; None: ``$CONVBOUND_STORE`` or the default), ``use_store`` (read the
    stores at all; False: only the files and what runs now)."""

    searches: tuple[str, ...] | None = None
    search_budget: int = 0
    seed: int = 0
    worst_cases: tuple[str, ...] = ()
    live_pep: bool = True
    store: str | None = None
    use_store: bool = True


def load_searches(paths: Sequence[str]) -> list[tuple[str, Any]]:
    """``(source, SearchRecord)`` for each ``--search`` file (a non-search or unreadable file: one-line
    ``UserInputError``)."""
    from bounds.core.files import read_json
    from verify.search.shrunk_record import ShrunkSearchRecord as SearchRecord  # keeps a --shrink file's minimal point

    return [(p, _read(SearchRecord, read_json(p, "--search", _VALID["falsify"]), f"--search {p}", "falsify"))
            for p in paths]


def stored_evidence(store: str | None = None, *, shipped: bool = True,
                    keys: Collection[str] | None = None) -> dict[str, StoredEvidence]:
    """The fresh evidence of the user's store (``store``, ``$CONVBOUND_STORE`` or the default path) and of the
    shipped store, by result (``verify.evidence.records.evidence_by_result``); about the results ``keys`` only
    when given (:func:`needed_keys` gives those a decision reads), every result's otherwise."""
    from verify.evidence.keys import stored_names
    from verify.evidence.records import evidence_by_result
    from verify.evidence.store import read_all

    about = None if keys is None else stored_names(keys)
    return evidence_by_result(read_all(store, shipped=shipped, about=about))


def needed_keys(results: Iterable[Any]) -> set[str]:
    """The keys of ``results`` and of the results each rests on: what :func:`decide_with` decides."""
    return {k for r in results for k in (r.key, *r.provenance.rests_on)}


_VALID = {"falsify": "a record written by 'convbound falsify ID --json'",
          "worst-case": "a record written by 'convbound worst-case --json'"}


def _read(cls: Any, data: Any, where: str, command: str) -> Any:
    from bounds.core.record import BadRecord

    try:
        return cls.from_dict(data, "record")
    except BadRecord as exc:
        raise UserInputError(f"{where}: {exc}; give {_VALID[command]}") from None


def search_outcomes(key: str, records: Iterable[tuple[str, Any]],
                    hypotheses: Sequence[Any] = ()) -> tuple[SearchOutcome, ...]:
    """The confirmed best point of every search about ``key`` (interrupted ones without a confirmation skipped),
    with its minimal point where the search shrank it, and, for each hypothesis a conditional violation rests
    on, what failing it would mean there as ``hypotheses`` (the result's ``bounds.Hypothesis``) declare; for an
    ``unverified`` point, whether its interval alone is within the bound, and for an ORDER result the hidden
    constant's lower bound (``verify.decision.SearchOutcome``)."""
    from bounds.registry import get
    from verify.search.search_record import space_summary
    from verify.search.shrunk_record import minimal_point

    kind = get(key).kind.value
    res = get(key)
    ids = {key, res.id} if get(res.id).key == key else {key}  # a bare id stands for the default variant
    out = []
    for source, rec in records:
        c = rec.confirmation
        if rec.result not in ids or not c.get("verdict"):
            continue
        verdict = str(c["verdict"])
        unless: tuple[str, ...] = ()
        if verdict.startswith(CONDITIONAL_PREFIX):  # "violated unless": the hypotheses in "unless"
            unless = tuple(str(n) for n in c.get("unless") or ()) or (verdict[len(CONDITIONAL_PREFIX):].strip(),)
            unless = tuple(u for u in unless if u)
        ratio = c.get("ratio")
        minimal, minimal_ratio = minimal_point(rec)
        values = c.get("values") or {}
        meaning = tuple(m for h in hypotheses if h.name in unless for m in (h.if_fails_at(values),) if m)
        out.append(SearchOutcome(
            verdict=verdict, ratio=float(ratio) if isinstance(ratio, (int, float)) else None,
            covered=f"{rec.admissible} admissible points of {space_summary(rec)}, {rec.optimiser}, seed {rec.seed}",
            source=source, instance=dict(rec.best.get("point") or {}), unless=unless,
            unless_needs=tuple(str(n) for n in c.get("unless_needs") or ()) if unless else (),
            minimal_instance=minimal, minimal_ratio=minimal_ratio, unless_meaning=meaning,
            within=verdict == UNVERIFIED and _within(kind, c),
            hidden_constant=_hidden_constant(kind, c)))
    return tuple(out)


def _within(kind: str, confirmation: Mapping[str, Any]) -> bool:
    """The confirmed interval of an upper or lower result is within its bound by ``verify.verdict.decide`` with the
    hypotheses taken as met (False where the record has no interval or RHS)."""
    ci, rhs = confirmation.get("ci"), confirmation.get("rhs")
    if kind not in ("upper", "lower", "threshold") or not isinstance(rhs, (int, float)) or not isinstance(ci, (list, tuple)) \
            or len(ci) != 2 or not all(isinstance(x, (int, float)) for x in ci):
        return False
    return decide_interval(kind, float(ci[0]), float(ci[1]), float(rhs)) == HOLDS


def _hidden_constant(kind: str, confirmation: Mapping[str, Any]) -> float | None:
    """An ORDER result's best point bounds its hidden constant from below (``constant_lower_bound`` of the
    confirmation, else its ratio): that bound; None for any other kind."""
    if kind != "order":
        return None
    value = confirmation.get("constant_lower_bound", confirmation.get("ratio"))
    return float(value) if isinstance(value, (int, float)) else float("nan")


def run_searches(key: str, budget: int, seed: int = 0) -> list[tuple[str, Any]]:
    """Fresh searches of ``budget`` points over every scenario of ``key`` (``verify.search.falsify.search``)."""
    from verify.scenarios import of_result
    from verify.search.falsify import search

    return [(f"run now (budget {budget}, seed {seed})", search(sc, budget=budget, seed=seed))
            for sc in of_result(key)]


def orders_for(stored: StoredEvidence | None) -> tuple[Orders, tuple[SearchOutcome, ...]]:
    """The stored orders rows' verdict on a result, and the confirmed violations along its rays as search
    outcomes (``verify.evidence.records``: ``orders_status`` and ``orders_findings``)."""
    from verify.evidence.records import orders_findings, orders_status

    rows = stored.orders if stored is not None else []
    status, detail = orders_status(rows)
    return Orders(status, detail), tuple(SearchOutcome(**f) for f in orders_findings(rows))


def verification_checks(stored: StoredEvidence | None) -> tuple[VerificationCheck, ...]:
    """The stored ``convbound verify`` records about a result, as checks (``verify.decision.VerificationCheck``)."""
    return tuple(VerificationCheck(check=v.id, verdict=v.verdict, expected=v.expected, control=v.control,
                                   ratio=v.ratio, source=source, instance=dict(v.instance))
                 for source, v in (stored.verifications if stored is not None else ()))


#: The constants a setting's one-line name shows, in order, where its class has them (the non-convex class has
#: no mu and adds the initial gap Delta).
def worst_case_ratios(key: str, records: Iterable[tuple[str, Any]]) -> tuple[tuple[WorstCaseRatio, ...], str]:
    """The covering rows for ``key`` of every ``(source, WorstCase)``, and why none covers it (the last
    record's reason, or "no worst case given")."""
    out, reason = [], "no worst case computed or given"
    for source, wc in records:
        certified = wc.certificate.get("status") == "certified"
        for row in wc.coverage:
            if row.get("key") != key:
                continue
            if row.get("covers") in ("yes", "comparison"):
                ratio = row.get("ratio")
                out.append(WorstCaseRatio(setting=setting_name(wc.setting),
                                          ratio=float(ratio) if isinstance(ratio, (int, float)) else None,
                                          certified=certified, hypotheses_hold=row.get("hypotheses_hold"),
                                          source=source, covers=str(row["covers"])))
            else:
                reason = str(row.get("reason", reason))
    return tuple(out), ("" if out else reason)


def live_worst_cases() -> list[tuple[str, Any]]:
    """The report's FAST.T2 tightness setting (the last of ``verify.pep.report_settings``: local GD inside
    FAST.T2's hypotheses, K = 2, R = 3, M = 2; the quick report's live worst case), solved now (about 2 s)."""
    from verify.pep.core import solve
    from verify.pep.sweep import report_settings

    wc = solve(report_settings()[-1])
    return [(f"solved now ({wc.solver}, {wc.solve_seconds:.2f} s)", wc)]


def load_worst_cases(paths: Sequence[str]) -> list[tuple[str, Any]]:
    """``(source, WorstCase)`` for each ``--worst-case`` file (``convbound worst-case --json``)."""
    from bounds.core.files import read_json
    from verify.pep.core import WorstCase

    return [(p, _read(WorstCase, read_json(p, "--worst-case", _VALID["worst-case"]), f"--worst-case {p}",
                      "worst-case")) for p in paths]


def gather(res: Any, searches: Sequence[tuple[str, Any]], worst_cases: Sequence[tuple[str, Any]],
           stored: StoredEvidence | None = None) -> Evidence:
    """Every source's evidence about one result (``res``: a ``bounds.Result``); ``stored``: the store's."""
    from verify.search.orders import CLASSIFIED_KINDS

    if stored is not None:
        searches = [*searches, *stored.searches]
        worst_cases = [*worst_cases, *stored.worst_cases]
    pep, no_pep = worst_case_ratios(res.key, worst_cases)
    scenarios, no_scenario = scenarios_of(res.key)
    orders, along_rays = orders_for(stored)
    return Evidence(key=res.key, hypotheses=hypotheses_at(res),
                    searches=search_outcomes(res.key, searches, res.hypotheses) + along_rays, orders=orders, worst_cases=pep,
                    no_pep=no_pep, verifications=verification_checks(stored),
                    stale=stored.stale if stored is not None else 0, scenarios=scenarios, no_scenario=no_scenario,
                    orders_apply=res.kind.value in CLASSIFIED_KINDS)


def scenarios_of(key: str) -> tuple[tuple[str, ...], str]:
    """The ids of the scenarios of result ``key``, and, where there are none, the stated reason why (or that none
    is stated)."""
    import bounds
    from verify.scenarios import of_result
    from verify.scenarios.settings import WITHOUT_SCENARIO
    from verify.search.search_options import SEARCHED_KINDS

    ids = tuple(sc.id for sc in of_result(key))
    kind = bounds.get(key).kind.value
    if ids and kind not in SEARCHED_KINDS:  # falsify searches LHS/RHS of upper, order and threshold results only
        return (), (f"a {kind} result: convbound verify checks its scenario {', '.join(ids)}; falsify searches "
                    "upper, order and threshold results only")
    return ids, "" if ids else WITHOUT_SCENARIO.get(key, "none built and no reason stated")


def decide_results(keys: Sequence[str] | None, options: DecideOptions) -> list[Decision]:
    """One :class:`~verify.decision.Decision` per result (every encoded one when ``keys`` is None)."""
    from dataclasses import replace

    from bounds.registry import all_results, get

    results = list(all_results()) if keys is None else [get(k) for k in keys]
    wanted = None if keys is None else needed_keys(results)
    stored = stored_evidence(options.store, keys=wanted) if options.use_store else {}
    if options.searches is not None:  # --search files replace the store's searches (its other evidence stays)
        stored = {k: replace(ev, searches=[]) for k, ev in stored.items()}
    searches = load_searches(options.searches or ())
    for res in results if options.search_budget else ():
        searches += run_searches(res.key, options.search_budget, options.seed)
    worst = load_worst_cases(options.worst_cases) + (live_worst_cases() if options.live_pep else [])
    return decide_with(results, searches, worst, stored=stored)


def decide_with(results: Sequence[Any], searches: Sequence[tuple[str, Any]],
                worst_cases: Sequence[tuple[str, Any]],
                stored: Mapping[str, StoredEvidence] | None = None,
                verifications: Sequence[tuple[str, Any]] = (), versions: dict[str, str] | None = None) -> list[Decision]:
    """One decision per ``bounds.Result`` from evidence already at hand: ``(source, SearchRecord)``,
    ``(source, WorstCase)`` and ``(source, Verification)`` pairs (the report passes the records it computed, so
    nothing is solved twice; a verification counts for the result its id names) and the store's evidence by
    result (``stored``; None: none). ``versions`` default: the installed convbound's (``show`` and ``check`` pass
    their own, to start fast). Each decision carries the decisions of the results it rests on."""
    from dataclasses import replace

    from bounds.registry import get
    from verify.evidence.records import result_of_check

    merged = dict(stored or {})
    for source, v in verifications:
        key = result_of_check(v.id, v.variant)
        if key is not None:
            ev = merged.get(key, StoredEvidence())
            merged[key] = replace(ev, verifications=[*ev.verifications, (source, v)])
    versions = _versions() if versions is None else versions

    def one(r: Any) -> Decision:
        return decision_of(gather(r, searches, worst_cases, merged.get(r.key, StoredEvidence())), versions)

    decided = {r.key: one(r) for r in results}
    # what a result rests on is decided too, when not asked for (decide FAST.C1 shows FAST.T1's decision)
    for r in results:
        for key in r.provenance.rests_on:
            if key not in decided:
                decided[key] = one(get(key))
    return [with_rests_on(decided[r.key], r.provenance.rests_on, decided) for r in results]


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    from verify.evidence.keys import code_version

    try:
        return {"convbound": version("convbound"), "scoring code": code_version()}
    except PackageNotFoundError:
        return {"convbound": "not installed", "scoring code": code_version()}
