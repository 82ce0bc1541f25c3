"""`certified` means the dual certificate passed an exact rational recheck; a perturbed one is refused."""

import dataclasses

import numpy as np
import pytest

pytest.importorskip("cvxpy")

from verify.pep import Setting  # noqa: E402
from verify.pep.exact import recheck  # noqa: E402
from verify.pep.sdp import build, solve_sdp  # noqa: E402

S = Setting("local_gd", L=1.0, mu=0.1, zeta=0.5, eta=0.3, K=2, R=2, M=2)


@pytest.fixture(scope="module")
def solved():
    return solve_sdp(build(S))


def test_the_solver_certificate_passes_the_exact_recheck(solved):
    rc = recheck(S, solved)
    assert rc["ok"] and rc["frobenius_residual"] <= rc["t"]
    # the proved bound is the exact weighted sum of the bounds' right-hand sides, as a fraction
    num, den = map(int, rc["bound_exact"].split("/"))
    assert rc["bound"] >= num / den and abs(rc["bound"] - solved.primal) <= 1e-6


def test_a_certificate_claiming_less_is_refused(solved):
    """Lowering the initial-distance multiplier by 1% claims a smaller bound: S is then not PSD."""
    bd = list(solved.bound_duals)
    bd[0] *= 0.99
    rc = recheck(S, dataclasses.replace(solved, bound_duals=bd))
    assert not rc["ok"] and rc["bound"] is None and "not" in rc["reason"]


def test_perturbed_interpolation_multipliers_are_refused(solved):
    rng = np.random.default_rng(0)
    duals = [d * (1 + 0.2 * rng.standard_normal(d.shape)) for d in solved.interp_duals]
    rc = recheck(S, dataclasses.replace(solved, interp_duals=duals))
    assert not rc["ok"]


def test_solve_reports_approximate_with_residuals_when_the_recheck_fails(monkeypatch):
    import verify.pep.sdp as sdp
    from verify.pep import solve

    real = sdp.solve_sdp

    def lying(pb, solver="CLARABEL", **kw):
        sol = real(pb, solver, **kw)
        return dataclasses.replace(sol, bound_duals=[b * 0.99 for b in sol.bound_duals])

    monkeypatch.setattr(sdp, "solve_sdp", lying)
    wc = solve(S, with_coverage=False)
    cert = wc.certificate
    assert cert["status"] == "approximate" and cert["proved_upper_bound"] is None
    assert cert["min_eig_float"] < 0 and cert["reason"]
