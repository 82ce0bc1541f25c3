"""Shrinking stays where the search could score: inside the families searched, within the per-point budget."""

from __future__ import annotations

import verify.search.shrink as shrink_mod
from bounds.core.errors import OutsideDomain
from verify.scenarios import get
from verify.search.cost import point_fidelity
from verify.search.search_options import search_space


def test_a_move_the_search_would_cut_is_not_simulated(monkeypatch):
    # FAST.T1's nonconvex family is simulated: 64 trials x 10^6 rounds is far past the per-point budget
    sc = get("FAST.T1")
    far = sc.point({"problem": "nonconvex", "M": 2, "K": 1, "R": 1_000_000, "d": 1})
    assert point_fidelity(sc, far, 64)[0] == "cut"
    scored = []
    monkeypatch.setattr(shrink_mod, "evaluate_point", lambda s, p, **kw: scored.append(p))
    assert shrink_mod.violates_fn(sc, trials=64, seed=0)(far) is False
    assert scored == []  # never simulated (the search cut it; the shrink took hours there before)


def test_shrinking_a_narrowed_search_never_leaves_its_families(monkeypatch):
    sc = search_space(get("FAST.T1"), "quadratic")
    start = sc.point({"problem": "quadratic", "M": 3, "K": 2, "R": 10, "d": 2, "sigma": 0.5})
    tried = []

    def not_scored(s, p, **kw):  # records each candidate; a refused point keeps no move
        tried.append(dict(p))
        raise OutsideDomain("not scored in this test")  # a declared refusal: the shrink catches it by type

    monkeypatch.setattr(shrink_mod, "evaluate_point", not_scored)
    shrink_mod.shrink(sc, start, trials=4, confirm_trials=4, closed_form=False)
    assert tried and {p["problem"] for p in tried} == {"quadratic"}
