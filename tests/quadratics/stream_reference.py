"""The documented block rule of ``GaussianStream``, written independently in numpy for tests.

A request of ``need`` values takes the next ``need`` values of the current block of
``default_rng(SeedSequence(seed, spawn_key=(0,))).standard_normal(max(need, block))`` (the ``noise``
stream, spawn key 0, of ``bounds.core.seeds``), drawing a new block when the current one has fewer left.
"""

import numpy as np


def expected_draws(seed: int, shapes, block: int):
    rng, pool, used = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0,))), np.empty(0), 0
    for s in shapes:
        need = int(np.prod(s))
        if used + need > pool.size:
            pool, used = rng.standard_normal(max(need, block)), 0
        yield pool[used:used + need].reshape(s)
        used += need
