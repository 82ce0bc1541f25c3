"""Axes end where a theorem's hypotheses or its symbols' domains end them, not at a cost cap, wherever a family is
scored exactly; cost is handled per point (verify.search.cost) and every search record states its shares."""

import dataclasses

import pytest

from verify.exact_score import scored_exactly
from verify.scenarios import get, registry
from verify.search.falsify import search


def _families(sc):
    problem = next((p for p in sc.space if p.name == "problem"), None)
    return [None] if problem is None else list(problem.choices)


def test_no_axis_of_an_exactly_scored_built_in_scenario_ends_at_a_cost_cap():
    checked = 0
    for sid, sc in registry().items():
        if sc.origin != "built-in":
            continue
        exact = [fam for fam in _families(sc)
                 if scored_exactly(sc.build(sc.point({} if fam is None else {"problem": fam})))]
        if not exact:
            continue  # every family simulated: a cost cap may still bound its axes
        checked += 1
        capped = [p.name for p in sc.space if p.end == "cost"]  # declared (verify.scenario.Param.end)
        assert not capped, f"{sid}: axes {capped} end at a cost cap although {exact} are scored exactly"
    assert checked >= 8  # FAST.T1, FAST.T2 (+ corrected), F3AST.T3.5, SCAF.T2.construction, SURV.* at least


def test_fast_t1_space_prints_no_uncomputed_ceiling_and_reaches_long_horizons(convbound):
    run = convbound("falsify", "FAST.T1", "--space")
    assert run.code == 0, run.err
    assert "ceiling" not in run.out and "cost cap" not in run.out
    R = next(p for p in get("FAST.T1").space if p.name == "R")
    assert R.high == 10**6


def test_search_records_state_exact_simulated_and_cut_shares(monkeypatch):
    rec = search(get("SURV.FEDAVG.instance"), budget=3, trials=4, confirm_trials=8, seed=1)
    f = rec.fidelity
    assert f["points"] == 3 and f["exact"] == 1.0 and f["simulated"] == f["cut"] == 0.0
    assert "scored exactly 100%" in rec.finding
    # a per-point budget no simulation meets: every simulated point is cut, counted, and nothing is confirmed
    monkeypatch.setenv("CONVBOUND_POINT_SECONDS", "1e-9")
    rec = search(get("ASCAF.T1.lower-bound"), budget=2, trials=4, confirm_trials=8, seed=1)
    f = rec.fidelity
    assert f["counts"]["cut"] == 2 and f["cut"] == 1.0
    assert f["exact"] + f["simulated"] + f["cut"] == pytest.approx(1.0)
    assert rec.admissible == 0 and any("per-point cost budget" in n for n in rec.notes)


def test_the_size_guard_weighs_a_widened_space_by_its_fidelity():
    """A plugin-style widening of FAST.T1 whose default point is the exactly scored quadratic at 10^6 rounds and
    16 clients is not refused as a simulation (3 GB); the same default on the simulated cosine family is."""
    from bounds.core.errors import UserInputError
    from reports.cli.cmd_falsify import _refuse_absurd_sizes

    base = get("FAST.T1")

    def widened(problem):
        space = tuple(dataclasses.replace(p, default={"problem": problem, "R": 10**6, "M": 16}[p.name])
                      if p.name in ("problem", "R", "M") else p for p in base.space)
        return dataclasses.replace(base, id="FAST.T1.wide", space=space)

    _refuse_absurd_sizes(widened("quadratic"), 500, None, 64, 4096)
    with pytest.raises(UserInputError, match="default point"):
        _refuse_absurd_sizes(widened("nonconvex"), 500, None, 64, 4096)
