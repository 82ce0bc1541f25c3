"""r* where a client is almost never available: the certificate stays finite and closes."""

import warnings

import numpy as np

from rate_region.availability import Independent
from rate_region.optimum import min_variance_rates


def test_tiny_availability_keeps_a_finite_certificate():
    q = np.array([1e-300, 0.5, 0.5])
    model = Independent.build(q, 1, name="tiny")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow on the way (w / r^2 near 1e600 in float64)
        opt = min_variance_rates(model, 1, None, "p2")
    # client 0 gets its whole availability, r_0 = 1e-300: H = (1/9) / 1e-300 + 2 (1/9) / r_1, r_1 = r_2 = 3/8
    # (the other two share one slot each round: Pr(at least one of them) = 3/4, split evenly)
    assert np.isclose(opt.r_star[0], 1e-300, rtol=1e-12) and np.allclose(opt.r_star[1:], 0.375)
    H = (1 / 9) / 1e-300 + 2 * (1 / 9) / 0.375
    assert np.isclose(opt.H, H, rtol=1e-12)
    assert opt.status == "optimal"
    assert np.isfinite(opt.kkt["H_lower"]) and opt.kkt["relative_gap"] <= 1e-12
