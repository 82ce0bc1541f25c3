"""How a published result relates to a worst-case (PEP) setting: the coverage rule a result declares.

**Setting**: ``verify.pep`` computes exact worst cases over classes of smooth clients (strongly convex, with
heterogeneity bounded at x* only; or non-convex, with dissimilarity bounded at the evaluated points). Which
encoded result such a worst case checks, how the setting's numbers read as the result's own inputs, or why it
checks none, is paper knowledge: each paper module declares it per result (``pep_rule(key) -> PepRule | None``
beside its ``results()``), and a result built elsewhere (a plugin, a notebook) carries it in ``Result.pep``.
:func:`bounds.registry.pep_rule` finds a result's rule; ``verify.pep`` evaluates what it answers and names no paper.
**Quantity**: :class:`PepRule`: one answer per class of worst case (``convex`` at a :class:`ConvexSetting`,
``nonconvex`` at a :class:`NonconvexSetting`), each a :class:`Cover` or a function of the setting that returns
one; None: the rule says nothing about that class (``verify.pep`` then reads the result's declared convention,
or leaves it out of the non-convex rows).
:class:`Cover`: ``covers`` is ``yes`` (the setting is an instance of the result's class: its tightness ratio is a
check), ``comparison`` (the bound is evaluated at a value that bounds every instance's own, not a per-instance
check), ``order`` (an order result, evaluated with every hidden constant 1) or ``no``; ``reason`` says why;
``inputs`` are the result's own symbols at the setting (None when not evaluated); ``decided``: per kind of
participation assumption the setting meets, (holds, why).
The settings are read only through the attributes the protocols below list (``verify.pep.setting.Setting`` and
``verify.pep.nonconvex.NCSetting`` have them), so ``bounds`` imports nothing of ``verify``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["NONCONVEX", "NO_RULE", "ORDER", "WHY_AVG0", "ConvexSetting", "Cover", "LawView", "NonconvexSetting",
           "PepRule"]

NONCONVEX = ("a gradient-norm result for non-convex clients: compared by the non-convex worst case "
             "(worst-case --nonconvex, verify.pep.nonconvex_cover), not this distance measure")
ORDER = "order result (hidden constant): only its scaling is checkable, no tightness ratio"
NO_RULE = "no rule relates this result to deterministic local methods; not compared"
# the non-convex measure of the results that average a uniformly chosen iterate, and what it needs
WHY_AVG0 = "needs measure avg_grad_sq0 (a uniformly chosen iterate among x_0..x_{R-1}) and full participation"


class LawView(Protocol):
    """A participation law drawn every round: ``kind`` full | uniform | bernoulli | snapshot; ``m`` clients per
    (snapshot) round, ``n`` in the other rounds, ``q`` the probability of a snapshot round."""

    @property
    def kind(self) -> str: ...
    @property
    def m(self) -> int | None: ...
    @property
    def n(self) -> int | None: ...
    @property
    def q(self) -> float | None: ...
    def text(self) -> str: ...


class _Common(Protocol):
    @property
    def method(self) -> str: ...
    @property
    def L(self) -> float: ...
    @property
    def zeta(self) -> float: ...
    @property
    def eta(self) -> float: ...
    @property
    def eta_g(self) -> float: ...
    @property
    def sigma(self) -> float: ...
    @property
    def K(self) -> int: ...
    @property
    def R(self) -> int: ...
    @property
    def M(self) -> int: ...
    @property
    def measure(self) -> str: ...
    @property
    def law(self) -> LawView | None: ...


class ConvexSetting(_Common, Protocol):
    """A strongly convex worst case: ``mu``, ``D0`` >= ||x_0 - x*||^2, a fixed ``schedule`` or snapshot interval
    ``I`` (or neither), and whether every round aggregates every client."""

    @property
    def mu(self) -> float: ...
    @property
    def D0(self) -> float: ...
    @property
    def schedule(self) -> Any: ...
    @property
    def I(self) -> int | None: ...  # noqa: E743 - FAST's own letter for the snapshot interval
    def full_every_round(self) -> bool: ...


class NonconvexSetting(_Common, Protocol):
    """A non-convex worst case: ``Delta`` >= F(x_0) - F_inf, and whether every round aggregates every client."""

    @property
    def Delta(self) -> float: ...
    def full(self) -> bool: ...


@dataclass(frozen=True)
class Cover:
    """A rule's answer at one setting (module doc)."""

    covers: str
    reason: str
    inputs: Mapping[str, Any] | None = None
    decided: Mapping[str, tuple[bool | None, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class PepRule:
    """What a result says about worst cases of each class (module doc)."""

    convex: Cover | Callable[[ConvexSetting], Cover] | None = None
    nonconvex: Cover | Callable[[NonconvexSetting], Cover] | None = None

    def at_convex(self, s: ConvexSetting) -> Cover | None:
        return self.convex(s) if callable(self.convex) else self.convex

    def at_nonconvex(self, s: NonconvexSetting) -> Cover | None:
        return self.nonconvex(s) if callable(self.nonconvex) else self.nonconvex
