"""Decisions travel, show their minimal instance first, and word an inconclusive search as what it is.

Evidence built here for each assertion (no search or SDP is run), except the saved FAST.T1 run whose shrunk
point and confirmation values are read from its file to check what the decision took from them.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from verify.decision import (
    CONSISTENT,
    OPEN,
    REFUTED,
    Decision,
    Evidence,
    HypothesesAt,
    decision_of,
    rests_on_line,
    with_rests_on,
)
from verify.decision_sources import search_outcomes

CONDITIONAL_RUN = Path(__file__).parents[1] / "benchmarks" / "falsify_runs" / "conditional" / "FAST.T1.quadratic-seed1.json"


def _record(verdict: str, ratio: float, *, key: str = "FAST.T2", shrunk: dict | None = None, **conf):
    from verify.search.shrunk_record import ShrunkSearchRecord

    return ShrunkSearchRecord(id=key, result=key, optimiser="random", seed=3, budget=50, time_limit=None, trials=64,
                              population=8, evaluations=50, admissible=40, best={"point": {"K": 40, "d": 6}},
                              confirmation={"verdict": verdict, "lhs": ratio, "rhs": 1.0, "ratio": ratio, **conf},
                              shrunk=shrunk or {})


def _decide(*records, key: str = "FAST.T2", hypotheses=()) -> Decision:
    outcomes = search_outcomes(key, [(f"s{i}", r) for i, r in enumerate(records)], hypotheses)
    return decision_of(Evidence(key, HypothesesAt("holds"), outcomes))


def test_an_inconclusive_search_is_worded_as_one_not_as_a_failed_check():
    d = _decide(_record("unverified", 0.4446))
    assert d.outcome == OPEN
    assert d.why.startswith("search inconclusive: best point unverified, ratio 0.4446")
    assert "did not pass" not in d.why
    # a failed check is still called one: a certified PEP ratio above 1 beside the same search
    from verify.decision import WorstCaseRatio

    pep = WorstCaseRatio("s", 1.5, True, True, "pep")
    outcomes = search_outcomes("FAST.T2", [("s0", _record("unverified", 0.4446))])
    both = decision_of(Evidence("FAST.T2", HypothesesAt("holds"), outcomes, worst_cases=(pep,)))
    assert "search inconclusive" in both.why and "a check did not pass: PEP s: certified ratio 1.5 > 1" in both.why


def test_a_shrunk_violation_names_the_minimal_instance_first():
    shrunk = {"shrunk": {"K": 1, "d": 1}, "confirmation": {"verdict": "violated", "ratio": 2.5}}
    d = _decide(_record("violated", 3.0, shrunk=shrunk))
    assert d.outcome == REFUTED and d.minimal_instance == {"K": 1, "d": 1} and d.instance == {"K": 40, "d": 6}
    assert d.why.index("ratio 2.5") < d.why.index("K=1, d=1") < d.why.index("ratio 3 ") < d.why.index("K=40, d=6")
    # a shrink whose confirmation lost the violation is no minimal instance
    lost = {"shrunk": {"K": 1, "d": 1}, "confirmation": {"verdict": "holds", "ratio": 0.5}}
    d = _decide(_record("violated", 3.0, shrunk=lost))
    assert d.minimal_instance == {} and "minimal" not in d.why


def test_the_saved_conditional_refutation_carries_its_shrunk_point_and_the_declared_meaning():
    from bounds import get
    from verify.decision_sources import load_searches

    data = json.loads(CONDITIONAL_RUN.read_text())
    res = get("FAST.T1")
    (pair,) = load_searches([str(CONDITIONAL_RUN)])
    d = _decide(pair[1], key="FAST.T1", hypotheses=res.hypotheses)
    assert d.minimal_instance == data["shrunk"]["shrunk"] and d.instance == data["best"]["point"]
    assert data["confirmation"]["values"]["q"] == 1.0  # the scenario's q, where the meaning applies
    assert d.conditions_meaning == ("at q = 1 it can fail only with a threshold above 1, which would leave the "
                                    "theorem no admissible q at all",)
    assert "no admissible q at all" in d.why
    # declared, not read from words: the same hypothesis without its declaration says nothing of the kind
    plain = tuple(dataclasses.replace(h, floor_of=None) for h in res.hypotheses)
    undeclared = _decide(pair[1], key="FAST.T1", hypotheses=plain)
    assert undeclared.conditions_meaning == () and "at q = 1 it can fail only with a threshold above 1" not in undeclared.why


def test_floor_of_speaks_only_at_the_top_of_the_domain():
    from bounds import get

    (q_min,) = [h for h in get("FAST.T1").hypotheses if h.floor_of]
    assert q_min.floor_of == ("q", 1.0)
    assert q_min.if_fails_at({"q": 1.0}).endswith("no admissible q at all")
    assert q_min.if_fails_at({"q": 0.99}) == "" and q_min.if_fails_at({}) == ""


def _decision(key: str, outcome: str, why: str = "w") -> Decision:
    return Decision(id=key, outcome=outcome, why=why)


def test_with_rests_on_keeps_the_outcome_and_carries_the_others():
    own = _decision("C", CONSISTENT)
    theorem = _decision("T", "refuted unless q >= q_min fails", "conditional violation")
    d = with_rests_on(own, ("T",), {"T": theorem, "C": own})
    assert d.outcome == CONSISTENT and d.why == own.why
    assert [dict(r) for r in d.rests_on] == [{"id": "T", "outcome": "refuted unless q >= q_min fails",
                                              "word": "refuted unless", "why": "conditional violation"}]
    assert rests_on_line(d.rests_on[0]) == "rests on T: refuted unless q >= q_min fails"
    assert with_rests_on(own, (), {}).rests_on == ()
    with pytest.raises(KeyError):
        with_rests_on(own, ("missing",), {"T": theorem})


def test_a_decision_with_what_it_rests_on_round_trips():
    d = with_rests_on(_decision("C", OPEN), ("T",), {"T": _decision("T", REFUTED)})
    d = dataclasses.replace(d, minimal_instance={"K": 1}, conditions_meaning=("m",))
    assert Decision.from_dict(json.loads(json.dumps(d.to_dict()))) == d


def test_decide_with_decides_what_a_result_rests_on_when_not_asked():
    from bounds import get
    from verify.decision_sources import decide_with

    (c1,) = decide_with([get("FAST.C1")], [("s0", _record("violated", 3.0, key="FAST.T1"))], [], {})
    assert [(r["id"], r["outcome"]) for r in c1.rests_on] == [("FAST.T1", REFUTED)]
    assert c1.outcome == OPEN  # its own evidence (none) decides its own outcome
