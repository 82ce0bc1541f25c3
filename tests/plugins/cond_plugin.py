"""A plugin whose one hypothesis needs a constant the sources lost (tests/plugins/test_conditional_violation.py).

**Setting**: COND.T1 claims E X <= B for draws X ~ N(mu, s^2) (not an engine run: ``Instance.run`` draws them),
under the hypothesis t <= G where G is an appendix constant the sources lost (``unrecovered``). The scenario
takes t = 1 and assumes the hypothesis met (``Instance.assumed``), with the reason; its ``G`` axis supplies the
constant ("lost" leaves it out). The bound is false by construction where mu > B: the LHS exceeds the RHS.
"""

from functools import partial

import numpy as np

from bounds import Domain, Hypothesis, Kind, Provenance, Result, SymbolInfo, Term, sym
from verify.scenario import Instance, Param, Scenario

B, t, G = sym("B", Domain.POSITIVE), sym("t", Domain.POSITIVE), sym("G", Domain.POSITIVE)
HYP = "threshold t <= G"
WHY = ("G is lost in the sources; t = 1 meets every threshold G >= 1, and a G below 1 would leave the theorem no "
       "admissible t at all")


def make_result() -> Result:
    return Result(id="COND.T1", title="a bound resting on a lost constant", paper="tests", kind=Kind.UPPER,
                  lhs="E X", lhs_latex=r"\mathbb{E} X", terms=(Term("B", B),),
                  symbols=(SymbolInfo("B", "the bound"), SymbolInfo("t", "threshold"),
                           SymbolInfo("G", "appendix constant", unrecovered=True)),
                  hypotheses=(Hypothesis(HYP, t <= G),), provenance=Provenance("tests/plugins/cond_plugin.py", "-"))


class Draws:
    """Evidence that is not an engine trajectory: ``metrics["x"]`` holds the trials' draws."""

    def __init__(self, trials: int, seed: int, mu: float, s: float):
        self.metrics = {"x": np.random.default_rng(seed).normal(mu, s, size=trials)}


def measure(sim):
    return sim.metrics["x"]


def build(point):
    values = {"B": float(point["B"]), "t": 1.0}
    if point["G"] != "lost":
        values["G"] = float(point["G"])
    return Instance(problem=None, algorithm=None, pattern=None, rounds=1, values=values, measure=measure,
                    assumed={HYP: WHY}, run=partial(Draws, mu=float(point["mu"]), s=0.01),
                    describe={"problem": "normal draws"})


def results():
    return [make_result()]


def scenarios():
    return [Scenario("COND.T1", "COND.T1", "COND.T1: E X <= B", (
        Param("mu", 0.5, 2.0, 1.0, doc="mean of the draws"),
        Param("B", 0.1, 0.5, 0.5, doc="the bound"),
        Param("G", choices=("lost", 0.5, 2.0), default="lost", searched=("lost",), doc="the lost constant, if given"),
    ), build)]
