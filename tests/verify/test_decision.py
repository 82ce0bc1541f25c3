"""One decision per result: each outcome reached by evidence built for it (no search or SDP is run here,
except the one cheap worst case of ``decide all``)."""

from __future__ import annotations

import json

import pytest

from verify.decision import (
    CERTIFIED,
    CONSISTENT,
    OPEN,
    OUTCOMES,
    REFUTED,
    REFUTED_UNLESS,
    Decision,
    Evidence,
    HypothesesAt,
    decision_of,
    hypotheses_at,
)
from verify.decision_sources import gather, search_outcomes, worst_case_ratios

KEY = "FAST.T2"


def _search(verdict: str, *, lhs: float, rhs: float, key: str = KEY, admissible: int = 40, **extra):
    from verify.search.falsify import SearchRecord

    space = [{"name": "K", "low": 1, "high": 8, "choices": None}, {"name": "R", "low": 2, "high": 50, "choices": None}]
    return SearchRecord(id=key, result=key, optimiser="random", seed=3, budget=50, time_limit=None, trials=64,
                        population=8, evaluations=50, admissible=admissible, best={"point": {"K": 4, "R": 30}},
                        confirmation={"verdict": verdict, "lhs": lhs, "rhs": rhs, "ratio": lhs / rhs,
                                      "ci": [lhs, lhs], **extra}, space=space)


def _worst(ratio: float, status: str = "certified", hold: bool | None = True, key: str = KEY):
    from verify.pep import Setting
    from verify.pep.core import WorstCase

    s = Setting("local_gd", L=1.0, mu=0.1, zeta=0.1, eta=0.003, K=2, R=3, M=2)
    row = {"key": key, "covers": "yes", "reason": "r", "ratio": ratio, "hypotheses_hold": hold}
    return WorstCase(setting=s, value=ratio, primal_value=ratio, solver_status="optimal", solver="CLARABEL",
                     certificate={"status": status}, solve_seconds=0.1, coverage=(row,))


def _evidence(searches=(), worst=(), hyp=None) -> Evidence:
    pep, why = worst_case_ratios(KEY, [("test", w) for w in worst])
    return Evidence(KEY, hyp or HypothesesAt("holds"), search_outcomes(KEY, [(f"s{i}", s) for i, s in enumerate(searches)]),
                    worst_cases=pep, no_pep=why)


def test_planted_wrong_bound_with_confirmed_violation_is_refuted():
    # the planted bound is a third of the measured side: ratio 0.3 / 0.1 = 3
    d = decision_of(_evidence([_search("holds", lhs=0.05, rhs=0.1), _search("violated", lhs=0.3, rhs=0.1)],
                              [_worst(0.5)]))
    assert d.outcome == REFUTED and "ratio 3 " in d.why and d.instance == {"K": 4, "R": 30}
    assert "K=4, R=30" in d.why  # the instance is named, not only stored


def test_conditional_violation_is_refuted_unless_its_hypothesis_never_consistent():
    hyp = "snapshot probability q >= q_min(G1,G2,G3)"
    need = f"'{hyp}' fails at this point (it was assumed met: q = 1 meets every threshold)"
    d = decision_of(_evidence([_search("violated unless", lhs=0.592, rhs=0.001, unless=[hyp], unless_needs=[need]),
                               _search("holds", lhs=0.05, rhs=0.1)]))
    assert d.outcome == f"{REFUTED_UNLESS} {hyp} fails" and d.word == REFUTED_UNLESS
    assert d.conditions == (hyp,) and "ratio 592" in d.why and f"a refutation unless {need}" in d.why
    assert d.instance == {"K": 4, "R": 30}
    two = decision_of(_evidence([_search("violated unless", lhs=2.0, rhs=1.0, unless=["A1", "A2"])]))
    assert two.outcome == f"{REFUTED_UNLESS} A1 or A2 fails" and two.conditions == ("A1", "A2")
    # a plain violation elsewhere outranks it
    assert decision_of(_evidence([_search("violated unless", lhs=2.0, rhs=1.0, unless=["A1"]),
                                  _search("violated", lhs=3.0, rhs=1.0)])).outcome == REFUTED


