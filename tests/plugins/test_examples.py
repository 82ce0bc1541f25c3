"""The outside examples in docs/examples: formulas against the sources' numbers, certificates against numpy."""

import math

import numpy as np
from plugin_helpers import EXAMPLES, run_cli

from bounds import plugins
from verify import Context

GD, SGD = str(EXAMPLES / "gd_drori_teboulle.py"), str(EXAMPLES / "sgd_pesto_one_step.py")


def _module(path):
    plugins.add_files([path])  # registered, so certificate() finds its result by key
    return plugins.load_file(path)


def test_gd_bound_matches_pepit_printed_value():
    res = _module(GD).results()[0]
    # PEPit's example: L = 3, gamma = 1/L, n = 4 prints 0.166667 = L / (2 (2 n L gamma + 1)) = 3 / 18
    assert abs(float(res.evaluate({"L": 3, "gamma": 1 / 3, "n": 4, "D2": 1}).value) - 3 / 18) < 1e-12
    assert res.check({"L": 3, "gamma": 0.5, "n": 4, "D2": 1}).holds is False  # gamma > 1/L


def test_sgd_bound_matches_pepit_printed_value():
    res = _module(SGD).results()[0]
    # PEPit's example: mu = 0.1, L = 1, v = 1, R = 2 prints 5.04165
    a = 0.9
    expected = 0.5 * a * a * 4 + 0.5 * a * 2 * math.sqrt(a * a * 4 + 4) + 1
    assert abs(expected - 5.04165) < 1e-5
    assert abs(float(res.evaluate({"L": 1, "mu": 0.1, "R2": 4, "v2": 1}).value) - expected) < 1e-12
    assert res.status[0].value == "INFERRED"


def test_gd_certificate_lhs_is_exact_gradient_descent():
    (v,) = _module(GD).certify(Context(trials=2, seed=3, device="cpu"))
    from quadratics import heterogeneous_quadratic

    pb = heterogeneous_quadratic(L=1.0, mu=0.01, d=20, M=4, zeta=1.0, sigma=0.0, D0=1.0, seed=3)
    x = np.zeros(pb.d)
    for _ in range(10):  # gradient descent with gamma = 1/L on F(x) = 1/2 ||x - x*||_A^2 + const
        x = x - pb.lam * (x - pb.x_star) / pb.lam.max()
    gap = 0.5 * np.sum(pb.lam * (x - pb.x_star) ** 2)
    assert abs(v.lhs - gap) < 1e-9 * max(1.0, gap)
    assert abs(v.rhs - 1.0 / (4 * 10 + 2)) < 1e-12  # L D0 / (4 n L gamma + 2) with L = D0 = 1
    assert v.verdict == "holds"


def test_sgd_certificate_mean_matches_exact_expectation():
    (v,) = _module(SGD).certify(Context(trials=4000, seed=1, device="cpu"))
    from quadratics import heterogeneous_quadratic

    pb = heterogeneous_quadratic(L=1.0, mu=0.1, d=8, M=5, zeta=1.0, sigma=0.0, D0=4.0, seed=1)
    x1 = -pb.lam * (0.0 - pb.b) / pb.lam.max()  # x0 = 0, one step on client i, every i equally likely
    exact = float(np.mean(np.sum((x1 - pb.x_star) ** 2, axis=1)))
    half = (v.ci[1] - v.ci[0]) / 2  # 99% half-width = 2.58 standard errors; allow 4 standard errors
    assert abs(v.lhs - exact) <= half * 4 / 2.58
    v2 = float(np.mean(np.sum((pb.lam * (pb.b - pb.x_star)) ** 2, axis=1)))
    a = 1 - 0.1
    rhs = 0.5 * a * a * 4 + 0.5 * a * 2 * math.sqrt(a * a * 4 + 4 * v2) + v2
    assert abs(v.rhs - rhs) < 1e-9 and v.verdict == "holds"


def test_examples_run_from_the_command_line(tmp_path):
    out = run_cli(["--plugin", GD, "--plugin", SGD, "verify", "DT14.T3.1", "PESTO.SGD", "--trials", "200", "--json",
                   "--device", "cpu"])
    assert out.returncode == 0, out.stderr
    import json

    recs = {r["id"]: r for r in json.loads(out.stdout)}
    assert recs["DT14.T3.1"]["verdict"] == "holds" and recs["PESTO.SGD"]["verdict"] == "holds"
    assert recs["PESTO.SGD"]["instance"]["origin"] == f"file {SGD}"
