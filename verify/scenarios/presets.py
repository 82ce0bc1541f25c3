"""Named presets: hand-narrowed boxes of a scenario's space, kept for reproducing earlier searches.

**Setting**: the default space of every scenario spans what the result's hypotheses admit (each axis
says where its bounds come from, ``falsify ID --space``). A preset narrows some axes to a box a person
chose (a corner a search once found, the space of an earlier run); it is never the default and never
widens an axis: each preset range is intersected with the axis's own.

>>> from verify.scenarios.presets import names
>>> "v0" in names("FAST.T2@corrected")
True
"""

from __future__ import annotations

import dataclasses
from typing import Any

from bounds.core.errors import UserInputError
from verify.scenario import Scenario

__all__ = ["PRESETS", "apply", "names"]

_T2_V0 = {"M": (2, 16), "K": (1, 8), "horizon": (1.0, 30.0), "d": (2, 8), "mu_frac": (0.05, 1.0),
          "het": (1e-2, 1e4), "sigma": (1e-4, 2.0), "D0": (1e-3, 10.0), "eta_frac": (0.01, 1.0),
          "acp_a": (0.02, 5.0)}
#: scenario id -> preset name -> axis -> (low, high) for a numeric axis or a tuple of choices.
PRESETS: dict[str, dict[str, dict[str, Any]]] = {
    # v0: the boxes searched before the spaces were derived from the hypotheses (falsify_runs/REPORT.md)
    "FAST.T1": {"v0": {"M": (2, 16), "K": (1, 10), "R": (20, 400), "d": (1, 16), "mu_frac": (0.05, 1.0),
                       "zeta": (1e-3, 10.0), "sigma": (0.0, 4.0), "x0_scale": (0.05, 10.0), "eta_frac": (0.01, 1.0)}},
    "FAST.T2": {"v0": _T2_V0},
    "FAST.T2@corrected": {
        "v0": _T2_V0,
        # the corner of the 2026-11-23 violations: few clients, one skewed ACP client, q near its threshold
        "corner": {"M": (2, 3), "n_frac": (0.05, 0.5), "acp_a": (0.02, 0.05), "q_frac": (0.0, 0.3),
                   "het": (1.0, 1e4), "sigma": (1e-4, 1e-2)},
    },
    "F3AST.T3.5@explicit": {"v0": {"d": (1, 8), "zeta": (1e-2, 10.0), "sigma": (1e-4, 3.0), "D0": (1e-4, 10.0),
                                   "E": (1, 5), "T": (20, 400)}},
    "ASCAF.T1": {"v0": {"I": (1, 4), "R": (20, 1200), "zeta": (1e-2, 10.0), "sigma": (0.0, 3.0),
                        "D0": (1e-2, 100.0), "step_frac": (0.01, 1.0)}},
}


def names(scenario_id: str) -> list[str]:
    """The presets of ``scenario_id`` (possibly none)."""
    return sorted(PRESETS.get(scenario_id, {}))


def apply(scenario: Scenario, name: str) -> Scenario:
    """``scenario`` with preset ``name``'s axes narrowed; an unknown name is one ``UserInputError`` line."""
    table = PRESETS.get(scenario.id, {})
    if name not in table:
        valid = ", ".join(sorted(table)) or "none (this scenario has no presets)"
        raise UserInputError(f"--preset {name!r}: {scenario.id} has no such preset; valid: {valid}")
    box = table[name]
    space = []
    for p in scenario.space:
        if p.name not in box:
            space.append(p)
            continue
        want = box[p.name]
        if p.choices is not None:
            keep = tuple(c for c in p.choices if c in want)
            space.append(dataclasses.replace(p, choices=keep, searched=None, source=f"preset {name}"))
            continue
        low, high = max(p.low, want[0]), min(p.high, want[1])
        if low > high:  # the axis moved away from the preset's box: keep the nearest end, say so in source
            low = high = min(max(want[0], p.low), p.high)
        default = min(max(p.default, low), high)
        space.append(dataclasses.replace(p, low=low, high=high, default=default, log=p.log and low > 0,
                                         source=f"preset {name} (hand-narrowed from {p.low:g}..{p.high:g})"))
    return dataclasses.replace(scenario, space=tuple(space), notes=scenario.notes + (f"preset {name}: {box}",))
