"""The banded route (verify.pep.banded) and the quadratic lower bounds (verify.pep.lower), at small sizes.

The banded value is a certified upper bound: never below the full PEP (verify.pep.solve, independent code and
basis), equal to it when the window keeps every pair; a tampered certificate is refused; the one-step case
has a closed form. The lower bounds are replayed by plain loops of local GD on the instance returned.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace

import numpy as np
import pytest

from bounds.core.errors import UserInputError
from verify.pep import Law, Setting, solve
from verify.pep.banded import solve_banded
from verify.pep.banded_build import build_banded, chordal_cliques
from verify.pep.banded_sdp import recheck_banded, solve_banded_sdp
from verify.pep.lower import one_dimensional, power_sum, two_dimensional

BASE = dict(L=1.0, mu=0.1, zeta=0.5, eta=0.1, M=2)


def _full(s: Setting):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return solve(s, with_coverage=False, max_seconds=1e9)


def _solver_accuracy(status: str) -> float:
    """The relative gap Clarabel guarantees at ``status`` (its default settings, read from the installed solver)."""
    import clarabel

    settings = clarabel.DefaultSettings()
    return settings.tol_gap_rel if status == "optimal" else settings.reduced_tol_gap_rel


@pytest.mark.parametrize("K,R", [(2, 2), (3, 2), (1, 4)])
def test_banded_never_below_the_full_pep_and_equal_when_every_pair_is_kept(K, R):
    s = Setting("local_gd", K=K, R=R, **BASE)
    full = _full(s)
    assert full.certificate["status"] == "certified"
    for w in (0, 1, 2):
        b = solve_banded(s, window=w, lower=False)
        assert b.certificate["status"] == "certified", b.certificate
        # the proved bound of a relaxation: at least the full problem's attained value (solver accuracy 1e-8)
        assert b.value >= full.primal_value - 1e-8, (w, b.value, full.primal_value)
        assert b.exactness == (f"upper bound (sparse certificate, window {w})" if w < K * R - 1 else "exact")
    every = solve_banded(s, window=K * R - 1, lower=False)
    assert every.exactness == "exact" and every.certificate["status"] == "certified"
    # equal up to the accuracy the solver reports: Clarabel's "optimal" meets its gap tolerance (1e-8 relative), its
    # "optimal_inaccurate" (AlmostSolved, the banded route's usual stop) only the reduced one (5e-5 relative)
    rel = max(_solver_accuracy(every.solver_status), _solver_accuracy(full.solver_status))
    assert abs(every.value - full.value) <= rel * full.value, (every.value, full.value, every.solver_status)


@pytest.mark.parametrize("over", [dict(eta_g=0.5), dict(eta_g=1.5), dict(mu=0.0), dict(M=1)])
def test_server_step_convex_class_and_one_client_against_the_full_pep(over):
    s = Setting("local_gd", **{**BASE, "eta": 0.2, "K": 2, "R": 3, **over})
    full = _full(s)
    every = solve_banded(s, window=5, lower=False)
    assert abs(every.value - full.value) <= 1e-5 * full.value, (every.value, full.value)
    assert solve_banded(s, window=1, lower=False).value >= full.primal_value - 1e-8


@pytest.mark.parametrize("eta,mu,L,D0,M", [(0.1, 0.1, 1.0, 1.0, 2), (1.5, 0.1, 1.0, 1.0, 2), (1.9, 0.1, 1.0, 1.0, 2),
                                            (0.5, 0.2, 2.0, 2.0, 3)])
def test_one_gd_step_matches_its_closed_form(eta, mu, L, D0, M):
    """K = R = 1, zeta = 0: ||x_1 - x*||^2 <= max(|1 - eta mu|, |1 - eta L|)^2 D0, attained by a quadratic."""
    s = Setting("local_gd", L=L, mu=mu, zeta=0.0, eta=eta, K=1, R=1, M=M, D0=D0)
    closed = max(abs(1 - eta * mu), abs(1 - eta * L)) ** 2 * D0
    wc = solve_banded(s, window=1)
    assert wc.certificate["status"] == "certified"
    assert closed - 1e-12 <= wc.value <= closed * (1 + 1e-6), (wc.value, closed)
    assert abs(wc.certificate["lower_bound"] - closed) <= 1e-12 * closed  # the bracket closes
    if M > 2:
        assert "M=2" in wc.symmetry


def _solved(K=2, R=3, w=1):
    s = Setting("local_gd", K=K, R=R, **BASE)
    pb = build_banded(s, w)
    keys = {k for *_, q, _ in pb.rows for k in q} | {k for _, q, _ in pb.bounds for k in q} | set(pb.objective)
    cliques, filled = chordal_cliques(pb.d, sorted(keys))
    sol = solve_banded_sdp(pb, sorted(filled), cliques, delta=1e-7)
    return pb, sol, filled


def test_the_exact_recheck_refuses_a_tampered_certificate():
    pb, sol, filled = _solved()
    good = recheck_banded(pb, sol, filled)
    assert good["ok"] and good["bound"] >= sol.primal - 1e-9
    tau = sum(float(b) * float(rhs) for b, (_, _, rhs) in zip(sol.beta, pb.bounds))
    assert abs(good["bound"] - tau) <= 1e-9  # the bound is sum beta_b b_b
    low_beta = replace(sol, beta=sol.beta * np.array([0.9] + [1.0] * (len(sol.beta) - 1)))
    bad = recheck_banded(pb, low_beta, filled)
    assert not bad["ok"] and bad["bound"] is None and "not" in bad["reason"]
    half = replace(sol, lam=sol.lam * 0.5)
    assert not recheck_banded(pb, half, filled)["ok"]
    none = replace(sol, lam=None)
    assert recheck_banded(pb, none, filled)["reason"] == "the solver returned no multipliers"


def test_chordal_cliques_of_a_path_and_of_a_cycle():
    cl, filled = chordal_cliques(4, [(0, 1), (1, 2), (2, 3)])
    assert sorted(map(sorted, cl)) == [[0, 1], [1, 2], [2, 3]] and (1, 3) not in filled
    cl, filled = chordal_cliques(4, [(0, 1), (1, 2), (2, 3), (0, 3)])  # eliminating 0 joins 1 and 3
    assert sorted(map(sorted, cl)) == [[0, 1, 3], [1, 2, 3]] and (1, 3) in filled


def test_more_clients_are_solved_with_two_under_full_participation():
    two = solve_banded(Setting("local_gd", K=2, R=2, **BASE), lower=False)
    four = solve_banded(Setting("local_gd", K=2, R=2, **{**BASE, "M": 4}), lower=False)
    assert four.value == two.value and "M=2" in four.symmetry


@pytest.mark.parametrize("over,word", [
    (dict(method="scaffold"), "supports"), (dict(sigma=0.1), "supports"), (dict(measure="gap"), "supports"),
    (dict(law=Law("uniform", m=1)), "supports"), (dict(mu=1.0), "mu < L"), (dict(R=10**22), "too large"), (dict(K=1000), "too large"),
])
def test_unsupported_or_oversized_settings_are_refused_in_one_line(over, word):
    s = replace(Setting("local_gd", K=2, R=2, **BASE), **over)
    # refused before building: R = 10^22 rounds or K = 1000 steps could not be built at all, so a refusal that
    # returns is one made from the sizes alone (no wall-clock assertion: the machine may be busy)
    with pytest.raises(UserInputError) as exc:
        solve_banded(s, max_seconds=60)
    assert word in str(exc.value) and "\n" not in str(exc.value)
    with pytest.raises(UserInputError, match="window"):
        solve_banded(Setting("local_gd", K=2, R=2, **BASE), window=-1)


def test_power_sum_matches_a_loop():
    A = np.random.default_rng(3).normal(size=(5, 2, 2)) * 0.5
    P, S = power_sum(A, 7)
    Pl, Sl = np.broadcast_to(np.eye(2), A.shape).copy(), np.zeros_like(A)
    for _ in range(7):
        Sl += Pl
        Pl = Pl @ A
    assert np.allclose(P, Pl, atol=1e-13) and np.allclose(S, Sl, atol=1e-13)


def test_one_dimensional_lower_bound_without_heterogeneity_is_the_contraction():
    s = Setting("local_gd", L=1.0, mu=0.1, zeta=0.0, eta=0.3, K=3, R=4, M=2, D0=2.0)
    value, inst = one_dimensional(s)
    assert abs(value - 2.0 * (1 - 0.3 * 0.1) ** (2 * 12)) <= 1e-12
    assert inst["dimension"] == 1


def test_two_dimensional_instance_is_in_the_class_and_replays_to_its_value():
    s = Setting("local_gd", K=3, R=5, **BASE)
    value, inst = two_dimensional(s, samples=400, seed=1)
    th, lam = inst["rotations"], inst["curvatures"]
    u, v = np.array(inst["x0_direction"]), np.array(inst["c_direction"])
    H = []
    for i in range(2):
        Rm = np.array([[math.cos(th[i]), -math.sin(th[i])], [math.sin(th[i]), math.cos(th[i])]])
        H.append(Rm @ np.diag(lam[i]) @ Rm.T)
        ev = np.linalg.eigvalsh(H[-1])
        assert s.mu - 1e-12 <= ev[0] and ev[1] <= s.L + 1e-12
    c = [s.zeta * v / np.linalg.norm(v), -s.zeta * v / np.linalg.norm(v)]
    a = [-np.linalg.solve(H[i], c[i]) for i in range(2)]  # grad f_i(0) = H_i (0 - a_i) = c_i, summing to 0
    x = math.sqrt(s.D0) * u / np.linalg.norm(u)
    for _ in range(s.R):  # local GD, full participation, plain loops
        ends = []
        for i in range(2):
            y = x.copy()
            for _ in range(s.K):
                y = y - s.eta * H[i] @ (y - a[i])
            ends.append(y)
        x = x + s.eta_g * (sum(ends) / 2 - x)
    assert abs(float(x @ x) - value) <= 1e-12 * max(1.0, value)
    upper = solve_banded(s, window=1, lower=False).value
    assert value <= upper  # a lower bound never exceeds the proved upper bound


def test_fixed_point_lower_bound_is_exactly_feasible_and_below_the_long_horizon_bound():
    from verify.pep.fixed_point import fixed_point_lower_bound

    none, why = fixed_point_lower_bound(Setting("local_gd", K=3, R=1, **{**BASE, "zeta": 0.0}))
    assert none is None and "x*" in why["reason"]  # without heterogeneity the only fixed point is x*
    s = Setting("local_gd", K=2, R=40, **BASE)
    fix, info = fixed_point_lower_bound(s)
    assert fix is not None and 0 < fix <= info["primal_value"] + 1e-9
    # 1-D quadratics h_i/2 (x - a_i)^2 with h_1 a_1 = -zeta = -h_2 a_2: x -> A x + b, fixed point b / (1 - A);
    # the proved value gives up at most theta of the solver's (theta recorded)
    best = 0.0
    for h1 in (0.1, 0.3, 0.55, 0.8, 1.0):
        for h2 in (0.1, 0.3, 0.55, 0.8, 1.0):
            q1, q2 = (1 - 0.1 * h1) ** 2 - 1, (1 - 0.1 * h2) ** 2 - 1
            A, b = 1 + (q1 + q2) / 2, -(q1 * (-0.5 / h1) + q2 * (0.5 / h2)) / 2
            best = max(best, (b / (1 - A)) ** 2)
    assert best > 1e-4 and fix >= best * (1 - 2 * info["theta"]) - 1e-9, (float(fix), best, info)
    upper = solve_banded(s, window=1, lower=False).value
    assert fix <= upper, (float(fix), upper)  # started at the fixed point, the run stays there for all 40 rounds
    # with a contraction of about 0.81 a round, 60 rounds forget x_0: the bound comes down to the fixed point
    fast = Setting("local_gd", K=2, R=60, **{**BASE, "eta": 0.5})
    fix, _ = fixed_point_lower_bound(fast)
    upper = solve_banded(fast, window=1, lower=False).value
    assert fix <= upper <= fix * (1 + 1e-3), (float(fix), upper)


def test_a_tampered_fixed_point_is_not_proved_above_the_optimum():
    """Inflating ||x_0||^2 in the solver's Gram matrix breaks interpolation: the exact check must then mix it with the
    strictly feasible point until feasible, never returning more than the one-round PEP's optimum."""
    from verify.pep.fixed_point import _prove, _q, _quadratic_point, _rational_gram, fixed_point_lower_bound

    s = Setting("local_gd", K=3, R=1, **BASE)
    fix, info = fixed_point_lower_bound(s)
    pb = build_banded(s, s.K, fixed_point=True)
    keys = {k for *_, q, _ in pb.rows for k in q} | {k for _, q, _ in pb.bounds for k in q} | set(pb.objective)
    cliques, filled = chordal_cliques(pb.d, sorted(keys))
    sol = solve_banded_sdp(pb, sorted(filled), cliques, delta=0.0)
    gram = dict(sol.gram)
    gram[(0, 0)] *= 1.5
    base = _quadratic_point(s, pb.d)
    quad = [[x * y for y in base] for x in base]
    v, theta = _prove(s, pb, _rational_gram(gram, pb.d), quad, _q(s.D0), _q(s.zeta) ** 2)
    assert theta is None or theta > 0.0  # the inflated matrix alone is refused
    assert v is None or v <= info["primal_value"] * (1 + 1e-6), (v, info)
    assert fix <= info["primal_value"] * (1 + 1e-6)


def test_an_oversized_full_pep_points_to_the_banded_route():
    from verify.pep import check_size

    with pytest.raises(UserInputError, match="--banded"):
        check_size(Setting("local_gd", K=5, R=200, **BASE), 600.0)
