"""Scenarios: a result's admissible instances as a declared space, and one point's measured LHS vs RHS.

**Setting**: a result of ``bounds`` (``Scenario.result``) and a family of instances of it: named
parameters (:class:`Param`: float range, log scale, integer, categorical), a pure builder
``point -> Instance`` (problem, algorithm, pattern, horizon, the result's inputs read from the
problem, and how to measure the operational LHS from a simulation).
**Quantity** (:func:`evaluate_point`): per-trial LHS samples of one simulation batched over trials,
their mean with a Student-t interval (``verify.verdict.mean_ci``), the RHS at the instance's exact
constants, the hypotheses as ``bounds`` decides them, and the tightness LHS/RHS.
**Statement**: a point is *admissible* only when every hypothesis is decided True (or is None and
named in ``Instance.assumed`` with a reason); only admissible points have a ``score``, so a point
outside the result, or one ``bounds`` cannot decide, is never scored as a counterexample.
:func:`evaluate_point` is the one place where an instance becomes evidence: ``verify``'s check groups
(:mod:`verify.checks`), ``falsify`` and its confirmation, ``verify --instance`` and ``assert_bound_holds``
all call it, and :func:`verify.verdict.verdict_of` gives its one verdict.

A plugin file registers scenarios by defining ``scenarios()`` returning a list of :class:`Scenario`;
``build`` must be a module-level function (workers rebuild the instance from the point).

Example::

    from verify.scenario import evaluate_point
    from verify.scenarios import get
    est = evaluate_point(get("FAST.T2@corrected"), {}, trials=64, seed=0)
    est.ratio, est.hypotheses
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from bounds.core.errors import End, UserInputError
from bounds.core.face import notebook_face, short
from bounds.core.stats import MEAN_LEVEL
from verify.measures import Measured, at_round, mean_over_rounds
from verify.verdict import mean_ci, ratio

__all__ = ["Instance", "Param", "PointEstimate", "RunOptions", "Scenario", "at_round", "evaluate_point", "mean_over_rounds"]


@dataclass(frozen=True)
class Param:
    """One axis of an instance space.

    Args:
        name: key in a point.
        low, high: admissible range (ignored for a categorical axis).
        default: value at the shipped (hand-picked) instance.
        log: search on a log scale (needs low > 0).
        integer: values are integers in [low, high].
        choices: categorical values (then low/high are unused).
        searched: the categorical values a search draws from unless told otherwise (None: every choice);
            the other choices stay admissible (``falsify --problems`` widens the problem axis).
        doc: what the axis means, e.g. "step size as a fraction of the 1/(20 m L K) cap".
        source: where its bounds come from (a hypothesis, a symbol's domain, or a named cost cap), for readers.
        end: what kind of end its high end is (a :class:`bounds.core.errors.End`, or its value): ``domain`` or
            ``hypothesis`` (the theorem's: a search never passes it), ``stand-in`` (the theorem puts no end there:
            a finite stand-in for infinity) or ``cost`` (what a simulated point may cost). Declared, never read
            from ``source``: a ray may run past a stand-in or a cost end where its points are scored exactly
            (``verify.search.ray_bases.widened``).
        families: the values of the scenario's ``problem`` axis whose builder reads this axis (None: every
            point's); elsewhere the axis changes nothing built, so a search along it there is skipped
            (``verify.search.ray_bases.tight_base``). Declared by the axis, never read from ``doc``.
    """

    name: str
    low: float = 0.0
    high: float = 1.0
    default: Any = None
    log: bool = False
    integer: bool = False
    choices: tuple | None = None
    searched: tuple | None = None
    doc: str = ""
    source: str = ""  # where low/high come from: a hypothesis, a domain, or a cost cap (``falsify --space``)
    end: End | str = End.DOMAIN  # normalised to an End in __post_init__
    families: tuple[str, ...] | None = None

    def read_at(self, point: Mapping[str, Any]) -> bool:
        """Whether the builder reads this axis at ``point`` (its ``families``; a point without a ``problem``
        axis: always)."""
        return self.families is None or "problem" not in point or point["problem"] in self.families

    def __post_init__(self) -> None:
        if self.end not in set(End) - {End.SIZE}:
            raise ValueError(f"param {self.name}: end {self.end!r} is not one of domain, hypothesis, stand-in, cost")
        object.__setattr__(self, "end", End(self.end))
        if self.choices is None:
            if not self.low <= self.high:
                raise ValueError(f"param {self.name}: low {self.low} > high {self.high}")
            if self.log and self.low <= 0:
                raise ValueError(f"param {self.name}: a log axis needs low > 0")
        elif self.searched is not None and not set(self.searched) <= set(self.choices):
            raise ValueError(f"param {self.name}: searched {self.searched} are not all among {self.choices}")

    def coerce(self, value: Any, *, outside: bool = False) -> Any:
        """``value`` as this axis's type; outside the range only when ``outside`` (controls)."""
        if self.choices is not None:
            if value not in self.choices:
                raise UserInputError(f"{self.name}={value!r} is not one of {list(self.choices)}")
            return value
        try:
            x = float(value)
        except (TypeError, ValueError):
            raise UserInputError(f"{self.name}={value!r} must be a number in [{self.low:g}, {self.high:g}]") from None
        if not math.isfinite(x):
            raise UserInputError(f"{self.name}={value!r} must be finite")
        if self.integer:
            if x != round(x):
                raise UserInputError(f"{self.name}={value!r} must be an integer in [{self.low:g}, {self.high:g}]")
            x = int(round(x))
        if not outside and not self.low <= x <= self.high:
            raise UserInputError(f"{self.name}={value!r} lies outside its range [{self.low:g}, {self.high:g}]")
        return x

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "low": self.low, "high": self.high, "default": self.default, "log": self.log,
                "integer": self.integer, "choices": list(self.choices) if self.choices else None,
                "searched": list(self.searched) if self.searched else None, "doc": self.doc, "source": self.source,
                "end": str(self.end), "families": list(self.families) if self.families is not None else None}


