"""Results of a simulation: per-round histories, a summary with confidence intervals, CSV export.

**Quantity**: for each metric, the mean over non-diverged trials and a two-sided Student-t
confidence interval (``bounds.core.stats.t_interval`` at ``MEAN_LEVEL`` by default);
``rounds_to`` = first round r >= 1 (counted from 1) with mean_trials metric_r <= target.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bounds.core.stats import MEAN_LEVEL, t_interval


def first_round_at_or_below(series: np.ndarray, target: float, every: int = 1) -> int | None:
    """First round r >= 1 (series[r], r multiple of ``every``) with series[r] <= target, else None."""
    r = np.arange(series.shape[0])
    ok = (series <= target) & (r >= 1) & (r % every == 0)
    return int(np.argmax(ok)) if ok.any() else None


@dataclass(frozen=True)
class Summary:
    """Final metrics with confidence intervals, rounds to a target, divergence and throughput of a run."""

    final: Mapping[str, Mapping[str, float]]
    rounds_to: Mapping[str, Any]
    diverged: Mapping[str, Any]
    steps_per_second: float
    info: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"final": dict(self.final), "rounds_to": dict(self.rounds_to), "diverged": dict(self.diverged),
                "steps_per_second": self.steps_per_second, **dict(self.info)}


@dataclass(frozen=True)
class Simulation:
    """Histories ``metrics[name]`` [R+1, T] (row 0 = x0; NaN after a trial diverged), ``participants``
    [R, T], ``counts`` [T, M], ``diverged_round`` [T] (0 = never), the final models and run facts."""

    problem: Mapping[str, Any]
    algorithm: Mapping[str, Any]
    pattern: Mapping[str, Any]
    metrics: Mapping[str, np.ndarray]
    target_metric: str
    participants: np.ndarray
    counts: np.ndarray
    diverged_round: np.ndarray
    final_x: np.ndarray
    steps: int
    wall_seconds: float
    seed: int
    trials: int
    rounds: int
    versions: Mapping[str, str]
    pattern_state: Any = None

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.wall_seconds if self.wall_seconds > 0 else float("inf")

    def mean(self, name: str) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanmean(self.metrics[name], axis=1)

    def rounds_to_per_trial(self, name: str, target: float, every: int = 1) -> list[int | None]:
        """Per trial, the first round (multiple of ``every``) with metric <= target."""
        return [first_round_at_or_below(self.metrics[name][:, t], target, every) for t in range(self.trials)]

    def summary(self, target: float | None = None, level: float = MEAN_LEVEL) -> Summary:
        final = {}
        for name, v in self.metrics.items():
            mean, lo, hi, n = t_interval(v[-1], level)
            final[name] = {"mean": float(mean), "ci_low": float(lo), "ci_high": float(hi), "level": level,
                           "trials": int(n)}
        rounds_to: dict[str, Any] = {"target": target, "metric": self.target_metric}
        if target is not None:
            rounds_to["round"] = first_round_at_or_below(self.mean(self.target_metric), target)
            if self.target_metric != "gap":
                rounds_to["round_true_f"] = first_round_at_or_below(self.mean("gap"), target)
        div = self.diverged_round > 0
        diverged = {"count": int(div.sum()), "trials": self.trials,
                    "rule": "first round with a non-finite value or ||x - x*|| > 1e6 max(1, ||x0 - x*||)",
                    "first_round": int(self.diverged_round[div].min()) if div.any() else None,
                    "rounds": [int(x) for x in self.diverged_round[div]]}
        info = {"participation": {"mean_per_round": float(self.participants.mean()),
                                  "per_client_mean_count": self.counts.mean(0).tolist()},
                "problem": dict(self.problem), "algorithm": dict(self.algorithm), "pattern": dict(self.pattern),
                "steps": self.steps, "wall_seconds": self.wall_seconds, "trials": self.trials,
                "rounds": self.rounds, "seeds": {"seed": self.seed}, "versions": dict(self.versions)}
        return Summary(final, rounds_to, diverged, self.steps_per_second, info)

    def to_csv(self, level: float = MEAN_LEVEL) -> str:
        """Per-round means and t-intervals of each metric, plus mean participants (text)."""
        cols, names = [np.arange(self.rounds + 1)], ["round"]
        for name, v in self.metrics.items():
            mean, lo, hi, _ = t_interval(v, level, axis=1)
            cols += [mean, lo, hi]
            names += [f"{name}_mean", f"{name}_ci_low", f"{name}_ci_high"]
        cols.append(np.concatenate([[np.nan], self.participants.mean(1)]))
        names.append("participants_mean")
        buf = io.StringIO()
        buf.write(",".join(names) + "\n")
        for row in zip(*cols):
            buf.write(",".join([str(int(row[0]))] + [("" if not np.isfinite(v) else repr(float(v))) for v in row[1:]]) + "\n")
        return buf.getvalue()
