"""What a worst case is computed for: the method, the function class, the participation law, the noise.

**Function class**: M clients f_1..f_M, each L-smooth and mu-strongly convex (mu = 0: convex; mu = L: the
quadratics L/2 ||x - a_i||^2 + c_i exactly), F = (1/M) sum f_i, x* a minimiser of F, heterogeneity at the
optimum ||grad f_i(x*)|| <= zeta for every i, ||x_0 - x*||^2 <= D0.
**Participation**: a fixed per-round ``schedule`` (FAST's deterministic snapshot rounds), or a ``Law``
drawn independently every round: ``full``, ``uniform`` m of M without replacement, independent
``bernoulli`` with probability p (an empty round leaves the model where it is), or FAST's ``snapshot`` coin
(with probability q a snapshot round: m of M uniformly without replacement; otherwise FAST's arbitrary
round, here by a given rule: ``uniform`` n of M, or the fixed ``cohort`` of clients 0..n-1).
**Noise**: each local step uses grad f_i(y) + xi, with E[xi | past] = 0 and E||xi||^2 <= sigma^2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from bounds.core.errors import UserInputError

METHODS = ("local_gd", "scaffold", "fast")
MEASURES = ("dist_sq", "gap")
LAWS = ("full", "uniform", "bernoulli", "snapshot")
OTHER_RULES = ("uniform", "cohort")
# Largest integer accepted for K, R, M before any arithmetic on them (sizes are refused later, with an
# estimate; this only keeps the estimate's own arithmetic finite).
MAX_INT = 2**62
# Largest magnitude of a real parameter: products of a few of them (eta^2 sigma^2, L^2 D0) stay finite in
# float64 and in the solver's scaling.
MAX_REAL = 1e12


@dataclass(frozen=True)
class Law:
    """A participation law drawn independently every round (see the module docstring).

    Args: kind: one of LAWS; m: clients per round (``uniform``) or per snapshot round (``snapshot``);
    p: probability of each client (``bernoulli``); q: probability of a snapshot round (``snapshot``);
    other, n: the other rounds' rule (``uniform`` | ``cohort``) and their number of clients (``snapshot``).
    """

    kind: str
    m: int | None = None
    p: float | None = None
    q: float | None = None
    other: str | None = None
    n: int | None = None

    def text(self) -> str:
        if self.kind == "uniform":
            return f"uniform:{self.m}"
        if self.kind == "bernoulli":
            return f"bernoulli:{self.p}"
        if self.kind == "snapshot":
            return f"snapshot:{self.q},{self.m},{self.other}:{self.n}"
        return "full"

    def symmetric_full(self) -> bool:
        return self.kind == "full"

    def pattern_count(self, M: int) -> float:
        """Number of participation patterns with positive probability (a float: it may be astronomically large)."""
        if self.kind == "full":
            return 1.0
        if self.kind == "uniform":
            return _comb(M, self.m or 1)
        if self.kind == "bernoulli":
            return 1.0 if self.p in (0.0, 1.0) else (2.0**M if M < 1000 else math.inf)
        rest = _comb(M, self.n or 1) if self.other == "uniform" else 1.0
        snap = _comb(M, self.m or 1)
        return (snap if self.q and self.q > 0 else 0.0) + (rest if self.q is not None and self.q < 1 else 0.0)

    def clients_used(self, M: int) -> int:
        """Clients that take part in at least one pattern (their local steps are computed once per node)."""
        if self.kind == "snapshot" and self.q == 0 and self.other == "cohort":
            return min(self.n or 1, M)
        if self.kind == "bernoulli" and self.p == 0:
            return 0
        return M

    def patterns(self, M: int) -> list[tuple[Fraction, tuple[int, ...]]]:
        """(probability, participants) for every pattern of positive probability; probabilities exact rationals."""
        from itertools import combinations, product

        if self.kind == "full":
            return [(Fraction(1), tuple(range(M)))]
        if self.kind == "uniform":
            subsets = list(combinations(range(M), self.m or 1))
            return [(Fraction(1, len(subsets)), s) for s in subsets]
        if self.kind == "bernoulli":
            p = Fraction(repr(float(self.p or 0.0)))
            out = []
            for bits in product((0, 1), repeat=M):
                k = sum(bits)
                prob = p**k * (1 - p) ** (M - k)
                if prob:
                    out.append((prob, tuple(i for i, b in enumerate(bits) if b)))
            return out
        q = Fraction(repr(float(self.q or 0.0)))
        out = []
        if q > 0:
            snaps = list(combinations(range(M), self.m or M))
            out.extend((q / len(snaps), s) for s in snaps)
        if q < 1:
            if self.other == "cohort":
                out.append((1 - q, tuple(range(self.n or 1))))
            else:
                subsets = list(combinations(range(M), self.n or 1))
                out.extend(((1 - q) / len(subsets), s) for s in subsets)
        return out


def _comb(n: int, k: int) -> float:
    """C(n, k) as a float (inf when it overflows), without computing a huge integer."""
    if not 0 <= k <= n:
        return 0.0
    log = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
    return math.inf if log > 700 else float(round(math.exp(log)))


LAW_SYNTAX = "full | uniform:m | bernoulli:p | snapshot:q,m,uniform:n | snapshot:q,m,cohort:n"


def parse_law(text: str) -> Law:
    """``full``, ``uniform:m``, ``bernoulli:p``, ``snapshot:q,m,uniform:n`` or ``snapshot:q,m,cohort:n``."""
    head, _, rest = text.strip().partition(":")
    try:
        if head == "full" and not rest:
            return Law("full")
        if head == "uniform":
            return Law("uniform", m=int(rest))
        if head == "bernoulli":
            return Law("bernoulli", p=float(rest))
        if head == "snapshot":
            q, m, other = rest.split(",")
            rule, _, n = other.partition(":")
            return Law("snapshot", q=float(q), m=int(m), other=rule, n=int(n))
    except ValueError:
        pass
    raise UserInputError(f"participation law {text!r} is not valid; valid: {LAW_SYNTAX}")


@dataclass(frozen=True)
class Setting:
    """One worst-case instance: method, constants, sizes, participation and performance measure.

    Args: method: one of METHODS; L, mu: smoothness and strong convexity (0 <= mu <= L); zeta:
    heterogeneity at the optimum; eta: client step; K: local steps; R: rounds; M: clients; eta_g:
    server step; D0: bound on ||x_0 - x*||^2; measure: ``dist_sq`` | ``gap``; schedule: per round, the
    participating client ids (a fixed schedule; None: the law); I, S: the snapshot interval and the
    arbitrary-round cohort that built the schedule (``fast``, for the record); law: the participation
    law drawn every round (None: full participation); sigma: the noise level (variance sigma^2).
    """

    method: str
    L: float
    mu: float
    zeta: float
    eta: float
    K: int = 1
    R: int = 1
    M: int = 2
    eta_g: float = 1.0
    D0: float = 1.0
    measure: str = "dist_sq"
    schedule: tuple[tuple[int, ...], ...] | None = None
    I: int | None = None  # noqa: E741 - FAST's own letter for the snapshot interval
    S: int | None = None
    law: Law | None = None
    sigma: float = 0.0

    def participants(self, r: int) -> tuple[int, ...]:
        """The participants of round r of a deterministic schedule (full participation, a schedule, or I and S)."""
        pats = self.round_patterns(r)
        if len(pats) != 1:
            raise UserInputError(f"round {r} is random under {self.to_dict()['participation']}: use round_patterns")
        return pats[0][1]

    def round_patterns(self, r: int) -> list[tuple[Fraction, tuple[int, ...]]]:
        """The patterns of round r with their probabilities."""
        if self.schedule is not None:
            return [(Fraction(1), self.schedule[r])]
        if self.I is not None and self.S is not None:  # FAST's snapshot schedule, generated round by round
            return [(Fraction(1), tuple(range(self.M)) if r % self.I == 0 else tuple(range(self.S)))]
        return (self.law or Law("full")).patterns(self.M)

    def full_every_round(self) -> bool:
        """Every round aggregates every client with probability one (the symmetric case)."""
        if self.schedule is not None:
            return all(len(ids) == self.M for ids in self.schedule)
        if self.I is not None and self.S is not None:
            return self.S == self.M or self.I == 1 or self.R == 1
        return self.law is None or self.law.kind == "full" or (self.law.kind == "bernoulli" and self.law.p == 1) \
            or (self.law.kind == "snapshot" and self.law.q == 1 and self.law.m == self.M) \
            or (self.law.kind == "uniform" and self.law.m == self.M)

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ("method", "L", "mu", "zeta", "eta", "K", "R", "M", "eta_g", "D0",
                                             "measure")}
        if self.schedule is not None:
            out["schedule"] = [list(s) for s in self.schedule]
        if self.schedule is not None or self.I is not None:
            out["I"], out["S"] = self.I, self.S
        out["participation"] = ("schedule" if self.schedule is not None else
                                f"snapshot every {self.I} rounds, else clients 0..{(self.S or 1) - 1}"
                                if self.I is not None else (self.law or Law("full")).text())
        out["sigma"] = self.sigma
        return out


def swap_mirror(s: Setting) -> list[int] | None:
    """For two clients, the index of each round pattern with the clients exchanged (same probability); None
    for M != 2 or when the law (or a fixed schedule not full every round) is not invariant under the exchange."""
    if s.M != 2:
        return None
    if s.schedule is not None or s.I is not None:
        return [0] if s.full_every_round() else None
    pats = s.round_patterns(0)
    index = {(p, tuple(sorted(ids))): j for j, (p, ids) in enumerate(pats)}
    out = []
    for p, ids in pats:
        j = index.get((p, tuple(sorted(1 - i for i in ids))))
        if j is None:
            return None
        out.append(j)
    return out


def snapshot_schedule(R: int, M: int, I: int, S: int) -> tuple[tuple[int, ...], ...]:
    """FAST's deterministic snapshot schedule: rounds 0, I, 2I, ... all M clients, others clients 0..S-1."""
    if I < 1 or not 1 <= S <= M:
        raise UserInputError(f"snapshot interval I={I} must be >= 1 and cohort S={S} in 1..M={M}")
    if R > MAX_INT or M > MAX_INT:
        raise UserInputError(f"R={R} and M={M} must be at most 2^62 (sizes are checked before anything is built)")
    return tuple(tuple(range(M)) if r % I == 0 else tuple(range(S)) for r in range(R))


