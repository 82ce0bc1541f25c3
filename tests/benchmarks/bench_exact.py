"""Exact moments (quadratics.exact) at long horizons, and their cost against Monte Carlo at equal accuracy.

Run:  python tests/benchmarks/bench_exact.py            (prints the README figures, writes results/exact.json)
or:   python -m pytest tests/benchmarks/bench_exact.py --benchmark-enable

Cases: FedAvg (K = 5, eta = 0.01, M = 16, uniform S = 4 and cyclic S = 2 of 2 groups, P = 480) on the three
quadratic families at d = 10, R = 10^6 rounds: wall time of one exact evaluation (median of 3, the first call
included in the max), goal < 1 s; and its rounding bound relative to the value.
Cost ratio at equal accuracy (same instances, R = 1000): Monte Carlo is run with 256 trials (seed 0), its
per-trial standard deviation s of the final E||x_R - x*||^2 gives the trials a 99% interval of relative
half-width eps needs, N(eps) = (2.576 s / (eps mean))^2, and its time is extrapolated linearly in trials from
the measured run (a batched run gets cheaper per trial as it grows, so this overstates Monte Carlo's cost by
at most that factor); the exact path's accuracy is its rounding bound (~1e-11 relative), which Monte Carlo
would reach only with ~10^20 trials: the table gives the ratio at eps = 1% and 0.1% and the N needed.
Per-trial exact (FAST's mixture, propensities drawn once per trial): three FAST.T2@corrected points, 64
trials each way (seed 0); the simulation's trials needed to match the per-trial interval and the cost ratio.
Sweep: ``evaluate_point`` at 25 random points of FAST.T2@corrected and FAST.T1 (quadratic family): the path
that scored each, wall time, and agreement with a 512-trial simulation at the first four.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

from quadratics import cyclic, diagonal_quadratic, fedavg, heterogeneous_quadratic, rotated_quadratic, simulate, uniform
from quadratics.exact import exact_moments

FAMILIES = {"quadratic": heterogeneous_quadratic, "quadratic-diagonal": diagonal_quadratic,
            "quadratic-rotated": rotated_quadratic}
OUT = Path(__file__).resolve().parent / "results" / "exact.json"


def instance(family: str, pattern: str):
    pb = FAMILIES[family](L=1.0, mu=0.1, d=10, M=16, zeta=1.0, sigma=1.0, D0=1.0, seed=0)
    pat = uniform(M=16, S=4) if pattern == "uniform" else cyclic(M=16, S=2, P=480, groups=2)
    return pb, fedavg(eta=0.01, K=5), pat


def time_exact(family: str, pattern: str, rounds: int = 10**6, repeat: int = 3) -> dict:
    pb, alg, pat = instance(family, pattern)
    walls, ex = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        ex = exact_moments(pb, alg, pat, rounds)
        walls.append(time.perf_counter() - t)
    assert ex is not None
    return {"family": family, "pattern": pattern, "rounds": rounds, "median_s": statistics.median(walls),
            "max_s": max(walls), "dist_sq": ex.final["dist_sq"],
            "rel_bound": ex.final_err["dist_sq"] / ex.final["dist_sq"],
            "mean_grad_sq": ex.mean["grad_sq"], "mean_rel_bound": ex.mean_err["grad_sq"] / ex.mean["grad_sq"]}


def cost_ratio(family: str, pattern: str, rounds: int = 1000, trials: int = 256, seed: int = 0) -> dict:
    pb, alg, pat = instance(family, pattern)
    t = time.perf_counter()
    ex = exact_moments(pb, alg, pat, rounds)
    t_exact = time.perf_counter() - t
    t = time.perf_counter()
    sim = simulate(pb, alg, pat, trials=trials, rounds=rounds, seed=seed, device="cpu", threads=1)
    t_mc = time.perf_counter() - t
    x = sim.metrics["dist_sq"][rounds]
    mean, sd = float(np.mean(x)), float(np.std(x, ddof=1))
    out = {"family": family, "pattern": pattern, "rounds": rounds, "exact_s": t_exact, "mc_s": t_mc,
           "mc_trials": trials, "seed": seed, "exact": ex.final["dist_sq"], "mc_mean": mean,
           "exact_rel_bound": ex.final_err["dist_sq"] / ex.final["dist_sq"]}
    for eps in (1e-2, 1e-3):
        n = (2.576 * sd / (eps * mean)) ** 2
        out[f"trials_for_{eps:g}"] = n
        out[f"ratio_for_{eps:g}"] = t_mc * n / trials / t_exact
    out["trials_for_exact_bound"] = (2.576 * sd / (out["exact_rel_bound"] * mean)) ** 2
    return out


T2_POINTS = ({}, {"M": 8, "d": 8, "horizon": 30.0}, {"M": 16, "d": 8, "K": 8})


def per_trial_ratio(point: dict, trials: int = 64, seed: int = 0) -> dict:
    """FAST.T2@corrected at ``point``: per-trial exact moments (participation and noise integrated given each
    trial's propensities) against the simulation, both with ``trials`` trials and ``seed``; the Monte Carlo
    trials that would match the per-trial interval, and the cost ratio at that accuracy (linear in trials)."""
    from quadratics.exact import per_trial_moments
    from quadratics.summary import t_interval
    from verify.scenarios import get

    sc = get("FAST.T2@corrected")
    inst = sc.build(sc.point(point))
    R = int(inst.rounds)
    t = time.perf_counter()
    pm = per_trial_moments(inst.problem, inst.algorithm, inst.pattern, R, trials=trials, seed=seed)
    t_pt = time.perf_counter() - t
    t = time.perf_counter()
    sim = simulate(inst.problem, inst.algorithm, inst.pattern, trials=trials, rounds=R, seed=seed, device="cpu",
                   threads=1)
    t_mc = time.perf_counter() - t
    a, b = t_interval(pm.final["dist_sq"], 0.99), t_interval(sim.metrics["dist_sq"][R], 0.99)
    hw_pt, hw_mc = (a[2] - a[1]) / 2 / a[0], (b[2] - b[1]) / 2 / b[0]
    need = trials * (hw_mc / hw_pt) ** 2
    return {"point": point, "rounds": R, "M": inst.problem.M, "d": inst.problem.d, "trials": trials, "seed": seed,
            "per_trial_s": t_pt, "mc_s": t_mc, "per_trial_rel_halfwidth": hw_pt, "mc_rel_halfwidth": hw_mc,
            "mc_trials_to_match": need, "ratio": t_mc * need / trials / t_pt}


def scenario_sweep(scenario_id: str, points: int = 25, seed: int = 7, replays: int = 4) -> dict:
    """``evaluate_point`` (64 trials) at ``points`` random points of the scenario's box on the quadratic family
    (axes drawn uniformly, log axes log-uniformly, R <= 400 for FAST.T1): which path scored each, the wall time,
    and for the first ``replays`` points whether a 512-trial simulation's interval overlaps the score's."""
    import math

    from verify.exact_score import monte_carlo
    from verify.scenario import evaluate_point
    from verify.scenarios import get

    sc = get(scenario_id)
    rng = np.random.default_rng(seed)
    paths: dict[str, int] = {}
    walls, overlaps = [], []
    for i in range(points):
        pt: dict = {}
        for p in sc.space:
            if p.choices is not None:
                pt[p.name] = "quadratic" if p.name == "problem" else p.default
                continue
            v = math.exp(rng.uniform(math.log(p.low), math.log(p.high))) if p.log else rng.uniform(p.low, p.high)
            pt[p.name] = int(round(v)) if p.integer else v
        if "R" in pt:
            pt["R"] = min(pt["R"], 400)
        t = time.perf_counter()
        est = evaluate_point(sc, pt, trials=64, seed=i)
        walls.append(time.perf_counter() - t)
        method = est.exact.get("method", "monte-carlo")
        paths[method] = paths.get(method, 0) + 1
        if i < replays:
            with monte_carlo():
                mc = evaluate_point(sc, pt, trials=512, seed=100 + i)
            overlaps.append(bool(mc.ci[0] <= est.ci[1] and est.ci[0] <= mc.ci[1]))
    return {"scenario": scenario_id, "points": points, "seed": seed, "paths": paths,
            "median_s": statistics.median(walls), "max_s": max(walls), "replays_overlapping": overlaps}


def test_exact_one_million_rounds(benchmark):
    rec = benchmark.pedantic(time_exact, args=("quadratic-rotated", "uniform"), kwargs={"repeat": 1}, rounds=1,
                             iterations=1)
    assert rec["median_s"] < 1.0, rec


def main() -> None:
    torch.set_num_threads(1)
    rows = [time_exact(f, p) for f in FAMILIES for p in ("uniform", "cyclic")]
    print("exact, R = 10^6, d = 10, M = 16, FedAvg K = 5:")
    for r in rows:
        print(f"  {r['family']:19s} {r['pattern']:8s} median {r['median_s']:.3f} s (max {r['max_s']:.3f} s)  "
              f"E||x-x*||^2 = {r['dist_sq']:.6g} (bound {r['rel_bound']:.1e} rel)  "
              f"mean E||grad||^2 = {r['mean_grad_sq']:.6g} (bound {r['mean_rel_bound']:.1e} rel)")
    ratios = [cost_ratio(f, "uniform") for f in FAMILIES]
    print("cost at equal accuracy, R = 1000 (Monte Carlo: 256 trials measured, extrapolated):")
    for r in ratios:
        print(f"  {r['family']:19s} exact {r['exact_s']:.3f} s; MC {r['mc_s']:.2f} s / 256 trials; "
              f"1%: {r['trials_for_0.01']:.0f} trials, ratio {r['ratio_for_0.01']:.0f}x; "
              f"0.1%: {r['trials_for_0.001']:.3g} trials, ratio {r['ratio_for_0.001']:.3g}x; "
              f"exact's own bound ({r['exact_rel_bound']:.1e}) would need {r['trials_for_exact_bound']:.1e} trials")
    per = [per_trial_ratio(p) for p in T2_POINTS]
    print("FAST.T2@corrected, per-trial exact (given each trial's propensities) vs simulation, 64 trials each:")
    for r in per:
        print(f"  {r['point']} R={r['rounds']} M={r['M']} d={r['d']}: per-trial {r['per_trial_s']:.2f} s, "
              f"99% half-width {r['per_trial_rel_halfwidth']:.2g} rel; simulation {r['mc_s']:.2f} s, "
              f"{r['mc_rel_halfwidth']:.2g} rel; the simulation needs {r['mc_trials_to_match']:.3g} trials to "
              f"match (cost ratio {r['ratio']:.3g}x)")
    sweeps = [scenario_sweep(sid) for sid in ("FAST.T2@corrected", "FAST.T1")]
    print("evaluate_point at 25 random points (quadratic family, 64 trials):")
    for r in sweeps:
        print(f"  {r['scenario']}: paths {r['paths']}, median {r['median_s']:.2f} s, max {r['max_s']:.2f} s; "
              f"512-trial replays overlapping: {r['replays_overlapping']}")
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps({"exact_1e6": rows, "cost_ratio": ratios, "per_trial_fast_t2": per, "sweeps": sweeps,
                               "command": " ".join(sys.argv),
                               "versions": {"numpy": np.__version__, "torch": torch.__version__,
                                            "python": sys.version.split()[0]}}, indent=1))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