@dataclass(frozen=True)
class Instance:
    """One concrete instance of a result, built from a point.

    Args:
        problem, algorithm, pattern, rounds: what ``quadratics.simulate`` runs.
        values: the result's inputs (constants read from the problem and pattern, never retyped).
        measure: ``Simulation -> per-trial LHS samples [T]`` (the operational left side), or per-trial
            curves [T, X] whose row means are the LHS (a sweep's statistic may read the curves).
        assumed: hypothesis name -> why it is met although ``bounds`` cannot check it.
        complete: optional ``(Simulation, values) -> values`` for inputs that are instance-level
            quantities measured on the run itself (e.g. F3AST's G^2 over the trajectory).
        describe: plain description for records (problem, pattern, derived step sizes...).
        notes: caveats carried into the verification record.
        curve: a metric of the simulation whose mean per round the record keeps for figures.
        broken: hypotheses of the theorem that ``bounds`` cannot see but the builder knows fail at
            this point (name -> why), e.g. a step schedule scaled away from the theorem's own.
        run_broken: ``Simulation -> {name: why}``, the hypotheses the run itself shows unmet, e.g. a
            heterogeneity constant stated on a ball that the iterates leave (an empty mapping: none).
        decided: hypotheses the builder settles by construction although ``bounds`` cannot (name ->
            (True/False, why)), e.g. the sign of an availability model's covariance; passed to
            ``Result.check`` with the pattern's own (decided, not assumed: a violation stays one).
        run: ``(trials, seed) -> object with the metrics measure reads`` for evidence that is not an
            engine trajectory (e.g. draws of a client-selection law); None: ``quadratics.simulate`` of
            problem, algorithm and pattern.
        exact_lhs: ``() -> (value, floating-point error bound)``: the LHS computed exactly, without
            simulation (a lemma about a finite law), for ``verify.checks.Exact``.
    """

    problem: Any
    algorithm: Any
    pattern: Any
    rounds: int
    values: Mapping[str, Any]
    measure: Callable[[Any], np.ndarray]
    assumed: Mapping[str, str] = field(default_factory=dict)
    complete: Callable[[Any, Mapping[str, Any]], Mapping[str, Any]] | None = None
    describe: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    curve: str | None = None   # metric whose per-round mean the record keeps for figures
    broken: Mapping[str, str] = field(default_factory=dict)
    run_broken: Callable[[Any], Mapping[str, str]] | None = None
    decided: Mapping[str, tuple[bool | None, str]] = field(default_factory=dict)
    run: Callable[[int, int], Any] | None = None
    exact_lhs: Callable[[], tuple[float, float]] | None = None


