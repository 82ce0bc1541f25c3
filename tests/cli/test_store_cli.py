"""`convbound store` and the --store option of the commands that produce evidence."""

from __future__ import annotations

import json

from verify.evidence.store import SEARCH, Store


def test_falsify_with_store_writes_its_search_and_decide_reads_it(convbound, tmp_path):
    path = tmp_path / "s.sqlite"
    run = convbound("falsify", "SURV.FEDAVG.instance", "--budget", "2", "--confirm-trials", "64", "--store", str(path),
                    "--json")
    assert run.code == 0, run.err
    assert f"1 new evidence record(s) of 1 written to {path}" in run.err
    with Store(path) as s:
        (rec,) = s.records()
    assert (rec.kind, rec.result_key, rec.seed) == (SEARCH, "SURV.FEDAVG", 0)
    assert rec.body["confirmation"] == json.loads(run.out)["confirmation"]  # the record the command printed
    run = convbound("decide", "SURV.FEDAVG", "--store", str(path), "--no-live-pep", "--json")
    assert run.code == 0, run.err
    assert any(f"store {path} {rec.id[:10]}" in s["source"] for s in run.json()[0]["searches"])


def test_without_store_nothing_is_written_and_both_flags_are_refused(convbound, tmp_path, monkeypatch):
    monkeypatch.delenv("CONVBOUND_STORE", raising=False)
    monkeypatch.setattr("verify.evidence.store.default_path", lambda: tmp_path / "default.sqlite")
    run = convbound("falsify", "SURV.FEDAVG.instance", "--budget", "2", "--confirm-trials", "64")
    assert run.code == 0 and not (tmp_path / "default.sqlite").exists() and "evidence record" not in run.err
    run = convbound("falsify", "SURV.FEDAVG.instance", "--store", str(tmp_path / "x.sqlite"), "--no-store")
    assert run.code == 2 and run.err.strip() == "convbound: error: give --store PATH or --no-store, not both"


def test_import_export_and_reimport_keep_every_record_once(convbound, tmp_path):
    from verify.evidence.transfer import rebuild_shipped

    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    saved = tmp_path / "runs"
    saved.mkdir()
    (saved / "note.json").write_text(json.dumps({"not": "evidence"}))
    run = convbound("falsify", "SURV.FEDAVG.instance", "--budget", "2", "--confirm-trials", "64", "--out",
                    str(saved / "s.json"))
    assert run.code == 0, run.err
    run = convbound("store", "import", str(saved), "--store", str(a))
    assert run.code == 0 and "1 new record(s) of 1 read" in run.out and "note.json: not evidence" in run.err
    run = convbound("store", "export", "--store", str(a))
    (tmp_path / "a.jsonl").write_text(run.out)
    for _ in range(2):  # the second import adds nothing: a record's id is its content's hash
        again = convbound("store", "import", str(tmp_path / "a.jsonl"), "--store", str(b))
    assert again.code == 0 and "0 new record(s) of 1 read" in again.out
    with Store(a) as sa, Store(b) as sb:
        assert [r.id for r in sa.records()] == [r.id for r in sb.records()]
    kept, stale, _ = rebuild_shipped([str(b)], target=tmp_path / "shipped.sqlite")
    assert (kept, stale) == (1, 0)
    with Store(tmp_path / "shipped.sqlite", readonly=True) as s:
        assert [r.source for r in s.records()] == ["shipped store"]
    run = convbound("store", "list", "--store", str(b), "--no-shipped")
    assert "SURV.FEDAVG" in run.out and "1 record(s) about 1 result(s)" in run.out


def test_worst_case_with_store_writes_one_record_per_result_it_covers(convbound, tmp_path):
    from verify.evidence.store import WORST_CASE

    path = tmp_path / "s.sqlite"
    run = convbound("worst-case", "--eta", "1.5", "--mu", "0.1", "--json", "--store", str(path))
    assert run.code == 0, run.err
    covered = {row["key"] for row in run.json()["coverage"] if row["covers"] in ("yes", "comparison")}
    with Store(path) as s:
        recs = s.records()
    assert covered and {r.result_key for r in recs} == covered and {r.kind for r in recs} == {WORST_CASE}
    assert len({r.piece for r in recs}) == 1 and recs[0].piece.startswith("worst-case:local_gd K=1 R=1 M=2")
    run = convbound("worst-case", "--eta", "0.1", "--nonconvex", "--store", str(path))
    assert run.code == 2 and "--store keeps the worst case of the whole horizon" in run.err


def test_orders_with_store_writes_the_rows_it_prints(convbound, tmp_path):
    from verify.evidence.store import ORDERS

    path = tmp_path / "s.sqlite"
    run = convbound("orders", "SURV.FEDAVG.instance", "--points", "4", "--json", "--store", str(path))
    assert run.code == 0, run.err
    with Store(path) as s:
        (rec,) = s.records()
    assert (rec.kind, rec.result_key, rec.seed) == (ORDERS, "SURV.FEDAVG", 0)
    assert rec.body["rows"] == run.json()["rows"] and (rec.body["terms"], rec.body["tight"]) == (True, True)
