"""Worst cases replayed in the simulation engine (quadratics.engine): a PEP value reached by a real run."""

from __future__ import annotations

from collections.abc import Sequence

from verify.pep.setting import Setting


def replay_quadratic(s: Setting, curvature: float) -> float:
    """||x_R - x*||^2 (or F(x_R) - F*) of ``s``'s method on the 1-D quadratic f_i = curvature/2 x^2, zeta = 0.

    Runs the engine (`quadratics.engine.simulate`, no noise, full participation); used to show that a
    PEP worst case attained by a quadratic is reached by the simulator too.
    """
    from quadratics.engine import simulate
    from quadratics.heterogeneous import heterogeneous_quadratic
    from quadratics.local_methods import fedavg, scaffold
    from quadratics.participation import uniform

    prob = heterogeneous_quadratic(L=curvature, mu=curvature, d=1, M=s.M, zeta=0.0, sigma=0.0, D0=s.D0)
    alg = (scaffold if s.method == "scaffold" else fedavg)(eta=s.eta, K=s.K, eta_g=s.eta_g)
    sim = simulate(prob, alg, uniform(M=s.M, S=s.M), trials=1, rounds=s.R, seed=0, device="cpu")
    return float(sim.metrics["dist_sq" if s.measure == "dist_sq" else "gap"][-1, 0])


def worst_curvature(s: Setting, grid: Sequence[float] | None = None) -> float:
    """The curvature in ``grid`` (default: 21 points of [mu, L]) whose 1-D quadratic run is worst for ``s``."""
    import numpy as np

    hs = np.linspace(s.mu, s.L, 21) if grid is None else np.asarray(grid, dtype=float)
    hs = hs[hs > 0]
    return float(max(hs, key=lambda h: replay_quadratic(s, float(h))))
