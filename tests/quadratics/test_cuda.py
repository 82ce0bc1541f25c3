"""The engine on CUDA (skipped without a GPU): same seed, same numbers; noise-free runs match the CPU."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA is not available on this machine")


def _run(device, sigma, seed=3):
    from quadratics import fedavg, heterogeneous_quadratic, simulate, uniform

    pb = heterogeneous_quadratic(L=1.0, mu=0.5, d=8, M=10, zeta=0.5, sigma=sigma, D0=1.0, seed=1)
    return simulate(pb, fedavg(0.05, 5), uniform(10, 3), 32, 40, seed=seed, device=device, threads=1)


def test_cuda_is_deterministic_for_a_seed():
    a, b = _run("cuda", 1.0), _run("cuda", 1.0)
    assert np.array_equal(a.final_x, b.final_x)
    assert not np.array_equal(a.final_x, _run("cuda", 1.0, seed=4).final_x)  # the seed matters


def test_cuda_matches_cpu_without_noise():
    """sigma = 0: the only randomness is the participation pattern (numpy, same on both devices)."""
    cpu, gpu = _run("cpu", 0.0), _run("cuda", 0.0)
    np.testing.assert_allclose(gpu.final_x, cpu.final_x, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gpu.metrics[gpu.target_metric], cpu.metrics[cpu.target_metric], rtol=1e-9, atol=1e-12)
