"""A published result as data: a theorem, lemma, corollary or complexity row, and its parts.

Setting: a result is ``LHS  <kind>  sum of named terms`` under named hypotheses, each a sympy
relation over the result's symbols. Vector inputs (rates r, weights p, update vectors) enter
through :class:`Aggregate` symbols, scalars computed from them (e.g. sum_k p_k^2 / r_k).
Hypotheses that the numeric inputs cannot decide (how clients participate, what the availability
model is) are data too: :class:`ParticipationAssumption` and :class:`Assumption`. ``check`` lists
each as a condition that is not checked, with what would decide it, so no report says "all
hypotheses hold" while one of them was never looked at.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import TYPE_CHECKING, Any

import sympy as sp

from bounds.symbols import SymbolInfo

if TYPE_CHECKING:
    import numpy as np

    from bounds.pep_cover import PepRule


class Kind(Enum):
    """What relation the conclusion asserts, which decides how it is checked."""

    UPPER = "upper"            # measured LHS <= RHS
    LOWER = "lower"            # measured LHS >= RHS
    EQUALITY = "equality"      # LHS == RHS (an identity); checked within a named tolerance
    ORDER = "order"            # LHS = O(sum of terms): constants hidden, only scaling is checkable
    THRESHOLD = "threshold"    # the RHS is a value a parameter must reach (e.g. q >= q_min)


class Status(Enum):
    """Spec status tags (spec README section 1)."""

    PUBLISHED = "PUBLISHED"
    FLAG = "FLAG"
    INFERRED = "INFERRED"
    DECODED_H = "DECODED-H"
    DECODED_M = "DECODED-M"
    DECODED_L = "DECODED-L"
    UNRECOVERED = "UNRECOVERED"


@dataclass(frozen=True)
class Citation:
    """A paper as a reader cites it, transcribed from the first lines of its seed text.

    ``venue`` is what the seed text itself states (journal or conference and year); where the text states
    none it says so, rather than a venue recalled from elsewhere.
    """

    authors: str
    title: str
    venue: str

    def text(self) -> str:
        """``Authors, "Title", venue``: one line."""
        return f'{self.authors}, "{self.title}", {self.venue}'


@dataclass(frozen=True)
class Provenance:
    """Where a result comes from: seed file, locator ("Theorem 1"), equation, spec section.

    Args:
        paper: the paper's citation (None for a result registered from a file or a plugin that gives none).
        rests_on: registry keys of the results this one is read off (a corollary's theorem, a rate read off a
            bound): declared, never inferred from the text; its decision travels with theirs.
        kind: who states it: ``paper`` (printed there) or :data:`DERIVED` (a statement convbound derived from
            instances, e.g. a repaired variant; ``spec`` then names the instances).
    """

    seed: str
    locator: str
    equation: str = ""
    spec: str = ""
    paper: Citation | None = None
    rests_on: tuple[str, ...] = ()
    kind: str = "paper"

    def cited(self) -> str:
        """The paper and the place in it (``Authors, "Title", venue; Theorem 1, eq. (2)``); the seed file when no
        citation is declared."""
        where = f"{self.locator}, eq. {self.equation}" if self.equation else self.locator
        return f"{self.paper.text()}; {where}" if self.paper else f"{self.seed}, {where}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seed": self.seed, "locator": self.locator, "equation": self.equation,
                               "spec": self.spec, "kind": self.kind}
        if self.paper is not None:
            out["paper"] = {"authors": self.paper.authors, "title": self.paper.title, "venue": self.paper.venue}
        if self.rests_on:
            out["rests_on"] = list(self.rests_on)
        return out


#: The provenance kind of a statement convbound derived (not printed by a paper).
DERIVED = "derived by convbound from these instances"


@dataclass(frozen=True)
class Term:
    """A named summand of the right-hand side (e.g. 'optimisation', 'statistical')."""

    name: str
    expr: sp.Expr
    meaning: str = ""


@dataclass(frozen=True)
class Hypothesis:
    """A named condition ``lhs (<=|<|>=|>) rhs`` as a sympy relation."""

    name: str
    relation: sp.Rel
    meaning: str = ""
    #: ``(symbol, top)`` where the hypothesis is ``symbol >= threshold`` and ``top`` is the largest value the
    #: symbol's domain allows (FAST.T1: ``("q", 1)``): at ``symbol = top`` it fails only if the threshold is
    #: above ``top``, which leaves the result no admissible value of the symbol at all (see :meth:`if_fails_at`).
    floor_of: tuple[str, float] | None = None

    @cached_property
    def free_names(self) -> frozenset[str]:
        # kept on the instance (the relation is immutable): a solve or a search checks one hypothesis tens of
        # thousands of times, and walking a large relation for its free symbols was a third of each check
        return frozenset(s.name for s in self.relation.free_symbols)

    def if_fails_at(self, values: Mapping[str, Any]) -> str:
        """What failing this hypothesis would mean at ``values``: for a declared floor at the top of its
        domain, that the result would have no admissible value at all; '' otherwise (nothing declared, or the
        symbol not at its top there).

        >>> h = Hypothesis("q >= q_min", at_least(sp.Symbol("q"), sp.Symbol("t")), floor_of=("q", 1))
        >>> h.if_fails_at({"q": 1})
        'at q = 1 it can fail only with a threshold above 1, which would leave the theorem no admissible q at all'
        >>> h.if_fails_at({"q": 0.5})
        ''
        """
        if self.floor_of is None:
            return ""
        name, top = self.floor_of
        if values.get(name) != top:
            return ""
        return (f"at {name} = {top:g} it can fail only with a threshold above {top:g}, which would leave the theorem "
                f"no admissible {name} at all")


# Why these two and not sp.Le / sp.Ge: sympy tries to decide every relation it builds (assumption
# queries over both sides), 20 of the 23 ms that building FAST.T1 took, paid by every `check` and
# `show` (issue 30). A hypothesis is a relation sympy cannot decide (one it could decide would be
# True/False, not a relation, and could not be checked), so the relation built unevaluated is the
# same object; tests/bounds/test_unevaluated_hypotheses.py rebuilds every one evaluated to see it.
def at_most(lhs: Any, rhs: Any) -> sp.Rel:
    """The hypothesis relation ``lhs <= rhs`` (``sp.Le``), built without asking sympy to decide it.

    >>> at_most(sp.Symbol("eta", positive=True), sp.Rational(1, 8))
    eta <= 1/8
    """
    return sp.Le(lhs, rhs, evaluate=False)


def at_least(lhs: Any, rhs: Any) -> sp.Rel:
    """The hypothesis relation ``lhs >= rhs`` (``sp.Ge``), built without asking sympy to decide it."""
    return sp.Ge(lhs, rhs, evaluate=False)


# What each participation kind assumes; ``convbound audit`` asks a result for these kinds.
#: Participation kinds a result may declare (key) with what each means (value).
PARTICIPATION_KINDS: dict[str, str] = {
    "full": "every client participates in every round (full participation)",
    "snapshot": "each round is, with probability q, a snapshot round of m clients drawn uniformly without "
                "replacement, otherwise a round of n clients chosen by any process (FAST)",
    "regularized": "participation weights repeat with period P and every client participates in each window of P "
                   "rounds with probability at least p_min (Amplified SCAFFOLD)",
    "iid": "each round S of the N clients are drawn uniformly, independently across rounds (Amplified SCAFFOLD)",
    "cyclic": "Kbar client groups take turns, S clients drawn from the active group each round (Amplified SCAFFOLD)",
    "static-rate": "a static selection policy whose long-run participation rates r lie in the achievable region of "
                   "the clients' availability model (F3AST eq. 2)",
    "asynchronous": "at most K clients selected per round, each update at most Gamma_max rounds stale "
                    "(Democratic FL)",
    "random": "clients chosen at random each round, with no more said about the distribution (survey rows)",
    "adaptive": "participation probabilities that change over rounds, a stated sequence p_t (survey: FedAMD)",
}


@dataclass(frozen=True)
class ParticipationAssumption:
    """What a result assumes about who participates, as data (one of :data:`PARTICIPATION_KINDS`).

    Args:
        kind: a key of :data:`PARTICIPATION_KINDS`.
        params: the result's symbols that parameterise the process (e.g. ``("q", "m", "n")``).
        statement: the assumption in the paper's words, with its symbols.
        needs: what would decide it (shown as the reason the condition is not checked).

    The condition's ``name`` is ``participation (KIND)``: short and stable, so a scenario can mark
    it assumed (``Instance.assumed``) and an audit can find it; ``statement`` is its text.

    >>> ParticipationAssumption("snapshot", ("q",), "snapshot rounds w.p. q").name
    'participation (snapshot)'
    """

    kind: str
    params: tuple[str, ...]
    statement: str
    needs: str = "the participation process is not an input; audit a log of the run (convbound audit)"

    def __post_init__(self) -> None:
        if self.kind not in PARTICIPATION_KINDS:
            raise ValueError(f"unknown participation kind {self.kind!r}; valid: {', '.join(PARTICIPATION_KINDS)}")

    @property
    def name(self) -> str:
        return f"participation ({self.kind})"


@dataclass(frozen=True)
class Assumption:
    """A hypothesis of the paper that the result's numeric inputs cannot decide (not participation).

    ``needs`` says what would decide it; ``check`` reports it as not checked with that reason.
    """

    name: str
    statement: str
    needs: str


@dataclass(frozen=True)
class Aggregate:
    """A scalar symbol computed from vector/matrix inputs.

    Args:
        name: the scalar symbol's name (appears in terms and hypotheses).
        display: a sympy expression shown to users (e.g. ``Sum(p[k]**2/r[k], (k, 1, N))``).
        inputs: names of the vector symbols it reads.
        fn: numpy function of those inputs (trailing axis = clients) returning the scalar(s).
    """

    name: str
    display: sp.Expr
    inputs: tuple[str, ...]
    fn: Callable[..., np.ndarray]
    meaning: str = ""


@dataclass(frozen=True)
class Statement:
    """A published result as data (one variant of it): what the paper states, without the operations on it
    (:class:`bounds.result.Result` adds them; ``bounds.evaluate``, ``bounds.solve`` and ``bounds.render`` take a
    statement, so they import this module and ``bounds.result`` imports them, without a circle).

    Args:
        id: the spec's ID, e.g. ``FAST.T1``.
        variant: ``published`` or ``corrected``/another name; ``key`` = ``ID`` or ``ID@variant``.
        kind: see :class:`Kind`.
        lhs: what the left side measures, operationally (so ``verify`` can measure it).
        lhs_latex: the left side as LaTeX.
        terms: named summands of the right side.
        hypotheses: named conditions, each a sympy relation.
        symbols: every input symbol with meaning and domain.
        aggregates: scalar symbols computed from vector inputs.
        rate: big-O exponent per variable, where the result states a rate.
        prescribed: parameter choices a corollary prescribes (e.g. ``eta_c``), as expressions.
        status: spec status tags; ``flags``: one-line rationales of each flag.
        reconstructed: True when the encoded form is a reconstruction (garbled seed, typo fix).
        example: input values of the spec's worked example (used by reports, benchmarks, docs).
        participation: what the result assumes about who participates (see
            :class:`ParticipationAssumption`); each is a condition ``check`` cannot decide alone.
        assumptions: other hypotheses the inputs cannot decide (see :class:`Assumption`).
        origin: where the result was registered from: ``built-in``, ``entry point NAME (DIST)`` or
            ``file PATH`` (set by the registry, see :mod:`bounds.plugins`).
        pep: how the result relates to a worst-case (PEP) setting (:class:`bounds.pep_cover.PepRule`); a built-in
            result's rule is declared by its paper module instead (``pep_rule(key)``, read by
            :func:`bounds.registry.pep_rule`).
    """

    id: str
    title: str
    paper: str
    kind: Kind
    lhs: str
    lhs_latex: str
    terms: tuple[Term, ...]
    symbols: tuple[SymbolInfo, ...]
    provenance: Provenance
    hypotheses: tuple[Hypothesis, ...] = ()
    aggregates: tuple[Aggregate, ...] = ()
    variant: str = "published"
    status: tuple[Status, ...] = (Status.PUBLISHED,)
    flags: tuple[str, ...] = ()
    reconstructed: bool = False
    rate: tuple[tuple[str, sp.Rational], ...] = ()
    prescribed: tuple[tuple[str, sp.Expr], ...] = ()
    notes: str = ""
    example: tuple[tuple[str, Any], ...] = ()
    participation: tuple[ParticipationAssumption, ...] = ()
    assumptions: tuple[Assumption, ...] = ()
    # Compiled expressions, keyed by the expression itself. init=False: dataclasses.replace builds a
    # fresh cache, so a copy with other terms never runs this result's compiled functions.
    _cache: dict[Any, Any] = field(default_factory=dict, init=False, compare=False, hash=False, repr=False)
    origin: str = field(default="built-in", compare=False)
    pep: PepRule | None = field(default=None, compare=False, repr=False)

    # Structure
    @property
    def key(self) -> str:
        return self.id if self.variant == "published" else f"{self.id}@{self.variant}"

    @property
    def rhs(self) -> sp.Expr:
        return sp.Add(*(t.expr for t in self.terms))

    @property
    def symbol_map(self) -> Mapping[str, SymbolInfo]:
        return {s.name: s for s in self.symbols}

    @property
    def rate_map(self) -> Mapping[str, sp.Rational]:
        return dict(self.rate)

    @property
    def prescribed_map(self) -> Mapping[str, sp.Expr]:
        return dict(self.prescribed)

    @property
    def unencoded(self) -> tuple[ParticipationAssumption | Assumption, ...]:
        """Hypotheses the inputs cannot decide: participation first, then the others."""
        return self.participation + self.assumptions

    @property
    def example_values(self) -> dict[str, Any]:
        return dict(self.example)

    @property
    def scalar_names(self) -> tuple[str, ...]:
        """Scalar symbols the expressions are written in (inputs plus aggregates), in order."""
        names = [s.name for s in self.symbols if not s.domain.is_vector]
        names += [a.name for a in self.aggregates]
        return tuple(names)

    def required_for_terms(self) -> frozenset[str]:
        """Input names the right side needs (aggregates replaced by their vector inputs)."""
        # kept in the compiled-expression cache under a string key (no expression equals a str): the terms are
        # fixed for this result, and walking a large RHS for its free symbols cost ~1.4 ms per evaluation
        if "required_for_terms" not in self._cache:
            self._cache["required_for_terms"] = self._expand(frozenset(s.name for s in self.rhs.free_symbols))
        return self._cache["required_for_terms"]

    def required_for(self, hyp: Hypothesis) -> frozenset[str]:
        return self._expand(hyp.free_names)

    def _expand(self, names: frozenset[str]) -> frozenset[str]:
        aggs = {a.name: a for a in self.aggregates}
        out: set[str] = set()
        for n in names:
            out.update(aggs[n].inputs if n in aggs else (n,))
        return frozenset(out)
