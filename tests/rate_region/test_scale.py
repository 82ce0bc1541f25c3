"""r* at scale: the blocked Poisson-binomial DP, the optimality certificate, an independent Frank-Wolfe
bound on H*, and complete `region --json` output at any N (issue 10 finding 4)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rate_region.availability import Cap, Independent, make_cap
from rate_region.optimum import min_variance_rates
from rate_region.poisson_binomial import below_cap
from reports.cli.main import main


# Reference written here: one client at a time, the full count distribution (no truncation, no blocks)
def ref_below_cap(p: np.ndarray, s: np.ndarray) -> np.ndarray:
    dist = np.zeros(p.size + 1)
    dist[0] = 1.0
    sfull = np.zeros(p.size + 1)
    sfull[: min(s.size, p.size + 1)] = s[: p.size + 1]
    out = np.empty(p.size)
    for i, pi in enumerate(p):
        out[i] = dist @ sfull  # P(X_i < K) = sum_m P(X_i = m) P(K > m)
        dist[1:] = dist[1:] * (1 - pi) + dist[:-1] * pi
        dist[0] *= 1 - pi
    return out


@pytest.mark.parametrize("n,block", [(1, 64), (63, 64), (200, 16), (333, 7)])
@pytest.mark.parametrize("cap", [{"values": (3,), "probs": (1.0,)}, {"values": (1, 4, 9), "probs": (0.2, 0.5, 0.3)},
                                 {"values": (500,), "probs": (1.0,)}])
def test_below_cap_equals_the_one_client_at_a_time_dp(n, block, cap):
    rng = np.random.default_rng(n + block)
    p = rng.uniform(0.0, 1.0, n)
    s = Cap(**cap).survival()
    a, dropped = below_cap(p, s, block=block)
    np.testing.assert_allclose(a, ref_below_cap(p, s), rtol=1e-12, atol=1e-15)
    # early stop: what was left out is bounded, and really is that small
    assert dropped >= 0
    assert float(p @ (ref_below_cap(p, s) - a)) <= dropped + 1e-12 * float(p @ a)  # rounding aside


def test_below_cap_stops_early_once_the_cap_binds_and_bounds_what_it_left_out():
    p = np.full(20_000, 0.5)  # mean count passes k = 10 after about 20 clients
    a, dropped = below_cap(p, make_cap(10).survival())
    ref = ref_below_cap(p[:2000], make_cap(10).survival())
    stop = int(np.flatnonzero(a)[-1]) + 1
    assert stop < 2000  # it did stop early
    np.testing.assert_allclose(a[:stop], ref[:stop], rtol=1e-12)
    left_out = float(p[:2000] @ ref) - float(p[:2000] @ a[:2000])  # the reference's tail beyond the stop
    assert 0 <= left_out - float(p[stop:2000] @ ref[stop:]) + 1e-15 and float(p[stop:2000] @ ref[stop:]) <= dropped
    assert 0 < dropped < 1e-18 and float(p @ a) == pytest.approx(10.0, rel=1e-12)  # E min(X, 10) -> 10


# H* against a Frank-Wolfe lower bound written here (N = 2000)
def rank_prefixes(q: np.ndarray, k: int, order: np.ndarray) -> np.ndarray:
    """g of each prefix of ``order``: E[min(|A n U|, k)] for independent availability q, by a direct DP."""
    dist = np.zeros(k + 1)  # P(X = 0..k-1), last cell: X >= k
    dist[0] = 1.0
    g = np.zeros(order.size + 1)
    for j, i in enumerate(order):
        qi = q[i]
        new = dist * (1 - qi)
        new[1:] += dist[:-1] * qi
        new[k] += dist[k] * qi
        dist = new
        g[j + 1] = dist[:k] @ np.arange(k) + k * dist[k]
    return g


def greedy_vertex(q, k, d):
    """argmax_{x in R} d.x for d >= 0 (Edmonds' greedy: prefixes by decreasing d)."""
    order = np.argsort(-d, kind="stable")
    x = np.zeros(d.size)
    x[order] = np.diff(rank_prefixes(q, k, order))
    return x


def test_H_star_against_an_independent_frank_wolfe_bound():
    rng = np.random.default_rng(3)
    n, k = 2000, 40
    q = rng.uniform(0.05, 0.95, n)
    p = rng.dirichlet(np.full(n, 0.05))  # skewed weights: several saturated clients, many blocks
    opt = min_variance_rates(Independent.build(q, k, p))
    w = p**2
    f = lambda x: float(np.sum(w / x))  # noqa: E731

    # a strictly positive start: the mean of greedy vertices whose orders are shifted by k, so every
    # client is among the first k of one order (where its marginal is not negligible)
    x = np.zeros(n)
    base = rng.permutation(n)
    shifts = range(0, n, k)
    for s in shifts:
        order = np.roll(base, -s)
        x[order] += np.diff(rank_prefixes(q, k, order)) / len(shifts)
    assert x.min() > 0
    best_lower, best_upper = -np.inf, f(x)
    for _ in range(40):
        d = w / x**2
        v = greedy_vertex(q, k, d)
        gap = float(d @ v - d @ x)
        best_lower = max(best_lower, f(x) - gap)  # convexity: H* >= H(x) - max_v grad.(x - v)
        # exact line search on [0, 1] by bisection of the derivative of H(x + t (v - x))
        lo, hi = 0.0, 1.0
        for _ in range(60):
            t = (lo + hi) / 2
            y = x + t * (v - x)
            if np.any(y <= 0) or -np.sum(w / y**2 * (v - x)) > 0:
                hi = t
            else:
                lo = t
        x = x + lo * (v - x)
        best_upper = min(best_upper, f(x))  # FW iterates stay in R
    assert best_lower <= opt.H * (1 + 1e-12)
    assert opt.H <= best_upper * (1 + 1e-12)
    assert best_lower > 0.5 * opt.H  # the bound is not vacuous
    # the duality gap at r* with this file's own oracle: zero to rounding, so r* is optimal (given feasible)
    d = w / opt.r_star**2
    gap = float(d @ greedy_vertex(q, k, d) - d @ opt.r_star)
    assert abs(gap) <= 1e-9 * opt.H
    # feasibility with this file's DP, on the prefixes by r/q (the maximally violated sets of a product law)
    order = np.argsort(-opt.r_star / q, kind="stable")
    assert np.max(np.cumsum(opt.r_star[order]) - rank_prefixes(q, k, order)[1:]) <= 1e-10
    assert len(opt.blocks) > 5


def test_certificate_brackets_H_and_names_the_tight_sets():
    rng = np.random.default_rng(0)
    n = 5000
    opt = min_variance_rates(Independent.build(rng.uniform(0.05, 0.95, n), 50, rng.dirichlet(np.full(n, 0.1))))
    c = opt.kkt
    assert c["tight_sets"] == len(opt.blocks) > 1
    assert c["H_lower"] <= opt.H * (1 + 1e-12) and opt.H <= c["H_upper"] * (1 + 1e-12)
    assert 0 <= c["relative_gap"] + 1e-12 and c["relative_gap"] < 1e-9
    assert c["max_rank_violation"] < 1e-9 and c["rank_ratio"] < 1 + 1e-9 and c["min_multiplier"] > 0


def test_certificate_catches_a_wrong_answer():
    """The same certificate evaluated at a perturbed r shows a gap: it is not a formality."""
    from rate_region import polymatroid as pm
    from rate_region.optimum import kkt_report

    rng = np.random.default_rng(1)
    n = 300
    model = Independent.build(rng.uniform(0.05, 0.95, n), 20, rng.dirichlet(np.ones(n)))
    opt = min_variance_rates(model)
    rank = pm.rank_function(model, 20)
    sol = pm.lex_optimal_structured(rank, np.sqrt(opt.p**2))
    r_bad = opt.r_star * np.exp(rng.normal(0, 0.05, n))
    bad = kkt_report(rank, r_bad, opt.p**2, sol)
    assert bad["relative_gap"] > 1e-4


# Finding 4: complete output at any N
def _region(capsys, *args):
    with pytest.raises(SystemExit) as info:
        main(["region", *args])
    out = capsys.readouterr()
    return info.value.code, out.out, out.err


N_OVER = 100_001  # one more than main f26bf33 printed


def test_region_json_is_complete_beyond_100000_clients(capsys):
    code, out, _ = _region(capsys, "--model", "uneven", "--clients", str(N_OVER), "--json")
    d = json.loads(out)
    assert code == 0 and d["n_clients"] == N_OVER
    assert len(d["r_star"]) == N_OVER and len(d["p"]) == N_OVER
    assert sum(d["p"]) == pytest.approx(1.0, abs=1e-9)


def test_region_arrays_file_holds_every_client(capsys, tmp_path):
    path = tmp_path / "rstar.npz"
    code, out, _ = _region(capsys, "--model", "uneven", "--clients", str(N_OVER), "--json", "--arrays", str(path))
    d = json.loads(out)
    assert code == 0 and "r_star" not in d and d["arrays"]["file"] == str(path)
    with np.load(path) as z:
        assert z["r_star"].shape == (N_OVER,) and z["p"].shape == (N_OVER,)
        assert float(z["p"].sum()) == pytest.approx(1.0, abs=1e-9)
        assert d["arrays"]["lengths"]["r_star"] == N_OVER
        # the arrays reproduce the JSON's H = sum p^2 / r
        assert float(np.sum(z["p"] ** 2 / z["r_star"])) == pytest.approx(d["H"], rel=1e-12)
    code, _, err = _region(capsys, "--model", "uneven", "--json", "--arrays", str(path))
    assert code == 2 and "exists" in err  # never overwritten without --force
    code, _, err = _region(capsys, "--model", "uneven", "--arrays", str(tmp_path / "x.npz"))
    assert code == 2 and "--json" in err