def test_correct_bound_with_certified_ratio_at_most_one_is_certified_at_named_setting():
    d = decision_of(_evidence([_search("holds", lhs=0.05, rhs=0.1)], [_worst(0.8)]))
    assert d.outcome == CERTIFIED and "K=2 R=3 M=2" in d.why and "ratio 0.8" in d.why
    # an approximate certificate, a setting outside the hypotheses, or a ratio above 1 proves nothing
    for w in (_worst(0.8, status="approximate"), _worst(0.8, hold=False), _worst(1.2)):
        assert decision_of(_evidence([_search("holds", lhs=0.05, rhs=0.1)], [w])).outcome != CERTIFIED
    assert decision_of(_evidence([], [_worst(1.2)])).outcome == OPEN  # certified ratio > 1: not a pass


def test_only_passing_checks_is_consistent_so_far_with_what_was_covered():
    d = decision_of(_evidence([_search("holds", lhs=0.05, rhs=0.1, admissible=37),
                               _search("holds", lhs=0.07, rhs=0.1, admissible=12)]))
    assert d.outcome == CONSISTENT and "not a proof" in d.why and "largest ratio 0.7" in d.why
    assert [c.split(" admissible")[0] for c in d.covered] == ["search: 37", "search: 12"]
    # an inconclusive confirmation is not a pass: open, never consistent (interval 0.09..0.11 straddles 0.1)
    assert decision_of(_evidence([_search("unverified", lhs=0.1, rhs=0.1, ci=[0.09, 0.11])])).outcome == OPEN
    # a search that found no admissible point checked nothing: it neither passes nor fails
    empty = _search("none", lhs=0.0, rhs=1.0, admissible=0)
    alone = decision_of(_evidence([empty]))
    assert alone.outcome == OPEN and "the searches recorded checked no point inside the hypotheses" in alone.missing
    assert decision_of(_evidence([empty, _search("holds", lhs=0.05, rhs=0.1)])).outcome == CONSISTENT


def test_result_needing_lost_constants_without_evidence_is_open_naming_them():
    from bounds import get

    res = get("FAST.C1")  # spec: FAST's q_min needs G1, G2, G3 (appendix constants), the corollary c
    d = decision_of(gather(res, [], []))
    assert d.outcome == OPEN and d.instance == {}
    assert "constants the sources lost: G1, G2, G3, c" in d.missing
    # FAST.C1 has a declared scenario: the search is what is missing, and the line names the scenario to run
    assert "no search recorded (scenario FAST.C1 ready: convbound falsify FAST.C1)" in d.missing
    assert hypotheses_at(res).needs == ("G1", "G2", "G3", "c")


def test_record_round_trip_and_repr():
    from reports.schema import read_record

    d = decision_of(_evidence([_search("violated", lhs=0.3, rhs=0.1)]), {"convbound": "x"})
    back = read_record(json.loads(json.dumps(d.to_dict())), "d")
    assert isinstance(back, Decision) and back.outcome == d.outcome and back.instance == d.instance
    assert repr(d).startswith(f"Decision({KEY}: refuted;") and len(repr(d)) < 200
    assert "<table>" in d._repr_html_()
    with pytest.raises(ValueError):
        Decision(id=KEY, outcome="probably fine", why="")


