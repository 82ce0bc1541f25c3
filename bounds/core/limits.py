"""One estimator of what a run will cost, so that absurd sizes are refused before anything is allocated.

``--trials 10^9``, ``--rounds 10^9``, ``K=1e12``, ``region --clients 10^7`` used to allocate until the
process crashed or ran for hours. Each command states its sizes here first; a run whose memory
estimate exceeds half the machine's memory, or whose time estimate exceeds the budget, is refused
with the estimate (exit 2). The budget is ``CONVBOUND_MAX_SECONDS`` seconds (default 600: ten minutes).

The estimates are deliberately rough (a factor of a few): they separate "minutes" from "days" and
"gigabytes" from "terabytes", which is all a refusal needs. The constants were measured on a 2-core
CPU machine (``tests/benchmarks``) and are generous to the run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from bounds.core.errors import UserInputError

DEFAULT_MAX_SECONDS = 600.0
_BYTES = 8  # float64
# simulate (threads=1, as a search scores a point; CPU seconds on the 2-core machine at load 5-6, medians of 3,
# tests/benchmarks/bench_cost_model.py and the K and M sweeps behind it): a run costs, per round, a fixed overhead (the
# participation gather, the server step, the history's metrics: about 1e-4 s measured on FAST.T1/T2, F3AST.T3.5 and
# ASCAF.T1 at d = 2-8, K = 1) ...
_ROUND_OVERHEAD_S = 1e-4
# ... plus the pattern's draw of every client's weight in every trial, each round (FAST's beta-distributed weights and
# their sort; T x M of them, all M clients whether they take part or not): 8e-8 s a weight (FAST.T1's nonconvex family
# at d = 2, K = 1, 64 trials: 127 us a round at M = 4, 170 at 10, 590 at 100, 5.2 ms at 1,000) ...
_DRAW_S_PER_WEIGHT = 8e-8
# ... plus, per local step, a fixed overhead (Python and dispatch) that depends on the engine's path: a family with an
# elementwise affine gradient (``bound.affine``: quadratic, quadratic-diagonal, nonconvex) runs the tabulated kernels,
# one to three tensor operations a step (10-17 us a step measured at d = 2, K from 1 to 20); any other family
# (logistic, quadratic-rotated) calls ``bound.grad`` each step, several operations (60-95 us a step measured) ...
_STEP_OVERHEAD_S = {"tabulated": 1.2e-5, "general": 8e-5}
# ... plus the arithmetic over the active clients only (the engine gathers the round's n participants, [trials, n, d];
# n = max participants over the trials, e.g. 5 of FAST.T1's 10 clients): element operations per element of a step at
# _ELEMENTS_PER_S. Measured per step: tabulated 3.1-4.5 operations (quadratic-diagonal 3.1, nonconvex 4.5 with its sin;
# noise draw, offsets, the step), general 4.6-7 (quadratic-rotated 4.6, logistic 6.5-7: its two products with the
# client's samples); T n d from 10^4 to 3.2 x 10^5
_OPS_PER_ELEMENT = {"tabulated": 4.0, "general": 6.0}
_ELEMENTS_PER_S = 2e8
# region: the rank oracle and the sort of the polymatroid solver, per client (named models, 10^5 clients: ~9 s)
_REGION_S_PER_CLIENT = 1e-4
_REGION_BYTES_PER_CLIENT = 400
# F3AST sampler: per client per round per run
_SAMPLER_S_PER_ELEMENT = 2e-8


@dataclass(frozen=True)
class Cost:
    """Estimated peak memory (bytes) and running time (seconds) of a run, and what it was computed from."""

    bytes: float
    seconds: float
    what: str

    def describe(self) -> str:
        if self.seconds <= 0:  # bounded by a time limit the user gave: only the memory is an estimate
            return f"about {_size(self.bytes)} of memory"
        return f"about {_size(self.bytes)} of memory and {_duration(self.seconds)}"


def simulation_cost(trials: int, rounds: int, clients: int, dim: int, local_steps: int, active: int | None = None,
                    path: str = "general") -> Cost:
    """The batched engine: state [trials, clients, dim] in a few copies, metrics [rounds, trials].

    ``active``: the clients a round's local steps run on (the most participants of a round over the trials; default
    ``clients``, the most there can be); ``path``: ``"tabulated"`` for a family with an elementwise affine gradient,
    ``"general"`` (the default, the dearer) otherwise. The defaults give an upper estimate for a caller that knows
    only the sizes (the CLI's refusals); the search passes both (:func:`verify.search.cost.predicted_cost`)."""
    # the problems are affine-plus-elementwise (per-client vectors, no dense d x d matrix): data ~ clients x dim
    state = 8.0 * trials * clients * dim * _BYTES + 4.0 * clients * dim * _BYTES
    metrics = 6.0 * (rounds + 1) * trials * _BYTES
    n = clients if active is None else max(1, min(int(active), int(clients)))
    step = _STEP_OVERHEAD_S[path] + _OPS_PER_ELEMENT[path] * trials * n * dim / _ELEMENTS_PER_S
    seconds = rounds * (_ROUND_OVERHEAD_S + _DRAW_S_PER_WEIGHT * trials * clients + local_steps * step)
    return Cost(state + metrics, seconds, f"{trials} trials x {rounds} rounds x {clients} clients x "
                                            f"dimension {dim} x {local_steps} local steps")


def per_trial_cost(trials: int, clients: int, dim: int = 1) -> Cost:
    """The per-trial exact path (FAST's mixture: one participation law per trial, verify.exact_score): each
    trial holds its own law (a table that grows like 2^clients) and its own repeated squaring over the
    coordinates; measured on the 2-core machine: 1.2 KB a trial at 4 clients, 20 KB at 16; CPU a trial about
    0.5 ms + 1.8e-7 s per law-table entry + (8.9e-6 + 1.3e-6 clients) s per coordinate (FAST.T2's quadratic at
    M in {4, 16}, d in {4, 100, 1000}, 64 trials: 0.14 to 2.8 s a point; tests/benchmarks/bench_cost_model.py)."""
    table = 1024.0 + 0.32 * 2.0 ** min(clients, 60)
    seconds = 5e-4 + _PER_TRIAL_S_PER_ENTRY * 2.0 ** min(clients, 60) + (8.9e-6 + 1.3e-6 * clients) * dim
    return Cost(trials * (table + 3.0 * clients * dim * _BYTES), trials * seconds,
                f"{trials} trials of the per-trial exact path over {clients} clients in dimension {dim}")


_PER_TRIAL_S_PER_ENTRY = 1.8e-7  # one law-table entry of one trial (2^clients of them), measured at 16 clients


def region_cost(clients: int, rounds: int = 0, runs: int = 0) -> Cost:
    """r* over a named model of ``clients`` clients; with ``rounds`` the sampler's runs as well."""
    seconds = clients * _REGION_S_PER_CLIENT + rounds * runs * clients * _SAMPLER_S_PER_ELEMENT
    memory = clients * _REGION_BYTES_PER_CLIENT + runs * clients * 4 * _BYTES
    what = f"{clients} clients" + (f", {rounds} rounds x {runs} runs" if rounds else "")
    return Cost(memory, seconds, what)


# falsify: what one evaluation keeps (its seed, spawned up front, ~0.4 kB measured; its trace entry
# and score) and the least time it takes (one simulate call: ~0.1 s measured at FAST.T1's default point)
_SEARCH_BYTES_PER_EVALUATION = 1e3
_SEARCH_S_PER_EVALUATION = 5e-3


def search_cost(budget: int, time_limit: float | None) -> Cost:
    """A search's bookkeeping over ``budget`` evaluations (the simulations are sized per point apart).

    With ``time_limit`` the search stops then, so only the memory counts (the seeds of every
    evaluation are drawn before the first one); without it, a floor on the time as well.
    """
    n = float(min(budget, 10**300))  # a count past float range is refused, not an OverflowError
    seconds = 0.0 if time_limit is not None else n * _SEARCH_S_PER_EVALUATION
    return Cost(n * _SEARCH_BYTES_PER_EVALUATION, seconds, f"--budget {budget} evaluations")


def refuse_trials_floor(trials: int, name: str) -> None:
    """Refuse a trial count that cannot fit even at the smallest instance (one client, dimension 1, one
    round): decided from the number alone, before any instance is built (``--trials 10^9`` at once)."""
    floor = simulation_cost(trials, 1, 1, 1, 1)
    cost = Cost(floor.bytes, floor.seconds, f"{name} {trials} (even at one client of dimension 1 for one round)")
    memory, budget = _memory_bytes(), _max_seconds()
    most = int(trials * min(memory / 2 / floor.bytes, budget / max(floor.seconds, 1e-300)))
    refuse_if_too_big(cost, f"lower {name} below {most} (real instances allow fewer still)")


def refuse_if_too_big(cost: Cost, hint: str, count: tuple[str, int] | None = None) -> None:
    """Raise ``UserInputError`` with the estimate when ``cost`` cannot fit in memory or in the time budget.

    ``count`` (option name, value) is the size the cost grows with about linearly, e.g.
    ``("--trials", 10**9)``: the message then says how large it could be (what would fit).
    """
    memory = _memory_bytes()
    budget = _max_seconds()
    if cost.bytes > memory / 2:
        raise UserInputError(f"{cost.what} needs {cost.describe()}; this machine has {_size(memory)}: {hint}"
                             f"{_fits(count, memory / 2 / cost.bytes)}")
    if cost.seconds > budget:
        raise UserInputError(f"{cost.what} needs {cost.describe()}, over the {_duration(budget)} budget "
                             f"(set CONVBOUND_MAX_SECONDS to raise it): {hint}{_fits(count, budget / cost.seconds)}")


def _fits(count: tuple[str, int] | None, share: float) -> str:
    """`` (at most about N fit)``: the linear share of ``count`` that stays within the limit."""
    if count is None:
        return ""
    name, value = count
    most = int(float(min(value, 10**300)) * share)  # the costs cap a count past float range the same way
    return f" ({name} {most} or less would fit)" if most >= 1 else f" (not even {name} 1 fits)"


def _memory_bytes() -> float:
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 16e9


def _max_seconds() -> float:
    text = os.environ.get("CONVBOUND_MAX_SECONDS", "")
    try:
        value = float(text)
    except ValueError:
        return DEFAULT_MAX_SECONDS
    return value if value > 0 else DEFAULT_MAX_SECONDS


def _size(n: float) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n / 1e3:.3g} kB"


