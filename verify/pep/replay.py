"""Worst cases replayed in the simulation engine (quadratics.engine): a PEP value reached by a real run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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


def instance_from_gram(G: Any, s: Setting) -> tuple[Any, Any]:
    """mu = L: (x0 - x*, the optimum shifts a_i - x*) of the worst instance, read off the Gram matrix.

    The basis is e0 = x0 - x*, s_1..s_{M-1} (s_M = -sum; verify.pep.sdp.build) and the class is
    f_i = L/2 ||x - a_i||^2 + c_i, so grad f_i(x*) = L (x* - a_i) gives a_i - x* = -s_i / L. A Gram
    factorisation G = V^T V (eigenvalues below 0 clipped) places the vectors in R^rank.
    """
    import numpy as np

    w, U = np.linalg.eigh(np.asarray(G)[: s.M, : s.M] if s.zeta > 0 else np.asarray(G)[:1, :1])
    keep = w > 1e-12 * max(1.0, float(w.max()))
    V = (U[:, keep] * np.sqrt(w[keep])).T  # columns are the basis vectors
    e0 = V[:, 0]
    if s.zeta > 0:
        svec = [V[:, 1 + i] for i in range(s.M - 1)]
        svec.append(-np.sum(svec, axis=0))
    else:
        svec = [np.zeros_like(e0) for _ in range(s.M)]
    return e0, np.array([-v / s.L for v in svec])


def replay_gram(s: Setting, G: Any, trials: int = 4000, seed: int = 0) -> dict[str, Any]:
    """Run the worst instance of a mu = L setting (local GD, full or uniform m-of-M law) in the engine.

    Returns the engine's mean of the measure over ``trials`` runs with its Student-t interval at
    ``bounds.core.stats.MEAN_LEVEL`` (``engine_ci``, ``level``; the only randomness is the participation draw;
    ``seed`` fixes it), and the exact expectation of the same run from the engine's exact moments
    (quadratics.exact: no sampling error).
    """
    import numpy as np

    from bounds.core.stats import MEAN_LEVEL, t_interval
    from quadratics.engine import simulate
    from quadratics.exact import exact_moments
    from quadratics.heterogeneous import HeterogeneousQuadratic
    from quadratics.local_methods import fedavg
    from quadratics.participation import uniform

    e0, shifts = instance_from_gram(G, s)
    d = max(len(e0), 1)
    x_star = np.zeros(d)
    b = shifts.reshape(s.M, d)
    lam = np.full(d, s.L)
    prob = HeterogeneousQuadratic(name="pep-worst", d=d, M=s.M, x0=e0.reshape(d), x_star=x_star, F_star=0.0,
                                  constants={"L": s.L, "mu": s.L}, params={}, lam=lam, b=b, sigma=0.0)
    m = s.M if s.law is None or s.law.kind == "full" else int(s.law.m or s.M)
    alg, pattern = fedavg(eta=s.eta, K=s.K, eta_g=s.eta_g), uniform(M=s.M, S=m)
    sim = simulate(prob, alg, pattern, trials=trials, rounds=s.R, seed=seed, device="cpu")
    runs = np.asarray(sim.metrics["dist_sq"][-1])
    # the engine's mean with the one interval rule at the level of means (a single run: no interval)
    mean, low, high, _ = t_interval(runs, MEAN_LEVEL)
    mean = float(mean)
    low, high = (float(low), float(high)) if len(runs) > 1 else (mean, mean)
    exact = float(exact_moments(prob, alg, pattern, rounds=s.R).final["dist_sq"])
    return {"engine_mean": mean, "engine_ci": [low, high], "level": MEAN_LEVEL, "trials": trials, "seed": seed,
            "exact_expectation": exact, "dimension": d}
