"""``ball_max`` stops its bisection at the first halving that changes nothing: the same bits as 200 halvings,
and the value of a brute-force search of the sphere."""

import numpy as np
import pytest

from quadratics.curvature import _on_sphere, ball_max, ball_maxes


def _ball_max_200(Q, c, s, radius):
    """The trust-region maximum with all 200 halvings (the rule before the early stop), for comparison."""
    q, V = np.linalg.eigh(Q)
    b = np.einsum("mdk,md->mk", V, c)
    qmax = q.max(1, keepdims=True)
    r2 = radius**2
    lo = qmax[:, 0].copy()
    hi = lo + np.sqrt(np.sum(b**2, 1)) / max(radius, 1e-300) + 1e-300
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        with np.errstate(divide="ignore", invalid="ignore"):
            big = ~(np.sum((b / (mid[:, None] - q)) ** 2, 1) < r2)
        lo, hi = np.where(big, mid, lo), np.where(big, hi, mid)
    # the value at the bracket's end is the module's own (_on_sphere): only the number of halvings differs
    return _on_sphere(q, b, s, hi, radius)


def _instance(rng, M, d, scale):
    B = rng.standard_normal((M, d, d)) * scale
    B = 0.5 * (B + B.transpose(0, 2, 1))
    g = rng.standard_normal((M, d)) * rng.choice([0.0, 1e-6, 1.0], size=(M, 1))  # hard cases (g = 0) included
    return B @ B, np.einsum("mde,me->md", B, g), np.sum(g * g, 1)


def test_same_bits_as_two_hundred_halvings():
    rng = np.random.default_rng(7)
    for _ in range(60):
        M, d = int(rng.integers(1, 6)), int(rng.integers(1, 7))
        Q, c, s = _instance(rng, M, d, 10.0 ** rng.uniform(-4, 1))
        radius = float(10.0 ** rng.uniform(-2, 1))
        assert ball_max(Q, c, s, radius).tobytes() == _ball_max_200(Q, c, s, radius).tobytes()


def test_stacks_bisected_together_get_their_own_bits():
    # rows of several stacks in one bisection: each stack's answer is the one it gets alone, d up to 16 (where
    # numpy's row sums switch to blocked pairwise summation)
    rng = np.random.default_rng(3)
    for _ in range(30):
        d = int(rng.integers(1, 17))
        stacks = [_instance(rng, int(rng.integers(1, 9)), d, 10.0 ** rng.uniform(-3, 1)) for _ in range(3)]
        radius = float(10.0 ** rng.uniform(-1, 1))
        got = ball_maxes(stacks, radius)
        assert [g.tobytes() for g in got] == [_ball_max_200(*st, radius).tobytes() for st in stacks]


def test_rows_with_no_linear_term():
    # c = 0 rows (B = 0: one dimension or a shared Hessian; or g = 0) beside live rows: the value is the hard case's,
    # max_k q_k radius^2 + s, by hand, and the bits are those of 200 halvings
    rng = np.random.default_rng(5)
    Q, c, s = _instance(rng, 4, 3, 1.0)
    Q[1], c[1], Q[2], c[2] = 0.0, 0.0, np.diag([2.0, 0.5, 1.0]), 0.0
    got = ball_max(Q, c, s, 1.5)
    assert got.tobytes() == _ball_max_200(Q, c, s, 1.5).tobytes()
    assert got[1] == s[1] and got[2] == pytest.approx(2.0 * 1.5**2 + s[2], rel=1e-15)
    zero = np.zeros((2, 1, 1))
    assert ball_max(zero, np.zeros((2, 1)), np.array([0.25, 0.0]), 3.0).tolist() == [0.25, 0.0]


@pytest.mark.parametrize("seed", [0, 1])
def test_against_a_search_of_the_circle(seed):
    # d = 2: the maximum of a convex quadratic over the disc is on its circle; 200,001 angles, refined by
    # a golden-section search around the best one, give it independently of the secular equation
    rng = np.random.default_rng(seed)
    Q, c, s = _instance(rng, 1, 2, 1.0)
    radius = 1.5
    f = (lambda t: radius**2 * np.einsum("...i,ij,...j->...", np.stack([np.cos(t), np.sin(t)], -1),
                                          Q[0], np.stack([np.cos(t), np.sin(t)], -1))
         + 2 * radius * (c[0, 0] * np.cos(t) + c[0, 1] * np.sin(t)) + s[0])
    t = np.linspace(0, 2 * np.pi, 200_001)
    lo, hi = t[np.argmax(f(t))] - 1e-4, t[np.argmax(f(t))] + 1e-4
    for _ in range(80):
        a, b = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
        lo, hi = (a, hi) if f(a) < f(b) else (lo, b)
    assert ball_max(Q, c, s, radius)[0] == pytest.approx(float(f(0.5 * (lo + hi))), rel=1e-9)  # the bisection ends at hi: e sits inside the circle by rounding
