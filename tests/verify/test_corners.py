"""The ``corners`` optimiser (verify/search/corners.py): corners projected onto the hypotheses, reproducible by seed."""

import math
from functools import partial

import pytest

from bounds import plugins
from bounds.core.errors import UserInputError

EXAMPLE = "docs/examples/fedavg_local_sgd.py"
CAP = 1.5  # the space's step reaches 1.5/L, the result's hypothesis eta <= 1/L: eta_frac <= 2/3 is admissible


@pytest.fixture(autouse=True)
def _session_results(monkeypatch):
    """The corners' set-up registers TEST.CORNERS for this session (``Scenario.register_result``): for this test
    only, or a later test of the same worker would find a searchable result with no scenario."""
    monkeypatch.setattr("bounds.registry._session", {})


def _scenario():
    """USER.FEDAVG's space with its step axis wider than the hypothesis (so some corners are not admissible), and
    M, d, zeta fixed (small instances, cheap builds): six corner factors."""
    import dataclasses
    from pathlib import Path

    from verify.scenario import Scenario

    mod = plugins.load_file(str(Path(__file__).resolve().parents[2] / EXAMPLE))
    fixed = {"M": 4, "d": 2, "zeta": 1.0}
    space = tuple(dataclasses.replace(p, low=fixed[p.name], high=fixed[p.name], default=fixed[p.name])
                  if p.name in fixed else p for p in mod.space(CAP))
    return Scenario("TEST.CORNERS", mod.make_result("TEST.CORNERS", step_cap=1), "corners test", space,
                    partial(mod.build, step_cap=CAP))


class _Inner:
    """A stand-in for the stratified optimiser: its strata (the RHS terms) and the default point as every draw."""

    terms = ["optimisation", "noise", "sampling"]

    def __init__(self, sc):
        self.sc, self.told = sc, []

    def ask(self, n):
        from verify.search.proposal import INNER, Proposal

        return [Proposal(self.sc.point(), INNER) for _ in range(n)]

    def tell(self, points, scores):
        self.told += list(points)


def _corner_stage(sc, seed, monkeypatch):
    import verify.search.corners as corners

    monkeypatch.setattr(corners, "POOL", 24)  # a drawn pool of 24 of the 512 corners: a small, fast case
    monkeypatch.setattr(corners, "WARMUP", 2)
    opt = corners.CornerArrays(sc, _Inner(sc), seed=seed, budget=300)
    monkeypatch.setattr(corners, "CLIMB", 10**9)  # no climb move among the rows: they come first, then the climb
    rows = len(opt.rows)
    pts, strata = [], []
    while opt.rows or len(strata) < 2 + 2 * rows + 2:
        props = opt.ask(8)
        got = [p.point for p in props]
        strata += [p.stratum for p in props]
        opt.tell(got, [0.0] * len(got))
        pts += got
    # the warm-up, then corner rows and the wrapped optimiser's draws in turn, then its draws and (all scores
    # equal) the climb's moves from each stratum's first corner; it heard of its own points only
    mine = [s.kind != "corner" for s in strata]
    arrays = [s.kind == "corner" and s.detail.endswith("-way") for s in strata]
    assert mine[:2] == [True, True] and mine[2:2 + 2 * rows] == [False, True] * rows
    assert arrays[2:2 + 2 * rows:2] == [True] * rows and not any(arrays[2 + 2 * rows:])
    assert all(mine[3 + 2 * rows::2])  # after the rows, every 2nd point is still the wrapped optimiser's
    assert len(opt.inner.told) == sum(mine)
    return opt, [(p, str(s)) for p, s, row in zip(pts, strata, arrays) if row]


def corners_of(sc):
    from verify.search.corners import corner_factors

    return corner_factors(sc.space)


