"""A user's own algorithm, participation pattern and measure, written with the documented declaration API only
(quadratics.exact.declare, verify.measures), are scored exactly; checked against an enumeration of every
participating set done here by hand in numpy. Objects that declare nothing are simulated, with the reason."""

import functools
import itertools

import numpy as np
import pytest
import torch

from quadratics import Algorithm, Pattern, fedavg, heterogeneous_quadratic, uniform
from quadratics.exact import applies, exact_moments
from quadratics.exact.declare import (
    QuadraticMeasure,
    RoundCoefficients,
    RoundMap,
    bernoulli_law,
    markov_law,
    mixture_law,
    uniform_law,
)
from verify.exact_score import exact_lhs, scored_exactly
from verify.measures import declares
from verify.scenario import Instance, at_round, mean_over_rounds

ETA, BETA, M, D, R = 0.3, 0.5, 3, 2, 7
P_COIN = np.array([0.5, 0.8, 0.3])  # Bernoulli rounds: client i with probability P_COIN[i], weight 1 / (M p_i)
UNIFORM_SHARE = 0.3                 # else: one client uniformly at random, weight 1


def heavy_ball() -> Algorithm:
    """Server heavy ball on one stochastic gradient per participant: v' = beta v + sum_i q_i g_i(x),
    x' = x - eta v'. State (x, v)."""

    def init(bound, x0, M):
        return {"x": x0.clone(), "v": torch.zeros_like(x0)}

    def round_(state, bound, q, r, gen, aux):
        T, n = q.shape
        idx = torch.arange(n).expand(T, n)
        g = bound.grad(state["x"][:, None, :].expand(T, n, -1), bound.prepare(idx))
        width, scale = bound.noise_law
        if scale is not None:
            g = g + gen.normal((1, T, n, width))[0] * scale
        v = BETA * state["v"] + (q[..., None] * g).sum(1)
        return {"x": state["x"] - ETA * v, "v": v}

    def linear(problem, aux):
        grads = problem.affine_gradients()
        if grads is None:
            return "heavy ball is affine only on affine client gradients"
        A, h, C = grads.A, grads.h, grads.noise_cov
        Mc, d = h.shape
        xs = torch.as_tensor(problem.x_star, dtype=torch.float64)
        eye = torch.eye(d, dtype=torch.float64)
        B = torch.zeros((1 + 2 * Mc, 2 * d, 2 * d), dtype=torch.float64)
        c = torch.zeros((1 + 2 * Mc, 2 * d), dtype=torch.float64)
        B[0, :d, :d], B[0, :d, d:], B[0, d:, d:] = eye, -ETA * BETA * eye, BETA * eye
        B[1:Mc + 1, :d, :d], B[1:Mc + 1, d:, :d] = -ETA * A, A
        g_star = (A @ xs[:, None])[..., 0] + h  # client gradients at x*
        c[1:Mc + 1, :d], c[1:Mc + 1, d:] = -ETA * g_star, g_star
        noise = torch.zeros((Mc, 2, 2, 2 * d, 2 * d), dtype=torch.float64)
        mix = torch.tensor([[ETA**2, -ETA], [-ETA, 1.0]], dtype=torch.float64)
        noise[:, 0, 0] = torch.kron(mix, C)
        coef = RoundCoefficients(B, c, noise, scale=float(max(1.0, B.abs().max(), c.abs().max())), terms=d + 8)
        x0 = torch.as_tensor(problem.x0, dtype=torch.float64)
        return RoundMap((("x", d), ("v", d)), torch.cat([x0, torch.zeros(d, dtype=torch.float64)]),
                        torch.cat([xs, torch.zeros(d, dtype=torch.float64)]), lambda r: coef)

    return Algorithm("heavy-ball", {"eta": ETA, "beta": BETA}, 1, init, round_, linear)


def coin_or_one() -> Pattern:
    """Each round: with probability 0.3 one client uniformly (weight 1), else every client i independently with
    probability P_COIN[i] (weight 1 / (M p_i))."""
    weights = 1.0 / (M * P_COIN)

    def init(trials, seed):
        return np.random.default_rng(seed), trials

    def draw(state, r):
        rng, trials = state
        one = rng.random(trials) < UNIFORM_SHARE
        q = np.where(rng.random((trials, M)) < P_COIN, weights, 0.0)
        q[one] = np.eye(M)[rng.integers(M, size=int(one.sum()))]
        return q, {}, state

    def law(n):
        return mixture_law([(UNIFORM_SHARE, uniform_law(n, 1)), (1 - UNIFORM_SHARE, bernoulli_law(P_COIN, weights))])

    return Pattern("coin-or-one", M, {}, init, draw, law=law)


