"""The batched simulation engine: trials x clients as tensor dimensions, a Python loop over rounds.

**Setting**: a problem (exact constants), an algorithm (pure init/round), a participation
pattern (weights per round and trial), T independent trials sharing the problem instance.
**Quantity**: per round r = 0..R (row 0 is x0, row r the model after r rounds) and trial: the
problem's metrics (F(x)-F*, ||grad F(x)||^2, ||x-x*||^2, and f_log - f* for the LB objective),
the number of participants, per-client participation counts; divergence per trial: the first
round whose model or metrics are not finite, or whose distance to the optimum exceeds
``DIVERGENCE_FACTOR`` (10^6) times max(1, ||x0 - x*||) (``dist_sq`` > 10^12 max(1, ||x0 - x*||^2));
a trial's values from that round on are NaN, never averaged in. Randomness: the gradient noise comes from one
:class:`quadratics.problem.GaussianStream` seeded with ``seed`` (numpy's generator on CPU, a
torch.Generator on other devices; blocks of N(0, 1) values), the pattern's from numpy streams
keyed by (seed, round): same seed + same device kind -> identical trajectories. Participation is
drawn ahead in blocks of rounds unless the pattern observes the run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from bounds.core.errors import UserInputError

from .algorithm import Algorithm
from .participation import Pattern
from .problem import GaussianStream, check_count
from .summary import Simulation

DIVERGENCE_FACTOR = 1e6  # ||x_r - x*|| beyond this multiple of max(1, ||x0 - x*||): diverged
_FEW = 16  # clients up to which per-client columns beat reductions over the client axis


class _Participation:
    """Weights of a block of rounds [B,T,M] with, per round, the active clients in one order.

    Round j's active set is the n_j = max(1, max #participants) largest weights per trial, taken
    from one stable descending sort of the block (clients with weight 0 fill trials with fewer).
    """

    def __init__(self, qs: np.ndarray, dev: torch.device, dtype: torch.dtype, d: int = 1):
        self.on = qs > 0
        M = qs.shape[2]
        # numpy's reductions over a short last axis are ~10x slower than elementwise operations
        # over its columns: a few clients are taken column by column, many by a matrix product
        if M <= _FEW:
            per = self.on[..., 0].astype(np.int64)
            for m in range(1, M):
                per += self.on[..., m]
            self.per = per
        else:
            self.per = (self.on @ np.ones(M)).astype(np.int64)
        self.n = np.maximum(self.per.max(1), 1).tolist()
        width = max(self.n)
        if width == 1 and M <= _FEW:  # the largest weight and its client (first on ties, as the stable sort)
            best, arg = qs[..., 0].copy(), np.zeros(qs.shape[:2], dtype=np.int64)
            for m in range(1, M):
                better = qs[..., m] > best
                np.copyto(arg, m, where=better)
                np.copyto(best, qs[..., m], where=better)
            order, qa = arg[:, :, None], best[:, :, None]
        else:
            if width == 1:
                order = qs.argmax(2)[:, :, None]
            else:
                order = np.argsort(-qs, axis=2, kind="stable")[:, :, :width]
            qa = np.take_along_axis(qs, order, 2)
        # one transfer per block, split into per-round views once (indexing per round costs more)
        self.idx = torch.from_numpy(np.ascontiguousarray(order)).to(dev).unbind(0)
        qa_t = torch.from_numpy(qa).to(device=dev, dtype=dtype)
        self.qa = qa_t.unbind(0)
        # one participant: its weight over the d coordinates, for a same-shape (fast) server lerp
        self.wd = qa_t.expand(qa.shape[0], qa.shape[1], d).contiguous().unbind(0) if width == 1 else None
        self.q = torch.from_numpy(qs).to(device=dev, dtype=dtype).unbind(0)
        self.width = width

    def active(self, j: int) -> tuple[torch.Tensor, torch.Tensor]:
        n = self.n[j]
        if n == self.width:
            return self.idx[j], self.qa[j]
        return self.idx[j][:, :n], self.qa[j][:, :n]


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

    Ten parameters, why: this is the engine's public entry, called by keyword from every layer; the run
    (problem, algorithm, pattern, trials, rounds, seed) and four plumbing keywords stay flat so that no
    caller builds an options object for one call (inside, they travel as one :class:`_Run`).

    Args: problem: a :class:`quadratics.problem.Problem`; algorithm, pattern: from this package;
    seed: all randomness of the run; device: 'auto' | 'cpu' | 'cuda'; progress: called with the
    number of finished rounds (for progress bars); threads: torch intra-op threads for this run
    (restored afterwards; None leaves torch's setting; 1 is fastest for small batches on a busy CPU).
    Returns: a :class:`quadratics.summary.Simulation` (histories as numpy, ``.summary(target)``).
    """
    trials, rounds = check_count("trials", trials), check_count("rounds", rounds)
    run = _Run(trials, rounds, seed, device, dtype, progress)
    if threads is None:
        return _simulate(problem, algorithm, pattern, run)
    before = torch.get_num_threads()
    torch.set_num_threads(check_count("threads", threads))
    try:
        return _simulate(problem, algorithm, pattern, run)
    finally:
        torch.set_num_threads(before)


