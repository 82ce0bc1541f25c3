"""Which participation assumptions of a result each pattern of the engine meets, as each pattern declares.

A result's participation hypothesis (``bounds.result.ParticipationAssumption``: full, iid, snapshot,
regularized, cyclic, static-rate...) is a statement about a process, so no number decides it; a
simulation does, because its process is the engine's pattern. Each pattern constructor declares its
*guarantees*: participation kind -> ``values -> (met, why) | None``, where ``values`` are the result's
inputs at the instance checked. ``None`` means "not decided by this pattern" (the assumption stays a
condition); ``(True, why)`` only where the simulated process meets the assumption with the checked
constants; ``(False, why)`` only where it certainly does not (e.g. "full participation" for a pattern
that leaves clients out).

Constants given as bounds by a result (Assumption 2's p_min and rho) are met by a pattern whose own
constant is at least as good; identities (q, m, n, S, N, P, the rates r) must match.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

Verdict = tuple[bool, str] | None
Guarantee = Callable[[Mapping[str, Any]], Verdict]


def same(values: Mapping[str, Any], key: str, want: Any) -> bool:
    """``values[key]`` equals the pattern's ``want`` (an input the result does not have matches anything)."""
    if key not in values:
        return True
    if want is None:
        return False
    got, ref = np.asarray(values[key], dtype=float), np.asarray(want, dtype=float)
    return got.shape == ref.shape and bool(np.allclose(got, ref))


def full(everyone: bool, what: str) -> Guarantee:
    """"Every client participates in every round": decided either way by the pattern's definition."""
    def meets(values: Mapping[str, Any]) -> Verdict:
        if everyone:
            return True, f"met by construction: {what} (every client in every round)"
        return False, f"not met: {what} leaves clients out of some rounds"

    return meets


def snapshot(q: float | None, m: int, n: int | None, how: str) -> Guarantee:
    """FAST's mixture: each round independently, w.p. q, m clients uniformly without replacement."""
    def meets(values: Mapping[str, Any]) -> Verdict:
        if q is None or not (same(values, "q", q) and same(values, "m", m) and (n is None or same(values, "n", n))):
            return None
        return True, (f"met by construction: {how}, with the q, m" + (", n" if n is not None else "")
                      + " checked")

    return meets


def iid(S: int, M: int) -> Guarantee:
    """S of the M clients uniformly without replacement, independently each round."""
    def meets(values: Mapping[str, Any]) -> Verdict:
        if same(values, "S", S) and same(values, "N", M):
            return True, f"met by construction: the engine draws S = {S} of N = {M} clients uniformly each round"
        return None

    return meets


def assumption2(P: int, p_min: float, rho2: float, name: str) -> Guarantee:
    """Amplified SCAFFOLD's Assumption 2 with the checked constants: the same window P, a checked p_min
    no larger than the pattern's, a checked rho^2 no smaller than the pattern's sum of squared weights."""
    def meets(values: Mapping[str, Any]) -> Verdict:
        if "P" in values and not np.isclose(float(values["P"]), float(P)):
            return None
        if "p_min" in values and float(values["p_min"]) > float(p_min) * (1 + 1e-12):
            return None
        checked = (float(values["rho2"]) if "rho2" in values else float(values["rho"]) ** 2 if "rho" in values
                   else None)
        if checked is not None and checked < float(rho2) * (1 - 1e-12):
            return None
        return True, (f"met by construction: the engine's {name} pattern has window P = {P}, Pr(in a window) >= "
                      f"{p_min:.4g} and sum_i q_i^2 = {rho2:.4g}, within the P, p_min and rho checked")

    return meets


def cyclic(groups: int, S: int, M: int) -> Guarantee:
    """Kbar groups take turns; S clients drawn uniformly from the active group each round."""
    def meets(values: Mapping[str, Any]) -> Verdict:
        if same(values, "Kbar", groups) and same(values, "S", S) and same(values, "N", M):
            return True, f"met by construction: {groups} groups take turns, S = {S} drawn from the active one"
        return None

    return meets


def static_rate(rates: Any) -> Guarantee:
    """A static selection policy whose true rates are the r checked (achievable: the policy attains them)."""
    def meets(values: Mapping[str, Any]) -> Verdict:
        if same(values, "r", rates):
            return True, ("met by construction: a static selection policy whose true rates are the r checked "
                          "(achievable: the policy attains them)")
        return None

    return meets