def _configurations():
    """Every participating set with its probability and weights: (prob, q [M])."""
    out = [(UNIFORM_SHARE / M, np.eye(M)[i]) for i in range(M)]
    for mask in itertools.product((0, 1), repeat=M):
        s = np.array(mask, dtype=float)
        prob = np.prod(np.where(s > 0, P_COIN, 1 - P_COIN)) * (1 - UNIFORM_SHARE)
        out.append((prob, s / (M * P_COIN)))
    return out


def _hand_maps(pb, configurations):
    """(prob, T, b, N) of the heavy-ball round z' = T z + b + noise (covariance N) for each configuration."""
    d = pb.d
    A = np.diag(pb.lam)
    h = -(pb.lam * pb.b)                       # [M, d]: g_i(x) = A x + h_i
    C = np.eye(d) * pb.sigma**2 / d
    maps = []
    for prob, q in configurations:
        Aq = q.sum() * A
        T = np.block([[np.eye(d) - ETA * Aq, -ETA * BETA * np.eye(d)], [Aq, BETA * np.eye(d)]])
        b = np.concatenate([-ETA * (q @ h), q @ h])
        N = (q**2).sum() * np.kron(np.array([[ETA**2, -ETA], [-ETA, 1.0]]), C)
        maps.append((prob, T, b, N))
    return maps


def _enumerated(pb, rounds):
    """E z_r, E z_r z_r^T of z = (x, v) propagated by hand over the configurations, uncentred; returns the
    per-round E||x - x*||^2 and E||x||^2 for r = 0..rounds."""
    d = pb.d
    maps = _hand_maps(pb, _configurations())
    assert abs(sum(p for p, *_ in maps) - 1.0) < 1e-14
    m = np.concatenate([pb.x0, np.zeros(d)])
    S = np.outer(m, m)
    xs = pb.x_star
    dist, sq = [], []
    for _ in range(rounds + 1):
        Sx, mx = S[:d, :d], m[:d]
        dist.append(np.trace(Sx) - 2 * xs @ mx + xs @ xs)
        sq.append(np.trace(Sx))
        m, S = (sum(p * (T @ m + b) for p, T, b, N in maps),
                sum(p * (T @ S @ T.T + np.outer(T @ m, b) + np.outer(b, T @ m) + np.outer(b, b) + N)
                    for p, T, b, N in maps))
    return np.array(dist), np.array(sq)


@declares(lambda r: QuadraticMeasure("final", r, r, lambda pb: (np.eye(pb.d), 2 * pb.x_star, pb.x_star @ pb.x_star),
                                     f"E ||x_{r}||^2"))
def squared_norm(sim, r):
    """E||x_r||^2 would need x itself; a simulation scores it from the metrics it has (not used here)."""
    raise NotImplementedError("squared_norm is scored exactly only")


@pytest.fixture(scope="module")
def problem():
    return heterogeneous_quadratic(L=1.0, mu=0.4, d=D, M=M, zeta=0.8, sigma=0.7, D0=1.3, seed=5)


def test_user_algorithm_and_pattern_are_scored_exactly_as_an_enumeration_of_all_participating_sets(problem):
    alg, pat = heavy_ball(), coin_or_one()
    ok, law = applies(problem, alg, pat)
    assert ok, law
    dist, sq = _enumerated(problem, R)
    ex = exact_moments(problem, alg, pat, R)
    assert ex.final["dist_sq"] == pytest.approx(dist[R], rel=1e-10, abs=0)
    assert ex.mean["dist_sq"] == pytest.approx(dist[1:].mean(), rel=1e-10, abs=0)
    # through the scenario layer: the user's measure declares E||x_R||^2 as a quadratic form
    inst = Instance(problem, alg, pat, R, {}, functools.partial(squared_norm, r=R))
    assert scored_exactly(inst) == "exact"
    lhs = exact_lhs(inst)
    assert not isinstance(lhs, str), lhs
    assert lhs.value == pytest.approx(sq[R], rel=1e-10, abs=0)
    assert lhs.err < 1e-10 * lhs.value
    mean = exact_lhs(Instance(problem, alg, pat, R, {}, functools.partial(mean_over_rounds, metric="dist_sq",
                                                                         first=2, last=R)))
    assert mean.value == pytest.approx(dist[2:].mean(), rel=1e-10, abs=0)


