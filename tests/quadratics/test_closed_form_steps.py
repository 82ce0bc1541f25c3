"""The closed-form affine coordinates of local SGD and the stream's pre-cut views, checked
against independent computations (the documented block rule in numpy, a plain K-step loop)."""

import numpy as np
import torch
from stream_reference import expected_draws

from quadratics import lower_bound_objective
from quadratics.algorithm import _affine_split, local_sgd
from quadratics.problem import GaussianStream

CPU = torch.device("cpu")


def test_stream_views_follow_the_block_rule_for_mixed_shapes():
    shapes = [(3, 7), (3, 7), (10, 10), (3, 7), (50, 30), (3, 7), (3, 7), (0, 4)] * 20
    stream = GaussianStream(5, CPU, torch.float64, block=1000)
    got = [stream.normal(s).clone().numpy() for s in shapes]
    expected = list(expected_draws(5, shapes, block=1000))
    assert len(expected) == len(got)
    for g, e in zip(got, expected):
        assert np.array_equal(g, e)


def test_stream_views_past_the_cut_limit_keep_the_block_rule():
    """More same-shape requests than one cut holds (GaussianStream.VIEWS) in a block that would hold them all:
    the cut is renewed and the values stay those of the block rule."""
    many = 3 * GaussianStream.VIEWS
    shapes = [(2,)] * many + [(5, 3)] + [(2,)] * many
    stream = GaussianStream(7, CPU, torch.float64, block=4 * many)
    got = [stream.normal(s).clone().numpy() for s in shapes]
    expected = list(expected_draws(7, shapes, block=4 * many))
    assert len(expected) == len(got)
    for g, e in zip(got, expected):
        assert np.array_equal(g, e)


def test_lb_split_loops_only_x3_and_matches_a_plain_step_loop():
    pb = lower_bound_objective(M=4, sigma=2.0)
    bound = pb.bind(CPU, torch.float64)
    eta, K, T = 0.01, 7, 5
    split = _affine_split(bound, eta, 0.0, K)
    assert split["L"].tolist() == [2] and split["leaky"] is not None
    x = torch.as_tensor(np.random.default_rng(1).normal(size=(T, 4)))
    idx = torch.tensor([[0, 3], [1, 2], [2, 0], [3, 1], [0, 1]])
    y, _ = local_sgd(bound, x, idx, K, eta, GaussianStream(9, CPU, torch.float64))
    z = GaussianStream(9, CPU, torch.float64).normal((K, T, 2, 1)).numpy()
    for t in range(T):
        for j in range(2):
            v = x[t].numpy().copy()
            for k in range(K):
                g = pb.client_grads(v)[int(idx[t, j])]
                g[2] += pb.sigma * z[k, t, j, 0]
                v = v - eta * g
            assert np.allclose(y[t, j].numpy(), v, rtol=1e-12, atol=1e-14)
