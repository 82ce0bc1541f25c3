"""Exact worst cases by performance estimation: closed forms, the two-client reduction, engine replays.

Every expected number is computed here by plain arithmetic, never by verify.pep.
"""

import math

import pytest

pytest.importorskip("PEPit")

from bounds.core.errors import UserInputError  # noqa: E402
from verify.pep import Law, Setting, snapshot_schedule, solve  # noqa: E402

TOL = 1e-6


def _certified(wc):
    assert wc.solver_status in ("optimal", "optimal_inaccurate"), wc.solver_status
    assert wc.certificate["status"] == "certified", wc.certificate
    return wc.value


# Closed forms ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("L,mu,eta", [(1.0, 0.1, 1.0), (1.0, 0.1, 1.5), (2.0, 0.5, 0.2), (1.0, 0.0, 0.5)])
def test_one_gradient_step_is_max_of_endpoint_contractions(L, mu, eta):
    """One client, one local step, zeta = 0: worst ||x1 - x*||^2 = max((1 - eta mu)^2, (1 - eta L)^2)."""
    wc = solve(Setting("local_gd", L=L, mu=mu, zeta=0.0, eta=eta, K=1, R=1, M=1), with_coverage=False)
    expected = max((1 - eta * mu) ** 2, (1 - eta * L) ** 2)
    assert abs(_certified(wc) - expected) <= TOL


@pytest.mark.parametrize("N", [1, 3])
def test_convex_gd_matches_drori_teboulle(N):
    """Convex GD with eta = 1/L: worst F(x_N) - F* = L / (4N + 2) ||x0 - x*||^2 (Drori-Teboulle, tight)."""
    L = 2.0
    wc = solve(Setting("local_gd", L=L, mu=0.0, zeta=0.0, eta=1 / L, K=1, R=N, M=1, measure="gap"),
               with_coverage=False)
    assert abs(_certified(wc) - L / (4 * N + 2)) <= TOL


def test_local_steps_of_one_client_are_gd_steps():
    """K local steps, R rounds, one client: GD for K*R steps, max(|1 - eta mu|, |1 - eta L|)^(2KR)."""
    L, mu, eta, K, R = 1.0, 0.2, 1.2, 2, 2
    wc = solve(Setting("local_gd", L=L, mu=mu, zeta=0.0, eta=eta, K=K, R=R, M=1), with_coverage=False)
    assert abs(_certified(wc) - max(abs(1 - eta * mu), abs(1 - eta * L)) ** (2 * K * R)) <= TOL


def test_fast_subset_rounds_without_heterogeneity_keep_the_gd_contraction():
    """zeta = 0: every client shares x*, so a one-client round contracts like a full one: (1 - eta mu)^(2KR)."""
    L, mu, eta, K, R = 1.0, 0.1, 0.5, 2, 3
    s = Setting("fast", L=L, mu=mu, zeta=0.0, eta=eta, K=K, R=R, M=2, schedule=snapshot_schedule(R, 2, 2, 1))
    assert abs(_certified(solve(s, with_coverage=False)) - (1 - eta * mu) ** (2 * K * R)) <= TOL


def test_heterogeneity_makes_local_gd_worse_and_scaffold_removes_part_of_it():
    """zeta > 0 adds drift: local GD's worst case grows with zeta; it never falls below the zeta = 0 one."""
    base = dict(L=1.0, mu=0.1, eta=0.3, K=2, R=2, M=2)
    w0 = _certified(solve(Setting("local_gd", zeta=0.0, **base), with_coverage=False))
    w1 = _certified(solve(Setting("local_gd", zeta=0.5, **base), with_coverage=False))
    w2 = _certified(solve(Setting("local_gd", zeta=1.0, **base), with_coverage=False))
    assert w0 < w1 < w2
    assert abs(w0 - (1 - 0.3 * 0.1) ** 8) <= TOL


# Two clients are enough for symmetric methods ---------------------------------------------------------

@pytest.mark.parametrize("method", ["local_gd", "scaffold"])
def test_two_clients_give_the_same_worst_case_as_four(method):
    common = dict(L=1.0, mu=0.1, zeta=0.5, eta=0.3, K=2, R=2)
    w2 = _certified(solve(Setting(method, M=2, **common), with_coverage=False))
    w4 = solve(Setting(method, M=4, **common), with_coverage=False)
    assert w4.value is not None and abs(w2 - w4.value) <= TOL


