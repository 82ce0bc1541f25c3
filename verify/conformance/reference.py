"""The reference algorithm's moments of the server model at every round (the one adapter to the exact path).

**Quantity**: for rounds r = 0..R, m_r = E[x_r - x*] ([d]) and S_r = E[(x_r - x*)(x_r - x*)^T] ([d, d]) of the
reference algorithm under the claimed participation law, from the exact moment recursion of
:mod:`quadratics.exact` (no sampling error) where it applies, else from a large reference simulation of the
same algorithm with the same law (:func:`quadratics.engine`'s building blocks: ``init``, ``draw``, ``round``),
whose own standard errors are returned and must be added to the implementation's.

**Why an adapter**: the exact path's public functions return scalar metrics; the conformance check needs the
mean and second moment of the model itself, which the recursion carries in its state vector. This module is
the only place that reads that vector, so the exact path can be re-pointed here when it changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from bounds.core import seeds


@dataclass(frozen=True)
class ReferenceMoments:
    """Per-round reference values of the compared quantities.

    ``values`` [R + 1, Q]: the quantities of :func:`quantities` (mean coordinates, then the upper triangle of the
    second moment); ``se`` [R + 1, Q]: their standard errors (zeros on the exact path); ``var`` [R + 1, Q]: the
    per-trial variance of each quantity under the reference (from a simulation of ``trials`` trials: the exact
    path carries no fourth moments); ``method``: "exact" or "simulation"; ``why``: why the exact path did not
    apply (simulation only).
    """

    values: np.ndarray
    se: np.ndarray
    var: np.ndarray
    method: str
    why: str
    trials: int
    law: str


def quantity_names(d: int) -> list[str]:
    """Names of the compared quantities: E[x_j - x*_j], then E[(x_j - x*_j)(x_k - x*_k)] for j <= k."""
    iu, ju = np.triu_indices(d)
    return [f"mean[{j}]" for j in range(d)] + [f"second[{j},{k}]" for j, k in zip(iu, ju)]


def quantities(e: np.ndarray) -> np.ndarray:
    """Per-trial quantities [..., Q] of deviations e = x - x* [..., d]: e_j, then e_j e_k (j <= k)."""
    iu, ju = np.triu_indices(e.shape[-1])
    return np.concatenate([e, e[..., iu] * e[..., ju]], axis=-1)


def exact_reference(problem: Any, algorithm: Any, pattern: Any, rounds: int) -> ReferenceMoments | str:
    """Exact per-round moments, or the exact path's reason for declining."""
    from quadratics.exact import evaluate as ev
    from quadratics.exact.probe import _Declined

    try:
        plan = ev._Plan(problem, algorithm, pattern)
        D = plan.D
        xs = plan.prober.layout.block("x")
        iu, ju = np.triu_indices(D)
        pos = {(int(i), int(j)): 1 + D + k for k, (i, j) in enumerate(zip(iu, ju))}
        d = problem.d
        di, dj = np.triu_indices(d)
        second = [pos[(xs.start + int(i), xs.start + int(j))] for i, j in zip(di, dj)]
        v = plan.start().val
        rows = []
        for r in range(rounds + 1):
            rows.append(np.concatenate([v[1 + xs.start:1 + xs.stop], v[second]]))
            if r < rounds:
                v = plan.G(r).val @ v
    except _Declined as e:
        return str(e)
    values = np.array(rows)
    if not np.isfinite(values).all():
        return "the exact moments overflow float64 at this horizon"
    return ReferenceMoments(values, np.zeros_like(values), np.zeros_like(values), "exact", "", 0, plan.law.describe)


def simulated_reference(problem: Any, algorithm: Any, pattern: Any, rounds: int, trials: int, seed: int,
                        why: str) -> ReferenceMoments:
    """Monte Carlo per-round moments of the reference algorithm ([trials] independent runs, seeded)."""
    from quadratics.problem import GaussianStream

    dev, dt = torch.device("cpu"), torch.float64
    bound = problem.bind(dev, dt)
    x0 = torch.as_tensor(problem.x0, dtype=dt).reshape(1, -1).expand(trials, -1).contiguous()
    state = algorithm.init(bound, x0, problem.M)
    pst = pattern.init(trials, seed)
    gen = GaussianStream(seeds.word(seed, "sample", 29), dev, dt)  # a stream of its own: not the checked runs' noise
    xs = np.asarray(problem.x_star, dtype=float)
    out = [quantities(state["x"].numpy() - xs)]
    with torch.inference_mode():
        for r in range(rounds):
            q, aux, pst = pattern.draw(pst, r)
            state = algorithm.round(state, bound, torch.as_tensor(q, dtype=dt), r, gen, dict(aux))
            out.append(quantities(state["x"].numpy() - xs))
    arr = np.array(out)  # [R + 1, T, Q]
    var = arr.var(1, ddof=1)
    return ReferenceMoments(arr.mean(1), np.sqrt(var / trials), var, "simulation", why, trials, pattern.name)


def reference_moments(problem: Any, algorithm: Any, pattern: Any, rounds: int, *, trials: int = 20000,
                      var_trials: int = 4000, seed: int = 0) -> ReferenceMoments:
    """Exact moments when the exact path covers the instance (the per-trial variances from a simulation of
    ``var_trials`` trials), else a reference simulation of ``trials`` trials; ``seed`` seeds both."""
    got = exact_reference(problem, algorithm, pattern, rounds)
    if isinstance(got, str):
        return simulated_reference(problem, algorithm, pattern, rounds, trials, seed, got)
    sim = simulated_reference(problem, algorithm, pattern, rounds, var_trials, seed, "")
    return ReferenceMoments(got.values, got.se, sim.var, got.method, "", var_trials, got.law)
