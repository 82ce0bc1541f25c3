"""Every built-in result names its paper, and what it rests on is declared and points at registered results."""

from __future__ import annotations

from pathlib import Path

import pytest

from bounds.registry import all_results

SEEDS = Path("/work/shared/seeds")


def _built_in():
    # other tests register plugin results in the same session: those cite what their authors gave
    return [r for r in all_results() if r.origin == "built-in"]


def test_every_built_in_result_cites_its_paper():
    for res in _built_in():
        c = res.provenance.paper
        assert c is not None and c.authors and c.title and c.venue, res.key
        assert res.provenance.cited().startswith(c.authors) and res.provenance.locator in res.provenance.cited()
        assert res.provenance.seed not in res.provenance.cited()


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seed texts are not in this checkout")
def test_citations_are_the_seed_texts_first_lines():
    for res in _built_in():
        seed = SEEDS / res.provenance.seed
        if not seed.is_file():  # SCAFFOLD is not a seed (its spec names the ICML 2020 paper)
            continue
        head = " ".join(seed.read_text(encoding="utf-8").split()[:400]).lower()
        c = res.provenance.paper
        assert c is not None and " ".join(c.title.split()).lower().replace(" :", ":") in head.replace(" :", ":"), res.key
        first_author = c.authors.split(",")[0].split(" and ")[0]
        assert first_author.split()[-1].lower() in head, res.key


def test_rests_on_is_declared_and_points_at_registered_results():
    keys = {r.key for r in all_results()}
    rests = {r.key: r.provenance.rests_on for r in _built_in() if r.provenance.rests_on}
    assert rests["FAST.C1"] == rests["FAST.C2@corrected"] == rests["FAST.C2@printed"] == ("FAST.T1",)
    assert rests["FAST.C3"] == ("FAST.T2",) and rests["ASCAF.C1"] == ("ASCAF.T1",)
    # Table 1's rows for the paper's own method rest on its theorem; the rows citing other papers do not
    assert rests["ASCAF.TAB1.IID.ASCAF"] == ("ASCAF.T1",) and "ASCAF.TAB1.IID.FEDAVG" not in rests
    for key, on in rests.items():
        assert key not in on and set(on) <= keys, key
    # no result rests on one that rests on something else here: one level, so no circle
    assert not any(rests.get(k) for on in rests.values() for k in on)