def _real(name: str, v: Any, *, positive: bool) -> None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
            or not (v > 0 if positive else v >= 0) or abs(v) > MAX_REAL:
        rule = "a positive" if positive else "a non-negative"
        raise UserInputError(f"{name}={v} must be {rule} finite number at most {MAX_REAL:g}")


def validate(s: Setting) -> Setting:
    """Raise UserInputError naming the first invalid field and what is valid."""
    if s.method not in METHODS:
        raise UserInputError(f"unknown method {s.method!r}; valid: {', '.join(METHODS)}")
    if s.measure not in MEASURES:
        raise UserInputError(f"unknown measure {s.measure!r}; valid: {', '.join(MEASURES)}")
    for name in ("L", "eta", "eta_g", "D0"):
        _real(name, getattr(s, name), positive=True)
    for name in ("mu", "zeta", "sigma"):
        _real(name, getattr(s, name), positive=False)
    if not s.mu <= s.L:
        raise UserInputError(f"mu={s.mu} must satisfy 0 <= mu <= L={s.L}")
    for name in ("K", "R", "M"):
        v = getattr(s, name)
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise UserInputError(f"{name}={v} must be an integer >= 1")
    if s.schedule is not None:
        if s.law is not None:
            raise UserInputError("give either a fixed schedule or a participation law, not both")
        if len(s.schedule) != s.R:
            raise UserInputError(f"schedule has {len(s.schedule)} rounds, R={s.R}")
        for r, ids in enumerate(s.schedule):
            if not ids or len(set(ids)) != len(ids) or any(not 0 <= i < s.M for i in ids):
                raise UserInputError(f"round {r} of the schedule must list distinct client ids in 0..{s.M - 1}")
    if s.law is not None:
        _validate_law(s.law, s.M)
    if s.schedule is None and s.I is not None:
        if s.law is not None:
            raise UserInputError("give either a snapshot interval (a fixed schedule) or a participation law, not both")
        if not (isinstance(s.I, int) and 1 <= s.I <= MAX_INT and isinstance(s.S, int) and 1 <= s.S <= s.M):
            raise UserInputError(f"snapshot interval I={s.I} must be >= 1 and cohort S={s.S} in 1..M={s.M}")
    if s.method == "fast" and s.schedule is None and s.I is None and (s.law is None or s.law.kind != "snapshot"):
        raise UserInputError("method fast needs a schedule (snapshot interval I, cohort S) or a snapshot law "
                             "(snapshot:q,m,uniform:n or snapshot:q,m,cohort:n)")
    return s


