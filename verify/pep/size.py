"""What a PEP will cost, computed from the setting's numbers alone, before anything is built.

The SDP's size follows from the setting: the participation tree has P^r nodes in round r (P patterns of
positive probability), each node runs K local steps for every client that appears in a pattern, so the
Gram matrix has d = 1 + (M - 1 if zeta > 0) + (1 + [sigma > 0]) * K * used * (P^R - 1)/(P - 1) rows
(mu = L: no gradient rows) and each client holds p = 1 + K (P^R - 1)/(P - 1) points, p^2 interpolation
inequalities. Clarabel's time and memory are dominated by its KKT system, which holds the PSD cone's
dense block (d(d+1)/2 squared) and the constraint rows: measured on the shared 2-core machine
(tests/benchmarks/bench_pep.py) at about 11 s for d = 42 without the swap symmetry and growing like
d^4.5; memory 0.4 GB (the interpreter with numpy and cvxpy) plus three copies of the dense KKT block.
With full participation and two clients the swap symmetry halves the blocks (1.3 s at d = 42, 7.4 s at 62,
33 s at 82, 102 s at 102: about d^5), which has its own model.
Everything is computed in logarithms or floats capped at 1e300, so R = 10^22 or M = 2^62 cost nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bounds.core.errors import UserInputError
from verify.pep.setting import Law, Setting, swap_mirror

MAX_SECONDS = 600.0
_SECONDS_AT_42 = 11.0
_EXPONENT = 4.5
_BASE_GB = 0.4
# two clients in full participation, solved over swap-invariant Gram matrices: 1.3 s at d = 42, 7.4 s at 62,
# 33 s at 82, 102 s at 102 (tests/benchmarks/bench_pep.py): about d^5
_SYM_SECONDS_AT_42 = 1.3
_SYM_EXPONENT = 5.0
_BIG = 1e300


@dataclass(frozen=True)
class Size:
    """The SDP's dimensions and the estimated cost: ``gradients`` (gradient evaluations by the method),
    ``gram_rows`` (d), ``constraints`` (interpolation inequalities), ``seconds`` and ``gb``."""

    gradients: float
    gram_rows: float
    constraints: float
    seconds: float
    gb: float

    def describe(self) -> str:
        return (f"{_fmt(self.gradients)} gradient evaluations, a {_fmt(self.gram_rows)}-row Gram matrix and "
                f"{_fmt(self.constraints)} inequalities: estimated {_dur(self.seconds)} and {_fmt(self.gb)} GB")


def _fmt(x: float) -> str:
    if x >= 1e6:
        return f"{x:.3g}" if x < _BIG else "more than 1e300"
    return f"{x:.3g}" if x != int(x) else f"{int(x)}"


def _dur(s: float) -> str:
    for unit, scale in (("years", 3.15e7), ("days", 86400.0), ("hours", 3600.0), ("minutes", 60.0)):
        if s >= scale:
            return f"{_fmt(s / scale)} {unit}"
    return f"{s:.3g} s"


def _f(n: int | float) -> float:
    """A float of any integer (10^400 included), capped at 1e300."""
    return float(n) if n < _BIG else _BIG


def _geometric(P: float, R: float) -> float:
    """1 + P + ... + P^(R-1), capped at 1e300."""
    if P <= 1.0:
        return R
    log = R * math.log(P)
    return _BIG if log > 690 else (P**R - 1) / (P - 1)


def estimate(s: Setting, relaxed: bool = False) -> Size:
    """The size and cost of ``s``'s SDP (no validation beyond what the arithmetic needs); ``relaxed``: the
    moment relaxation of the law (one branch, every client every round, one state vector per round)."""
    R, M = _f(s.R), _f(s.M)
    if relaxed:
        nodes, leaves, used, per_client_rounds = R, 1.0, M, R
    elif s.schedule is not None or s.I is not None:
        nodes, leaves, used, per_client_rounds = R, 1.0, M, R
    else:
        law = s.law or Law("full")
        P = max(law.pattern_count(s.M) if s.M < 10**6 or law.kind == "full" else math.inf, 1.0)
        if not math.isfinite(P):
            P = _BIG
        nodes = _geometric(P, R)
        leaves = _BIG if R * math.log(P) > 690 else P**R
        used = _f(law.clients_used(s.M))
        per_client_rounds = nodes
    K = _f(s.K)
    grads = min(K * used * nodes, _BIG)
    quadratic = s.mu == s.L
    rows = 1.0 + (M - 1 if s.zeta > 0 else 0) + (0.0 if quadratic else grads) * (2 if s.sigma > 0 else 1)
    if s.sigma > 0 and quadratic:
        rows += grads
    points = 1.0 + min(K * per_client_rounds, _BIG) + (leaves if s.measure == "gap" else 0.0)
    clients_with_points = 0.0 if quadratic else min(M, used + (M if s.measure == "gap" else 0))
    cons = min(clients_with_points * points * points, _BIG)
    rows = min(rows, _BIG)
    svec = min(rows * (rows + 1) / 2, _BIG)
    seconds = min(_SECONDS_AT_42 * (rows / 42.0) ** _EXPONENT, _BIG) if rows < 1e60 else _BIG
    if relaxed:
        rows += R
    elif swap_symmetric(s):  # two half-size PSD blocks and half the inequalities (verify.pep.sdp.solve_sdp)
        svec, cons = min(2 * (rows / 2) * (rows / 2 + 1) / 2, _BIG), cons / 2
        seconds = min(_SYM_SECONDS_AT_42 * (rows / 42.0) ** _SYM_EXPONENT, _BIG) if rows < 1e60 else _BIG
    kkt = min(svec + cons, _BIG)
    gb = _BASE_GB + (min(3 * 8 * kkt * kkt / 1e9, _BIG) if kkt < 1e140 else _BIG)
    return Size(grads, rows, cons, seconds, gb)


def swap_symmetric(s: Setting) -> bool:
    """Whether ``s`` is solved over swap-invariant Gram matrices (two clients treated alike by the participation,
    no noise, mu < L)."""
    return s.M == 2 and s.sigma == 0 and s.mu < s.L and swap_mirror(s) is not None


def check_size(s: Setting, max_seconds: float = MAX_SECONDS, max_gb: float | None = None,
               relaxed: bool = False) -> Size:
    """Refuse ``s`` when its estimated time exceeds ``max_seconds`` or its memory ``max_gb`` (default: the
    memory ``max_seconds`` allows, at most half of this machine's), with the estimate and what would fit."""
    if not (isinstance(max_seconds, (int, float)) and math.isfinite(max_seconds) and max_seconds > 0):
        raise UserInputError(f"max_seconds={max_seconds} must be a positive finite number of seconds "
                             f"(default {MAX_SECONDS:g})", param="max_seconds")
    size = estimate(s, relaxed)
    cap = memory_cap_gb(max_seconds) if max_gb is None else max_gb
    if size.seconds > max_seconds or size.gb > cap:
        what = "time" if size.seconds > max_seconds else "memory"
        raise UserInputError(
            f"this worst case is too large ({what}): {size.describe()}, over the limit of {max_seconds:g} s and "
            f"{cap:.3g} GB; {_what_fits(s, max_seconds, cap)}"
            + ("; with a random law every round multiplies the branches by the number of patterns"
               if s.law is not None and s.law.kind != "full" else "") + _banded_hint(s, max_seconds))
    return size


def _banded_hint(s: Setting, max_seconds: float) -> str:
    """Where the banded route (verify.pep.banded) covers ``s`` and fits the time: a pointer to it."""
    if s.method != "local_gd" or s.sigma != 0 or s.measure != "dist_sq" or not s.full_every_round() \
            or not s.mu < s.L:
        return ""
    est = banded_estimate(s, 1)
    if est.seconds > max_seconds:
        return ""
    return (f"; a certified upper bound and a bracket (worst-case --banded, verify.pep.banded) is "
            f"estimated at {_dur(est.seconds)}")


def _fits(s: Setting, max_seconds: float, cap: float) -> bool:
    size = estimate(s)
    return size.seconds <= max_seconds and size.gb <= cap


def _largest(s: Setting, name: str, max_seconds: float, cap: float) -> int:
    """The largest value of K or R (the other fields as given) that fits; 0 if even 1 does not."""
    from dataclasses import replace

    lo, hi = 0, min(int(getattr(s, name)), 2**64)
    while lo < hi:  # about 64 estimates at most: microseconds
        mid = (lo + hi + 1) // 2
        if _fits(replace(s, K=mid) if name == "K" else replace(s, R=mid), max_seconds, cap):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _what_fits(s: Setting, max_seconds: float, cap: float) -> str:
    if s.schedule is not None:
        return "fewer rounds, local steps or clients would fit"
    r, k = _largest(s, "R", max_seconds, cap), _largest(s, "K", max_seconds, cap)
    parts = [f"R <= {r} with K={s.K}" if r else f"no R with K={s.K}", f"K <= {k} with R={s.R}" if k else ""]
    return "what would fit: " + " or ".join(p for p in parts if p)


def memory_cap_gb(max_seconds: float) -> float:
    """Memory allowed for a solve of at most ``max_seconds``: what Clarabel's KKT system reaches in that
    time on this model (time and memory both grow with d), at most half of the machine's memory."""
    rows = 42.0 * (max_seconds / _SECONDS_AT_42) ** (1 / _EXPONENT)
    cons = rows * rows / 2  # two clients with about rows/2 points each
    kkt = rows * (rows + 1) / 2 + cons
    by_time = _BASE_GB + 3 * 8 * kkt * kkt / 1e9
    return min(by_time * 1.5, _machine_gb() / 2)


def _machine_gb() -> float:
    import os

    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    except (ValueError, OSError, AttributeError):
        return 16.0


# The banded route (verify.pep.banded): a windowed PEP whose chordal SDP has about one PSD cone per round, of
# about M (K + 1) + 2 rows (a round's gradients, two models), more with a wider window. Measured on the shared
# 2-core machine (tests/benchmarks/bench_pep.py --banded; build, solve with the retries of the trace weight,
# exact recheck; lower bounds apart) at K x R = 1,000, over several runs at varying load: K = 5, window 1:
# 10.3-13.3 s (14-row cones); K = 10: 124-224 s (24-row cones); K = 1: 17-28 s (window 1; 1.7-2.7 s with
# window 0); K = 5, window 3: 148 s (11.3 s at K x R = 200). The model below is an envelope of these: 0.017 s
# per gradient evaluation per client, times (cone / 14)^4.8 above 14 rows, times 4 per window step above 1
_BAND_SECONDS_PER_GRAD = 0.017
_BAND_BASE_SECONDS = 0.3
_BAND_CONE_AT = 14.0
_BAND_CONE_EXPONENT = 4.8
_BAND_WINDOW_FACTOR = 4.0


def banded_estimate(s: Setting, window: int) -> Size:
    """Size and cost of the banded route for ``s`` (two clients after the symmetry reduction) and ``window``."""
    n = min(_f(s.K) * _f(s.R), _BIG)
    M = min(_f(s.M), 2.0)
    w = min(float(window), n)
    rows = min(1.0 + M * n + (M - 1), _BIG)
    cons = min(M * n * (2 * w + 2), _BIG)
    cone = min(M * (min(_f(s.K), n) + 1) + 2, rows)
    if n > 1e100:
        return Size(min(M * n, _BIG), rows, cons, _BIG, _BIG)
    log_s = math.log(_BAND_SECONDS_PER_GRAD * n) + _BAND_CONE_EXPONENT * math.log(max(1.0, cone / _BAND_CONE_AT)) \
        + max(w - 1, 0) * math.log(_BAND_WINDOW_FACTOR)  # in logarithms: a window of 10^6 overflows nothing
    seconds = _BAND_BASE_SECONDS + (math.exp(log_s) if log_s < 690 else _BIG)
    # a window that reaches across most of the horizon makes one dense cone: no slower than the full PEP's model
    # (three times it: this route does not use the swap symmetry)
    dense = estimate(s)
    seconds = min(seconds, 3 * dense.seconds)
    # the dense float copy of S for its Cholesky factor (rows^2), and the cones' KKT blocks (at most the full PEP's)
    cones = min(8 * (n / max(_f(s.K), 1.0)) * min(cone + M * w, rows) ** 4 / 1e9, dense.gb)
    gb = _BASE_GB + min(3 * 8 * rows * rows / 1e9 + cones, _BIG)
    return Size(min(M * n, _BIG), rows, cons, seconds, gb)
