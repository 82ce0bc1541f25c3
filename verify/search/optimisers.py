"""Ask/tell black-box optimisers over a scenario's space: optuna (CMA-ES, TPE) and nevergrad (NGOpt, CMA).

**Setting**: a :class:`verify.scenario.Scenario` space (float, log, integer, categorical axes; an axis
with low == high is fixed and not searched); a score to *maximise* per point.
**Algorithm**: ``ask(n)`` returns n points (a generation), ``tell(points, scores)`` feeds them back.
Every optimiser starts from the scenario's default point (its first asked point), is seeded, and
never sees anything but the space and the scores. ``random`` samples the box with its edges weighted:
each numeric axis sits at its low or its high end with probability ``EDGE`` / 2 each, else uniformly
(log-uniformly on a log axis) inside. Why: a theorem's hypotheses are tightest, and its counterexamples
most often found, at the extremes of what they admit (fewest clients, most skewed participation,
a probability at 0); a plain uniform draw puts a corner of k axes at probability ~ 0 and leaves it to luck.
Optuna and nevergrad are imported inside (slow imports; ``convbound --help`` stays fast).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

from bounds.core.errors import UserInputError, unknown
from verify.scenario import Param, Scenario

__all__ = ["OPTIMISERS", "clip", "make_optimiser"]

OPTIMISERS = ("optuna-cmaes", "optuna-tpe", "nevergrad-ngopt", "nevergrad-cma", "random", "stratified", "rays", "seeded",
              "climb", "corners")
#: the searchers that draw by RHS-term strata (``--terms`` aims them)
AIMED = ("stratified", "corners", "climb", "seeded", "rays")
EDGE = 1 / 3  # probability that random search puts a numeric axis at one of its two ends


def _free(space: Sequence[Param]) -> list[Param]:
    return [p for p in space if p.choices is None and p.low < p.high or p.choices is not None and len(p.choices) > 1]


def clip(space: Sequence[Param], point: Mapping[str, Any]) -> dict[str, Any]:
    """``point`` with each numeric value put back inside its axis (integers rounded, then clipped).

    Why: an optimiser's own transforms round-trip through floats (nevergrad's log axis returns
    0.010000000000000004 for an upper end of 0.01), and a value one ulp outside its axis is refused by
    ``Param.coerce``; the search must only ever propose points of its space.
    """
    out = dict(point)
    for p in space:
        if p.choices is not None or p.name not in out:
            continue
        x = min(float(p.high), max(float(p.low), float(out[p.name])))
        out[p.name] = int(min(p.high, max(p.low, round(x)))) if p.integer else x
    return out


def _fixed(space: Sequence[Param]) -> dict[str, Any]:
    free = {p.name for p in _free(space)}
    return {p.name: p.default for p in space if p.name not in free}


class _Optuna:
    def __init__(self, scenario: Scenario, sampler: str, seed: int, population: int):
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.space = _free(scenario.space)
        self.fixed = _fixed(scenario.space)
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

    def ask(self, n: int) -> list[dict[str, Any]]:
        self.pending = [self.study.ask() for _ in range(n)]
        return [{**self.fixed, **{p.name: self._suggest(t, p) for p in self.space}} for t in self.pending]

    def tell(self, points: Sequence[Mapping[str, Any]], scores: Sequence[float]) -> None:
        for t, s in zip(self.pending, scores):
            self.study.tell(t, float(s))


class _Nevergrad:
    def __init__(self, scenario: Scenario, name: str, seed: int, population: int, budget: int):
        import nevergrad as ng
        import numpy as np

        self.fixed = _fixed(scenario.space)
        self.space = tuple(scenario.space)
        axes: dict[str, Any] = {}
        for p in _free(scenario.space):
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
        self.defaults = {p.name: p.default for p in _free(scenario.space)}
        self.opt = ng.optimizers.registry[name](parametrization=param, budget=budget, num_workers=population)
        self.first = True
        self.pending: list[Any] = []

    def ask(self, n: int) -> list[dict[str, Any]]:
        self.pending = [self.opt.ask() for _ in range(n)]
        if self.first:  # start from the default point (categorical inits are random in nevergrad)
            self.pending[0] = self.opt.parametrization.spawn_child(new_value=self.defaults)
            self.first = False
        return [clip(self.space, {**self.fixed, **c.value}) for c in self.pending]

    def tell(self, points: Sequence[Mapping[str, Any]], scores: Sequence[float]) -> None:
        for c, s in zip(self.pending, scores):
            self.opt.tell(c, -float(s))  # nevergrad minimises


class _Random:
    def __init__(self, scenario: Scenario, seed: int):
        from bounds.core.seeds import key, rng

        self.space, self.fixed = _free(scenario.space), _fixed(scenario.space)
        self.rng = rng(int(seed), "search", key("random optimiser"))  # the search stream (bounds.core.seeds)
        self.first = True

    def _draw(self, p: Param) -> Any:
        if p.choices is not None:
            return p.choices[int(self.rng.integers(len(p.choices)))]
        u = self.rng.random()
        if u < EDGE:  # an end of the axis: the first half of [0, EDGE) is the low end
            x = p.low if u < EDGE / 2 else p.high
        else:
            u = (u - EDGE) / (1 - EDGE)  # the rest, rescaled: one draw per axis keeps the stream simple
            x = (math.exp(math.log(p.low) + u * (math.log(p.high) - math.log(p.low))) if p.log
                 else p.low + u * (p.high - p.low))
        return int(min(p.high, max(p.low, round(x)))) if p.integer else x

    def ask(self, n: int) -> list[dict[str, Any]]:
        out = [{**self.fixed, **{p.name: self._draw(p) for p in self.space}} for _ in range(n)]
        if self.first:
            out[0] = {**self.fixed, **{p.name: p.default for p in self.space}}
            self.first = False
        return out

    def tell(self, points: Sequence[Mapping[str, Any]], scores: Sequence[float]) -> None:
        pass


class _Stratified:
    """Random search aimed, point by point, at the strata "RHS term t dominates" and one plain stratum.

    Why: a constant that is too small in one term of a bound shows only where that term is most of the
    right side; a plain draw lands there rarely when several axes must conspire (a tiny step for the
    noise floor, a long horizon for the drift). The RHS is symbolic and cheap (no simulation), so each
    point of stratum t is the best of ``CANDIDATES`` edge-weighted random draws by t's share of the RHS
    (``share_t = term_t / sum of the terms``, read from ``bounds`` at the built instance's inputs). The
    strata take turns (t_1, ..., t_k, random, t_1, ...); the first point is the default.
    """

    CANDIDATES = 16

    def __init__(self, scenario: Scenario, seed: int, terms: Sequence[str] | str | None = None,
                 deadline: float | None = None):
        import bounds

        self.scenario, self.base = scenario, _Random(scenario, seed)
        self.base.first = False
        self.first = True
        scenario.register_result()
        self.result = bounds.get(scenario.result)
        names = [t.name for t in self.result.terms]
        words = ([w.strip() for w in terms.split(",") if w.strip()] if isinstance(terms, str)
                 else list(terms) if terms is not None else None)
        if words is not None:
            bad = [w for w in words if w not in names]
            if bad or not words:
                raise UserInputError(f"--terms {','.join(words) or repr(terms)}: {scenario.result} has RHS terms "
                                     f"{', '.join(names)}")
        chosen = words or names
        # a stratum no candidate can reach (its term is 0 everywhere sampled) is empty: refused when asked for
        probe = []
        for _ in range(4 * self.CANDIDATES):
            probe.append(self.shares(self.base.ask(1)[0]))
            if deadline is not None and time.perf_counter() >= deadline:  # --time covers the set-up too
                break
        reach = {t: max((sh.get(t, 0.0) for sh in probe if sh), default=0.0) for t in chosen}
        empty = [t for t, r in reach.items() if not r > 0]
        if words is not None and empty:
            raise UserInputError(f"--terms {','.join(empty)}: that term is 0 at all {len(probe)} points sampled from "
                                 f"{scenario.id}'s space (an empty stratum); terms that are not: "
                                 f"{', '.join(t for t in names if t not in empty) or 'none'}")
        self.strata = [t for t in chosen if t not in empty] + ["random"]
        self.k = 0
        self.last_strata: list[str] = []

    def shares(self, point: Mapping[str, Any]) -> dict[str, float] | None:
        """Each term's share of the RHS at ``point`` (None when the point cannot be built or checked)."""
        from bounds.evaluate import evaluate

        try:
            inst = self.scenario.build(self.scenario.point(point))
            terms = evaluate(self.result, dict(inst.values)).terms  # the RHS only: hypotheses are the run's
            vals = {k: abs(float(v)) for k, v in terms.items()}
        except Exception:  # a point the builder or the result refuses: no share (the evaluation will say why)
            return None
        total = sum(vals.values())
        if not math.isfinite(total) or total <= 0:
            return None
        return {k: v / total for k, v in vals.items()}

    def _aimed(self, term: str) -> dict[str, Any]:
        cands = self.base.ask(self.CANDIDATES)
        scored = [((sh or {}).get(term, -1.0), i) for i, sh in enumerate(map(self.shares, cands))]
        return cands[max(scored)[1]]

    def ask(self, n: int) -> list[dict[str, Any]]:
        out, self.last_strata = [], []
        for _ in range(n):
            if self.first:
                out.append({**self.base.fixed, **{p.name: p.default for p in self.base.space}})
                self.last_strata.append("default")
                self.first = False
                continue
            stratum = self.strata[self.k % len(self.strata)]
            self.k += 1
            out.append(self.base.ask(1)[0] if stratum == "random" else self._aimed(stratum))
            self.last_strata.append(stratum)
        return out

    def tell(self, points: Sequence[Mapping[str, Any]], scores: Sequence[float]) -> None:
        pass


def make_optimiser(name: str, scenario: Scenario, *, seed: int, population: int, budget: int,
                   terms: Sequence[str] | str | None = None, deadline: float | None = None) -> Any:
    """An ask/tell optimiser ``name`` (one of ``OPTIMISERS``) over ``scenario``'s space, seeded.

    ``terms`` (the searchers of :data:`AIMED` only): the RHS terms whose strata they aim at.
    ``deadline`` (``time.perf_counter()`` seconds; None: none): the set-up's probes stop there (``--time``).
    """
    if terms is not None and name not in AIMED:
        raise UserInputError(f"--terms aims the searchers that draw by strata ({', '.join(AIMED)}); it does not "
                             f"apply to --optimiser {name}")
    if name == "rays":  # stratified draws, then walks along rays (verify/search/rays.py)
        from verify.search.rays import RayClimb

        return RayClimb(scenario, _Stratified(scenario, seed, terms, deadline))
    if name == "stratified":
        return _Stratified(scenario, seed, terms, deadline)
    if name == "seeded":  # the orders table's rays, then stratified draws (verify/search/ray_seed.py)
        from verify.search.ray_seed import RaySeeded

        return RaySeeded(scenario, _Stratified(scenario, seed, terms, deadline))
    if name == "climb":  # stratified draws, then gradient ascent on exactly scored points (verify/search/climb.py)
        from verify.search.climb import GradientClimb

        return GradientClimb(scenario, _Stratified(scenario, seed, terms, deadline))
    if name == "corners":  # covering arrays of the corners per term stratum, then stratified (verify/search/corners.py)
        from verify.search.corners import CornerArrays

        return CornerArrays(scenario, _Stratified(scenario, seed, terms, deadline), seed=seed, budget=budget,
                            deadline=deadline)
    if name == "optuna-cmaes":
        return _Optuna(scenario, "cmaes", seed, population)
    if name == "optuna-tpe":
        return _Optuna(scenario, "tpe", seed, population)
    if name == "nevergrad-ngopt":
        return _Nevergrad(scenario, "NGOpt", seed, population, budget)
    if name == "nevergrad-cma":
        return _Nevergrad(scenario, "CMA", seed, population, budget)
    if name == "random":
        return _Random(scenario, seed)
    raise unknown("optimiser", name, OPTIMISERS)
