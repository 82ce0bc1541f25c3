"""The rationals a float64 instance stands for: each declared number read back as the simplest rational within its
rounding error.

**Setting**: an instance built from round data (eta_c = 1/2000, b_i = +/-10, m/M = 1/2) reaches the exact path as
float64 numbers (0.0005 is 1/2000 + 1.04e-20); products of them carry the residue on (a term that is exactly 0
comes out 1e-18).
**Quantity**: :func:`recover` maps x to the rational with the smallest denominator in
[x - t, x + t], t = ULPS * eps * |x| (relative), when that denominator is at most MAX_DEN; failing that, within
t = ULPS * eps (absolute, on the scale 1 of the round's own coefficients: 1 - eta_c minus 1 leaves an error of
order eps, not of order eps * eta_c, and a residue 1e-18 of an exact 0 reads back as 0); failing both, x's own exact
value (every float64 is a rational) and the number is counted as kept. Applied to the declared primitives (the
round's coefficients, the law's moments, the start, the measure) before any product is formed, so the moment
recursion built from them is exact arithmetic on rational data.
**Statement**: recovery is a reading, not a proof: the erratum sets the closed form built on it beside the same
recursion in exact arithmetic on the float64 data themselves (relative 1e-12) and, where they differ by more (a
small datum, e.g. a noise variance of 1e-17, read as 0 on the absolute scale), uses the float64 values and says so;
it says how many numbers were kept as floats.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

__all__ = ["Recovery", "recover", "simplest_between"]

ULPS = 16  # a declared coefficient is one or two float operations from the data: well inside 16 ulp
MAX_DEN = 10**8  # a recovered rational with a larger denominator is no simpler than the float: keep the float


def simplest_between(lo: Fraction, hi: Fraction) -> Fraction:
    """The rational with the smallest denominator in [lo, hi] (continued fractions; lo <= hi)."""
    if lo <= 0 <= hi:
        return Fraction(0)
    if hi < 0:
        return -simplest_between(-hi, -lo)
    fl = math.floor(lo)
    if fl == lo:
        return Fraction(fl)
    if fl + 1 <= hi:
        return Fraction(fl + 1)
    return fl + 1 / simplest_between(1 / (hi - fl), 1 / (lo - fl))


@dataclass
class Recovery:
    """A converter float -> Fraction that counts what it recovered and what it kept as the float's value."""

    recovered: int = 0
    kept: int = 0
    enabled: bool = True  # False: every number is kept as its float64 value (a reading the check declined)
    largest_den: int = 1
    kept_examples: list[float] = field(default_factory=list)

    declined: str = ""  # why the recovered reading was not used (set by the caller that checked it)

    def __call__(self, x: Any) -> Fraction:
        if not self.enabled:
            self.kept += 1
            return Fraction(float(x))
        return recover(float(x), self)

    def to_dict(self) -> dict[str, Any]:
        return {"recovered": self.recovered, "kept_as_float": self.kept, "largest_denominator": self.largest_den,
                "kept_examples": self.kept_examples[:5], "ulps": ULPS, "max_denominator": MAX_DEN,
                **({"recovery_declined": self.declined} if self.declined else {})}


def recover(x: float, log: Recovery | None = None) -> Fraction:
    """The simplest rational within ULPS ulp of ``x`` (module docstring), or x's exact value."""
    exact = Fraction(x)
    if x == 0 or not math.isfinite(x):
        return exact
    for scale in (abs(x), 1.0):
        t = Fraction(ULPS * sys.float_info.epsilon * scale)
        r = simplest_between(exact - t, exact + t)
        if r.denominator <= MAX_DEN:
            break
    else:
        if log is not None:
            log.kept += 1
            log.kept_examples.append(x)
        return exact
    if log is not None:
        log.recovered += 1
        log.largest_den = max(log.largest_den, r.denominator)
    return r
