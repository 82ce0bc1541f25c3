"""What a falsification search is asked to do (:class:`SearchOptions`) and the space it draws from.

**Setting**: one search of one scenario by ``verify.search.falsify.search``.
**Quantity**: its sizes (budget, time limit, trials per point, confirmation trials, population), its
optimiser, and the space cut to what it draws from (:func:`search_space`).
**Statement**: every refusal a search can make before it draws a point is made here, once
(:meth:`SearchOptions.check` for the sizes, :func:`check_searchable` for what depends on the
scenario), so the command line asks the library instead of repeating its rules; each refusal names
its parameter (``UserInputError.param``) so the CLI shows it as the flag.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bounds.core.errors import UserInputError
from bounds.core.stats import MEAN_LEVEL
from verify.scenario import Scenario

__all__ = ["Prepared", "SearchOptions", "check_searchable", "prepare", "search_space"]


@dataclass(frozen=True)
class SearchOptions:
    """The settings of one search; checked when made (a bad size is one ``UserInputError`` line).

    Args:
        budget: evaluations (points tried).
        time_limit: stop after this many seconds (None: no limit).
        seed: root seed; search and confirmation seeds are spawned from it (``verify.search.falsify.search_seeds``).
        trials: trials per search evaluation (one batched run each).
        confirm_trials: trials of the confirmation run of the best point.
        optimiser: a name of ``verify.search.optimisers.registry()`` (built-ins and plugins').
        population: points per ask/tell generation (capped at ``budget``).
        device: ``cpu`` or ``cuda``.
        level: confidence level of the confirmation's interval.
        problems: the problem families to search (see :func:`search_space`; default: the scenario's).
        stop_at_violation: confirm apparent violations after each generation and stop at the first
            confirmed one (at most ``verify.search.falsify.MAX_CLAIMS`` confirmations).
        terms: RHS term names the strata searchers (``Entry.aimed`` in ``verify.search.optimisers``) aim at (default: every term).
    """

    budget: int
    time_limit: float | None = None
    seed: int = 0
    trials: int = 64
    confirm_trials: int = 4096
    optimiser: str = "corners"
    population: int = 8
    device: str = "cpu"
    level: float = MEAN_LEVEL
    problems: Sequence[str] | str | None = None
    stop_at_violation: bool = False
    terms: Sequence[str] | str | None = None

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """Refuse sizes no search can use: each message names its parameter (``param``)."""
        budget = self.budget
        if not _whole(budget) or budget < 1:
            raise UserInputError(f"budget={budget} must be a positive integer (evaluations)", param="budget")
        seed = self.seed
        if not _whole(seed) or seed < 0:
            raise UserInputError(f"seed={seed} must be a non-negative integer", param="seed")
        t = self.time_limit
        if t is not None and not (isinstance(t, numbers.Real) and math.isfinite(t) and t > 0):
            raise UserInputError(f"time_limit={t} must be a positive, finite number of seconds (omit it for no limit)",
                                 param="time_limit")
        for name in ("trials", "confirm_trials"):
            value = getattr(self, name)
            if not _whole(value) or value < 2:
                raise UserInputError(f"{name}={value} must be an integer >= 2 (an interval needs two runs)", param=name)
        from verify.search.optimisers import registry

        table = registry()
        if self.optimiser not in table:
            raise UserInputError(f"optimiser={self.optimiser!r} unknown; valid: {', '.join(table)}",
                                 param="optimiser")
        if self.terms is not None and not table[self.optimiser].aimed:
            aimed = ", ".join(k for k, e in table.items() if e.aimed)
            raise UserInputError(f"--terms aims the searchers that draw by strata ({aimed}); add "
                                 f"--optimiser stratified (not {self.optimiser})")

    def sized(self) -> SearchOptions:
        """These options with integer sizes and the population capped at the budget."""
        budget = int(self.budget)
        return dataclasses.replace(self, budget=budget, seed=int(self.seed), trials=int(self.trials),
                                   confirm_trials=int(self.confirm_trials),
                                   population=max(1, min(int(self.population), budget)))

    @classmethod
    def of(cls, options: SearchOptions | None, keywords: dict[str, Any]) -> SearchOptions:
        """``options`` updated with ``keywords`` (the keyword form ``search(sc, budget=..., ...)``)."""
        names = {f.name for f in dataclasses.fields(cls)}
        bad = sorted(set(keywords) - names)
        if bad:
            raise TypeError(f"search() got unexpected keyword(s) {', '.join(bad)}; SearchOptions has "
                            f"{', '.join(sorted(names))}")
        if options is None:
            if "budget" not in keywords:
                raise TypeError("search() needs budget= (or a SearchOptions)")
            return cls(**keywords)
        return dataclasses.replace(options, **keywords) if keywords else options


def _whole(x: Any) -> bool:
    """``x`` is a finite whole number (``2`` or ``2.0``; not ``True``, ``2.5``, ``inf`` or text)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        return False
    # an int of any size is whole (float() of one past 1e308 overflows; its size is refused where it is weighed)
    return isinstance(x, numbers.Integral) or (math.isfinite(x) and float(x).is_integer())


def search_space(scenario: Scenario, problems: Sequence[str] | str | None = None) -> Scenario:
    """``scenario`` with each categorical axis cut to what a search draws from.

    By default an axis's ``searched`` values (all its choices when unset); ``problems`` replaces the
    problem axis's: names among its choices, or ``"all"``. Raises ``UserInputError`` for other names.
    """
    space = []
    for p in scenario.space:
        if p.choices is None:
            space.append(p)
            continue
        use = tuple(p.searched or p.choices)
        if p.name == "problem" and problems is not None:
            words = [w.strip() for w in (problems.split(",") if isinstance(problems, str) else problems) if w.strip()]
            use = tuple(p.choices) if words == ["all"] else tuple(dict.fromkeys(words))
            bad = [w for w in use if w not in p.choices]
            if bad or not use:
                raise UserInputError(f"--problems {','.join(words) or repr(problems)}: {scenario.id} admits "
                                     f"{', '.join(p.choices)} (or all)")
        # the default point stays inside the cut axis: an axis left with one value is fixed at its default
        # by every optimiser, so a default outside ``use`` would search only the family it excluded
        default = p.default if p.default in use else use[0]
        space.append(dataclasses.replace(p, choices=use, searched=None, default=default))
    return dataclasses.replace(scenario, space=tuple(space))


SEARCHED_KINDS = ("upper", "order", "threshold")  # falsify compares LHS with RHS of these kinds only (a threshold as an upper bound on the least sufficient value)


def check_searchable(scenario: Scenario, options: SearchOptions,
                     deadline: float | None = None) -> tuple[Scenario, Any]:
    """Refuse what ``scenario`` cannot be searched with; returns its searched space and the optimiser for it.

    The result must be an upper, order or threshold result (falsify compares LHS with RHS); the problem
    families must be the scenario's; ``terms`` must name RHS terms of an optimiser that aims at them.
    ``deadline``: when ``--time`` ends (``time.perf_counter()`` seconds), handed to a timed optimiser's set-up.
    """
    import bounds
    from verify.search.optimisers import make_optimiser

    if bounds.get(scenario.result).kind.value not in SEARCHED_KINDS:
        kind = bounds.get(scenario.result).kind.value
        raise UserInputError(f"{scenario.id} is a {kind} result; falsify searches LHS/RHS of upper, order and "
                             "threshold results only (convbound verify checks the others)")
    opts = options.sized()
    searched = search_space(scenario, opts.problems)
    return searched, make_optimiser(opts.optimiser, searched, seed=int(opts.seed), population=opts.population,
                                    budget=opts.budget, terms=opts.terms, deadline=deadline)


@dataclass(frozen=True)
class Prepared:
    """A scenario made ready to search: the sized options, the searched space and the optimiser, set up from
    ``started`` (``time.perf_counter()``). Why: a command refuses what cannot be searched before its progress bar
    starts, and that check builds the optimiser (the ``corners`` pool probes hundreds of points: tens of CPU
    seconds on FAST.T1); handing the result to :func:`verify.search.falsify.search` builds it once, and the
    set-up still counts as search time under ``--time``."""

    options: SearchOptions
    searched: Scenario
    optimiser: Any
    started: float


def prepare(scenario: Scenario, options: SearchOptions) -> Prepared:
    """:func:`check_searchable` with the clock started first (see :class:`Prepared`)."""
    opts = options.sized()
    started = time.perf_counter()
    deadline = None if opts.time_limit is None else started + opts.time_limit
    searched, optimiser = check_searchable(scenario, opts, deadline)
    return Prepared(opts, searched, optimiser, started)