@dataclass(frozen=True)
class _Run:
    """What one call of :func:`simulate` asks for besides the problem, algorithm and pattern."""

    trials: int
    rounds: int
    seed: int
    device: str | torch.device
    dtype: torch.dtype
    progress: Callable[[int], None] | None


class _History:
    """The metric history [metrics, rounds + 1, trials]: models are buffered and their metrics computed in
    blocks of ``block`` rounds (fewer small kernels per round)."""

    def __init__(self, bound: Any, names: tuple[str, ...], run: _Run, d: int, block: int, dev: torch.device):
        self.bound, self.names, self.trials, self.d, self.block = bound, names, run.trials, d, block
        self.hist = torch.empty((len(names), run.rounds + 1, run.trials), device=dev, dtype=run.dtype)  # metric-major
        self.xbuf = torch.empty((block, run.trials, d), device=dev, dtype=run.dtype)
        self.xrows = self.xbuf.unbind(0)
        self.filled, self.first_row = 0, 0
        self.rows_of = getattr(bound, "metric_rows", None)  # optional: all metrics as one [len(names), N] tensor

    def push(self, x: torch.Tensor) -> None:
        """Buffer the model ``x`` as the next row (computing the buffered block's metrics when it is full)."""
        if self.filled == self.block:
            self.flush()
        self.xrows[self.filled].copy_(x)
        self.filled += 1

    def flush(self) -> dict[str, torch.Tensor]:
        """The buffered rows' metrics, written to the history; the buffer is emptied."""
        filled, trials = self.filled, self.trials
        x = self.xbuf[:filled].reshape(filled * trials, self.d)
        if self.rows_of is not None:
            rows = self.rows_of(x)
        else:
            m = self.bound.metrics(x)
            rows = torch.stack([m[k] for k in self.names])
        self.hist[:, self.first_row:self.first_row + filled].view(len(self.names), filled * trials).copy_(rows)
        self.first_row, self.filled = self.first_row + filled, 0
        return dict(zip(self.names, rows.unbind(0)))


