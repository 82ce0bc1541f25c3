"""The report surfaces the saved falsify runs' confirmed findings, one per scenario (issue 27 item 7)."""

import json
from pathlib import Path

from reports.schema import saved_findings

SAVED = Path(__file__).resolve().parents[1] / "benchmarks" / "falsify_runs"


def _write(root: Path, name: str, rec: dict) -> None:
    (root / name).write_text(json.dumps(rec))


def test_one_finding_per_scenario_shrunk_first_then_largest_ratio(tmp_path):
    base = json.loads((SAVED / "exact-FAST.T2@corrected.stratified-seed0.json").read_text())
    runs = tmp_path / "falsify_runs"
    (runs / "rerun").mkdir(parents=True)
    small = {**base, "confirmation": {**base["confirmation"], "ratio": 2.0}}
    big = {**base, "confirmation": {**base["confirmation"], "ratio": 50.0}}
    held = {**base, "confirmation": {**base["confirmation"], "verdict": "holds", "ratio": 0.5}}
    _write(runs, "a.json", small)
    _write(runs, "b.json", big)
    _write(runs, "c.json", held)  # no finding: never surfaced
    _write(runs, "summary.json", [1, 2])  # not a record: skipped
    (found,) = saved_findings(root=runs)
    assert found[1]["record"]["confirmation"]["ratio"] == 50.0
    assert "one of 2 saved runs" in found[1]["source"]
    # a shrunk record (it carries the minimal counterexample) wins over a larger ratio, also in a subfolder
    _write(runs / "rerun", "d.json", {**small, "shrunk": {"shrunk": {"M": 2}, "confirmation": {"ratio": 1.5}}})
    (found,) = saved_findings(root=runs)
    assert found[1]["record"]["shrunk"] and "rerun/d.json" in found[1]["source"]
    assert "one of 3 saved runs" in found[1]["source"]
    # --only keeps the findings of the results and scenarios named
    assert saved_findings(["FAST.T2"], root=runs) and saved_findings(["FAST.T2@corrected"], root=runs)
    assert saved_findings(["FAST.T1"], root=runs) == []
    assert saved_findings(root=tmp_path / "absent") == []


def test_a_search_with_no_admissible_point_reads_back(tmp_path):
    """falsify writes an empty ``best`` when no point was admissible; its own reader must accept that record."""
    from verify.search.saved import check_search

    rec = json.loads((SAVED / "exact-FAST.T2@corrected.stratified-seed0.json").read_text())
    empty = {**rec, "admissible": 0, "best": {}, "confirmation": {"status": "no admissible point",
                                                                   "reason": "no admissible point was found"}}
    check_search(empty, "record")  # no exception
    import pytest

    from bounds.core.record import BadRecord

    with pytest.raises(BadRecord, match="best.point"):  # a search with admissible points must name its best
        check_search({**empty, "admissible": 3}, "record")