def test_decide_all_json_gives_every_result_exactly_one_outcome(convbound):
    from bounds import all_results

    code, out, err = convbound("decide", "all", "--json")
    assert code == 0, err
    got = json.loads(out)
    assert sorted(d["id"] for d in got) == sorted(r.key for r in all_results())
    for d in got:  # "refuted unless H fails" also starts with "refuted ": its kind is the longer name
        kinds = [o for o in OUTCOMES if d["outcome"] == o or d["outcome"].startswith(o + " ")]
        assert kinds in ([o] for o in OUTCOMES) or kinds == ["refuted", "refuted unless"], d["outcome"]
        assert kinds[-1] != "refuted unless" or d["outcome"].endswith(" fails"), d["outcome"]  # names its H
    by_id = {d["id"]: d for d in got}
    # the shipped store's conditional violations of FAST.T1 (saved searches and orders rays) decide it
    assert by_id["FAST.T1"]["outcome"] == "refuted unless snapshot probability q >= q_min(G1,G2,G3) fails"
    # FAST.T2's certified worst case at local GD K=2, R=3 is 0.9934 of its bound (tests/verify/test_pep.py)
    t2 = by_id["FAST.T2"]
    assert t2["outcome"] == CERTIFIED
    assert t2["worst_cases"][0]["ratio"] == pytest.approx(0.9934, abs=1e-4)
    # the shipped store refutes FAST.T2@corrected: its instance is the best point of the largest confirmed violation
    from verify.evidence.store import SEARCH, read_all

    saved = [r.body for r in read_all(kind=SEARCH, result_key="FAST.T2@corrected")]
    worst = max((r for r in saved if r.get("confirmation", {}).get("verdict") == "violated"),
                key=lambda r: r["confirmation"]["ratio"])
    assert by_id["FAST.T2@corrected"]["outcome"] == REFUTED
    assert by_id["FAST.T2@corrected"]["instance"] == worst["best"]["point"]


def test_cli_lists_conditional_violation_with_its_condition(convbound, tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(_search("violated unless", lhs=0.5, rhs=0.001, unless=["q >= q_min"]).to_dict()))
    code, out, err = convbound("decide", KEY, "--search", str(path), "--no-live-pep")
    assert code == 0, err
    assert "refuted unless q >= q_min fails" in out
    assert "condition: the violation counts unless 'q >= q_min' fails at the point" in out
    row = next(line for line in out.splitlines() if KEY in line)
    assert "consistent" not in row  # the row itself (the footnote names the outcome words)


@pytest.mark.parametrize("argv, needle", [
    (["decide", "FAST.T99"], "unknown result ID"),
    (["decide", KEY, "--search", "missing.json"], "--search missing.json"),
    (["decide", KEY, "--search", "bad.json"], "--search bad.json"),
    (["decide", KEY, "--search", "inst.json"], "--search inst.json"),
    (["decide", KEY, "--worst-case", "bad.json"], "--worst-case bad.json"),
])
def test_bad_input_is_one_line_exit_2(convbound, argv, needle, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "inst.json").write_text(json.dumps({"format": "x", "scenario": KEY}))
    code, _, err = convbound(*argv)
    assert code == 2 and needle in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def _orders_row(finding: str, verdict: str | None = None, ratio: float = 2.0) -> dict:
    row = {"result": "FAST.C3", "scenario": "FAST.C3", "ray": "R -> high", "base_label": "default",
           "finding": finding, "violation": {}}
    if verdict is not None:
        row["violation"] = {"point": {"R": 1000}, "confirmation": {"verdict": verdict, "ratio": ratio, "unless": []}}
    return row


@pytest.mark.parametrize("rows, outcome, status", [
    ([], OPEN, "not computed"),
    ([_orders_row("same order"), _orders_row("loose")], CONSISTENT, "agrees"),
    ([_orders_row("same order"), _orders_row("fails far along")], OPEN, "contradicts"),
    ([_orders_row("same order"), _orders_row("fails far along", "violated", 3.5)], REFUTED, "agrees"),
])
def test_orders_rows_in_the_store_decide(rows, outcome, status):
    from bounds import get
    from verify.evidence.records import StoredEvidence

    d = decision_of(gather(get("FAST.C3"), [], [], StoredEvidence(orders=[("test", r) for r in rows])))
    assert d.word == outcome and d.orders["status"] == status
    if outcome == REFUTED:  # the confirmed ray's point is the refuting instance, its ratio the one given
        assert d.instance == {"R": 1000} and "ratio 3.5" in d.why