@notebook_face(lambda s: f"{s.id} of {s.result}: {len(s.space)} axes ({', '.join(p.name for p in s.space)})",
               rows=lambda s: [(p.name, p.default, p.doc) for p in s.space], header=("axis", "default", "meaning"))
@dataclass(frozen=True)
class Scenario:
    """A result's family of instances: ``space`` of points, ``build(point) -> Instance``.

    Args:
        id: check id shown by verify, e.g. ``FAST.T2@corrected``.
        result: a key of the ``bounds`` registry.
        title: one line for tables.
        space: the axes; ``default_point()`` is the shipped instance.
        build: pure, module-level function ``point -> Instance``.
        notes: what the space leaves out and why (e.g. q fixed at 1 in FAST.T1: q_min is undecidable).
        origin: ``built-in`` or where a plugin came from.
        source: the ``bounds.Result`` object a notebook scenario was built from (``result`` then holds its
            key); registered for the session when the scenario is first scored (:meth:`register_result`),
            never by building the scenario.
    """

    id: str
    result: str
    title: str
    space: tuple[Param, ...]
    build: Callable[[Mapping[str, Any]], Instance]
    notes: tuple[str, ...] = ()
    origin: str = "built-in"
    source: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        # a Result built in a notebook cell: kept as its key (the form every record stores) with the object in
        # ``source``; a key a built-in or plugin result holds is refused now, registration waits for first use
        if not isinstance(self.result, str):
            from bounds.registry import SESSION_ORIGIN
            from bounds.result import Result

            if not isinstance(self.result, Result):
                raise UserInputError(f"scenario {self.id}: result must be a result key or a bounds.Result; "
                                     f"got {type(self.result).__name__}")
            registered = _registered_or_none(self.result.key)
            if registered is not None and registered.origin != SESSION_ORIGIN and registered != self.result:
                raise UserInputError(f"scenario {self.id}: result key {self.result.key!r} is taken by a built-in "
                                     "or plugin result; give your result another id")
            object.__setattr__(self, "source", None if registered is not None and registered.origin != SESSION_ORIGIN
                               else self.result)
            object.__setattr__(self, "result", self.result.key)

    def register_result(self) -> None:
        """Register the notebook ``Result`` this scenario was built from for this session (so workers, records
        and the report find it by key), unless that very object is registered already; nothing for a key."""
        if self.source is None:
            return
        from bounds.registry import SESSION_ORIGIN, register

        registered = _registered_or_none(self.result)
        if registered is None or (registered.origin == SESSION_ORIGIN
                                  and dataclasses.replace(self.source, origin=SESSION_ORIGIN) != registered):
            register(self.source, replace=True)

    def default_point(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.space}

    def point(self, overrides: Mapping[str, Any] | None = None, *, outside: bool = False) -> dict[str, Any]:
        """The default point with ``overrides`` applied, each value checked against its axis."""
        names = {p.name: p for p in self.space}
        extra = sorted(set(overrides or {}) - set(names))
        if extra:
            raise UserInputError(f"scenario {self.id} has no parameter {', '.join(extra)}; valid: {', '.join(names)}")
        merged = {**self.default_point(), **dict(overrides or {})}
        return {k: names[k].coerce(v, outside=outside) for k, v in merged.items()}

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "result": self.result, "title": self.title, "origin": self.origin,
                "space": [p.to_dict() for p in self.space], "notes": list(self.notes)}


def _estimate_summary(e: PointEstimate) -> str:
    return (f"{e.scenario}: LHS {short(e.lhs)} [{short(e.ci[0])}, {short(e.ci[1])}] vs RHS {short(e.rhs)}, "
            f"hypotheses {e.hypotheses}, {e.trials} trials, seed {e.seed}")


