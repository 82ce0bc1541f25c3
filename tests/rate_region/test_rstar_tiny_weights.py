"""r* with clients whose weights are at the edge of double precision (p_k <= 2e-16 beside p_j ~ 1/N).

Before the fix the exact chain method merged such clients into the block before them (their prefix sums
of c = sqrt(w) did not move in float64), so the block's level took their rank: `region` returned an r*
that `region --check` rejected (up to 0.42 outside R), and the enumeration method divided by a zero
difference of prefix sums (r* = inf). Checked here by the membership test `region --check` runs.
"""

from __future__ import annotations

import numpy as np
import pytest

from rate_region.availability import make_cap
from rate_region.modelfile import get_model
from rate_region.optimum import min_variance_rates
from rate_region.region import MEMBERSHIP_TOL, membership
from rate_region.variance import H


def _weights(n: int, tiny: float, where: list[int]) -> np.ndarray:
    p = np.ones(n)
    p[where] = tiny
    return p / p.sum()


CASES = [("uneven", 6, 1e-16, [0, 1]), ("uneven", 12, 2e-16, [0, 1, 2]), ("uneven", 100, 1e-17, [0, 1]),
         ("smartphones", 100, 2e-16, [0, 1, 2]), ("home-devices", 100, 1e-16, [0, 1]),
         ("table1-markov", None, 1e-16, [0])]


@pytest.mark.parametrize(("name", "clients", "tiny", "where"), CASES)
def test_rstar_is_inside_the_region_it_is_checked_against(name, clients, tiny, where):
    model = get_model(name, clients)
    p = _weights(model.n_clients, tiny, where)
    opt = min_variance_rates(model, None, p)
    assert np.all(np.isfinite(opt.r_star))
    m = membership(model, make_cap(None, model.cap), opt.r_star)
    assert m.achievable, m.message


def test_tiny_weights_change_the_optimum_only_at_the_tiny_clients():
    # p_0 = 1e-16 contributes p_0^2 / r_0 <= 1e-32 / r_0 to H: the optimum of the other clients is the
    # optimum with client 0's weight set to exactly 0 (a different code path: c_0 = 0 is skipped), up to
    # the rank that client 0 takes from them, which can only lower their rates.
    model = get_model("uneven", 12)
    p = _weights(12, 1e-16, [0])
    zero = p.copy()
    zero[0] = 0.0
    zero /= zero.sum()
    a, b = min_variance_rates(model, None, p), min_variance_rates(model, None, zero)
    assert H(a.r_star[1:], p[1:]) == pytest.approx(H(b.r_star[1:], zero[1:]), rel=1e-6)
    assert np.all(a.r_star[1:] <= b.r_star[1:] * (1 + 1e-9) + MEMBERSHIP_TOL)


def test_a_chain_outside_the_region_is_scaled_in_and_says_by_how_much(monkeypatch):
    # A solver slip (simulated: the exact chain's point raised by 1% on every client) must never reach
    # the user as r*: what comes back passes the membership test and the message names the excess.
    import rate_region.polymatroid as pm

    exact = pm.lex_optimal_structured

    def slipped(rank, c):
        sol = exact(rank, c)
        return pm.ChainSolution(sol.r * 1.01, sol.levels * 1.01, sol.blocks, sol.method)

    monkeypatch.setattr(pm, "lex_optimal_structured", slipped)
    model = get_model("uneven", 12)
    opt = min_variance_rates(model, None, None)
    assert membership(model, make_cap(None, model.cap), opt.r_star).achievable
    assert opt.status == "uncertified"
    assert "outside R by" in opt.message and "rank ratio 1.01" in opt.message


def test_region_check_accepts_the_r_star_that_region_printed(tmp_path, convbound):
    # the defect as a user met it: `region --weights` prints r*, `region --check r*` rejected it
    import json

    weights = tmp_path / "w.json"
    weights.write_text(json.dumps(_weights(6, 1e-16, [0, 1]).tolist()))
    code, out, err = convbound("region", "--model", "uneven", "--clients", "6", "--weights", str(weights), "--json")
    assert code == 0, err
    r_star = json.loads(out)["r_star"]
    code, out, err = convbound("region", "--model", "uneven", "--clients", "6", "--check",
                               ",".join(repr(float(x)) for x in r_star), "--json")
    assert code == 0, err
    assert json.loads(out)["achievable"] is True
