"""The reference algorithm's moments of the server model at every round (the one adapter to the exact path).

**Quantity**: for rounds r = 0..R, m_r = E[x_r - x*] ([d]) and S_r = E[(x_r - x*)(x_r - x*)^T] ([d, d]) of the
reference algorithm under the claimed participation law, from the exact moment recursion of
:mod:`quadratics.exact` (no sampling error) where it applies, else from a large reference simulation of the
same algorithm with the same law (:func:`quadratics.engine`'s building blocks: ``init``, ``draw``, ``round``),
whose own standard errors are returned and must be added to the implementation's.

**Why an adapter**: the conformance check needs the mean and second moment of the model at every round; the
exact path evaluates declared quadratic forms of e = x - x*, so each coordinate of the mean and each entry of
the second moment is one form (:func:`_moment_forms`), stepped round by round through the moment plan. This
module is the only place that drives the plan round by round, so it is re-pointed here when the plan changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from bounds.core import seeds

from .claims import SERVER_OPTIMISERS, Setting
from .server import server_optimiser


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


def _moment_forms(d: int) -> dict[str, tuple[np.ndarray, np.ndarray, float]]:
    """The compared quantities as quadratic forms (Q, c, s) of e = x - x*, in :func:`quantity_names` order:
    E[e_j] is (0, unit j, 0); E[e_j e_k] is ((E_jk + E_kj)/2, 0, 0)."""
    forms: dict[str, tuple[np.ndarray, np.ndarray, float]] = {}
    for j in range(d):
        c = np.zeros(d)
        c[j] = 1.0
        forms[f"mean[{j}]"] = (np.zeros((d, d)), c, 0.0)
    for a, b in zip(*np.triu_indices(d)):
        j, k = int(a), int(b)
        Q = np.zeros((d, d))
        Q[j, k] += 0.5
        Q[k, j] += 0.5
        forms[f"second[{j},{k}]"] = (Q, np.zeros(d), 0.0)
    return forms


def exact_reference(problem: Any, algorithm: Any, pattern: Any, rounds: int) -> ReferenceMoments | str:
    """Exact per-round moments (the declared quadratic forms of :func:`_moment_forms`, round by round), or the
    exact path's reason for declining."""
    from quadratics.exact import evaluate as ev
    from quadratics.exact.probe import _Declined

    try:
        plan = ev._Plan(problem, algorithm, pattern, forms=_moment_forms(problem.d))
        v = plan.start()
        rows = []
        for r in range(rounds + 1):
            rows.append(plan.metrics(v)[0])
            if r < rounds:
                v = plan.advance(v, r, 1)
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


def reference_algorithm(algorithm: str, s: Setting) -> Any:
    """The reference round of the claimed algorithm (:mod:`quadratics.local_methods`; the server optimisers:
    :mod:`verify.conformance.server`)."""
    import quadratics as qd

    if algorithm in ("fedavg", "fast"):
        return qd.fedavg(s.eta, s.K, s.eta_g) if algorithm == "fedavg" else qd.fast(s.eta, s.K, s.eta_g)
    if algorithm == "fedprox":
        return qd.fedprox(s.eta, s.K, s.mu_prox, s.eta_g)
    if algorithm == "scaffold":
        return qd.scaffold(s.eta, s.K, s.eta_g)
    if algorithm in SERVER_OPTIMISERS:
        return server_optimiser(algorithm, s)
    if algorithm == "f3ast":
        return qd.f3ast(s.eta, s.K, s.eta_g)
    if algorithm == "amplified_fedavg":
        return qd.amplified_fedavg(s.eta, s.K, s.gamma, s.P, s.eta_g)
    return qd.amplified_scaffold(s.eta, s.K, s.gamma, s.P, s.eta_g)