def _simulate(problem: Any, algorithm: Algorithm, pattern: Pattern, run: _Run) -> Simulation:
    if pattern.M != problem.M:
        raise UserInputError(f"pattern has M={pattern.M} clients but the problem has M={problem.M}")
    trials, rounds = run.trials, run.rounds
    dev = resolve_device(run.device)
    bound = problem.bind(dev, run.dtype)
    gen = GaussianStream(run.seed, dev, run.dtype)
    x0 = torch.as_tensor(problem.x0, device=dev, dtype=run.dtype).expand(trials, problem.d).clone()
    state = algorithm.init(bound, x0, problem.M)
    pstate = pattern.init(trials, run.seed)
    # an adaptive pattern needs this round's metrics at once, so it gets blocks of one round
    # (blocks of at most 2^15 values stay in cache and below torch's parallel grain size: on a busy
    # CPU a multi-threaded op on a small block can stall for milliseconds)
    block = 1 if pattern.observe is not None else max(1, min(rounds + 1, (1 << 15) // (trials * problem.d)))
    history = _History(bound, problem.metric_names, run, problem.d, block, dev)
    # participation is drawn ahead in blocks of rounds (one host-to-device copy per block); a
    # pattern that observes the run can only be drawn one round at a time
    ahead = 1 if pattern.observe is not None else max(1, min(64, (1 << 20) // (trials * problem.M)))
    history.push(state["x"])
    gap0 = bound.metrics(state["x"])["gap"].cpu().numpy()
    participants = np.zeros((rounds, trials), dtype=np.int32)
    counts = np.zeros((trials, problem.M), dtype=np.int64)
    steps = 0
    start = time.perf_counter()
    with torch.inference_mode():
        for r0 in range(0, rounds, ahead):
            rs = range(r0, min(rounds, r0 + ahead))
            qs, auxes = [], []
            for r in rs:
                q, aux, pstate = pattern.draw(pstate, r)
                qs.append(q)
                auxes.append(aux)
            pq = _Participation(np.stack(qs), dev, run.dtype, problem.d)
            participants[r0:r0 + len(rs)] = pq.per
            counts += pq.on.sum(0)
            steps += int(pq.per.sum()) * algorithm.K
            for j, r in enumerate(rs):
                idx, qa = pq.active(j)
                aux = dict(auxes[j], idx=idx, qa=qa)
                if pq.wd is not None:
                    aux["wd"] = pq.wd[j]
                state = algorithm.round(state, bound, pq.q[j], r, gen, aux)
                history.push(state["x"])
                if pattern.observe is not None:
                    m = history.flush()
                    pstate = pattern.observe(pstate, r, {"gap": m["gap"].cpu().numpy(), "gap0": gap0})
                if run.progress is not None:
                    run.progress(r + 1)
        if history.filled:
            history.flush()
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    wall = time.perf_counter() - start
    hist_np = history.hist.cpu().numpy()
    arrays = {k: hist_np[j] for j, k in enumerate(problem.metric_names)}
    diverged_round = _mark_divergence(arrays, rounds, trials)
    return Simulation(
        problem=problem.describe(), algorithm={"name": algorithm.name, **dict(algorithm.params)},
        pattern={"name": pattern.name, **{k: v for k, v in pattern.constants.items()}},
        metrics=arrays, target_metric=problem.target_metric, participants=participants, counts=counts,
        diverged_round=diverged_round, final_x=state["x"].cpu().numpy(), steps=steps, wall_seconds=wall,
        seed=int(run.seed), trials=trials, rounds=rounds,
        versions={"torch": torch.__version__, "numpy": np.__version__, "device": str(dev),
                  "device_name": torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu",
                  "dtype": str(run.dtype).replace("torch.", "")},
        pattern_state=pstate,
    )


def _mark_divergence(arrays: dict[str, np.ndarray], rounds: int, trials: int) -> np.ndarray:
    """Each trial's divergence round (0 = never; row 0 is x0, always finite); its values from that round on are
    set to NaN in ``arrays`` (after divergence a trial has no values, never averaged in)."""
    bad = np.zeros((rounds + 1, trials), dtype=bool)
    for v in arrays.values():
        bad |= ~np.isfinite(v)
    if "dist_sq" in arrays:
        with np.errstate(invalid="ignore"):
            bad |= arrays["dist_sq"] > DIVERGENCE_FACTOR**2 * np.maximum(1.0, arrays["dist_sq"][:1])
    diverged_round = np.where(bad.any(0), bad.argmax(0), 0)
    for v in arrays.values():
        v[np.arange(rounds + 1)[:, None] >= np.where(diverged_round > 0, diverged_round, rounds + 1)[None, :]] = np.nan
    return diverged_round