def test_a_renamed_copy_of_a_builtin_algorithm_is_scored_exactly(problem):
    pat = uniform(M=M, S=2)
    original = fedavg(eta=0.2, K=3)
    renamed = original._replace(name="my-local-sgd")
    assert applies(problem, renamed, pat)[0]
    a, b = exact_moments(problem, original, pat, 50), exact_moments(problem, renamed, pat, 50)
    assert a.final == b.final and a.mean == b.mean


def test_objects_that_declare_nothing_are_simulated_and_say_why(problem):
    alg, pat = heavy_ball(), coin_or_one()
    bare_alg = alg._replace(linear=None)
    ok, why = applies(problem, bare_alg, pat)
    assert not ok and "'heavy-ball' declares no affine round (Algorithm.linear)" in why
    ok, why = applies(problem, alg, pat._replace(law=None))
    assert not ok and "'coin-or-one' declares no law (Pattern.law)" in why
    inst = Instance(problem, bare_alg, pat, R, {}, functools.partial(at_round, metric="dist_sq", r=R))
    assert scored_exactly(inst) == "" and "declares no affine round" in exact_lhs(inst)
    broken = pat._replace(law=lambda n: 1 / 0)
    assert "its law declaration failed (ZeroDivisionError" in applies(problem, alg, broken)[1]


TRANSITION, INITIAL = np.array([[0.9, 0.1], [0.4, 0.6]]), np.array([0.5, 0.5])


def flaky_network() -> Pattern:
    """A Markov chain over two network states: 'up' (2 of the 3 clients uniformly, weight 1/2) and 'down'
    (client 0 alone, weight 1); up -> down with probability 0.1, down -> up with 0.4."""

    def init(trials, seed):
        rng = np.random.default_rng(seed)
        return rng, rng.random(trials) < INITIAL[1]

    def draw(state, r):
        rng, down = state
        trials = down.size
        q = np.zeros((trials, M))
        keys = rng.random((trials, M))
        pick = np.argsort(keys, 1)[:, :2]
        np.put_along_axis(q, pick, 0.5, 1)
        q[down] = np.eye(M)[0]
        stay = rng.random(trials) < np.where(down, TRANSITION[1, 1], TRANSITION[0, 0])
        return q, {}, (rng, np.where(stay, down, ~down))

    def law(n):
        return markov_law(TRANSITION, [uniform_law(n, 2), uniform_law(n, 1, pool=[0])], INITIAL)

    return Pattern("flaky-network", M, {}, init, draw, law=law)


def test_a_markov_participation_pattern_is_scored_exactly_as_its_joint_enumeration(problem):
    """w_r(c) = E[z_r z_r^T 1{state_r = c}], propagated by hand: each state's configurations, then the chain."""
    up = [(1 / 3, np.array(q)) for q in ([0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5])]
    down = [(1.0, np.eye(M)[0])]
    maps = [_hand_maps(problem, up), _hand_maps(problem, down)]
    d, xs = problem.d, problem.x_star
    z0 = np.concatenate([problem.x0, np.zeros(d)])
    pi = INITIAL.copy()
    m = [p * z0 for p in INITIAL]
    S = [p * np.outer(z0, z0) for p in INITIAL]
    dist = []
    for _ in range(R + 1):
        dist.append(sum(np.trace(S[c][:d, :d]) - 2 * xs @ m[c][:d] + pi[c] * xs @ xs for c in range(2)))
        pre_m = [sum(p * (T @ m[c] + pi[c] * b) for p, T, b, N in maps[c]) for c in range(2)]
        pre_S = [sum(p * (T @ S[c] @ T.T + np.outer(T @ m[c], b) + np.outer(b, T @ m[c])
                          + pi[c] * (np.outer(b, b) + N)) for p, T, b, N in maps[c]) for c in range(2)]
        m = [sum(TRANSITION[c, c2] * pre_m[c] for c in range(2)) for c2 in range(2)]
        S = [sum(TRANSITION[c, c2] * pre_S[c] for c in range(2)) for c2 in range(2)]
        pi = TRANSITION.T @ pi
    ex = exact_moments(problem, heavy_ball(), flaky_network(), R)
    assert ex.final["dist_sq"] == pytest.approx(dist[R], rel=1e-10, abs=0)
    assert ex.mean["dist_sq"] == pytest.approx(np.mean(dist[1:]), rel=1e-10, abs=0)
    bad = flaky_network()._replace(law=lambda n: markov_law([[0.5, 0.6], [0.4, 0.6]], [uniform_law(n, 2)] * 2,
                                                            INITIAL))
    assert "sum to 1" in applies(problem, heavy_ball(), bad)[1]
