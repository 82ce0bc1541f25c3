"""``conform``: run a user's implementation of one round against the algorithm and law it claims.

**Setting**: the claim (algorithm, law), the scenarios of :mod:`verify.conformance.claims`, one of the forms of
:mod:`verify.conformance.runners`.
**Quantity**: per scenario, the trial mean of x_r - x* and of its outer product at every round r = 1..R, against
the reference algorithm's exact moments under the claimed law (:mod:`verify.conformance.reference`; a large
reference simulation where the exact path declines, said in the record).
**Statement**: departs when some test exceeds the Bonferroni threshold at family-wise alpha
(:mod:`verify.conformance.compare`); otherwise conforms on what was covered (not a proof).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bounds.core.errors import UserInputError, unknown

from .claims import check_claim, reference_pattern, scenarios
from .compare import ALPHA, ConformanceResult, Departure, ScenarioReport, departures, describe, threshold, z_scores
from .diagnose import diagnose
from .limits import ROUND_SECONDS, check_seconds, check_sizes
from .reference import quantity_names, reference_algorithm, reference_moments
from .runners import FORMS, check_signature, draw_participation, run_function, run_torch

# trials per scenario by form: the function and Flower forms run one trial at a time (Python loops over
# trials and clients), the torch form all trials at once
DEFAULT_TRIALS = {"function": 300, "torch": 2000, "flower": 200}
REFERENCE_TRIALS = 20000  # reference simulation where the exact path declines (its se enters every z)
# trials of the simulation that gives the reference's per-trial variances (the exact path has no fourth
# moments): 20 times the check's own trials, between 1000 and 4000 (a variance from n trials is within
# about sqrt(2 / n) of itself for Gaussian spread: 4.5% at 1000)
VAR_TRIALS = (1000, 4000, 20)


def _label(impl: Any) -> str:
    mod, name = getattr(impl, "__module__", None), getattr(impl, "__qualname__", None)
    return f"{mod}:{name}" if mod and name else type(impl).__name__


def _run(impl: Callable, form: str, sc: Any, problem: Any, pattern: Any, trials: int, seed: int,
         seconds: float) -> Any:
    if form == "flower":
        from .flower import run_flower

        return run_flower(impl, sc, problem, trials, seed, seconds)
    q = draw_participation(sc, pattern, trials, seed)
    return (run_function if form == "function" else run_torch)(impl, sc, problem, q, seed, seconds)


def check_request(algorithm: str, law: str, form: str, trials: int | None, alpha: float, rounds: int) -> int:
    """The trials per scenario (the form's default where None), after refusing (one line, before any work) an
    unknown claim or form, an alpha outside (0, 0.5) and counts that cannot fit (:func:`limits.check_sizes`)."""
    check_claim(algorithm, law)
    if form not in FORMS:
        raise unknown("implementation form", form, FORMS)
    trials = DEFAULT_TRIALS[form] if trials is None else trials
    if not isinstance(alpha, (int, float)) or not 0 < alpha < 0.5:
        raise UserInputError(f"alpha={alpha} must lie in (0, 0.5)", param="alpha")
    check_sizes(trials, rounds)
    return int(trials)


@dataclass(frozen=True)
class ConformOptions:
    """The test's sizes: ``trials`` per scenario (default by form: :data:`DEFAULT_TRIALS`), ``seed`` (every random
    draw), ``alpha`` (family-wise error rate), ``rounds`` per scenario; ``stop_early``: stop after the first
    scenario with a departure (the verdict cannot change; the record lists the scenarios not run, and the
    threshold stays the one of all scenarios); ``round_seconds``: the time limit of one call of the user's code
    (:mod:`verify.conformance.limits`)."""

    trials: int | None = None
    seed: int = 0
    alpha: float = ALPHA
    rounds: int = 6
    stop_early: bool = False
    round_seconds: float = ROUND_SECONDS


def conform(implementation: Callable, *, algorithm: str, law: str, form: str = "function",
            options: ConformOptions | None = None, name: str | None = None, **option_fields: Any) -> ConformanceResult:
    """Check ``implementation`` (a round function, a torch step, or ``make_strategy(setting)`` for Flower)
    against ``algorithm`` under ``law``, with the test's sizes ``options`` (:class:`ConformOptions`, or its
    fields as keywords: ``conform(f, algorithm=..., law=..., trials=200, seed=1)``).

    Returns a :class:`verify.conformance.compare.ConformanceResult`; UserInputError (one line) for an unknown
    algorithm, law or form, an implementation of the wrong signature, or one that raises.
    """
    o = dataclasses.replace(options or ConformOptions(), **option_fields)
    seed, alpha, rounds, stop_early = o.seed, o.alpha, o.rounds, o.stop_early
    t0 = time.perf_counter()
    trials = check_request(algorithm, law, form, o.trials, alpha, rounds)
    seconds = check_seconds("round_seconds", o.round_seconds)
    check_signature(implementation, form)
    cases = scenarios(algorithm, law, int(rounds))
    d = cases[0].problem().d
    tests = sum(sc.rounds for sc in cases) * len(quantity_names(d))
    zstar = threshold(alpha, tests, trials)
    reports: list[ScenarioReport] = []
    found: list[Departure] = []
    skipped: list[str] = []
    ran: list[Any] = []
    for sc in cases:
        if stop_early and found:
            skipped.append(sc.name)
            continue
        t1 = time.perf_counter()
        problem, pattern = sc.problem(), reference_pattern(sc.setting)
        ref = reference_moments(problem, reference_algorithm(algorithm, sc.setting), pattern, sc.rounds,
                                trials=REFERENCE_TRIALS, seed=seed,
                                var_trials=min(VAR_TRIALS[1], max(VAR_TRIALS[0], VAR_TRIALS[2] * trials)))
        values = _run(implementation, form, sc, problem, pattern, trials, seed, seconds)
        mean, se, z = z_scores(values, ref, d)
        hits = departures(sc.name, mean, ref, se, z, zstar, d)
        found += hits
        reports.append(ScenarioReport(sc.name, sc.family, sc.sigma, sc.setting.to_dict(), sc.rounds, trials,
                                      ref.method, ref.why, ref.law, float(abs(z[1:]).max()), len(hits),
                                      time.perf_counter() - t1, ref.trials))
        ran.append(sc)
    found.sort(key=lambda h: (h.round, -abs(h.z)))
    first = found[0] if found else None
    status = "departs" if first else "conforms"
    likely = diagnose(algorithm, found, ran)
    from verify.suite import versions

    return ConformanceResult(name or _label(implementation), form, algorithm, law, status,
                             describe(status, first, tests, zstar, alpha, reports, skipped, likely), float(alpha),
                             "bonferroni", tests, zstar, first, len(found), tuple(reports), int(seed), trials,
                             time.perf_counter() - t0, versions(), tuple(skipped), likely)
