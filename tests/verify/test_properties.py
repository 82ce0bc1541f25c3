"""Property tests of encoded results over the valid parameter sets that verify.testing.strategies generates."""

import math

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import bounds
from verify.testing.strategies import params_for

FAST = settings(max_examples=15, deadline=None, database=None, phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck))


@FAST
@given(params_for("FAST.T1", q=st.just(1.0)), st.integers(2, 10))
def test_fast_t1_rhs_decreases_in_R_to_its_floor(values, factor):
    res = bounds.get("FAST.T1")
    a = float(res.evaluate(values).value)
    b = float(res.evaluate(dict(values, R=values["R"] * factor)).value)
    terms = res.evaluate(values).terms
    floor = float(terms["statistical"] + terms["heterogeneity"])
    assert floor <= b <= a * (1 + 1e-12)


@FAST
@given(params_for("FAST.T2"))
def test_fast_t2_corrected_differs_only_by_sigma_g_factor(values):
    pub = bounds.get("FAST.T2").evaluate(values).terms["partial participation"]
    cor = bounds.get("FAST.T2@corrected").evaluate(values).terms["partial participation"]
    assert math.isclose(float(cor), float(pub) * values["sigma_G"] ** 2, rel_tol=1e-9, abs_tol=1e-300)


@FAST
@given(params_for("F3AST.LB.5"))
def test_lb5_trace_is_a_variance(values):
    # Tr(Y Y^T Sigma) >= 0 for a covariance Sigma; computed here by hand from the inputs
    p, r, v, S = (np.asarray(values[k]) for k in ("p", "r", "v", "Sigma"))
    Y = (p / r)[:, None] * v
    tr = float(np.trace(Y @ Y.T @ S))
    assert tr >= -1e-12
    assert math.isclose(float(bounds.get("F3AST.LB.5").evaluate(values).value), tr / values["eta"] ** 2,
                        rel_tol=1e-9, abs_tol=1e-12)
