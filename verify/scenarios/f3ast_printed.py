"""F3AST Lemma III.4 with the printed 1/eta normalisation (eqs. (6), (7) as printed): two scenarios.

**Setting**: as ``F3AST.L3.4@eq6`` / ``@eq7`` (``verify.scenarios.f3ast``): fixed client updates v_k, a static
policy's selection law, only S drawn.
**Quantity**: the printed LHS E_S||Delta - vbar||^2 / eta (one power of eta, where the operative form divides by
eta^2): the operative per-draw samples times eta.
**Statement** (**upper**, F3AST Lemma III.4, eqs. (6), (7) as printed).
Hand-built, not declared: the LHS is a draw of a selection law over frozen updates, not an engine trajectory, so
:class:`verify.scenarios.declared.Declares` (algorithm, law, family, trajectory measure) cannot say it; the
instance is the operative lemma's own (same space, same draws), only the normalisation differs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import partial
from typing import Any

import numpy as np

from verify.scenario import Instance, Scenario
from verify.scenarios.f3ast import L34_SPACE, build_l34
from verify.scenarios.f3ast_sampling import UPDATE_ETA


def printed_draws(sim: Any) -> np.ndarray:
    """Per draw ||Delta - vbar||^2 / eta: the operative sample (divided by eta^2) times eta."""
    return np.asarray(sim.metrics["sigma2"], dtype=float) * UPDATE_ETA


def build_printed(point: Mapping[str, Any], key: str) -> Instance:
    """Lemma III.4 (``key``: eq. 6 or 7 as printed) on the operative lemma's instance, LHS over eta."""
    inst = build_l34(point, key)
    return dataclasses.replace(inst, measure=printed_draws,
                               describe={**dict(inst.describe), "normalisation": f"1/eta (eta = {UPDATE_ETA})"})


SCENARIOS = [
    Scenario(f"F3AST.L3.4@eq{n}-printed", f"F3AST.L3.4@eq{n}-printed",
             f"F3AST Lemma III.4 eq. ({n}) as printed (1/eta)", L34_SPACE,
             partial(build_printed, key=f"F3AST.L3.4@eq{n}-printed"),
             ("Monte Carlo over draws of S (no trajectory); printed normalisation 1/eta",))
    for n in (6, 7)
]
