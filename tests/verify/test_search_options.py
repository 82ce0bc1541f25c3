"""SearchOptions: the one place a search's sizes are refused, and the keyword form of search() is the same call."""

import math

import pytest

from bounds.core.errors import UserInputError
from verify.search.search_options import SearchOptions


@pytest.mark.parametrize("kw, param", [
    ({"budget": 0}, "budget"), ({"budget": 2.5}, "budget"), ({"budget": math.inf}, "budget"),
    ({"budget": True}, "budget"), ({"budget": 2, "trials": 1}, "trials"), ({"budget": 2, "confirm_trials": 1.5},
                                                                           "confirm_trials"),
    ({"budget": 2, "time_limit": 0}, "time_limit"), ({"budget": 2, "time_limit": math.inf}, "time_limit"),
    ({"budget": 2, "time_limit": math.nan}, "time_limit"), ({"budget": 2, "seed": -1}, "seed"),
    ({"budget": 2, "optimiser": "cmaes"}, "optimiser"),
])
def test_bad_sizes_are_one_refusal_naming_the_parameter(kw, param):
    with pytest.raises(UserInputError) as err:
        SearchOptions(**kw)
    assert err.value.param == param and str(err.value).startswith(f"{param}=")


def test_terms_need_an_optimiser_that_aims_at_them():
    with pytest.raises(UserInputError, match="--terms aims the searchers that draw by strata"):
        SearchOptions(budget=2, optimiser="random", terms="noise")
    assert SearchOptions(budget=2, optimiser="rays", terms="noise").terms == "noise"


def test_sized_caps_the_population_at_the_budget_and_keywords_update_options():
    assert SearchOptions(budget=3.0, population=8).sized().population == 3
    base = SearchOptions(budget=5, seed=1)
    assert SearchOptions.of(base, {"seed": 2}) == SearchOptions(budget=5, seed=2)
    assert SearchOptions.of(None, {"budget": 4}) == SearchOptions(budget=4)
    with pytest.raises(TypeError, match="unexpected keyword"):
        SearchOptions.of(None, {"budget": 4, "budgett": 5})


def test_options_and_keywords_give_the_same_search():
    from verify.scenarios import get
    from verify.search.falsify import search

    sc = get("FAST.T2@corrected")
    a = search(sc, SearchOptions(budget=2, seed=3, trials=4, confirm_trials=4, optimiser="random"))
    b = search(sc, budget=2, seed=3, trials=4, confirm_trials=4, optimiser="random")
    assert _untimed(a.to_dict()) == _untimed(b.to_dict())


def _untimed(x):
    """``x`` without its wall-clock fields (``elapsed_s``, ``wall_seconds``): the rest is fixed by the seed."""
    if isinstance(x, dict):
        return {k: _untimed(v) for k, v in x.items() if k not in ("elapsed_s", "wall_seconds")}
    return [_untimed(v) for v in x] if isinstance(x, list) else x


def test_a_past_deadline_stops_the_optimisers_set_up_after_one_probe():
    """--time covers the optimiser's set-up: with the deadline already past, corners keeps one pool row and the
    stratified draws one probe, where without a deadline they probe many (no clock is read by the assertion)."""
    import time

    from verify.scenarios import get
    from verify.search.optimisers import make_optimiser

    # a strongly convex family: its builds are cheap (FAST.T1's non-convex minimiser made this test 15 s of pool
    # and stratified probes), and its corner pool still holds many rows
    sc = get("FAST.T2@corrected")
    past = time.perf_counter() - 1.0
    cut = make_optimiser("corners", sc, seed=0, population=4, budget=20, deadline=past)
    full = make_optimiser("corners", sc, seed=0, population=4, budget=20)
    assert len(cut.pool) == 1 and len(full.pool) > 1
    assert len(cut.ask(2)) == 2  # still a working optimiser
