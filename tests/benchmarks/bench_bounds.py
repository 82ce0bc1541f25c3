"""Vectorised evaluation of every encoded result on 10^6 parameter points.

Run: python -m pytest tests/benchmarks/bench_bounds.py --benchmark-enable --benchmark-columns=mean,stddev,rounds
Each scalar input of the worked example is scaled by an independent factor in [0.5, 2] (integers
rounded, probabilities clipped), so the grid is a genuine 10^6-point cloud, not one repeated point.
"""

import numpy as np
import pytest

from bounds import all_results

POINTS = 1_000_000


def _grid(result, rng):
    values = {}
    for name, value in result.example:
        info = result.symbol_map[name]
        if info.domain.is_vector or np.ndim(value) or isinstance(value, str):
            values[name] = value
            continue
        v = float(value) * rng.uniform(0.5, 2.0, POINTS)
        if info.domain.is_integer:
            v = np.maximum(np.round(v), 1.0)
        if info.domain.interval() == (0.0, 1.0):
            v = np.clip(v, 1e-3, 1.0)
        values[name] = v
    return values


WITH_EXAMPLES = [r for r in all_results() if r.example]


@pytest.mark.parametrize("result", WITH_EXAMPLES, ids=[r.key for r in WITH_EXAMPLES])
def test_evaluate_one_million_points(benchmark, result):
    values = _grid(result, np.random.default_rng(0))
    ev = benchmark(result.evaluate, values)
    assert np.shape(ev.value) == (POINTS,) or np.ndim(ev.value) == 0
    assert np.all(np.isfinite(ev.value))