def validate_scale(s: Setting) -> None:
    """Refuse constants whose ratios a double-precision SDP cannot resolve (after scaling L = D0 = 1).

    The worst case is invariant under x -> x / sqrt(D0) and f -> f / L, which leave the ratios
    zeta^2 / (L^2 D0), sigma^2 / (L^2 D0), mu / L and eta L; the iterates can grow by at most
    max(|1 - eta L|, 1) * max(|1 - eta_g|, eta_g) per step, so a run of K R steps whose growth exceeds 10^8
    (in squared distance) is refused: the solver's 1e-8 accuracy would be all there is.
    Call after the size check (K and R may be huge there).
    """
    for name, v in (("zeta", s.zeta), ("sigma", s.sigma)):
        ratio = (v / s.L) ** 2 / s.D0
        if ratio > 1e8:
            raise UserInputError(f"{name}^2 / (L^2 D0) = {ratio:.3g} is above 1e8: the SDP cannot resolve the "
                                 f"initial distance against it; the worst case scales with D0, so give {name}^2 "
                                 "and D0 within a factor 1e8 of each other (in units of L^2)")
    if s.eta * s.L < 1e-9 or s.eta_g < 1e-9:
        raise UserInputError(f"eta*L={s.eta * s.L:.3g} and eta_g={s.eta_g:.3g} must be at least 1e-9: a smaller step moves "
                             "the model by less than the solver's 1e-8 accuracy (the worst case is then D0 to that "
                             "accuracy)")
    step = max(abs(1 - s.eta * s.L), abs(1 - s.eta * s.mu), 1.0) * max(abs(1 - s.eta_g), s.eta_g, 1.0)
    growth = 2 * s.K * s.R * math.log10(step)
    if growth > 8:
        raise UserInputError(f"with eta*L={s.eta * s.L:.3g} and eta_g={s.eta_g:.3g} the iterates can grow by "
                             f"10^{growth:.3g} (squared) over K*R={s.K * s.R} steps, beyond the solver's 1e-8 "
                             "accuracy; use eta <= 2/L, eta_g <= 2, or fewer steps")


def _validate_law(law: Law, M: int) -> None:
    if law.kind not in LAWS:
        raise UserInputError(f"unknown participation law {law.kind!r}; valid: {LAW_SYNTAX}")
    for name in ("m", "n"):
        v = getattr(law, name)
        needed = (law.kind in ("uniform", "snapshot") and name == "m") or (law.kind == "snapshot" and name == "n")
        if needed and not (isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= M):
            raise UserInputError(f"participation {law.text()}: {name}={v} must be an integer in 1..M={M}")
    for name in ("p", "q"):
        v = getattr(law, name)
        needed = (law.kind == "bernoulli" and name == "p") or (law.kind == "snapshot" and name == "q")
        if needed and not (isinstance(v, (int, float)) and math.isfinite(v) and 0 <= v <= 1):
            raise UserInputError(f"participation {law.text()}: {name}={v} must be a probability in [0, 1]")
    if law.kind == "snapshot" and law.other not in OTHER_RULES:
        raise UserInputError(f"snapshot law: other rule {law.other!r} not valid; valid: {', '.join(OTHER_RULES)}")
