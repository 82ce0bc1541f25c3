"""A search proposes what it can score: points over the per-point budget are projected into it, not cut."""

from __future__ import annotations

from bounds.core.errors import SizeRefused
from verify.scenarios import get
from verify.search.cost import point_fidelity, within_budget
from verify.search.falsify import search
from verify.search.search_options import SearchOptions, check_searchable

TRIALS, BUDGET = 16, 12


def test_a_search_spends_at_most_a_tenth_of_its_budget_on_cut_points(monkeypatch):
    # FAST.T2's space spans the per-point budget at 0.05 s: the default (M = d = 4, per-trial exact) fits it, while
    # d = 1,000 (per-trial, about 0.26 s predicted at 16 trials) and M > 16 (simulated) do not
    monkeypatch.setenv("CONVBOUND_POINT_SECONDS", "0.05")
    sc = get("FAST.T2")
    opts = SearchOptions(budget=BUDGET, seed=0, trials=TRIALS, confirm_trials=TRIALS, optimiser="random",
                         population=BUDGET)
    searched, opt = check_searchable(sc, opts)  # the space and optimiser the search builds: the same proposals
    over = sum(_cut(searched, p.point) for p in opt.ask(BUDGET))
    assert over >= BUDGET // 3  # without the projection, a third or more of these proposals would be cut
    rec = search(sc, opts)
    counts = rec.fidelity["counts"]
    assert sum(counts.values()) == BUDGET
    assert counts["cut"] <= BUDGET // 10
    assert rec.fidelity["projected"] + counts["cut"] == over  # each proposal that would be cut: moved, or counted
    assert any(n.startswith("points over the per-point budget were projected") for n in rec.notes)


def _cut(sc, point):
    """Whether the search would cut ``point`` as proposed (over the budget, or a size its family refuses to build)."""
    try:
        return point_fidelity(sc, point, TRIALS)[0] == "cut"
    except SizeRefused:
        return True


def test_a_projected_point_keeps_its_other_axes_and_fits(monkeypatch):
    monkeypatch.setenv("CONVBOUND_POINT_SECONDS", "0.05")
    sc = get("FAST.T2")
    far = sc.point({"d": 1000, "sigma": 1e-3, "eta_frac": 0.01})
    assert point_fidelity(sc, far, TRIALS)[0] == "cut"
    moved, note = within_budget(sc, far, TRIALS)
    assert point_fidelity(sc, moved, TRIALS)[0] != "cut" and note.startswith("projected")
    assert 4 <= moved["d"] < 1000  # the dimension taken back toward the default's 4, no further than needed to fit
    assert (moved["sigma"], moved["eta_frac"]) == (1e-3, 0.01)  # the axes the optimiser chose, kept
    near = sc.point()
    assert within_budget(sc, near, TRIALS) == (near, "")  # a point within the budget is not moved