# Replay in the engine ------------------------------------------------------------------------------

@pytest.mark.parametrize("method,eta,K,R,eta_g", [("local_gd", 1.5, 1, 1, 1.0), ("local_gd", 0.5, 2, 2, 0.5),
                                                  ("scaffold", 0.5, 2, 2, 1.0)])
def test_worst_case_is_attained_by_a_one_dimensional_quadratic_in_the_engine(method, eta, K, R, eta_g):
    """zeta = 0: the worst case is the extreme curvature's 1-D quadratic; the engine run reaches the PEP value."""
    pytest.importorskip("torch")
    from verify.pep import replay_quadratic, worst_curvature

    s = Setting(method, L=1.0, mu=0.1, zeta=0.0, eta=eta, K=K, R=R, M=2, eta_g=eta_g)
    value = _certified(solve(s, with_coverage=False))
    h = worst_curvature(s, [s.mu, s.L])
    # the contraction per round of local GD on curvature h, by hand (SCAFFOLD with zeta = 0 coincides)
    by_hand = abs(1 - eta_g * (1 - (1 - eta * h) ** K)) ** (2 * R)
    assert abs(replay_quadratic(s, h) - by_hand) <= 1e-12
    assert abs(replay_quadratic(s, h) - value) <= TOL


# Encoded bounds --------------------------------------------------------------------------------------

def test_fast_t2_covers_deterministic_full_participation_and_its_ratio_is_the_worst_over_the_bound():
    L, mu, zeta, eta, K, R = 1.0, 0.1, 0.1, 0.003, 2, 3
    wc = solve(Setting("local_gd", L=L, mu=mu, zeta=zeta, eta=eta, K=K, R=R, M=2))
    rows = {row["key"]: row for row in wc.coverage}
    t2 = rows["FAST.T2"]
    # FAST Theorem 2 with q = 1, sigma = 0, kappa = 1: kappa e^{-K R eta mu} + 8 K eta sigma_G^2 / mu
    bound = math.exp(-K * R * eta * mu) + 8 * K * eta * zeta**2 / mu
    assert t2["covers"] == "yes" and abs(t2["bound"] - bound) <= 1e-12
    assert abs(t2["ratio"] - wc.value / bound) <= 1e-12
    assert t2["hypotheses_hold"] is True and t2["ratio"] <= 1.0
    # every registry result appears once, with a reason
    from bounds.registry import all_results

    assert sorted(rows) == sorted(r.key for r in all_results())
    assert all(row["reason"] for row in rows.values())
    assert rows["ASCAF.T1"]["covers"] == "no"


def test_a_fixed_schedule_is_not_claimed_by_fast_t2():
    s = Setting("fast", L=1.0, mu=0.1, zeta=0.1, eta=0.003, K=1, R=2, M=2, schedule=snapshot_schedule(2, 2, 2, 1))
    rows = {row["key"]: row for row in solve(s).coverage}
    assert rows["FAST.T2"]["covers"] == "no" and "realisation" in rows["FAST.T2"]["reason"]


def test_record_carries_parameters_certificate_and_versions():
    wc = solve(Setting("local_gd", L=1.0, mu=0.1, zeta=0.0, eta=1.0, M=1))
    d = wc.to_dict()
    for key in ("method", "parameters", "value", "primal_value", "exactness", "symmetry", "solver_status",
                "certificate", "solve_seconds", "seeds", "versions", "coverage", "size"):
        assert key in d
    assert d["versions"]["cvxpy"] and d["parameters"]["eta"] == 1.0 and d["exactness"] == "exact"
    # a certified value is the exactly rechecked bound, within the solver's accuracy of the attained primal
    assert d["certificate"]["proved_upper_bound"] == d["value"] and 0 <= d["value"] - d["primal_value"] <= 1e-6


# The direct SDP against PEPit's own formulation --------------------------------------------------------

@pytest.mark.parametrize("method,kw", [("local_gd", dict(zeta=0.5, K=2, R=2)), ("scaffold", dict(zeta=0.5, K=2, R=2)),
                                       ("local_gd", dict(zeta=0.3, K=1, R=3, measure="gap")),
                                       ("fast", dict(zeta=0.5, K=2, R=3, schedule=snapshot_schedule(3, 2, 2, 1)))])