def _duration(s: float) -> str:
    for unit, scale in (("years", 3.15e7), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s:.3g} s"


def region_max_clients() -> int:
    """The most clients a model file may hold for r* here: region_cost within half the memory and the budget."""
    return int(min(_memory_bytes() / 2 / _REGION_BYTES_PER_CLIENT, _max_seconds() / _REGION_S_PER_CLIENT))


# audit: seconds per (round, client) cell (tests/benchmarks/bench_audit.py: 10^7 cells in 8-9 s)
_AUDIT_S_PER_CELL = 1e-6


def audit_max_cells(bytes_per_cell: float) -> int:
    """The most (round, client) cells an audit may hold here (``bytes_per_cell``: rate_region.logs.BYTES_PER_CELL,
    passed in because this ground floor imports nothing above it): within half the memory and the time budget."""
    return int(min(_memory_bytes() / 2 / bytes_per_cell, _max_seconds() / _AUDIT_S_PER_CELL))


# one search point: a simulated point whose estimate exceeds this many seconds (or half the memory) is cut, not
# simulated; the search record counts it (verify.search.cost). Exact points have no per-point cap.
DEFAULT_POINT_SECONDS = 2.0


def point_budget() -> tuple[float, float]:
    """(seconds, bytes) one simulated search point may take: ``CONVBOUND_POINT_SECONDS`` (default 2 s: about the costliest point the former axis caps allowed) and half
    this machine's memory."""
    text = os.environ.get("CONVBOUND_POINT_SECONDS", "")
    try:
        value = float(text)
    except ValueError:
        value = DEFAULT_POINT_SECONDS
    return (value if value > 0 else DEFAULT_POINT_SECONDS), _memory_bytes() / 2


