"""Gradient climbing of log(LHS/RHS) on exactly scored families: the ``climb`` optimiser.

**Setting**: a :class:`verify.scenario.Scenario` space; a point is *exactly scored* when
:func:`verify.exact_score.scored_exactly` says ``"exact"`` (its problem, algorithm, pattern and measure declare
an affine round, a law and a quadratic form). Its continuous axes (numeric, not integer, low < high) are
searched in t = log x on a log axis, t = x otherwise, normalised to u = (t - t_low) / (t_high - t_low) in [0, 1].
**Quantity** (:func:`log_ratio_gradient`): d log(LHS/RHS) / d t_j at a point, for every continuous axis j:
* log LHS: ``torch.autograd`` through the exact moment recursion from the declared numbers
  (:mod:`quadratics.exact.differentiable`: round-map coefficients, law moments, start, measure form), one
  backward pass for all of them; the declared numbers' derivatives in t_j by a central difference of the
  declarations at t_j +- h (the scenario's builders are plain Python, not torch; building and declaring are
  cheap, no recursion is run there), h = :data:`H` x the axis's span in t, one-sided at an end of the box;
* log RHS: a central difference of the RHS (``bounds``, at the instance's values) over the same two builds.
An axis whose difference changes the instance's structure (an integer input of the result, a declared shape,
the period) has no derivative there: its component is 0 and the axis is held at that start.
**Algorithm** (:class:`GradientClimb`): ``stratified`` draws (``verify.search.optimisers``) for the first
:data:`WARMUP` points; then multi-start projected gradient ascent: the start is the best untried point drawn for
a stratum ("RHS term t dominates", among the points where t is at least :data:`SHARE_MIN` of the RHS, or the
plain stratum), the strata in turn, passing over points with no or a zero gradient (a plateau where the bound
is tight: measured, the best point of every stratum of REGIME.sampling-mu-48 at seed 0 was one), discrete axes held at the start's values; from a base point with gradient
g (in u), a line search proposes base + a 2^-k g/|g| for k = 0..:data:`LINE`-1, each projected onto the box
(components pushing out of the box at an end are dropped before normalising), onto the hypotheses and, for a
term's stratum, onto "t is at least SHARE_MIN of the RHS" (halved toward the base, up to :data:`BACKTRACK`
times, until ``bounds`` decides the hypotheses True there and the share holds; none found: not proposed).
Why the stratum is kept: log(LHS/RHS) tends to 1 wherever nothing happens (a step to 0: LHS and RHS both
tend to D0), so an unconstrained climb slides into that plateau (measured: REGIME.sampling-mu-48 and
REGIME.drift-cut-1k, seed 0, ended at ratio 1 + 5e-13 and 1 + 9e-15); an error that lives in a term shows
only where that term dominates. A better point becomes the base (the gradient is
taken there; a = 2 x the step that won, at most 1); no better point: a /= 2^LINE; a < :data:`A_MIN` or
:data:`MAX_STEPS` bases: the next start. Every :data:`INTERLEAVE`-th point stays a stratified draw.
A start that is not exactly scored (simulated, per-trial, no gradient) is skipped: its proposals fall back to
stratified draws; the record's trace labels every point's proposer (``stratum`` "climb ..." or a stratum) and
:func:`verify.search.cost.fidelity_shares` gives the share each made.
**Statement**: climbing only proposes points. Every point is scored by ``evaluate_point`` and every claimed
violation is confirmed by falsify's usual path; the gradient's own numbers are never evidence. Same seed,
same numbers (the warm-up is seeded and the rest is deterministic).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bounds.core.errors import PointRefused
from verify.scenario import Param, Scenario
from verify.search.proposal import Proposal, Stratum
from verify.search.stratified import Stratified

__all__ = ["GradientClimb", "LogRatioGradient", "continuous_axes", "log_ratio_gradient"]

WARMUP = 24       # stratified points before the first climb
INTERLEAVE = 4    # every 4th point after the warm-up is a stratified draw
LINE = 6          # step lengths a 2^-k, k < LINE, per line search (6 + 2 interleaved draws fill a generation of 8)
A_MIN = 1e-3      # a step below this (in the unit box) ends a climb
MAX_STEPS = 40    # bases per climb
BACKTRACK = 6     # halvings toward the base to meet the hypotheses
H = 1e-6          # central-difference step of the declarations, relative to the axis's span in t
START_TRIES = 3   # candidate starts whose gradient is tried per start (a zero gradient passes to the next)
SHARE_MIN = 0.5   # a climb from stratum "term t dominates" stays where t is at least this share of the RHS


def continuous_axes(space: Sequence[Param]) -> list[Param]:
    """The axes climbing moves: numeric, not integer, with low < high."""
    return [p for p in space if p.choices is None and not p.integer and p.low < p.high]


def _to_t(p: Param, x: float) -> float:
    return math.log(x) if p.log else float(x)


def _from_t(p: Param, t: float) -> float:
    x = math.exp(t) if p.log else t
    return min(float(p.high), max(float(p.low), x))


def _span(p: Param) -> tuple[float, float]:
    return _to_t(p, float(p.low)), _to_t(p, float(p.high))


@dataclass(frozen=True)
class LogRatioGradient:
    """log(LHS/RHS) at a point (LHS from the differentiable recursion), its gradient in t per axis, and which axes
    had no derivative there (structure changed within +- h)."""

    value: float
    grad: dict[str, float]
    held: tuple[str, ...]
    wall_s: float


def _declared(scenario: Scenario, point: Mapping[str, Any]) -> tuple[Any, Any, tuple[int, int, str], Any] | str:
    """(instance, declared inputs, (rounds, first, kind), checked hypotheses) at ``point``, or why not exact."""
    from quadratics.exact.differentiable import declared_inputs
    from verify.exact_score import scored_exactly
    from verify.measures import declared_measure
    from verify.scenario import decide_hypotheses

    inst = scenario.build(scenario.point(point))
    if scored_exactly(inst) != "exact":
        return "not scored exactly (simulated or per-trial)"
    spec = declared_measure(inst.measure)
    if isinstance(spec, str):
        return spec
    horizon = (spec.first, 1, "final") if spec.kind == "final" else (spec.last, spec.first, "mean")
    inp = declared_inputs(inst.problem, inst.algorithm, inst.pattern, spec.form(inst.problem))
    if isinstance(inp, str):
        return inp
    return inst, inp, horizon, decide_hypotheses(scenario, inst, dict(inst.values))


def _integers(inst: Any) -> tuple:
    return tuple(sorted((k, v) for k, v in dict(inst.values).items() if isinstance(v, int)))


def log_ratio_gradient(scenario: Scenario, point: Mapping[str, Any], axes: Sequence[Param] | None = None,
                       h: float = H) -> LogRatioGradient | str:
    """d log(LHS/RHS) / d t at ``point`` for the continuous ``axes`` (default: all), or why there is none
    (the point is not scored exactly, its LHS or RHS is not positive and finite, a declaration fails)."""
    import torch

    from quadratics.exact.differentiable import moment_lhs

    t0 = time.perf_counter()
    scenario.register_result()
    axes = continuous_axes(scenario.space) if axes is None else list(axes)
    base = _declared(scenario, point)
    if isinstance(base, str):
        return base
    inst, inp, (rounds, first, kind), checked = base
    inp.requires_grad_()
    lhs = moment_lhs(inp, rounds, first, kind)
    rhs, value = float(checked.report.evaluation.value), float(lhs.detach())
    if not (value > 0 and math.isfinite(value) and rhs > 0 and math.isfinite(rhs)):
        return f"LHS {value:.3g} or RHS {rhs:.3g} is not positive and finite: log(LHS/RHS) has no gradient"
    leaves = inp.leaves()
    grads = torch.autograd.grad(torch.log(lhs), leaves, allow_unused=True)
    full = scenario.point(point)
    out: dict[str, float] = {}
    held: list[str] = []
    for p in axes:
        lo, hi = _span(p)
        t = _to_t(p, float(full[p.name]))
        step = h * (hi - lo)
        tp, tm = min(hi, t + step), max(lo, t - step)
        plus, minus = (_declared(scenario, {**full, p.name: _from_t(p, tt)}) for tt in (tp, tm))
        if isinstance(plus, str) or isinstance(minus, str) or not tp > tm:
            held.append(p.name)
            continue
        (ip, dp, hp, cp), (im, dm, hm, cm) = plus, minus
        if (dp.signature() != inp.signature() or dm.signature() != inp.signature() or hp != hm
                or _integers(ip) != _integers(im)):
            held.append(p.name)  # the structure changed within +- h: no derivative along this axis here
            continue
        dlhs = sum(float((g * (a - b)).sum()) for g, a, b in zip(grads, dp.leaves(), dm.leaves()) if g is not None)
        rp, rm = float(cp.report.evaluation.value), float(cm.report.evaluation.value)
        if not (rp > 0 and rm > 0):
            held.append(p.name)
            continue
        out[p.name] = (dlhs - (math.log(rp) - math.log(rm))) / (tp - tm)
    return LogRatioGradient(math.log(value / rhs), out, tuple(held), time.perf_counter() - t0)


@dataclass
class _Walk:
    """One climb: its base point and score, its gradient in u, its step length, the bases taken."""

    base: dict[str, Any]
    score: float
    direction: dict[str, float]
    stratum: Stratum | None = None
    a: float = 0.5
    steps: int = 0
    queue: list[tuple[dict[str, Any], float]] = field(default_factory=list)  # (point, its step length)


class GradientClimb:
    """The ``climb`` optimiser (module docstring): stratified warm-up, then projected gradient ascent from the
    warm-up's best points; points not scored exactly fall back to stratified draws."""

    def __init__(self, scenario: Scenario, warmup: Stratified):
        """``warmup``: the stratified optimiser it draws from (``verify.search.optimisers`` builds both)."""
        self.scenario, self.strat = scenario, warmup
        self.space = tuple(scenario.space)
        self.axes = continuous_axes(self.space)
        self.pool: dict[Stratum | None, list[tuple[float, str, dict[str, Any]]]] = {}  # stratum -> (score, key, point)
        self.turn, self.count = 0, 0
        self.walk: _Walk | None = None
        self.asked: list[Stratum | None] = []
        self.stats = {"gradients": 0, "gradient_s": 0.0, "starts": 0, "no_gradient": 0}
        self.why_not: dict[str, int] = {}
        self.tried: set[str] = set()
        self.terms = set(warmup.terms)

    # -- gradients and projection -------------------------------------------------------------------------
    def _direction(self, point: Mapping[str, Any]) -> dict[str, float] | None:
        """The projected ascent direction in u at ``point`` (unit length), or None (no gradient, or zero)."""
        g = log_ratio_gradient(self.scenario, point, self.axes)
        if isinstance(g, str):
            self.stats["no_gradient"] += 1
            self.why_not[g] = self.why_not.get(g, 0) + 1
            return None
        self.stats["gradients"] += 1
        self.stats["gradient_s"] += g.wall_s
        d = {}
        for p in self.axes:
            if p.name not in g.grad:
                continue
            lo, hi = _span(p)
            u = (_to_t(p, float(point[p.name])) - lo) / (hi - lo)
            gu = g.grad[p.name] * (hi - lo)
            if u >= 1 - 1e-12 and gu > 0 or u <= 1e-12 and gu < 0 or not math.isfinite(gu):
                continue  # pushing out of the box at an end: projected away
            d[p.name] = gu
        norm = math.sqrt(sum(v * v for v in d.values()))
        return {k: v / norm for k, v in d.items()} if norm > 0 else None

    def _moved(self, base: Mapping[str, Any], direction: Mapping[str, float], a: float) -> dict[str, Any]:
        out = dict(base)
        for p in self.axes:
            if p.name in direction:
                lo, hi = _span(p)
                u = (_to_t(p, float(base[p.name])) - lo) / (hi - lo) + a * direction[p.name]
                out[p.name] = _from_t(p, lo + min(1.0, max(0.0, u)) * (hi - lo))
        return out

    def _in_stratum(self, point: Mapping[str, Any], stratum: Stratum | None) -> bool:
        """Whether ``stratum``'s RHS term is at least SHARE_MIN of the RHS at ``point`` (always, for no term)."""
        term = None if stratum is None else stratum.term
        if term not in self.terms:
            return True
        return (self.strat.shares(point) or {}).get(term, 0.0) >= SHARE_MIN

    def _admissible(self, point: Mapping[str, Any], stratum: Stratum | None = None) -> bool:
        from verify.scenario import decide_hypotheses

        try:
            inst = self.scenario.build(self.scenario.point(point))
            ok = decide_hypotheses(self.scenario, inst, dict(inst.values)).hypotheses is True
        except PointRefused:  # a point the builder or the result refuses: not proposed (the box said nothing of it)
            return False
        return ok and self._in_stratum(point, stratum)

    def _line(self, walk: _Walk) -> list[tuple[dict[str, Any], float]]:
        """The line search's points (with their step lengths) from the walk's base, each projected onto the box
        and the hypotheses."""
        out: list[tuple[dict[str, Any], float]] = []
        for k in range(LINE):
            a = walk.a * 2.0**-k
            for _ in range(BACKTRACK):
                q = self._moved(walk.base, walk.direction, a)
                if self._admissible(q, walk.stratum):
                    break
                a /= 2
            else:
                continue
            if q != walk.base and all(q != o for o, _ in out):
                out.append((q, a))
        return out

    # -- starts -------------------------------------------------------------------------------------------
    def _start(self) -> None:
        """The best untried point of the next stratum becomes the base of a new climb (strata in turn). A
        candidate with no gradient (not scored exactly, a zero gradient on a plateau where the bound is tight)
        is passed over, at most START_TRIES per call; with none left the proposals are stratified draws."""
        self.walk = None
        names = sorted(self.pool, key=str)
        tries = 0
        for _ in range(len(names)):
            name = names[self.turn % len(names)]
            self.turn += 1
            for score, key, point in sorted(self.pool[name], key=lambda e: (-e[0], e[1])):
                if key in self.tried:
                    continue
                self.tried.add(key)
                tries += 1
                direction = self._direction(point)
                if direction is not None:
                    self.stats["starts"] += 1
                    self.walk = _Walk(dict(point), score, direction, name)
                    self.walk.queue = self._line(self.walk)
                    if self.walk.queue:
                        return
                    self.walk = None
                break  # one candidate per stratum per turn: the strata share the starts
            if tries >= START_TRIES:
                return

    def ask(self, n: int) -> list[Proposal]:
        out: list[Proposal] = []
        for _ in range(n):
            self.count += 1
            climbing = self.count > WARMUP and self.count % INTERLEAVE != 0
            if climbing and self.walk is None and self.pool:
                self._start()
            if climbing and self.walk is not None and self.walk.queue:
                q, a = self.walk.queue.pop(0)
                out.append(Proposal(q, Stratum("climb", step=a)))
                continue
            out.extend(self.strat.ask(1))
        self.asked = [p.stratum for p in out]
        return out

    def tell(self, points: Sequence[Mapping[str, Any]], scores: Sequence[float]) -> None:
        walk, best = self.walk, None
        for p, s, st in zip(points, scores, self.asked):
            step = st.step if st is not None and st.kind == "climb" else None
            if step is None and math.isfinite(s) and self._in_stratum(p, st):
                self.pool.setdefault(st, []).append((float(s), repr(sorted(p.items())), dict(p)))
            if walk is not None and step is not None and s > walk.score + 1e-9 and (best is None or s > best[0]):
                best = (float(s), dict(p), float(step))
        if walk is None:
            return
        if best is not None:  # a better point: the new base, the gradient taken there
            direction = self._direction(best[1])
            walk.steps += 1
            if direction is None or walk.steps >= MAX_STEPS:
                self.walk = None
                return
            walk.base, walk.score, walk.direction, walk.a = best[1], best[0], direction, min(1.0, 2 * best[2])
            walk.queue = self._line(walk)
            return
        if walk.queue:  # the line search is not over yet
            return
        walk.a /= 2.0**LINE
        walk.queue = self._line(walk) if walk.a >= A_MIN else []
        if not walk.queue:
            self.walk = None
