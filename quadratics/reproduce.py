"""Reproduction of the synthetic experiment of Amplified SCAFFOLD Section 5 (seed 004, LB.CFG).

**Setting** (LB.CFG): lower-bound objective with M=2, H=16, lamb=mu=c=sigma=1, L=2, zeta=16;
cyclic participation P=480, 2 groups, S=1; K=10 local steps; 5000 rounds; x0 = 0.
Tuned steps (code lr = gamma * eta): FedAvg lr 1e-5; FedProx lr 1e-5, mu_prox 0.01; SCAFFOLD lr
1e-4; Amplified FedAvg lr 1e-5, gamma 3; Amplified SCAFFOLD lr 1e-4, gamma 1.5.
**Statement** (ASCAF.EXP1): f_log reaches 0.2 after 800 (Amplified SCAFFOLD), 1900 (SCAFFOLD) and
4800 (FedAvg, Amplified FedAvg) rounds; FedProx ~ FedAvg. The paper logged every 100 rounds, so its
numbers are first multiples of 100; we report the exact first round and the first multiple of 100.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .amplified import amplified_fedavg, amplified_scaffold
from .engine import simulate
from .local_methods import fedavg, fedprox, scaffold
from .lower_bound import lower_bound_objective
from .participation import cyclic

PAPER_ROUNDS = {"fedavg": 4800, "fedprox": None, "scaffold": 1900, "amplified_fedavg": 4800,
                "amplified_scaffold": 800}


def section5_algorithms(K: int = 10, P: int = 480) -> dict[str, Any]:
    return {
        "fedavg": fedavg(1e-5, K),
        "fedprox": fedprox(1e-5, K, 0.01),
        "scaffold": scaffold(1e-4, K),
        "amplified_fedavg": amplified_fedavg(1e-5 / 3, K, 3.0, P),
        "amplified_scaffold": amplified_scaffold(1e-4 / 1.5, K, 1.5, P),
    }


def ascaf_section5(trials: int = 20, rounds: int = 5000, seed: int = 0, target: float = 0.2,
                   device: str = "cpu", sigma: float = 1.0, threads: int | None = None) -> dict[str, Any]:
    """Per algorithm: per-trial first round with f_log <= target (exact and on the paper's 100-round
    log grid), their median / quartiles / min / max, the same for the true f, and final f_log.

    Trials are independent runs (own gradient-noise streams) in one batch.
    """
    problem = lower_bound_objective(sigma=sigma)
    pattern = cyclic(2, 1, 480, 2)
    out: dict[str, Any] = {"config": {"trials": trials, "rounds": rounds, "seed": seed, "target": target,
                                      "sigma": sigma}, "methods": {}}
    for name, alg in section5_algorithms().items():
        sim = simulate(problem, alg, pattern, trials, rounds, seed=seed, device=device, threads=threads)
        row: dict[str, Any] = {"paper": PAPER_ROUNDS[name], "steps_per_second": sim.steps_per_second}
        for label, metric, every in (("f_log", "f_log", 1), ("f_log_grid100", "f_log", 100), ("f_true", "gap", 1)):
            per = sim.rounds_to_per_trial(metric, target, every)
            vals = np.array([np.inf if v is None else v for v in per], float)
            row[label] = {"median": float(np.median(vals)), "q25": float(np.quantile(vals, 0.25)),
                          "q75": float(np.quantile(vals, 0.75)), "min": float(vals.min()), "max": float(vals.max()),
                          "never": int(np.isinf(vals).sum())}
        row["final_f_log_mean"] = float(np.nanmean(sim.metrics["f_log"][-1]))
        out["methods"][name] = row
    med = {k: v["f_log_grid100"]["median"] for k, v in out["methods"].items()}
    out["ordering_matches_paper"] = bool(med["amplified_scaffold"] < med["scaffold"] < min(med["fedavg"], med["amplified_fedavg"]))
    return out