@notebook_face(_estimate_summary, rows=lambda e: [*((k, v) for k, v in e.point.items()),
                                                  ("ratio LHS/RHS", short(e.ratio)), ("broken", ", ".join(e.broken))])
@dataclass(frozen=True)
class PointEstimate:
    """One point's measurement: samples, LHS mean and interval, RHS, hypotheses, ratio.

    ``hypotheses`` is True, False or None (``bounds``'s check, with ``Instance.assumed`` applied);
    ``score`` is the ratio only when ``hypotheses`` is True, else None (never a counterexample).
    """

    scenario: str
    result: str
    kind: str
    point: Mapping[str, Any]
    samples: np.ndarray
    lhs: float
    ci: tuple[float, float]
    rhs: float
    ratio: float
    hypotheses: bool | None
    conditions: tuple[Mapping[str, Any], ...]
    values: Mapping[str, Any]
    rhs_terms: Mapping[str, float]
    trials: int
    seed: int
    level: float
    assumed: Mapping[str, str] = field(default_factory=dict)
    decided: Mapping[str, tuple[bool | None, str]] = field(default_factory=dict)  # met by construction
    describe: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    series: Mapping[str, Any] = field(default_factory=dict)
    exact: Mapping[str, Any] = field(default_factory=dict)  # the exact path's facts (empty: Monte Carlo)

    @classmethod
    def build(cls, scenario: Scenario | str, point: Mapping[str, Any], measured: Measured, checked: Checked,
              values: Mapping[str, Any], *, seed: int, level: float, inst: Instance | None = None) -> PointEstimate:
        """The one constructor: a point's measured LHS (any path) against the RHS of its checked hypotheses.

        Args:
            scenario: the scenario (or, for a hand-built certificate, its check id).
            point: the full point. measured: the LHS part. checked: :func:`decide_hypotheses` (or
            :func:`check_values`). values: the result's inputs. seed, level: of the measurement.
            inst: the instance (its description, notes); None for a hand-built certificate.
        """
        sid, result = (scenario.id, scenario.result) if isinstance(scenario, Scenario) else (str(scenario),
                                                                                             checked.result.key)
        report = checked.report
        rhs = float(report.evaluation.value)
        return cls(
            scenario=sid, result=result, kind=checked.result.kind.value, point=dict(point), samples=measured.samples,
            lhs=measured.lhs, ci=measured.ci, rhs=rhs,
            ratio=ratio(measured.lhs, rhs) if math.isfinite(measured.lhs) else math.inf,
            hypotheses=checked.hypotheses, conditions=tuple(checked.conditions),
            values={k: _num(v) for k, v in values.items()},
            rhs_terms={k: float(np.asarray(v)) for k, v in report.evaluation.terms.items()}, trials=measured.trials,
            seed=int(seed), level=level, assumed=checked.assumed, decided=checked.decided,
            describe=dict(inst.describe) if inst else {}, notes=(tuple(inst.notes) if inst else ()) + measured.notes,
            series=dict(measured.series), exact=dict(measured.exact))

    @property
    def score(self) -> float | None:
        """LHS/RHS where every hypothesis holds (None otherwise; inf when the LHS diverged)."""
        if self.hypotheses is not True or math.isnan(self.ratio):
            return None
        return self.ratio

    @property
    def broken(self) -> list[str]:
        """Names of the hypotheses decided False."""
        return [c["name"] for c in self.conditions if c.get("holds") is False]

    def to_dict(self) -> dict[str, Any]:
        """Plain summary (no samples): point, LHS, interval, RHS, ratio, hypotheses, seed, trials."""
        from bounds.core.jsonable import jsonable as _plain

        return _plain({"scenario": self.scenario, "result": self.result, "point": dict(self.point),
                       "lhs": self.lhs, "ci": list(self.ci), "rhs": self.rhs, "ratio": self.ratio,
                       "hypotheses": self.hypotheses, "broken": self.broken, "trials": self.trials,
                       "seed": self.seed, "level": self.level, **({"exact": dict(self.exact)} if self.exact else {})})


