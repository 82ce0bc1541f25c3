"""Exact moments against the engine's Monte Carlo: at 36 random points across problem families, algorithms
and participation laws, the exact value lies in the 99% Student-t interval of 4,096 simulated trials.

One quantity per point (rotating over the three metrics, final round and round average), so the 36 checks
are 36 separate 99% intervals: with every exact value right, all pass with probability 0.99^36 = 0.70 for
a random seed; the seeds here are fixed (same numbers every run). A wrong law, map or noise term moves the
exact value by far more than these intervals' half-widths (see the z-scores in the failure message).
"""

import numpy as np
import pytest

from quadratics import (
    amplified_fedavg,
    cyclic,
    diagonal_quadratic,
    f3ast,
    fast,
    fast_mixture,
    fedavg,
    fedprox,
    heterogeneous_quadratic,
    rotated_quadratic,
    scaffold,
    simulate,
    static_policy,
    uniform,
)
from quadratics.availability import availability
from quadratics.exact import applies, exact_moments
from quadratics.summary import t_interval

POINTS = 36
TRIALS = 4096
CHECKS = [(m, k) for m in ("dist_sq", "gap", "grad_sq") for k in ("final", "mean")]


def _point(i):
    rng = np.random.default_rng([i, 19])
    M = int(rng.integers(2, 5))
    d = int(rng.integers(1, 4))
    K = int(rng.integers(1, 4))
    R = int(rng.integers(3, 13))
    fam = ("quadratic", "diagonal", "rotated")[i % 3]
    kw = dict(L=1.0, mu=1.0 if (fam == "quadratic" and d == 1) else float(rng.uniform(0.2, 0.9)), d=d, M=M,
              zeta=float(rng.uniform(0.1, 1.5)), sigma=float(rng.uniform(0.0, 1.0)), D0=float(rng.uniform(0.5, 2)),
              seed=i)
    pb = {"quadratic": heterogeneous_quadratic, "diagonal": diagonal_quadratic, "rotated": rotated_quadratic}[fam](**kw)
    eta = float(rng.uniform(0.05, 0.5)) / (pb.constants["L"] * K)
    eta_g = float(rng.choice([1.0, 1.0, 0.7, 1.4]))
    S = int(rng.integers(1, M + 1))
    kind = (i // 3) % 6
    if kind == 0:
        alg, pat = fedavg(eta=eta, K=K, eta_g=eta_g), uniform(M=M, S=S)
    elif kind == 1:
        alg = fedprox(eta=eta, K=K, mu_prox=float(rng.uniform(0.1, 1.0)), eta_g=eta_g)
        pat = cyclic(M=M, S=1, P=4, groups=2) if M % 2 == 0 else uniform(M=M, S=S)
    elif kind == 2:
        alg, pat = scaffold(eta=eta, K=K, eta_g=eta_g), uniform(M=M, S=S)
    elif kind == 3:
        q = float(rng.uniform(0.2, 0.9))
        alg = fast(eta=eta, K=K, base=("fedavg", "scaffold")[i % 2])
        pat = fast_mixture(M=M, m=S, n=M, q=q) if i % 2 else fast_mixture(M=M, m=S, n=M, I=int(rng.integers(2, 4)))
    elif kind == 4:
        alg = amplified_fedavg(eta=eta, K=K, gamma=float(rng.uniform(1.0, 2.0)), P=2)
        pat = availability("scarce", M=M, S=int(rng.integers(1, M + 1)), selection="naive")
    else:
        sets = (rng.random((4, M)) < 0.5).astype(float)
        sets[np.arange(4) % M == 0, :] = 1.0  # every client has a positive rate
        alg, pat = f3ast(eta=eta, K=K, eta_g=eta_g), static_policy(sets, rng.uniform(0.1, 1.0, 4))
    return pb, alg, pat, R


@pytest.mark.parametrize("i", range(POINTS))
def test_exact_value_lies_in_the_99_percent_interval_of_4096_trials(i):
    pb, alg, pat, R = _point(i)
    ok, why = applies(pb, alg, pat)
    assert ok, why
    ex = exact_moments(pb, alg, pat, R)
    sim = simulate(pb, alg, pat, trials=TRIALS, rounds=R, seed=1000 + i, device="cpu")
    metric, kind = CHECKS[i % len(CHECKS)]
    samples = sim.metrics[metric][R] if kind == "final" else sim.metrics[metric][1:].mean(0)
    mean, low, high, n = t_interval(np.asarray(samples, float), 0.99)
    assert n == TRIALS  # nothing diverged
    value = ex.value(metric, kind)[0]
    z = (value - mean) / ((high - low) / 2 / 2.576)
    assert low <= value <= high, (f"{pb.name} {alg.name} {pat.name} R={R} {metric}/{kind}: exact {value:.6g} "
                                  f"outside [{low:.6g}, {high:.6g}] (z = {z:.2f})")


def test_the_points_cover_every_family_algorithm_and_law():
    seen = {(p.name, a.name.split("+")[0], q.name.split(":")[0]) for p, a, q, _ in map(_point, range(POINTS))}
    assert {s[0] for s in seen} == {"quadratic", "quadratic-diagonal", "quadratic-rotated"}
    assert {s[1] for s in seen} >= {"fedavg", "fedprox", "scaffold", "fast", "amplified_fedavg", "f3ast"}
    assert {s[2] for s in seen} >= {"uniform", "cyclic", "fast", "availability", "static-policy"}


def test_a_step_schedule_is_followed_round_by_round():
    """F3AST's decreasing local steps (a schedule: new maps every round) under a static policy."""
    from quadratics import f3ast_steps

    pb = diagonal_quadratic(L=1.0, mu=0.3, d=2, M=3, zeta=0.8, sigma=0.6, D0=1.0, seed=7)
    pat = static_policy(np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]]), np.array([0.2, 0.3, 0.5]))
    alg, R = f3ast(f3ast_steps(L=1.0, mu=0.3, E=2), K=2), 8
    ex = exact_moments(pb, alg, pat, R)
    sim = simulate(pb, alg, pat, trials=TRIALS, rounds=R, seed=77, device="cpu")
    mean, low, high, _ = t_interval(sim.metrics["dist_sq"][R], 0.99)
    assert low <= ex.final["dist_sq"] <= high


def test_availability_with_a_random_cap():
    """Independent availability (each client w.p. 0.2) and a cap of 1 or 3 clients drawn per round."""
    from quadratics.availability import availability

    pb = heterogeneous_quadratic(L=1.0, mu=0.2, d=3, M=4, zeta=1.0, sigma=0.5, D0=1.0, seed=9)
    alg, pat, R = fedavg(eta=0.2, K=2), availability("scarce", M=4, S={1: 0.3, 3: 0.7}, selection="naive"), 12
    ex = exact_moments(pb, alg, pat, R)
    sim = simulate(pb, alg, pat, trials=TRIALS, rounds=R, seed=91, device="cpu")
    _, low, high, _ = t_interval(sim.metrics["gap"][1:].mean(0), 0.99)
    assert low <= ex.mean["gap"] <= high
