"""F3AST Theorem III.5 explicit form: the certificate in quick mode and its Var2 bound by hand."""

import numpy as np
import pytest

from verify.scenarios.f3ast import sampling_variance_lb5 as _sampling_variance_lb5

# the group's records come from conftest's shared quick run (its tests run on that run's worker)
pytestmark = pytest.mark.xdist_group("quick_suite")


@pytest.fixture(scope="module")
def t35(quick_groups):
    """``run_suite(["F3AST.T3.5"], quick=True, device="cpu", seed=0)``, read from the shared quick run."""
    return {v.id: v for v in quick_groups["F3AST.T3.5"]}


def test_explicit_holds_and_control_fails(t35):
    cert, ctl = t35["F3AST.T3.5@explicit"], t35["F3AST.T3.5.control:schedule@explicit"]
    eq19 = t35["F3AST.T3.5@explicit-eq19"]
    assert cert.verdict == "holds" and cert.ci[1] <= cert.rhs
    assert ctl.verdict == "violated" and ctl.control and ctl.ci[0] > ctl.rhs
    # the control breaks the named schedule hypothesis (steps 0.002 x the proof's: beta mu = 0.004 < 1)
    assert [c["name"] for c in ctl.conditions if c["holds"] is False] == [ctl.instance["broken_hypothesis"]]
    assert ctl.instance["point"]["step_scale"] == 0.002
    assert eq19.verdict == "holds"
    # L = 1: the printed eq. (19) drops L/2, so its RHS is twice the explicit one
    assert np.isclose(eq19.rhs, 2 * cert.rhs)
    # a gap after 200 rounds is positive; at the admissible E = 9 (E > 8L/mu) the bound is loose: measured
    # ratio 0.0011, its drift and sampling terms carry G^2 measured on the run
    assert 0 < cert.lhs and 1e-4 < cert.ratio < 0.01
    assert cert.trials >= 1000


def test_explicit_rhs_by_hand(t35):
    cert = t35["F3AST.T3.5@explicit"]
    i = cert.instance["result_inputs"]
    L, mu, E, T = i["L"], i["mu"], i["E"], i["T"]
    gp = max(8 * L / mu, E) - 1
    var1 = sum(pk**2 * s for pk, s in zip(i["p"], i["sigma2"])) + 6 * L * i["Gamma"] + 8 * (E - 1) ** 2 * i["G"] ** 2
    v = max(4 * (var1 + i["var_s"]) / mu**2, (gp + 1) * i["D0"])
    assert np.isclose(cert.rhs, L / 2 * v / (gp + T * E), rtol=1e-12)


def test_var2_lb5_table1_by_hand():
    # Table I policy: {1} w.p. 3/8, {2} w.p. 1/2, nobody w.p. 1/8; p = (1/2, 1/2)
    subsets, probs, p = np.array([[1, 0], [0, 1], [0, 0]]), np.array([3 / 8, 1 / 2, 1 / 8]), np.array([0.5, 0.5])
    r1, r2 = 3 / 8, 1 / 2
    # D Sigma D with D = diag(p/r): entries written out
    a = (0.5 / r1) ** 2 * r1 * (1 - r1)
    c = (0.5 / r2) ** 2 * r2 * (1 - r2)
    b = -(0.5 / r1) * (0.5 / r2) * r1 * r2
    lam = (a + c) / 2 + np.sqrt(((a - c) / 2) ** 2 + b**2)
    steps = np.array([0.25, 0.2])
    got, lam_got = _sampling_variance_lb5(subsets, probs, p, steps, 3.0)
    assert np.isclose(lam_got, lam)
    assert np.isclose(got, 2 * lam * (0.45 / 0.2) ** 2 * 3.0)


def test_var2_lb5_bounds_monte_carlo_sampling_variance():
    # any updates with sum_k ||v_k||^2 <= N (sum eta)^2 G^2: E||Delta - vbar||^2 / eta_E^2 <= the bound
    rng = np.random.default_rng(0)
    subsets, probs, p = np.array([[1, 0], [0, 1], [0, 0]]), np.array([3 / 8, 1 / 2, 1 / 8]), np.array([0.5, 0.5])
    steps, G2 = np.array([0.25, 0.2]), 2.0
    bound, _ = _sampling_variance_lb5(subsets, probs, p, steps, G2)
    r = probs @ subsets
    for _ in range(20):
        V = rng.standard_normal((2, 3))
        V *= steps.sum() * np.sqrt(G2) / np.linalg.norm(V, axis=1, keepdims=True)  # ||v_k|| = (sum eta) G
        exact = sum(pr * np.sum(((p / r * s) @ V - p @ V) ** 2) for s, pr in zip(subsets, probs))
        assert exact / steps[-1] ** 2 <= bound * (1 + 1e-12)