def _registered_or_none(key: str) -> Any:
    """The registered result of ``key``, or None when no result has that key."""
    from bounds.registry import get

    try:
        return get(key)
    except UserInputError:
        return None


def hypotheses_of(report: Any, assumed: Mapping[str, str]) -> tuple[bool | None, list[dict[str, Any]]]:
    """``bounds`` check outcome with the scenario's assumptions applied (see ``certificate``)."""
    conds = [c.to_dict() for c in report.conditions]
    hyp = report.holds
    if hyp is None and assumed:
        pending = [c for c in conds if c["holds"] is None and c["name"] not in assumed]
        if not pending:
            for c in conds:
                if c["holds"] is None and c["name"] in assumed:
                    c["assumed"] = assumed[c["name"]]
            hyp = True
    return hyp, conds


def _num(v: Any) -> Any:
    arr = np.asarray(v, dtype=float)
    return float(arr) if arr.ndim == 0 else arr.tolist()


def realised_participation(pattern: Any, result: Any, values: Mapping[str, Any]) -> dict[str, tuple[bool, str]]:
    """The result's participation hypotheses that the simulated pattern decides, as the pattern declares.

    ``bounds`` cannot decide who participates (the process is not an input); in a simulation it is the
    engine's pattern, which declares what it guarantees (``Pattern.meets``, :mod:`quadratics.guarantees`).
    Returned in the form ``Result.check(decided=...)`` takes: condition name -> (met, why); hypotheses the
    pattern does not decide are left out (they stay conditions).
    """
    meets = getattr(pattern, "meets", None)
    out: dict[str, tuple[bool, str]] = {}
    for a in getattr(result, "participation", ()):
        got = meets(a, values) if meets is not None else None
        if got is not None:
            out[a.name] = got
    return out


class Checked(NamedTuple):
    """A point's hypotheses as decided: the result, its check report (RHS and terms included), the overall
    outcome (True, False, None), the conditions, what was decided by construction, what was assumed."""

    result: Any
    report: Any
    hypotheses: bool | None
    conditions: list[dict[str, Any]]
    decided: dict[str, Any]
    assumed: dict[str, str]


def check_values(result: Any, values: Mapping[str, Any], decided: Mapping[str, Any] | None = None,
                 assumed: Mapping[str, str] | None = None) -> Checked:
    """``result``'s check at ``values`` (with hypotheses ``decided`` by construction), ``assumed`` applied."""
    report = result.check(values, decided)
    hyp, conds = hypotheses_of(report, dict(assumed or {}))
    return Checked(result, report, hyp, conds, dict(decided or {}), dict(assumed or {}))


def decide_hypotheses(scenario: Scenario, inst: Instance, values: Mapping[str, Any], sim: Any = None) -> Checked:
    """The one rule deciding a point's hypotheses, for every scoring path (simulated or exact).

    ``bounds`` checks the values, with what the pattern guarantees by construction and the builder's own
    decisions; ``Instance.assumed`` is applied; a hypothesis the builder (``Instance.broken``) or the run
    (``Instance.run_broken``, only with a simulation ``sim``) broke makes the point inadmissible.
    """
    import bounds

    res = bounds.get(scenario.result)
    decided = {**realised_participation(inst.pattern, res, values), **dict(getattr(inst, "decided", {}) or {})}
    res, report, hyp, conds, decided, assumed = check_values(res, values, decided, inst.assumed)
    run_broken = dict(inst.run_broken(sim)) if inst.run_broken and sim is not None else {}
    if inst.broken or run_broken:
        conds += [{"name": k, "relation": "", "holds": False, "lhs": None, "rhs": None, "margin": None, "reason": v,
                   "decided_by": by}
                  for by, broken in (("scenario builder", inst.broken), ("the run", run_broken))
                  for k, v in broken.items()]
        hyp = False
    return Checked(res, report, hyp, conds, decided, assumed)


