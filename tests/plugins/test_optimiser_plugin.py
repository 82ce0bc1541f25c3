"""A plugin file adds an optimiser through ``optimisers()``; the search runs it by name and records its strata."""

from __future__ import annotations

import pytest

from bounds import plugins
from bounds.core.errors import UserInputError

PLUGIN = '''
from verify.search.optimisers import Entry
from verify.search.proposal import Proposal, Stratum


class Defaults:
    """Proposes the default point with the low end of K, in turn (a stand-in optimiser for the test)."""

    def __init__(self, sc):
        self.sc, self.k, self.told = sc, 0, []

    def ask(self, n):
        out = []
        for _ in range(n):
            self.k += 1
            over = {} if self.k % 2 else {"K": 1}
            out.append(Proposal(self.sc.point(over), Stratum("term", term="noise") if over else None))
        return out

    def tell(self, points, scores):
        self.told += list(scores)


def optimisers():
    return [Entry("defaults", lambda sc, *, seed, population, budget, terms: Defaults(sc), False, "the default point")]
'''


def test_a_plugin_optimiser_is_registered_listed_and_searched(tmp_path):
    from verify.scenarios import get
    from verify.search.falsify import search
    from verify.search.optimisers import BUILT_IN, registry

    path = tmp_path / "my_optimiser.py"
    path.write_text(PLUGIN)
    plugins.add_files([str(path)])
    table = registry()
    assert list(table)[:len(BUILT_IN)] == [e.name for e in BUILT_IN] and "defaults" in table
    assert plugins.origin_text("optimisers", "defaults") == f"file {path}"
    rec = search(get("FAST.T2@corrected"), budget=4, seed=0, trials=4, confirm_trials=4, population=2,
                 optimiser="defaults")
    assert rec.evaluations == 4
    # proposals 2 and 4 (K = 1) carry the plugin's stratum, 1 and 3 none: the record keeps what was declared
    assert [t.get("proposer") for t in rec.trace] == [None, "term", None, "term"]
    assert [t.get("stratum") for t in rec.trace][1] == "noise"
    with pytest.raises(UserInputError, match="--terms aims"):
        search(get("FAST.T2@corrected"), budget=2, seed=0, trials=4, confirm_trials=4, optimiser="defaults",
               terms="noise")
