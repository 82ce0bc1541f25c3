"""The ``random`` and ``stratified`` optimisers: edge-weighted draws of a scenario's box, plain or aimed at strata.

**Setting**: a :class:`verify.scenario.Scenario` space (float, log, integer, categorical axes; an axis
with low == high is fixed and not searched); a score to *maximise* per point.
**Algorithm**: ``random`` samples the box with its edges weighted: each numeric axis sits at its low or its high
end with probability ``EDGE`` / 2 each, else uniformly (log-uniformly on a log axis) inside. Why: a theorem's
hypotheses are tightest, and its counterexamples most often found, at the extremes of what they admit (fewest
clients, most skewed participation, a probability at 0); a plain uniform draw puts a corner of k axes at
probability ~ 0 and leaves it to luck. ``stratified`` (:class:`Stratified`) aims those draws at the strata "RHS
term t dominates"; the other built-in searchers (``corners``, ``climb``, ``rays``, ``seeded``) wrap it.
Both start from the scenario's default point and are seeded by the search stream (``bounds.core.seeds``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

from bounds.core.errors import PointRefused, UserInputError
from verify.scenario import Param, Scenario
from verify.search.proposal import DEFAULT, RANDOM, Proposal, Stratum

__all__ = ["EDGE", "Random", "Stratified", "clip", "fixed_axes", "free_axes"]

EDGE = 1 / 3  # probability that random search puts a numeric axis at one of its two ends


def free_axes(space: Sequence[Param]) -> list[Param]:
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


def fixed_axes(space: Sequence[Param]) -> dict[str, Any]:
    free = {p.name for p in free_axes(space)}
    return {p.name: p.default for p in space if p.name not in free}


class Random:
    """The ``random`` optimiser: edge-weighted draws of the box (module docstring), the default point first."""

    def __init__(self, scenario: Scenario, seed: int):
        from bounds.core.seeds import key, rng

        self.space, self.fixed = free_axes(scenario.space), fixed_axes(scenario.space)
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

    def draws(self, n: int) -> list[dict[str, Any]]:
        """``n`` points: the default first (on the first call), then edge-weighted draws."""
        out = [{**self.fixed, **{p.name: self._draw(p) for p in self.space}} for _ in range(n)]
        if self.first:
            out[0] = {**self.fixed, **{p.name: p.default for p in self.space}}
            self.first = False
        return out

    def ask(self, n: int) -> list[Proposal]:
        return [Proposal(p, None) for p in self.draws(n)]

    def tell(self, points: Sequence[Mapping[str, Any]], scores: Sequence[float]) -> None:
        pass


class Stratified:
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
        """``deadline`` (``time.perf_counter()`` seconds; None: none): the set-up's probes stop there (``--time``
        covers the set-up too), after at least one."""
        import bounds

        self.scenario, self.base = scenario, Random(scenario, seed)
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
            probe.append(self.shares(self.base.draws(1)[0]))
            if deadline is not None and time.perf_counter() >= deadline:
                break
        reach = {t: max((sh.get(t, 0.0) for sh in probe if sh), default=0.0) for t in chosen}
        empty = [t for t, r in reach.items() if not r > 0]
        if words is not None and empty:
            raise UserInputError(f"--terms {','.join(empty)}: that term is 0 at all {len(probe)} points sampled from "
                                 f"{scenario.id}'s space (an empty stratum); terms that are not: "
                                 f"{', '.join(t for t in names if t not in empty) or 'none'}")
        #: the RHS terms aimed at, in turn with one plain stratum
        self.terms = [t for t in chosen if t not in empty]
        self.strata = [Stratum("term", term=t) for t in self.terms] + [RANDOM]
        self.k = 0

    def shares(self, point: Mapping[str, Any]) -> dict[str, float] | None:
        """Each term's share of the RHS at ``point`` (None when the point cannot be built or checked)."""
        from bounds.evaluate import evaluate

        try:
            inst = self.scenario.build(self.scenario.point(point))
            terms = evaluate(self.result, dict(inst.values)).terms  # the RHS only: hypotheses are the run's
            vals = {k: abs(float(v)) for k, v in terms.items()}
        except PointRefused:  # a point the builder or the result refuses: no share (the evaluation will say why)
            return None
        total = sum(vals.values())
        if not math.isfinite(total) or total <= 0:
            return None
        return {k: v / total for k, v in vals.items()}

    def aimed(self, term: str) -> dict[str, Any]:
        """The best of CANDIDATES draws by ``term``'s share of the RHS (where ``term`` dominates)."""
        cands = self.base.draws(self.CANDIDATES)
        scored = [((sh or {}).get(term, -1.0), i) for i, sh in enumerate(map(self.shares, cands))]
        return cands[max(scored)[1]]

    def ask(self, n: int) -> list[Proposal]:
        out = []
        for _ in range(n):
            if self.first:
                out.append(Proposal({**self.base.fixed, **{p.name: p.default for p in self.base.space}}, DEFAULT))
                self.first = False
                continue
            stratum = self.strata[self.k % len(self.strata)]
            self.k += 1
            point = self.base.draws(1)[0] if stratum.term is None else self.aimed(stratum.term)
            out.append(Proposal(point, stratum))
        return out

    def tell(self, points: Sequence[Mapping[str, Any]], scores: Sequence[float]) -> None:
        pass
