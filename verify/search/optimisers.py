"""The optimisers' registry (names in one place; a plugin adds one) and the third-party ones: optuna, nevergrad.

**Setting**: a :class:`verify.scenario.Scenario` space; a score to *maximise* per point.
**Algorithm**: every optimiser meets :class:`verify.search.proposal.Optimiser`: ``ask(n)`` returns n proposals
(a generation), ``tell(points, scores)`` feeds them back. Each starts from the scenario's default point (its
first asked point), is seeded, and sees nothing but the space and the scores. The built-ins are
:data:`BUILT_IN`; ``random`` and ``stratified`` live in :mod:`verify.search.stratified`, the searchers that wrap
``stratified`` in their own modules (``corners``, ``climb``, ``rays``, ``ray_seed``). Optuna and nevergrad are
imported inside (slow imports; ``convbound --help`` stays fast).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bounds.core.errors import UserInputError, unknown
from verify.scenario import Param, Scenario
from verify.search.proposal import Optimiser, Proposal
from verify.search.stratified import EDGE, Random, Stratified, clip, fixed_axes, free_axes

__all__ = ["AIMED", "BUILT_IN", "EDGE", "OPTIMISERS", "Entry", "Random", "Stratified", "clip", "make_optimiser",
           "registry"]


class _Optuna:
    def __init__(self, scenario: Scenario, sampler: str, seed: int, population: int):
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.space = free_axes(scenario.space)
        self.fixed = fixed_axes(scenario.space)
        if sampler == "cmaes":
            # categorical axes fall back to the independent sampler: say nothing, it is expected
            import warnings

            warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
            warnings.filterwarnings("ignore", module="optuna")
            s: Any = optuna.samplers.CmaEsSampler(seed=seed, popsize=population, warn_independent_sampling=False,
                                             n_startup_trials=0)
        else:
            s = optuna.samplers.TPESampler(seed=seed, n_startup_trials=max(10, population))
        self.study = optuna.create_study(direction="maximize", sampler=s)
        self.study.enqueue_trial({p.name: p.default for p in self.space})
        self.pending: list[Any] = []

    def _suggest(self, trial: Any, p: Param) -> Any:
        if p.choices is not None:
            return trial.suggest_categorical(p.name, list(p.choices))
        if p.integer:
            return trial.suggest_int(p.name, int(p.low), int(p.high), log=p.log)
        return trial.suggest_float(p.name, p.low, p.high, log=p.log)

    def ask(self, n: int) -> list[Proposal]:
        self.pending = [self.study.ask() for _ in range(n)]
        return [Proposal({**self.fixed, **{p.name: self._suggest(t, p) for p in self.space}}, None)
                for t in self.pending]

    def tell(self, points: Sequence[Mapping[str, Any]], scores: Sequence[float]) -> None:
        for t, s in zip(self.pending, scores):
            self.study.tell(t, float(s))


class _Nevergrad:
    def __init__(self, scenario: Scenario, name: str, seed: int, population: int, budget: int):
        import nevergrad as ng
        import numpy as np

        self.fixed = fixed_axes(scenario.space)
        self.space = tuple(scenario.space)
        axes: dict[str, Any] = {}
        for p in free_axes(scenario.space):
            if p.choices is not None:
                axes[p.name] = ng.p.Choice(list(p.choices))
            elif p.log:
                axes[p.name] = ng.p.Log(init=float(p.default), lower=p.low, upper=p.high)
            else:
                axes[p.name] = ng.p.Scalar(init=float(p.default), lower=p.low, upper=p.high)
            if p.integer:
                axes[p.name].set_integer_casting()
        param = ng.p.Dict(**axes)
        param.random_state = np.random.RandomState(seed)
        self.defaults = {p.name: p.default for p in free_axes(scenario.space)}
        self.opt = ng.optimizers.registry[name](parametrization=param, budget=budget, num_workers=population)
        self.first = True
        self.pending: list[Any] = []

    def ask(self, n: int) -> list[Proposal]:
        self.pending = [self.opt.ask() for _ in range(n)]
        if self.first:  # start from the default point (categorical inits are random in nevergrad)
            self.pending[0] = self.opt.parametrization.spawn_child(new_value=self.defaults)
            self.first = False
        return [Proposal(clip(self.space, {**self.fixed, **c.value}), None) for c in self.pending]

    def tell(self, points: Sequence[Mapping[str, Any]], scores: Sequence[float]) -> None:
        for c, s in zip(self.pending, scores):
            self.opt.tell(c, -float(s))  # nevergrad minimises


@dataclass(frozen=True)
class Entry:
    """A registered optimiser.

    Args:
        name: what ``--optimiser`` and ``SearchOptions.optimiser`` call it.
        build: ``(scenario, seed=, population=, budget=, terms=) -> Optimiser`` (``verify.search.proposal``),
            and ``deadline=`` when ``timed``.
        aimed: whether it draws by RHS-term strata (``--terms`` aims it); others refuse ``terms``.
        summary: one line for ``falsify --optimiser help``.
        timed: whether its set-up takes ``deadline=`` (``time.perf_counter()`` seconds, or None) and stops its
            probes there, so that ``--time`` covers the set-up too; others are built whole.
    """

    name: str
    build: Callable[..., Optimiser]
    aimed: bool = False
    summary: str = ""
    timed: bool = False


def _rays(sc: Scenario, *, seed: int, population: int, budget: int, terms: Any,
          deadline: float | None = None) -> Optimiser:
    from verify.search.rays import RayClimb

    return RayClimb(sc, Stratified(sc, seed, terms, deadline))


def _seeded(sc: Scenario, *, seed: int, population: int, budget: int, terms: Any,
            deadline: float | None = None) -> Optimiser:
    from verify.search.ray_seed import RaySeeded

    return RaySeeded(sc, Stratified(sc, seed, terms, deadline))


def _climb(sc: Scenario, *, seed: int, population: int, budget: int, terms: Any,
           deadline: float | None = None) -> Optimiser:
    from verify.search.climb import GradientClimb

    return GradientClimb(sc, Stratified(sc, seed, terms, deadline))


def _corners(sc: Scenario, *, seed: int, population: int, budget: int, terms: Any,
             deadline: float | None = None) -> Optimiser:
    from verify.search.corners import CornerArrays

    return CornerArrays(sc, Stratified(sc, seed, terms, deadline), seed=seed, budget=budget, deadline=deadline)


def _stratified(sc: Scenario, *, seed: int, population: int, budget: int, terms: Any,
                deadline: float | None = None) -> Optimiser:
    return Stratified(sc, seed, terms, deadline)


def _external(kind: str, name: str) -> Callable[..., Optimiser]:
    def build(sc: Scenario, *, seed: int, population: int, budget: int, terms: Any) -> Optimiser:
        return _Optuna(sc, name, seed, population) if kind == "optuna" else _Nevergrad(sc, name, seed, population,
                                                                                        budget)
    return build


#: the built-in optimisers, in the order ``--optimiser help`` lists them (the default first)
BUILT_IN = (
    Entry("corners", _corners, True, "covering arrays of the corners per term stratum, a lattice climb, then "
                                     "stratified draws (the default)", timed=True),
    Entry("stratified", _stratified, True, "edge-weighted draws aimed in turn at the strata 'RHS term t dominates'",
          timed=True),
    Entry("random", lambda sc, *, seed, population, budget, terms: Random(sc, seed), False,
          "edge-weighted draws of the box"),
    Entry("climb", _climb, True, "stratified draws, then gradient ascent on exactly scored points", timed=True),
    Entry("seeded", _seeded, True, "the orders table's rays, then stratified draws", timed=True),
    Entry("rays", _rays, True, "stratified draws, then compass walks along rays", timed=True),
    Entry("optuna-cmaes", _external("optuna", "cmaes"), False, "optuna's CMA-ES"),
    Entry("optuna-tpe", _external("optuna", "tpe"), False, "optuna's TPE"),
    Entry("nevergrad-ngopt", _external("nevergrad", "NGOpt"), False, "nevergrad's NGOpt"),
    Entry("nevergrad-cma", _external("nevergrad", "CMA"), False, "nevergrad's CMA"),
)
OPTIMISERS = tuple(e.name for e in BUILT_IN)
#: the built-in searchers that draw by RHS-term strata (``--terms`` aims them)
AIMED = tuple(e.name for e in BUILT_IN if e.aimed)


def registry() -> dict[str, Entry]:
    """Every optimiser by name: the built-ins, then plugins' (a plugin file's ``optimisers()`` returns
    :class:`Entry` objects; ``bounds.plugins``)."""
    from bounds.plugins import merge

    table = merge("optimisers", {e.name: e for e in BUILT_IN}, key=lambda e: e.name)
    bad = [k for k, e in table.items() if not isinstance(e, Entry)]
    if bad:
        raise UserInputError(f"optimiser {bad[0]!r}: a plugin's optimisers() must return "
                             "verify.search.optimisers.Entry objects (name, build, aimed, summary)")
    return table


def make_optimiser(name: str, scenario: Scenario, *, seed: int, population: int, budget: int,
                   terms: Sequence[str] | str | None = None, deadline: float | None = None) -> Optimiser:
    """An ask/tell optimiser ``name`` (a key of :func:`registry`) over ``scenario``'s space, seeded.

    ``terms`` (aimed optimisers only, :attr:`Entry.aimed`): the RHS terms whose strata they aim at.
    ``deadline`` (``time.perf_counter()`` seconds; timed optimisers only, :attr:`Entry.timed`): their set-up's
    probes stop there.
    """
    table = registry()
    if name not in table:
        raise unknown("optimiser", name, table)
    entry = table[name]
    if terms is not None and not entry.aimed:
        raise UserInputError(f"--terms aims the searchers that draw by strata "
                             f"({', '.join(k for k, e in table.items() if e.aimed)}); it does not apply to "
                             f"--optimiser {name}")
    timing = {"deadline": deadline} if entry.timed else {}
    return entry.build(scenario, seed=int(seed), population=int(population), budget=int(budget), terms=terms,
                       **timing)
