"""The F3AST greedy sampler (eqs. 4-5, Algorithm 1 lines 3-5) and the naive p-proportional sampler.

**Setting**: in round t the server observes the available set A_t and cap K_t (the configuration C_t).
**Algorithm**: F3AST: S_t = the min(K_t, |A_t|) available clients with the largest utility
-dH/dr_k = w_k / r_k(t)^2 (w = p^2 or p; ties: lowest index), using the pre-update rate (spec flag 9);
then r(t+1) = (1 - beta) r(t) + beta 1_{S_t}. Naive: draw min(K_t, |A_t|) available clients without
replacement with probability proportional to p_k (Gumbel top-k), as FedAvg does under availability.
**Statement**: **limit**, F3AST Theorem III.3: r(t) -> r* = argmin_R H in probability as beta -> 0,
t > T_0 / beta. The naive sampler's rate is generally not r* (Table I: (0.225, 0.65) vs (0.375, 0.5)).
All functions are vectorised over independent runs (leading axis) and clients.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bounds.core import seeds
from bounds.core.errors import UserInputError, unknown
from bounds.core.stats import MEAN_LEVEL, t_interval
from rate_region.availability import AvailabilityModel, make_cap
from rate_region.variance import H as H_of
from rate_region.variance import check_objective, objective_weights

SAMPLERS = ("f3ast", "naive")


def _topk_mask(score: np.ndarray, k) -> np.ndarray:
    """Row-wise: True for the k largest finite scores (ties broken by lowest index)."""
    order = np.argsort(-score, axis=-1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.broadcast_to(np.arange(score.shape[-1]), score.shape).copy(), axis=-1)
    k = np.asarray(k)
    kk = k[..., None] if k.ndim else k
    return (rank < kk) & (score > -np.inf)


def f3ast_select(available: np.ndarray, rates: np.ndarray, p: np.ndarray, k, objective: str = "p2") -> np.ndarray:
    """Eq. (4): [runs, N] bool selection; k an int or an array [runs] (random cap)."""
    w = objective_weights(p, objective)
    r = np.asarray(rates, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.where(w > 0, w / r**2, 0.0)
    u = np.where(available, u, -np.inf)
    return _topk_mask(u, k) & available


def naive_select(available: np.ndarray, p: np.ndarray, k, rng: np.random.Generator) -> np.ndarray:
    """p-proportional sampling without replacement among available clients: [runs, N] bool."""
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore"):
        logp = np.log(p)
    keys = logp + rng.gumbel(size=np.shape(available))
    keys = np.where(available & (p > 0), keys, -np.inf)
    return _topk_mask(keys, k) & available & (p > 0)


def update_rates(rates: np.ndarray, selected: np.ndarray, beta: float) -> np.ndarray:
    """Eq. (5): r(t+1) = (1 - beta) r(t) + beta 1_S."""
    return (1.0 - beta) * rates + beta * selected


@dataclass(frozen=True)
class SamplerRun:
    sampler: str
    beta: float
    rounds: int
    runs: int
    seed: int
    objective: str
    p: np.ndarray
    times: np.ndarray  # [n_rec] rounds at which r(t) was recorded
    trajectory: np.ndarray | None  # [n_rec, runs, N] (None when too large to keep)
    mean_trajectory: np.ndarray  # [n_rec, N] mean over runs
    final_r: np.ndarray  # [runs, N]
    frequency: np.ndarray  # [runs, N] selection frequency over the second half of the rounds
    r_star: np.ndarray | None
    distance_trajectory: np.ndarray | None  # [n_rec, runs] ||r(t) - r*||
    distance_final: np.ndarray | None  # [runs]
    distance_frequency: np.ndarray | None  # [runs]
    H_final: np.ndarray  # [runs]
    H_star: float | None
    r_star_method: str | None

    def summary(self) -> dict:
        out = {"mean_final_r": self.final_r.mean(0).tolist(), "mean_frequency": self.frequency.mean(0).tolist()}
        for name in ("distance_final", "distance_frequency"):
            d = getattr(self, name)
            if d is not None:
                # the one interval rule at the level of means (NaN ends with a single run)
                mean, low, high, _ = t_interval(d, MEAN_LEVEL)
                out[name] = {"mean": float(mean), "ci": [float(low), float(high)], "level": MEAN_LEVEL,
                             "max": float(d.max())}
        return out

    def to_dict(self, max_clients: int = 1000) -> dict:
        n = self.final_r.shape[1]
        cut = slice(0, min(n, max_clients))
        return {
            "sampler": self.sampler,
            "beta": self.beta,
            "rounds": self.rounds,
            "runs": self.runs,
            "seed": self.seed,
            "objective": self.objective,
            "final_r": self.final_r[:, cut].tolist(),
            "frequency_second_half": self.frequency[:, cut].tolist(),
            "r_star": None if self.r_star is None else self.r_star[cut].tolist(),
            "r_star_method": self.r_star_method,
            "distance_to_r_star": None if self.distance_final is None else self.distance_final.tolist(),
            "frequency_distance_to_r_star": None if self.distance_frequency is None else self.distance_frequency.tolist(),
            "H_final": self.H_final.tolist(),
            "H_star": self.H_star,
            "times": self.times.tolist(),
            "mean_trajectory": self.mean_trajectory[:, cut].tolist(),
            "summary": self.summary(),
            "truncated_clients": n > max_clients,
        }


def simulate_sampler(
    model: AvailabilityModel,
    k=None,
    p=None,
    beta: float = 1e-3,
    rounds: int = 10_000,
    runs: int = 8,
    seed: int = 0,
    sampler: str = "f3ast",
    objective: str = "p2",
    r0=None,
    records: int = 200,
    r_star=None,
) -> SamplerRun:
    """Run eqs. (4)-(5) (or the naive sampler, whose rate is tracked by the same eq. 5) for ``rounds``.

    Twelve parameters, why: they are the setting of F3AST Theorem III.3 (availability ``model``, cap ``k``,
    weights ``p``), the sampler's own (``sampler``, ``beta``, ``objective``, r(0) ``r0``), the run (``rounds``,
    ``runs``, ``seed``, ``records``) and the r* compared with; callers name them by keyword, as the CLI does.
    """
    if sampler not in SAMPLERS:
        raise unknown("sampler", sampler, SAMPLERS)
    check_objective(objective)
    if not (0 < beta < 1):
        raise UserInputError(f"beta={beta!r} must lie in (0, 1) (the paper uses 0.001)")
    if int(rounds) != rounds or rounds < 1 or int(runs) != runs or runs < 1:
        raise UserInputError("rounds and runs must be positive integers")
    from rate_region.optimum import resolve_weights

    loop = _Loop(sampler, objective, beta, int(rounds), int(runs), records)
    cap = make_cap(k, getattr(model, "cap", None))
    p = resolve_weights(model, p)
    N = model.n_clients
    if r0 is None:
        r = np.full((loop.runs, N), min(1.0, cap.kmax / N))
    else:
        r = np.broadcast_to(np.asarray(r0, dtype=float), (loop.runs, N)).copy()
        if np.any(r <= 0):
            raise UserInputError("initial rates r(0) must be > 0 componentwise (the utility p^2/r^2 is infinite at 0)")
    r, freq, rec_t, traj, mean_traj = _sample(model, cap, p, r, seeds.rng(int(seed), "sample"), loop)
    r_star, method = _r_star(model, cap, p, objective, r_star)
    if r_star is not None:
        dist_final = np.linalg.norm(r - r_star, axis=1)
        dist_freq = np.linalg.norm(freq - r_star, axis=1)
        dist_traj = (np.linalg.norm(traj - r_star, axis=2) if traj is not None
                     else np.linalg.norm(mean_traj - r_star, axis=1)[:, None])
        H_star = float(H_of(r_star, p, objective))
    else:
        dist_final = dist_freq = dist_traj = None
        H_star = None
    return SamplerRun(sampler, float(beta), loop.rounds, loop.runs, int(seed), objective, p, rec_t, traj, mean_traj, r,
                      freq, r_star, dist_traj, dist_final, dist_freq, H_of(r, p, objective), H_star, method)


@dataclass(frozen=True)
class _Loop:
    """What the sampling loop runs: which sampler and objective, beta, the horizon, the runs, how many r(t) kept."""

    sampler: str
    objective: str
    beta: float
    rounds: int
    runs: int
    records: int


def _sample(model: AvailabilityModel, cap, p: np.ndarray, r: np.ndarray, rng: np.random.Generator,
            loop: _Loop) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """(final r [runs, N], selection frequency over the second half, recorded times, r(t) at them [or None when
    too large to keep], their mean over runs) of ``loop.rounds`` sequential rounds from r(0) = ``r``."""
    rounds, runs, N = loop.rounds, loop.runs, r.shape[1]
    rec_t = np.unique(np.linspace(0, rounds, min(loop.records, rounds) + 1).astype(np.int64))
    keep_full = rec_t.size * runs * N <= 5_000_000
    traj = np.empty((rec_t.size, runs, N), dtype=np.float32) if keep_full else None
    mean_traj = np.empty((rec_t.size, N))
    freq = np.zeros((runs, N))
    half = rounds // 2
    chunk = int(min(rounds, max(64, 2_000_000 // max(1, runs * N))))
    stream = model.stream(rng, runs, chunk)
    ri = 0
    t = 0
    while t < rounds:
        avail = next(stream)
        caps = cap.sample(rng, avail.shape[1], runs)
        for j in range(avail.shape[1]):  # rounds are sequential; each step is vectorised over runs x clients
            if t >= rounds:
                break
            if ri < rec_t.size and rec_t[ri] == t:
                if traj is not None:
                    traj[ri] = r
                mean_traj[ri] = r.mean(0)
                ri += 1
            kk = caps[:, j] if not cap.is_fixed else cap.values[0]
            if loop.sampler == "f3ast":
                sel = f3ast_select(avail[:, j], r, p, kk, loop.objective)
            else:
                sel = naive_select(avail[:, j], p, kk, rng)
            if t >= half:
                freq += sel
            r = update_rates(r, sel, loop.beta)
            t += 1
    if ri < rec_t.size:
        if traj is not None:
            traj[ri] = r
        mean_traj[ri] = r.mean(0)
    freq /= max(1, rounds - half)
    return r, freq, rec_t, traj, mean_traj


def _r_star(model: AvailabilityModel, cap, p: np.ndarray, objective: str, given) -> tuple[np.ndarray | None, str | None]:
    """(r*, how it was found): ``given``, or the model's optimum (None where the model's r* is not reachable)."""
    from rate_region.optimum import check_reachable, min_variance_rates

    if given is not None:
        return np.asarray(given, dtype=float), "given"
    try:
        check_reachable(model, p)
        opt = min_variance_rates(model, cap, p, objective)
        return opt.r_star, opt.method
    except UserInputError:
        return None, None