def test_direct_sdp_agrees_with_pepit(method, kw):
    """Two independent formulations of the same deterministic PEP give the same value."""
    from verify.pep.pepit_backend import solve_pepit

    s = Setting(method, L=1.0, mu=0.1, eta=0.3, M=2, **kw)
    tau, status, _ = solve_pepit(s)
    assert tau is not None and status in ("optimal", "optimal_inaccurate")
    assert abs(_certified(solve(s, with_coverage=False)) - tau) <= 1e-6


# Bad input --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs,word", [
    (dict(method="newton"), "method"), (dict(eta=0.0), "eta"), (dict(mu=2.0), "mu"), (dict(K=0), "K"),
    (dict(zeta=-1.0), "zeta"), (dict(measure="loss"), "measure"), (dict(K=20, R=5), "too large"),
    (dict(method="fast"), "schedule"),
])
def test_bad_settings_are_refused_with_a_reason(kwargs, word):
    base = dict(method="local_gd", L=1.0, mu=0.1, zeta=0.0, eta=0.5)
    with pytest.raises(UserInputError, match=word):
        solve(Setting(**{**base, **kwargs}))


def test_a_solved_record_renders_in_the_report_section():
    from reports.document import fmt
    from reports.worstcase_section import worstcase_section

    wc = solve(Setting("local_gd", L=1.0, mu=0.1, zeta=0.0, eta=1.0, M=1))
    html = worstcase_section([wc])
    assert fmt(wc.value, 8) in html and wc.certificate["status"] in html


def test_fast_schedule_depends_on_the_cohort_fraction_not_on_the_number_of_clients():
    common = dict(L=1.0, mu=0.1, zeta=0.5, eta=0.3, K=2, R=2)

    def value(M, S):
        return solve(Setting("fast", M=M, schedule=snapshot_schedule(2, M, 2, S), **common), with_coverage=False).value

    half2, half4, quarter = value(2, 1), value(4, 2), value(4, 1)
    assert abs(half2 - half4) <= TOL
    assert quarter > half2 + 1e-4  # one client of four drifts further than one of two


def test_two_clients_suffice_for_the_convex_gap_too():
    common = dict(L=1.0, mu=0.0, zeta=0.5, eta=0.5, K=2, R=2, measure="gap")
    w2 = _certified(solve(Setting("local_gd", M=2, **common), with_coverage=False))
    w3 = solve(Setting("local_gd", M=3, **common), with_coverage=False).value
    assert abs(w2 - w3) <= TOL


@pytest.mark.parametrize("method,kw", [
    ("local_gd", dict(zeta=0.5)), ("scaffold", dict(zeta=0.5)), ("local_gd", dict(zeta=0.3, measure="gap")),
    ("local_gd", dict(zeta=0.0)), ("local_gd", dict(zeta=0.5, law=Law("uniform", m=1))),
    ("scaffold", dict(zeta=0.5, law=Law("uniform", m=1))), ("local_gd", dict(zeta=0.3, law=Law("bernoulli", p=0.5))),
    ("fast", dict(zeta=0.5, law=Law("snapshot", q=0.3, m=2, other="uniform", n=1))),
])
def test_swap_invariant_solution_equals_the_full_sdp(method, kw):
    """Two clients treated alike by the law: the SDP restricted to swap-invariant Gram matrices (mirrored
    branches paired) gives the full value, and its symmetrised certificate passes the exact recheck of the
    full problem."""
    from verify.pep.exact import recheck
    from verify.pep.sdp import build, solve_sdp, swap_basis

    s = Setting(method, L=1.0, mu=0.1, eta=0.3, K=2, R=2, M=2, **kw)
    pb = build(s)
    assert swap_basis(pb) is not None
    full, sym = solve_sdp(pb), solve_sdp(pb, symmetric=True)
    assert abs(full.value - sym.value) <= 1e-6
    rc = recheck(s, sym)
    assert rc["ok"] and abs(rc["bound"] - full.primal) <= 1e-6


def test_a_law_that_treats_the_clients_differently_is_not_symmetrised():
    from verify.pep.sdp import build, swap_basis

    s = Setting("fast", L=1.0, mu=0.1, zeta=0.5, eta=0.3, K=2, R=2, M=2,
                law=Law("snapshot", q=0.5, m=2, other="cohort", n=1))
    assert swap_basis(build(s)) is None
