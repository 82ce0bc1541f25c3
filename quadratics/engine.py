"""The batched simulation engine: trials x clients as tensor dimensions, a Python loop over rounds.

**Setting**: a problem (exact constants), an algorithm (pure init/round), a participation
pattern (weights per round and trial), T independent trials sharing the problem instance.
**Quantity**: per round r = 0..R (row 0 is x0, row r the model after r rounds) and trial: the
problem's metrics (F(x)-F*, ||grad F(x)||^2, ||x-x*||^2, and f_log - f* for the LB objective),
the number of participants, per-client participation counts; divergence (first round with a
non-finite model or metric) per trial. Randomness: one torch.Generator (gradient noise) seeded
with ``seed`` on the run's device, and the pattern's numpy streams keyed by (seed, round):
same seed + same device -> identical trajectories.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np
import torch

from bounds.errors import UserInputError

from .algorithm import Algorithm
from .participation import Pattern
from .problem import check_count
from .summary import Simulation


def resolve_device(device: str | torch.device = "auto") -> torch.device:
    """'auto' -> cuda when present else cpu; 'cuda' without a GPU is a UserInputError."""
    name = str(device)
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise UserInputError("device cuda requested but no CUDA GPU is available; use --device cpu or auto")
    if name not in ("cpu",) and not name.startswith("cuda"):
        raise UserInputError(f"unknown device {name!r}; valid: auto, cpu, cuda")
    return torch.device(name)


def simulate(problem: Any, algorithm: Algorithm, pattern: Pattern, trials: int, rounds: int, seed: int = 0,
             device: str | torch.device = "auto", dtype: torch.dtype = torch.float64,
             progress: Callable[[int], None] | None = None, threads: int | None = None) -> Simulation:
    """Run ``trials`` independent runs of ``algorithm`` under ``pattern`` on ``problem`` for ``rounds``.

    Args: problem: a :class:`quadratics.problem.Problem`; algorithm, pattern: from this package;
    seed: all randomness of the run; device: 'auto' | 'cpu' | 'cuda'; progress: called with the
    number of finished rounds (for progress bars); threads: torch intra-op threads for this run
    (restored afterwards; None leaves torch's setting; 1 is fastest for small batches on a busy CPU).
    Returns: a :class:`quadratics.summary.Simulation` (histories as numpy, ``.summary(target)``).
    """
    trials, rounds = check_count("trials", trials), check_count("rounds", rounds)
    if threads is None:
        return _simulate(problem, algorithm, pattern, trials, rounds, seed, device, dtype, progress)
    before = torch.get_num_threads()
    torch.set_num_threads(check_count("threads", threads))
    try:
        return _simulate(problem, algorithm, pattern, trials, rounds, seed, device, dtype, progress)
    finally:
        torch.set_num_threads(before)


def _simulate(problem: Any, algorithm: Algorithm, pattern: Pattern, trials: int, rounds: int, seed: int,
              device: str | torch.device, dtype: torch.dtype, progress: Callable[[int], None] | None) -> Simulation:
    if pattern.M != problem.M:
        raise UserInputError(f"pattern has M={pattern.M} clients but the problem has M={problem.M}")
    dev = resolve_device(device)
    bound = problem.bind(dev, dtype)
    gen = torch.Generator(device=dev)
    gen.manual_seed(int(seed))
    x0 = torch.as_tensor(problem.x0, device=dev, dtype=dtype).expand(trials, problem.d).clone()
    state = algorithm.init(bound, x0, problem.M)
    pstate = pattern.init(trials, seed)
    names = problem.metric_names
    hist = {k: torch.empty((rounds + 1, trials), device=dev, dtype=dtype) for k in names}
    # models are buffered and their metrics computed in blocks (fewer small kernels per round);
    # an adaptive pattern needs this round's metrics at once, so it gets blocks of one round
    block = 1 if pattern.observe is not None else max(1, min(rounds + 1, (1 << 23) // (trials * problem.d)))
    xbuf = torch.empty((block, trials, problem.d), device=dev, dtype=dtype)
    filled, first_row = 0, 0

    def flush() -> dict[str, torch.Tensor]:
        m = bound.metrics(xbuf[:filled].reshape(filled * trials, problem.d))
        for k in names:
            hist[k][first_row:first_row + filled] = m[k].reshape(filled, trials)
        return m

    xbuf[0] = state["x"]
    filled = 1
    gap0 = bound.metrics(state["x"])["gap"].cpu().numpy()
    participants = np.zeros((rounds, trials), dtype=np.int32)
    counts = np.zeros((trials, problem.M), dtype=np.int64)
    steps = 0
    start = time.perf_counter()
    with torch.inference_mode():
        for r in range(rounds):
            q, aux, pstate = pattern.draw(pstate, r)
            on = q > 0
            per = on.sum(1)
            participants[r] = per
            counts += on
            steps += int(per.sum()) * algorithm.K
            # the n = max participants largest weights per trial, in numpy (cheaper than torch.topk here)
            n = max(int(per.max()), 1)
            idx = np.argpartition(-q, n - 1, axis=1)[:, :n] if n < q.shape[1] else np.tile(np.arange(n), (q.shape[0], 1))
            aux = dict(aux, idx=torch.from_numpy(np.ascontiguousarray(idx)).to(dev),
                       qa=torch.from_numpy(np.take_along_axis(q, idx, 1)).to(device=dev, dtype=dtype))
            state = algorithm.round(state, bound, torch.from_numpy(q).to(device=dev, dtype=dtype), r, gen, aux)
            if filled == block:
                flush()
                first_row, filled = first_row + filled, 0
            xbuf[filled] = state["x"]
            filled += 1
            if pattern.observe is not None:
                m = flush()
                first_row, filled = first_row + filled, 0
                pstate = pattern.observe(pstate, r, {"gap": m["gap"].cpu().numpy(), "gap0": gap0})
            if progress is not None:
                progress(r + 1)
        if filled:
            flush()
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    wall = time.perf_counter() - start
    arrays = {k: v.cpu().numpy() for k, v in hist.items()}
    bad = np.zeros((rounds + 1, trials), dtype=bool)
    for v in arrays.values():
        bad |= ~np.isfinite(v)
    diverged_round = np.where(bad.any(0), bad.argmax(0), 0)  # 0 = never (row 0 is x0, always finite)
    for k, v in arrays.items():  # after divergence a trial has no values, never averaged in
        v[np.arange(rounds + 1)[:, None] >= np.where(diverged_round > 0, diverged_round, rounds + 1)[None, :]] = np.nan
    return Simulation(
        problem=problem.describe(), algorithm={"name": algorithm.name, **dict(algorithm.params)},
        pattern={"name": pattern.name, **{k: v for k, v in pattern.constants.items()}},
        metrics=arrays, target_metric=problem.target_metric, participants=participants, counts=counts,
        diverged_round=diverged_round, final_x=state["x"].cpu().numpy(), steps=steps, wall_seconds=wall,
        seed=int(seed), trials=trials, rounds=rounds,
        versions={"torch": torch.__version__, "numpy": np.__version__, "device": str(dev),
                  "device_name": torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu",
                  "dtype": str(dtype).replace("torch.", "")},
        pattern_state=pstate,
    )
