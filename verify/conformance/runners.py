"""Run a user's implementation of one round on a scenario: per-round quantities of every trial.

**Forms** (what a user hands in; the exact signatures are in docs/conformance.md):

* ``function``: ``round_fn(x, cohort, K, rng, state) -> x_new`` with x the server model (numpy [d]),
  cohort a :class:`verify.conformance.oracles.Cohort` of the participants (drawn by the harness from the
  claimed law), K local steps, rng a numpy Generator for the implementation's own randomness and state a
  dict it may keep anything in (one per trial, empty at round 0). Called once per trial and round, so the
  trials are kept modest (a Python loop is unavoidable: the function sees one model).
* ``torch``: ``step(x, cohort, K, generator, state) -> x_new`` with x [T, d] (all trials at once), cohort a
  :class:`verify.conformance.oracles.TorchCohort`, generator a torch.Generator; called once per round.
* ``flower``: ``make_strategy(setting) -> flwr Strategy``; its ``configure_fit``/``aggregate_fit`` are driven
  in-process with M clients that run local SGD on the quadratic clients (:mod:`verify.conformance.flower`);
  one run per trial (Flower aggregates one model).

**Quantity**: an array [R + 1, T, Q] of the quantities of :func:`verify.conformance.reference.quantities` of
x_r - x*, r = 0..R. A failing implementation raises UserInputError with one line saying what went wrong.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from bounds.core import seeds
from bounds.core.errors import UserInputError

from .claims import Scenario
from .limits import ROUND_SECONDS, describe_failure, time_limit
from .oracles import Client, Cohort, affine_clients, torch_cohort
from .reference import quantities

FORMS = ("function", "torch", "flower")
SIGNATURE = "(x, cohort, K, rng, state)"


def check_signature(fn: Any, form: str) -> None:
    """UserInputError unless ``fn`` can be called as the form requires."""
    if not callable(fn):
        raise UserInputError(f"the implementation {type(fn).__name__} object is not callable; a {form} implementation "
                             "is " + ("make_strategy(setting) -> Strategy" if form == "flower" else f"a function {SIGNATURE}"))
    method = None if inspect.isroutine(fn) or inspect.isclass(fn) else type(fn).__call__  # (a callable object)
    if inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn) or inspect.iscoroutinefunction(method):
        raise UserInputError(f"implementation {getattr(fn, '__name__', type(fn).__name__)} is an async def; conform "
                             "calls a plain def (wrap it: def f(*a): return asyncio.run(g(*a)))")
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return  # (builtins without a signature: the call itself will tell)
    try:
        if form == "flower":
            sig.bind(None)
        else:
            sig.bind(None, None, None, None, None)
    except TypeError:
        want = "make_strategy(setting)" if form == "flower" else f"round_fn{SIGNATURE}"
        raise UserInputError(f"implementation {getattr(fn, '__name__', fn)}{sig} does not take the {form} form's "
                             f"arguments; expected {want}") from None


def _failed(what: str, e: BaseException, scenario: Scenario, r: int) -> UserInputError:
    return UserInputError(f"the implementation failed at round {r} of scenario {scenario.name!r}: "
                          f"{describe_failure(what, e)}")


def _as_model(value: Any, shape: tuple[int, ...], scenario: Scenario, r: int) -> np.ndarray:
    if inspect.isawaitable(value):
        if inspect.iscoroutine(value):
            value.close()  # (never awaited: closed so that Python does not warn about it)
        raise UserInputError(f"the implementation returned an awaitable at round {r} of scenario {scenario.name!r}; "
                             "conform calls a plain def that returns the new model")
    try:
        arr = np.asarray(value.detach() if isinstance(value, torch.Tensor) else value, dtype=float)
    except BaseException as e:  # noqa: BLE001 (a user's object: its conversion may fail in any way)
        raise _failed("converting its result to an array", e, scenario, r) from None
    if arr.shape != shape:
        raise UserInputError(f"the implementation returned a model of shape {arr.shape} at round {r} of scenario "
                             f"{scenario.name!r}; expected {shape}")
    return arr


def draw_participation(scenario: Scenario, pattern: Any, trials: int, seed: int) -> np.ndarray:
    """Weights [R, T, M] of the claimed law, seeded (the pattern stream of this scenario's seed)."""
    state = pattern.init(trials, seeds.word(seed, "pattern", 29, scenario.seed))
    out = []
    for r in range(scenario.rounds):
        q, _, state = pattern.draw(state, r)
        out.append(np.asarray(q, dtype=float))
    return np.array(out)


def run_function(fn: Callable, scenario: Scenario, problem: Any, q: np.ndarray, seed: int,
                 seconds: float = ROUND_SECONDS) -> np.ndarray:
    """The plain-function form over T = q.shape[1] trials (a loop over trials, rounds and nothing else); each
    call runs under a limit of ``seconds``."""
    H, c, std = affine_clients(problem)
    s, d, xs = scenario.setting, problem.d, np.asarray(problem.x_star, dtype=float)
    T = q.shape[1]
    out = np.empty((scenario.rounds + 1, T, d))
    for t in range(T):
        noise = seeds.rng(seed, "noise", 29, scenario.seed, t)
        rng = seeds.rng(seed, "sample", 29, scenario.seed, t)
        state: dict[str, Any] = {}
        x = np.asarray(problem.x0, dtype=float).copy()
        out[0, t] = x
        for r in range(scenario.rounds):
            ids = np.flatnonzero(q[r, t] > 0)
            cohort = Cohort([Client(int(i), H[i], c[i], std, noise, None if s.rates is None else s.rates[i], s.p[i])
                             for i in ids], r, s)
            try:
                with time_limit(seconds):
                    new = fn(x.copy(), cohort, s.K, rng, state)
            except BaseException as e:  # noqa: BLE001 (a user's code: any failure, exits included, is one line)
                raise _failed("the round function", e, scenario, r) from None
            x = _as_model(new, (d,), scenario, r)
            out[r + 1, t] = x
    return quantities(out - xs)


def run_torch(fn: Callable, scenario: Scenario, problem: Any, q: np.ndarray, seed: int,
              seconds: float = ROUND_SECONDS) -> np.ndarray:
    """The torch form: all T trials in one call per round (under a limit of ``seconds``)."""
    H, c, std = affine_clients(problem)
    s, d = scenario.setting, problem.d
    T = q.shape[1]
    gen = torch.Generator().manual_seed(seeds.word(seed, "noise", 29, scenario.seed))
    x = torch.as_tensor(problem.x0, dtype=torch.float64).reshape(1, d).repeat(T, 1)
    state: dict[str, Any] = {}
    rows = [x.numpy().copy()]
    for r in range(scenario.rounds):
        cohort = torch_cohort(H, c, std, q[r], r, s, gen)
        try:
            with time_limit(seconds):
                new = fn(x.clone(), cohort, s.K, gen, state)
        except BaseException as e:  # noqa: BLE001 (a user's code)
            raise _failed("the torch step", e, scenario, r) from None
        arr = _as_model(new, (T, d), scenario, r)
        x = torch.as_tensor(arr, dtype=torch.float64)
        rows.append(arr.copy())
    return quantities(np.array(rows) - np.asarray(problem.x_star, dtype=float))
