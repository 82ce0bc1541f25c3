"""Left sides an imported theorem may claim: the measures convbound computes, chosen by name, never parsed.

**Setting**: a paper's left side (``\\frac1R\\sum_{r=1}^R\\mathbb E\\|\\nabla F(\\mathbf x_r)\\|^2``) names an
expectation of a norm of a gradient at iterates; reading that LaTeX into an operation is where an
import would guess. The user names the measure instead; the import keeps the paper's LaTeX beside it.
**Quantity**: each :class:`Measure` is one of ``verify.scenario``'s measures (``at_round`` or
``mean_over_rounds``) of a simulation metric (``dist_sq``, ``gap``, ``grad_sq``), written here as data
(this layer imports nothing of ``verify``; ``tests/bounds/test_latex_import.py`` checks that the names exist).
**Refusal**: a measure whose cues contradict the paper's left side (a gradient measure for a left side
with no ``\\nabla``, a final-round measure for an average over rounds, a minimum over rounds) is refused
with one line, as is an unknown name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bounds.core.errors import UserInputError, unknown

__all__ = ["MEASURES", "Measure", "measure_for"]


@dataclass(frozen=True)
class Measure:
    """One left side: ``function`` and ``metric`` of ``verify.scenario``; ``text`` says it operationally."""

    name: str
    function: str   # at_round | mean_over_rounds
    metric: str     # dist_sq | gap | grad_sq
    text: str       # with {R} for the round symbol
    latex: str      # with {R}

    def describe(self, rounds: str) -> str:
        call = (f"verify.scenario.{self.function}(metric={self.metric!r}, r={rounds})" if self.function == "at_round"
                else f"verify.scenario.{self.function}(metric={self.metric!r}, first=1, last={rounds})")
        return f"{self.text.format(R=rounds)} [measure: {call}]"


_AVG = "(1/{R}) sum_{{r=1..{R}}} "
MEASURES = {m.name: m for m in (
    Measure("final-dist-sq", "at_round", "dist_sq",
            "E||x_{R} - x*||^2: squared distance of the global model after {R} rounds to the minimiser, averaged over runs",
            r"\mathbb E\|x_{{{R}}}-x^*\|^2"),
    Measure("final-gap", "at_round", "gap",
            "E f(x_{R}) - f*: optimality gap of the global model after {R} rounds, averaged over runs",
            r"\mathbb E f(x_{{{R}}})-f^*"),
    Measure("final-grad-sq", "at_round", "grad_sq",
            "E||grad f(x_{R})||^2: squared full gradient at the global model after {R} rounds, averaged over runs",
            r"\mathbb E\|\nabla f(x_{{{R}}})\|^2"),
    Measure("mean-grad-sq", "mean_over_rounds", "grad_sq",
            _AVG + "E||grad f(x_r)||^2: squared full gradient at the global model, averaged over rounds and runs",
            r"\frac1{{{R}}}\sum_{{r=1}}^{{{R}}}\mathbb E\|\nabla f(x_r)\|^2"),
    Measure("mean-gap", "mean_over_rounds", "gap",
            _AVG + "(E f(x_r) - f*): optimality gap, averaged over rounds and runs",
            r"\frac1{{{R}}}\sum_{{r=1}}^{{{R}}}\mathbb E f(x_r)-f^*"),
    Measure("mean-dist-sq", "mean_over_rounds", "dist_sq",
            _AVG + "E||x_r - x*||^2: squared distance to the minimiser, averaged over rounds and runs",
            r"\frac1{{{R}}}\sum_{{r=1}}^{{{R}}}\mathbb E\|x_r-x^*\|^2"),
)}

_STAR = re.compile(r"\^\s*\{?\s*(\*|\\star|\\ast)")
_AVERAGE = re.compile(r"\\sum|\\frac\s*\{?\s*1\s*\}?|\\bar|\\overline|\\hat|\\tilde")


def measure_for(name: str, lhs_latex: str = "") -> Measure:
    """The measure ``name``; refused when the paper's left side (if given) plainly measures something else.

    The cues are deliberately coarse and only refuse: a gradient metric needs ``\\nabla``; a distance
    or gap metric needs an optimum (``^*``) and no ``\\nabla``; an average over rounds needs a ``\\sum``
    or ``\\frac1R``; a final-round measure refuses one; a minimum over rounds is no measure we have.

    >>> measure_for("final-dist-sq", r"\\mathbb E\\|\\mathbf x_R-\\mathbf x^*\\|^2").metric
    'dist_sq'
    """
    if name not in MEASURES:
        raise unknown("left-side measure", name, MEASURES)
    m = MEASURES[name]
    text = lhs_latex.strip()
    if not text:
        return m
    why = ""
    if re.search(r"\\min|\\max|\\inf|\\sup", text):
        why = "a minimum or maximum over rounds is not a measure convbound computes"
    elif m.metric == "grad_sq" and r"\nabla" not in text:
        why = f"{name} measures a gradient norm but the paper's left side has no \\nabla"
    elif m.metric != "grad_sq" and r"\nabla" in text:
        why = f"{name} measures {m.metric} but the paper's left side holds a gradient (\\nabla)"
    elif m.metric != "grad_sq" and not _STAR.search(text):
        why = f"{name} measures {m.metric} against an optimum but the paper's left side has no x^* or f^*"
    elif m.function == "mean_over_rounds" and not _AVERAGE.search(text):
        why = f"{name} averages over rounds but the paper's left side has no \\sum or \\frac1R"
    elif m.function == "at_round" and re.search(r"\\sum", text):
        why = f"{name} reads the final round but the paper's left side sums over rounds"
    if why:
        short = text if len(text) <= 60 else text[:57] + "..."
        raise UserInputError(f"left side {short!r} cannot be mapped to --lhs {name}: {why}; valid measures: "
                             f"{', '.join(MEASURES)}")
    return m