@dataclass(frozen=True)
class RunOptions:
    """How a point is simulated: ``trials`` independent trials (>= 2 for an interval) on ``seed`` (same seed and
    device, same numbers), the ``level`` of the LHS interval, and the engine's CPU ``threads``."""

    trials: int
    seed: int
    device: str = "cpu"
    level: float = MEAN_LEVEL
    threads: int | None = 1

    def __post_init__(self) -> None:
        if int(self.trials) != self.trials or self.trials < 2:
            raise UserInputError(f"trials={self.trials} must be an integer >= 2 (a confidence interval needs two runs)")


def evaluate_point(scenario: Scenario, point: Mapping[str, Any] | None, run: RunOptions | None = None, *,
                   outside: bool = False, instance: Instance | None = None, exact_lhs: bool = False,
                   **run_fields: Any) -> PointEstimate:
    """Simulate ``scenario`` at ``point`` (defaults filled) for ``run.trials`` seeded trials, one batched run.

    Args:
        point: parameter values (missing ones take their defaults); out-of-range values only when
            ``outside`` (controls built just outside a hypothesis).
        run: a :class:`RunOptions` (trials, seed, device, level, threads), or its fields as keywords
            (``evaluate_point(sc, pt, trials=64, seed=0)``).
        instance: an already-built instance of this point (skips the builder).
        exact_lhs: take the LHS from ``Instance.exact_lhs`` (no simulation; ``verify.checks.Exact``): the
            "interval" is the value plus or minus its floating-point error bound.
    """
    from quadratics import simulate

    if run is None or run_fields:
        run = RunOptions(**run_fields) if run is None else dataclasses.replace(run, **run_fields)
    trials, seed, device, level, threads = run.trials, run.seed, run.device, run.level, run.threads
    scenario.register_result()  # a notebook Result: registered at first use, not when the scenario is built
    full = scenario.point(point, outside=outside)
    inst = instance if instance is not None else scenario.build(full)
    sim: Any = None
    if exact_lhs:
        if inst.exact_lhs is None:
            raise UserInputError(f"scenario {scenario.id} has no exact left-hand side (Instance.exact_lhs)")
        value, err = inst.exact_lhs()
        measured = Measured(np.array([float(value)]), float(value), (float(value) - float(err), float(value) + float(err)),
                            int(trials))
    else:
        exact = None
        if inst.run is None:
            from verify.exact_score import exact_estimate  # the LHS from exact moments where they apply

            exact = exact_estimate(inst, trials=int(trials), seed=int(seed), level=level)
            if exact is None:
                sim = simulate(inst.problem, inst.algorithm, inst.pattern, trials=int(trials),
                               rounds=int(inst.rounds), seed=int(seed), device=device, threads=threads)
        else:  # evidence that is not an engine trajectory (e.g. draws of a selection law)
            sim = inst.run(int(trials), int(seed))
        measured = exact if exact is not None else _simulated(inst, sim, int(trials), level)
    values = dict(inst.complete(sim, inst.values)) if inst.complete and sim is not None else dict(inst.values)
    return PointEstimate.build(scenario, full, measured, decide_hypotheses(scenario, inst, values, sim), values,
                               seed=int(seed), level=level, inst=inst)


def _simulated(inst: Instance, sim: Any, trials: int, level: float) -> Measured:
    """The LHS of a simulated run: the measure's per-trial samples (a diverged trial counts as an infinite LHS),
    their mean with a Student-t interval (infinite when a trial diverged), the record's curve."""
    samples = np.asarray(inst.measure(sim), dtype=float)
    samples = np.where(np.isnan(samples), math.inf, samples)
    # a measure may return per-trial curves [T, X] (a sweep's statistic reads them): the LHS is their row mean
    per_trial = samples if samples.ndim == 1 else samples.reshape(samples.shape[0], -1).mean(axis=1)
    est = mean_ci(per_trial, level) if np.isfinite(per_trial).all() else None
    series = ({"x": list(range(int(inst.rounds) + 1)), "lhs": np.asarray(sim.mean(inst.curve)).tolist()}
              if inst.curve else {})
    if est is None:
        return Measured(samples, math.inf, (math.inf, math.inf), trials, series=series)
    return Measured(samples, est.mean, (est.low, est.high), trials, series=series)
