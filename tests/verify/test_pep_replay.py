"""The worst instance of a mu = L setting, read off the Gram matrix, run in the engine to the PEP value."""

import pytest

pytest.importorskip("cvxpy")
pytest.importorskip("torch")

from verify.pep import Law, Setting, solve  # noqa: E402
from verify.pep.sweep import replay  # noqa: E402


@pytest.mark.parametrize("M,m,R", [(2, 1, 2), (3, 1, 3), (4, 2, 2)])
def test_worst_quadratic_instance_reaches_the_pep_value_in_the_engine(M, m, R):
    s = Setting("local_gd", L=1.0, mu=1.0, zeta=0.5, eta=0.2, K=2, R=R, M=M, law=Law("uniform", m=m))
    wc = solve(s, with_coverage=False)
    rep = replay(wc)
    # the exact expectation of the reconstructed instance (quadratics.exact, no sampling error) is the PEP value
    assert abs(rep["exact_expectation"] - wc.value) <= 1e-6
    # the engine's Monte-Carlo mean (4000 runs, seed 0) covers it within its interval at the level of means
    low, high = rep["engine_ci"]
    assert rep["level"] == 0.99 and high - low > 0
    assert low <= wc.value <= high and rep["status"] == "replayed"


def test_settings_without_a_known_instance_say_why():
    wc = solve(Setting("local_gd", L=1.0, mu=0.1, zeta=0.5, eta=0.3, K=2, R=1, M=2), with_coverage=False)
    rep = replay(wc)
    assert rep["status"] == "not replayed" and "mu = L" in rep["reason"]
