"""A campaign keeps every finished piece and resumes after an interrupt; decide reads the shipped store alone."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verify.evidence.campaign import CampaignOptions, run_campaign
from verify.evidence.store import Store

ROOT = Path(__file__).resolve().parents[3]
CHEAP = ["SURV.CYCP", "SURV.FEDAVG"]  # three pieces each (hypotheses, one orders axis, a search): seconds
OPTS = CampaignOptions(seed=0, budget=4, points=4, time_limit=60.0)


def test_an_interrupt_keeps_the_finished_pieces_and_a_rerun_skips_them(tmp_path):
    path = tmp_path / "s.sqlite"

    def interrupt_after_two(done: int, total: int, label: str) -> None:
        if done == 2:
            raise KeyboardInterrupt  # what SIGINT raises in the main thread

    with pytest.raises(KeyboardInterrupt):
        run_campaign(["SURV.FEDAVG"], path, OPTS, progress=interrupt_after_two)
    with Store(path) as s:
        first = {r.id: r.piece for r in s.records()}
    assert sorted(first.values()) == ["hypotheses:SURV.FEDAVG", "orders:SURV.FEDAVG.instance:T"]
    log = run_campaign(["SURV.FEDAVG"], path, OPTS)
    assert (log.skipped, log.gathered) == (2, 1)  # only the search was left
    with Store(path) as s:
        after = {r.id: r.piece for r in s.records()}
    assert first.items() <= after.items() and sorted(set(after.values()) - set(first.values())) == \
        ["search:SURV.FEDAVG.instance:b4"]


def test_an_interrupt_that_a_finalizer_swallowed_still_stops_the_campaign_at_the_next_piece(tmp_path):
    """CPython drops an exception raised inside a finalizer; the campaign latches SIGINT and stops at the next piece
    boundary anyway, with the finished pieces written (here the SIGINT lands, and is swallowed, after the first)."""
    path = tmp_path / "s.sqlite"

    def swallow_after_one(done, total, label):
        if done == 1:
            try:  # what a finalizer does with the KeyboardInterrupt raised inside it
                signal.raise_signal(signal.SIGINT)
                time.sleep(0.05)  # the handler runs here at the latest
            except KeyboardInterrupt:
                pass

    # Python's default handler, as in a foreground `convbound campaign` (an xdist worker may hold SIG_IGN, which the
    # campaign keeps: see the next test); the campaign's own handler must not outlive it
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_campaign(["SURV.FEDAVG"], path, OPTS, progress=swallow_after_one)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)
    with Store(path) as s:
        assert sorted(r.piece for r in s.records()) == ["hypotheses:SURV.FEDAVG"]
    log = run_campaign(["SURV.FEDAVG"], path, OPTS)
    assert (log.skipped, log.gathered) == (1, 2)


def test_a_process_that_ignores_sigint_keeps_ignoring_it_during_a_campaign(tmp_path):
    seen = []
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        run_campaign(["SURV.FEDAVG"], tmp_path / "s.sqlite", OPTS,
                     progress=lambda done, total, label: seen.append(signal.getsignal(signal.SIGINT)))
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen and all(h is signal.SIG_IGN for h in seen)


def test_a_campaign_stops_gathering_for_a_result_once_its_store_refutes_it(tmp_path):
    from verify.evidence.records import orders_record

    path = tmp_path / "s.sqlite"
    row = {"result": "SURV.FEDAVG", "scenario": "SURV.FEDAVG.instance", "ray": "T -> high", "base_label": "default",
           "finding": "fails far along",
           "violation": {"point": {"T": 9}, "confirmation": {"verdict": "violated", "ratio": 2.0}}}
    with Store(path) as s:  # a confirmed violation along a ray, stored before the campaign
        s.add([orders_record("SURV.FEDAVG", "SURV.FEDAVG.instance", [row], seed=7, points=4, axes=["T"])])
    log = run_campaign(["SURV.FEDAVG"], path, OPTS)
    assert log.gathered == 0 and log.stopped["SURV.FEDAVG"].startswith("refuted")


def _count(path: Path) -> int:
    try:
        with sqlite3.connect(path) as conn:
            return int(conn.execute("SELECT count(*) FROM records").fetchone()[0])
    except sqlite3.Error:  # not created yet
        return 0


def _campaign(path: Path, cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CONVBOUND_STORE": str(path)}
    return subprocess.Popen([sys.executable, "-m", "reports.cli.main", "campaign", *CHEAP, "--budget", "4",
                             "--points", "4", "--no-shipped", "--json"], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_sigint_answered)


def _sigint_answered() -> None:
    """The child answers SIGINT as a foreground command does. A test run started as a background job of a
    non-interactive shell ignores SIGINT, and a child inherits that (the campaign then keeps ignoring it: the test
    above): the interrupted campaign would finish all its pieces and exit 0."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_sigint_during_a_campaign_then_rerun_resumes_with_the_finished_evidence_kept(tmp_path):
    path = tmp_path / "s.sqlite"
    proc = _campaign(path, tmp_path)
    deadline = time.monotonic() + 120
    # interrupted once its first piece is written, as the orders piece starts
    while _count(path) < 1 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the campaign ended before its first piece could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "every finished piece is kept" in err, err[-1500:]
    with Store(path) as s:
        kept = {r.id for r in s.records()}
    assert kept  # at least the first piece, whole (written in one transaction)
    proc = _campaign(path, tmp_path)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    with Store(path) as s:
        final = s.records()
    assert kept <= {r.id for r in final}
    assert sorted(r.piece for r in final) == sorted(  # every piece once: nothing redone, nothing missing
        [f"hypotheses:{k}" for k in CHEAP] + [f"orders:{k}.instance:T" for k in CHEAP]
        + [f"search:{k}.instance:b4" for k in CHEAP])
    assert {d["id"] for d in json.loads(out)} == set(CHEAP)


