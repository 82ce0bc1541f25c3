"""The evidence store: immutable records, stale records after a formula change, concurrent writers."""

from __future__ import annotations

import dataclasses
import multiprocessing
import sqlite3

import pytest

from verify.evidence.store import SEARCH, Store, new_record, read_all

KEY = "FAST.T2"


def _violating_search(key: str = KEY):
    from verify.search.falsify import SearchRecord

    space = [{"name": "K", "low": 1, "high": 8, "choices": None}]
    return SearchRecord(id=key, result=key, optimiser="random", seed=3, budget=50, time_limit=None, trials=64,
                        population=8, evaluations=50, admissible=40, best={"point": {"K": 4}},
                        confirmation={"verdict": "violated", "lhs": 0.3, "rhs": 0.1, "ratio": 3.0, "ci": [0.3, 0.3]},
                        space=space)


def test_a_record_reads_back_whole_and_is_never_updated_nor_written_twice(tmp_path):
    from verify.evidence.records import search_record

    rec = search_record(_violating_search())
    with Store(tmp_path / "s.sqlite") as s:
        assert s.add([rec]) == 1 and s.add([rec]) == 0  # the id hashes the content: one copy
        (got,) = s.records(result_key=KEY)
        assert (got.kind, got.seed, got.body["confirmation"]["ratio"]) == (SEARCH, 3, 3.0)
        assert got.formula_hash == rec.formula_hash and got.code_version == rec.code_version
        conn = sqlite3.connect(tmp_path / "s.sqlite")
        with pytest.raises(sqlite3.DatabaseError, match="immutable"):
            conn.execute("UPDATE records SET seed = 4")
        with pytest.raises(sqlite3.DatabaseError, match="never deleted"):
            conn.execute("DELETE FROM records")


def _changed(res):
    """``res`` with its first term doubled (another formula, the same hypotheses)."""
    t0 = res.terms[0]
    return dataclasses.replace(res, terms=(dataclasses.replace(t0, expr=2 * t0.expr), *res.terms[1:]))


def test_formula_hash_follows_the_rhs_and_the_hypotheses_hash_does_not():
    from bounds import get
    from verify.evidence.keys import formula_hash, hypotheses_hash

    res = get(KEY)
    assert formula_hash(_changed(res)) != formula_hash(res)
    assert hypotheses_hash(_changed(res)) == hypotheses_hash(res)
    fewer = dataclasses.replace(res, hypotheses=res.hypotheses[1:])
    assert formula_hash(fewer) != formula_hash(res) and hypotheses_hash(fewer) != hypotheses_hash(res)


def test_a_changed_formula_makes_its_evidence_stale_and_decide_ignores_it(tmp_path, monkeypatch):
    import bounds.registry
    from verify.decision import REFUTED
    from verify.decision_sources import DecideOptions, decide_results
    from verify.evidence.records import search_record

    path = str(tmp_path / "s.sqlite")
    with Store(path) as s:
        s.add([search_record(_violating_search())])
    opts = DecideOptions(store=path, live_pep=False)
    (before,) = decide_results([KEY], opts)
    assert before.outcome == REFUTED and "ratio 3 " in before.why
    original = bounds.registry.get
    monkeypatch.setattr(bounds.registry, "get", lambda k: _changed(original(k)) if original(k).key == KEY else original(k))
    (after,) = decide_results([KEY], opts)
    assert after.outcome != REFUTED and not any("ratio 3 " in c for c in after.covered)
    stale = [c for c in after.covered if c.startswith("stale evidence ignored")]
    assert stale and int(stale[0].split(": ")[1].split()[0]) >= 1  # at least our record (the shipped ones too)


def _writer(path: str, who: int, n: int) -> None:
    from verify.evidence.store import StoredRecord

    with Store(path) as s:
        for i in range(n):  # one transaction per record: the most contention two writers can make
            s.add([StoredRecord(kind="search", result_key=KEY, seed=i, formula_hash="f", hypotheses_hash="h",
                                code_version="c", body={"writer": who, "i": i})])


def test_two_processes_writing_one_store_at_once_lose_no_record(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    Store(path).records()  # created (schema) before the race, as a first campaign would
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, who, 200)) for who in (0, 1)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    with Store(path) as s:
        got = {(r.body["writer"], r.body["i"]) for r in s.records()}
    assert got == {(w, i) for w in (0, 1) for i in range(200)}


def test_the_users_records_come_first_and_a_missing_user_store_reads_as_the_shipped_one(tmp_path):
    from verify.evidence.records import search_record

    shipped = read_all(str(tmp_path / "absent.sqlite"))
    assert not (tmp_path / "absent.sqlite").exists() and all(r.source == "shipped store" for r in shipped)
    path = str(tmp_path / "mine.sqlite")
    with Store(path) as s:
        s.add([search_record(_violating_search())])
    merged = read_all(path)
    assert merged[0].source == f"store {path}" and len(merged) == len(shipped) + 1


def test_a_new_record_of_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="kind 'audit' is not one of"):
        new_record("audit", KEY, {}, seed=0)


def test_evidence_asked_about_some_results_is_exactly_theirs_in_the_whole_store():
    """``stored_evidence(keys=...)`` reads only the records of those results (and of a default variant, those stored
    under its bare id), and gives them what reading the whole store gives them; a corollary's decision reads the
    result it rests on too."""
    from bounds import get
    from verify.decision_sources import decide_with, needed_keys, stored_evidence
    from verify.evidence.keys import stored_names

    assert stored_names(["SURV.GENFEDAVG@text", "SURV.GENFEDAVG@table"]) == {
        "SURV.GENFEDAVG@text", "SURV.GENFEDAVG@table", "SURV.GENFEDAVG"}  # the bare id is the default variant's
    assert stored_names(["FAST.T2@corrected"]) == {"FAST.T2@corrected"}  # FAST.T2 is the printed variant's id
    assert needed_keys([get("FAST.C1")]) == {"FAST.C1", "FAST.T1"}
    whole = stored_evidence()
    some = stored_evidence(keys=needed_keys([get("FAST.C1")]))
    assert set(some) == {"FAST.C1", "FAST.T1"} & set(whole) and some.keys()
    for key, ev in some.items():
        assert [s for s, _ in ev.searches] == [s for s, _ in whole[key].searches]
        assert len(ev.orders) == len(whole[key].orders) and ev.stale == whole[key].stale
    (alone,) = decide_with([get("FAST.C1")], [], [], stored=some)
    (full,) = decide_with([get("FAST.C1")], [], [], stored=whole)
    assert alone.to_dict() == full.to_dict()


def test_fresh_ones_are_the_records_fresh_says_are_fresh():
    """``fresh_ones`` (each result's hashes once) keeps exactly what ``fresh`` keeps record by record: here the
    shipped searches, one about an earlier formula and one about a result not registered."""
    from verify.evidence.store import fresh, fresh_ones

    shipped = read_all(kind=SEARCH, store="/nonexistent/none.sqlite")[:40]
    stale = dataclasses.replace(shipped[0], formula_hash="0" * 24, id="stale")
    unknown = dataclasses.replace(shipped[1], result_key="NOPE.T9", id="unknown")
    records = [*shipped, stale, unknown]
    kept = [r.id for r in fresh_ones(records)]
    assert kept == [r.id for r in records if fresh(r)] and "stale" not in kept and "unknown" not in kept
    assert len(kept) >= 30  # the shipped searches are about the formulas registered now