def test_rays_none_fitted_say_what_the_first_one_lacked():
    from verify.evidence.records import orders_status

    why = "point 0 of the ray is not scored exactly: the measure declares no quadratic form"
    rows = [("s", {**_orders_row("not fitted"), "why": why}), ("s", {**_orders_row("not fitted"), "why": "short"})]
    assert orders_status(rows) == ("not computed", f"none of 2 stored rays was fitted; first: {why}")


def test_table_at_80_columns_keeps_every_id_whole(convbound, monkeypatch):
    from bounds import all_results

    monkeypatch.setenv("COLUMNS", "80")
    run = convbound("decide", "all", "--no-live-pep", "--no-saved")
    assert run.code == 0 and "…" not in run.out
    assert {r.key for r in all_results()} <= set(run.out.replace("│", " ").split())


def test_search_budget_runs_a_search_per_scenario_of_the_result(convbound, monkeypatch):
    import verify.search.falsify
    from verify.scenarios import registry

    calls = []

    def fake_search(scenario, *, budget, seed, **_):
        calls.append((scenario.id, budget, seed))
        return _search("holds", lhs=0.01, rhs=0.1, key=scenario.result)

    monkeypatch.setattr(verify.search.falsify, "search", fake_search)
    run = convbound("decide", "FAST.T1", "--no-saved", "--no-live-pep", "--search-budget", "3", "--seed", "5",
                    "--json")
    assert run.code == 0, run.err
    expected = sorted(sc.id for sc in registry().values() if sc.result == "FAST.T1")
    assert sorted(c[0] for c in calls) == expected and {c[1:] for c in calls} == {(3, 5)}
    d = json.loads(run.out)[0]
    assert d["outcome"] == CONSISTENT and len(d["searches"]) == len(expected)


def test_an_unverified_point_within_the_bound_passes_and_one_above_it_stays_open():
    # a hypothesis undecided at the point can only excuse an exceedance: interval [0.04, 0.06] is below 0.1
    within = decision_of(_evidence([_search("unverified", lhs=0.05, rhs=0.1, ci=[0.04, 0.06])]))
    assert within.outcome == CONSISTENT and "1 search(es) held" in within.why
    assert "a hypothesis undecided there), its interval within the bound: ratio 0.5" in within.covered[0]
    # interval [0.12, 0.14] above 0.1 with the hypothesis undecided: not a pass (a confirmation would have said
    # "violated unless"; an unverified word with no such clause is inconclusive)
    above = decision_of(_evidence([_search("unverified", lhs=0.13, rhs=0.1, ci=[0.12, 0.14])]))
    assert above.outcome == OPEN and above.why.startswith("search inconclusive: best point unverified, ratio 1.3")
    # no interval recorded: nothing says the point is within, so it stays inconclusive
    bare = _search("unverified", lhs=0.05, rhs=0.1)
    bare.confirmation.pop("ci")
    assert decision_of(_evidence([bare])).outcome == OPEN


def test_an_order_results_search_bounds_its_hidden_constant_and_is_context_not_a_check():
    from verify.decision import Orders

    key = "DFL.T1"  # an ORDER result: O(...) with its constant hidden
    rec = _search("unverified", lhs=3.0, rhs=0.002, key=key, constant_lower_bound=1500.0)
    (outcome,) = search_outcomes(key, [("s0", rec)])
    assert outcome.hidden_constant == 1500.0 and not outcome.passed and not outcome.inconclusive
    alone = decision_of(Evidence(key, HypothesesAt("holds"), (outcome,)))
    assert alone.outcome == OPEN and alone.why.startswith("no evidence about the bound")
    assert any("bound its hidden constant only" in m for m in alone.missing)
    assert "bounds the hidden constant from below by 1500; context, not a check" in alone.covered[0]
    # the orders rays check the scaling: agreeing rays make it consistent so far, the search stays context
    agreed = decision_of(Evidence(key, HypothesesAt("holds"), (outcome,), orders=Orders("agrees", "3 of 4 rays")))
    assert agreed.outcome == CONSISTENT and "search(es) held" not in agreed.why and "orders agree" in agreed.why
