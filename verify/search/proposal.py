"""What an optimiser proposes: a point with its stratum, fidelity and predicted cost, and the ask/tell protocol.

**Setting**: a search (:func:`verify.search.falsify.search`) over a :class:`verify.scenario.Scenario`'s space.
**Quantity**: :class:`Stratum` says which part of an optimiser proposed a point (a term it aims at, a ray, a climb
step, a corner row): an object, never a label parsed back. :class:`Proposal` is one proposed point.
:class:`Optimiser` is the protocol every optimiser meets: ``ask(n)`` returns n proposals, ``tell(points,
scores)`` feeds their scores back (log LHS/RHS, larger is worse for the bound).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["DEFAULT", "INNER", "RANDOM", "Optimiser", "Proposal", "Stratum"]

# the kinds of proposer a stratum names (the record's ``proposer``)
KINDS = ("default", "random", "term", "climb", "ray", "corner", "inner")


@dataclass(frozen=True)
class Stratum:
    """Which part of an optimiser proposed a point.

    Args:
        kind: one of :data:`KINDS`: the default point, a plain edge-weighted draw, a draw aimed at an RHS term,
            a gradient climb's step, a ray walk or ray seed, a corner row or lattice move, a wrapped optimiser.
        term: the RHS term aimed at (``term``, ``corner``, a ray seed), None for none.
        step: the step a climb or a ray walk took (its length in the unit box, or the ray's fraction).
        detail: what else names it in the record (a corner array's strength, a ray's axis).
    """

    kind: str
    term: str | None = None
    step: float | None = None
    detail: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"stratum kind {self.kind!r} is not one of {', '.join(KINDS)}")

    def __str__(self) -> str:
        """The record's label (the same words the search recorded before strata were objects)."""
        if self.kind == "term":
            return str(self.term)
        if self.kind == "climb":
            return f"climb {self.step:.6g}"
        if self.kind == "ray":
            return f"ray {self.step:g}" if self.step is not None else f"ray {self.detail}, {self.term}"
        if self.kind == "corner":
            return f"corner {self.detail}, {self.term or 'plain'}"
        return self.kind


DEFAULT, RANDOM, INNER = Stratum("default"), Stratum("random"), Stratum("inner")


@dataclass(frozen=True)
class Proposal:
    """One proposed point: what is scored, who proposed it, at what fidelity and predicted cost.

    Args:
        point: axis name -> value (a point of the scenario's space).
        stratum: who proposed it (None: an optimiser that draws by no strata, e.g. optuna's).
        fidelity: ``exact``, ``per-trial`` or ``simulated`` as predicted (``verify.search.cost``), "" unknown.
        cost_s: predicted seconds to score it (``verify.search.cost``), None unknown.
    """

    point: Mapping[str, Any]
    stratum: Stratum | None = None
    fidelity: str = ""
    cost_s: float | None = None


@runtime_checkable
class Optimiser(Protocol):
    """The ask/tell interface of every optimiser (registered in :mod:`verify.search.optimisers`)."""

    def ask(self, n: int) -> list[Proposal]: ...

    def tell(self, points: Sequence[Mapping[str, Any]], scores: Sequence[float]) -> None: ...