def test_corner_points_are_admissible_corners_and_reproducible(monkeypatch):
    sc = _scenario()
    opt, rows = _corner_stage(sc, 7, monkeypatch)
    assert opt.strength == 4 and len(rows) >= 16  # four binary factors' 16 combinations need 16 rows at least
    assert {p.name for p, _ in corners_of(sc)} == {"m_frac", "K", "R", "eta_frac", "mu_frac", "sigma"}
    axes = {p.name: p for p in sc.space}
    projected = 0
    for p, _ in rows:
        full = sc.point(p)  # inside the box (raises otherwise)
        # the hypotheses by hand: eta = eta_frac * CAP / L <= 1 / L, and m <= M, M >= 2 by the space's construction
        assert full["eta_frac"] * CAP <= 1 + 1e-12
        for name, v in full.items():
            if name in ("draw", "eta_frac"):
                continue
            assert v in (axes[name].low, axes[name].high), (name, v)  # every other axis at one of its ends
        if full["eta_frac"] > axes["eta_frac"].low:
            # the top end (1) moved toward the default (0.5) by bisection, to within 1/64 of the way of 2/3
            assert 0.5 ** (math.log(2 / 3) / math.log(0.5) + 1 / 64) <= full["eta_frac"] <= 2 / 3
            projected += 1
    assert 0 < projected < len(rows)
    _, again = _corner_stage(sc, 7, monkeypatch)
    assert again == rows
    _, other = _corner_stage(sc, 8, monkeypatch)
    assert [p for p, _ in other] != [p for p, _ in rows]


@pytest.mark.parametrize("bad", [0, 7, 2.5, True, "3"])
def test_a_bad_strength_is_one_line(bad, monkeypatch):
    import verify.search.corners as corners

    sc = _scenario()
    with pytest.raises(UserInputError) as exc:
        corners.CornerArrays(sc, _Inner(sc), seed=0, budget=10, strength=bad)
    assert "\n" not in str(exc.value) and "1 to 6" in str(exc.value)


def _level(p, v):
    """The level index of value v on corner factor p (the step: 0 at its low end, else the projected top)."""
    from verify.search.corners import corner_factors

    levels = dict((q.name, lv) for q, lv in corner_factors([p]))[p.name]
    return levels.index(v) if v in levels else len(levels) - 1


def test_the_climb_moves_one_factor_at_a_time_to_the_top_corner(monkeypatch):
    """Scores that grow with every factor's level index (a ridge to the all-top corner): each climb move changes one
    factor of a corner proposed before, and the climb reaches the top corner (eta projected)."""
    import verify.search.corners as corners

    monkeypatch.setattr(corners, "WARMUP", 2)
    sc = _scenario()
    opt = corners.CornerArrays(sc, _Inner(sc), seed=3, budget=40)
    factors = corners_of(sc)
    assert [len(v) for p, v in factors if p.integer] == [3, 3]  # K and R: low, low + 1, high
    seen, moves = [], 0
    for _ in range(60):
        props = opt.ask(8)
        got = [p.point for p in props]
        idx = [tuple(_level(p, q[p.name]) for p, _ in factors) for q in got]
        for lv, stratum in zip(idx, [p.stratum for p in props]):
            if stratum.kind == "corner" and stratum.detail == "climb":
                moves += 1
                assert any(sum(a != b for a, b in zip(lv, old)) == 1 for old in seen), lv
            if stratum.kind == "corner":
                seen.append(lv)
        opt.tell(got, [float(sum(lv)) for lv in idx])
    top = tuple(len(v) - 1 for _, v in factors)
    assert moves > 0 and top in seen


def test_the_pool_is_bounded_by_the_budget(monkeypatch):
    """At most 2 builds per evaluation of the budget go to the pool (budget 5: 10 of the 64 binary corners)."""
    import verify.search.corners as corners

    calls = []
    real = corners.CornerArrays._probe
    monkeypatch.setattr(corners.CornerArrays, "_probe", lambda self, pt: calls.append(1) or real(self, pt))
    sc = _scenario()
    opt = corners.CornerArrays(sc, _Inner(sc), seed=0, budget=5)
    assert len(calls) == 10 and len(opt.points) <= 10
