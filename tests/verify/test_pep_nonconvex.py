"""Non-convex worst cases (verify.pep.nonconvex*): PEPit's smooth class and GD's known value as cross-checks,
and a perturbed certificate refused by the exact recheck."""

import contextlib
import dataclasses
import io
import warnings

import numpy as np
import pytest

pytest.importorskip("PEPit")

from bounds.core.errors import UserInputError  # noqa: E402
from verify.pep import Law  # noqa: E402
from verify.pep.nonconvex import NCSetting  # noqa: E402
from verify.pep.nonconvex_core import NCWorstCase, solve_nc  # noqa: E402
from verify.pep.nonconvex_rows import build_nc  # noqa: E402
from verify.pep.nonconvex_solve import pattern, recheck, solve_clarabel  # noqa: E402


def pepit_local_gd(L, eta, K, R, zeta, Delta, measure, patterns=((1.0, (0, 1)),)):
    """The same PEP written in PEPit (its SmoothFunction class, its own Gram and interpolation code): two
    clients, local GD, every client evaluated at every visited point, dissimilarity there, F >= F_inf by
    F(y) - F_inf >= ||grad F(y)||^2 / (2L) where grad F is known, F(x_0) - F_inf <= Delta."""
    from PEPit import PEP, Expression
    from PEPit.functions import SmoothFunction

    pep = PEP()
    f = [pep.declare_function(SmoothFunction, L=L) for _ in range(2)]
    finf = Expression()
    x0 = pep.set_initial_point()

    def site(y):
        out = [fi.oracle(y) for fi in f]
        gbar = 0.5 * (out[0][0] + out[1][0])
        for g, _ in out:
            pep.add_constraint((g - gbar) ** 2 <= zeta**2)
        pep.add_constraint(0.5 * (out[0][1] + out[1][1]) - finf >= gbar**2 / (2 * L))
        return out, gbar

    out0, gbar0 = site(x0)
    pep.add_constraint(0.5 * (out0[0][1] + out0[1][1]) - finf <= Delta)
    branches = [(1.0, x0, [gbar0], out0)]
    for _ in range(R):
        nxt = []
        for prob, x, grads, out in branches:
            moves = []
            for i in range(2):
                y, g = x, out[i][0]
                for k in range(K):
                    if k:
                        g = site(y)[0][i][0]
                    y = y - eta * g
                moves.append(y - x)
            for p, ids in patterns:
                xn = x
                for i in ids:
                    xn = xn + moves[i] / len(ids)
                o, gb = site(xn)
                nxt.append((prob * p, xn, grads + [gb], o))
        branches = nxt
    if measure == "min_grad_sq":
        for g in branches[0][2]:
            pep.set_performance_metric(g**2)
    else:  # avg over r = 1..R, expectation over branches
        pep.set_performance_metric(sum(p * g**2 for p, _, gs, _ in branches for g in gs[1:]) / R)
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(pep.solve(wrapper="cvxpy", solver="CLARABEL", verbose=0))


@pytest.mark.parametrize("n", [1, 2])
def test_gradient_descent_matches_the_known_non_convex_worst_case(n):
    """GD with step 1/L, min_{t<=n} ||f'(x_t)||^2 <= 4 L (f(x_0) - f(x_n)) / (3 n) (PEPit's example
    nonconvex_optimization/gradient_descent; Abbaszadehpeivasti, de Klerk & Zamani 2021), tight."""
    w = solve_nc(NCSetting(M=1, K=1, R=n, L=1.0, eta=1.0, Delta=1.0, initial="F_R"))
    assert w.certified and "exact" in w.exactness
    assert abs(w.value - 4 / (3 * n)) <= 1e-6 and w.value >= 4 / (3 * n) - 1e-9


@pytest.mark.parametrize("K,R,measure", [(1, 1, "min_grad_sq"), (2, 1, "min_grad_sq"), (1, 2, "avg_grad_sq")])
def test_two_clients_match_pepit_smooth_class(K, R, measure):
    s = NCSetting(M=2, K=K, R=R, L=1.0, eta=0.6, zeta=0.4, Delta=1.0, measure=measure)
    w = solve_nc(s)
    ref = pepit_local_gd(1.0, 0.6, K, R, 0.4, 1.0, measure)
    assert w.certified and abs(w.value - ref) <= 1e-6 * max(1.0, ref), (w.value, ref)


def test_uniform_one_of_two_matches_pepit_branches():
    s = NCSetting(M=2, K=1, R=1, L=1.0, eta=0.8, zeta=0.5, measure="avg_grad_sq", law=Law("uniform", m=1))
    w = solve_nc(s)
    ref = pepit_local_gd(1.0, 0.8, 1, 1, 0.5, 1.0, "avg_grad_sq", patterns=((0.5, (0,)), (0.5, (1,))))
    assert w.certified and abs(w.value - ref) <= 1e-6 * max(1.0, ref), (w.value, ref)


@pytest.fixture(scope="module")
def solved():
    pb = build_nc(NCSetting(M=2, K=2, R=1, eta=0.6, zeta=0.4))
    cliques, filled = pattern(pb, True)
    return pb, solve_clarabel(pb, cliques, filled, 3e-9)


def test_the_certificate_passes_and_perturbed_ones_are_refused(solved):
    pb, sol = solved
    rc = recheck(pb, sol)
    assert rc["ok"] and rc["bound"] >= sol.primal - 1e-9
    rng = np.random.default_rng(0)
    noisy = recheck(pb, dataclasses.replace(sol, y=sol.y * (1 + 0.2 * rng.standard_normal(sol.y.shape))))
    assert not noisy["ok"] and noisy["bound"] is None
    less = recheck(pb, dataclasses.replace(sol, y=sol.y * 0.99))  # claims a 1% smaller bound
    assert not less["ok"] and "not" in less["reason"]


def test_window_gives_a_certified_upper_bound_and_the_record_round_trips():
    s = NCSetting(M=2, K=2, R=3, eta=0.5, zeta=0.3, hetero="rounds")
    full, band = solve_nc(s), solve_nc(s, window=1)
    assert full.certified and band.certified and band.value >= full.value - 1e-9
    back = NCWorstCase.from_dict(band.to_dict())
    assert back.value == band.value and back.setting == s and back.certified
    assert back.ratio(2 * band.value) == pytest.approx(0.5)


def test_noise_and_scaffold_are_certified_and_noise_only_raises_the_value():
    base = NCSetting(method="scaffold", M=2, K=2, R=1, eta=0.3, zeta=0.5, measure="avg_grad_sq")
    quiet, noisy = solve_nc(base), solve_nc(dataclasses.replace(base, sigma=0.5))
    assert quiet.certified and noisy.certified and noisy.value >= quiet.value - 1e-9


def test_bad_input_is_one_line():
    with pytest.raises(UserInputError, match="measure"):
        solve_nc(NCSetting(measure="dist_sq"))
    with pytest.raises(UserInputError, match="too large"):
        solve_nc(NCSetting(K=10, R=10), max_seconds=1.0)
    with pytest.raises(UserInputError, match="too large"):  # 10^29 patterns a round: refused, not overflowed
        solve_nc(NCSetting(M=100, R=10**6, law=Law("uniform", m=50)))