def over_budget(cost: Cost, seconds: float, memory: float) -> str:
    """Why ``cost`` exceeds (seconds, memory), or ''."""
    if cost.bytes > memory:
        return f"{cost.what} needs {cost.describe()}, over the per-point memory {_size(memory)}"
    if cost.seconds > seconds:
        return (f"{cost.what} needs {cost.describe()}, over the per-point budget of {_duration(seconds)} "
                "(CONVBOUND_POINT_SECONDS)")
    return ""


# exact moments: one product of two order-n matrices with their rounding bounds (5 float64 products), measured
# ~0.6 s at order 600 on the 2-core machine (quadratics/exact/plan.py MAX_ORDER)
_EXACT_S_PER_CUBE = 2.8e-9


def exact_cost(order: int, rounds: int, blocks: int = 1, setup: tuple[float, float] = (0.0, 0.0)) -> Cost:
    """Repeated squaring of the moment matrix (order n) over ``rounds``: about 2 log2(R) + 4 products of n^3, for
    each of ``blocks`` independent blocks (the coordinate-by-coordinate path powers d blocks of order 3 together,
    quadratics.exact.diagonal), plus ``setup`` = (element operations, numbers held) before the powers (that
    path's coefficients over 2M + 1 features x d coordinates and its check of the engine's round, whose tables
    are K x M x d), at the simulator's element rate."""
    import math

    products = 2 * math.log2(max(2, int(rounds))) + 4
    n = float(order) + 3
    what = f"exact moments of order {order} over {rounds} rounds" + (f" ({blocks} blocks)" if blocks > 1 else "")
    return Cost(8.0 * n * n * _BYTES * blocks + setup[1] * _BYTES,
                _EXACT_S_PER_CUBE * n**3 * products * blocks + setup[0] / _ELEMENTS_PER_S, what)