def test_decide_from_the_shipped_store_alone_outside_the_checkout(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CONVBOUND_STORE": str(tmp_path / "empty.sqlite")}
    run = subprocess.run([sys.executable, "-m", "reports.cli.main", "decide", "FAST.T1", "--json", "--no-live-pep"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    (t1,) = json.loads(run.stdout)
    assert t1["outcome"] == "refuted unless snapshot probability q >= q_min(G1,G2,G3) fails"
    run = subprocess.run([sys.executable, "-m", "reports.cli.main", "decide", "FAST.T2@corrected", "--json",
                          "--no-live-pep"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)[0]["outcome"] == "refuted"
    assert not (tmp_path / "empty.sqlite").exists()  # reading creates no store


def test_an_orders_piece_gives_the_rows_of_the_whole_tables_axis(tmp_path):
    """The piece reuses the term bases across axes (computed once per process): the same rows as the table."""
    from verify.evidence.pieces import run_piece
    from verify.scenarios import registry
    from verify.search.orders import order_table

    rows = [r.to_dict() for r in order_table(registry()["SURV.CYCP.instance"], only=["T"], points=4, seed=0)]
    for _ in range(2):  # the second piece reads the cached bases
        got = run_piece("orders", "SURV.CYCP", "orders:SURV.CYCP.instance:T", 0,
                        {"scenario": "SURV.CYCP.instance", "axis": "T"}, 4, None, 4)
        assert got["records"][0]["body"]["rows"] == rows


def test_a_scenario_naming_its_result_by_id_is_planned_for_the_default_variant():
    """SURV.GENFEDAVG.instance names its result "SURV.GENFEDAVG", the id of SURV.GENFEDAVG@text (the default variant):
    the campaign plans its orders and its search for that variant, and none for another kind than falsify searches."""
    from verify.evidence.pieces import plan

    labels = [p.label for p in plan("SURV.GENFEDAVG@text", budget=100)]
    assert "search:SURV.GENFEDAVG.instance:b100" in labels and "orders:SURV.GENFEDAVG.instance:T" in labels
    assert not [p for p in plan("F3AST.LB.5", budget=100) if p.kind in ("search", "orders")]  # an equality result
