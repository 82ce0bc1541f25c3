"""Every encoded result that covers one setting, compared: bound at R and rounds needed for eps.

**Setting** (:class:`Setting`): constants in the common notation of :mod:`bounds.conventions`
(``L``, ``mu``, ``sigma``, ``zeta_G``, ``Delta0``, ``D0``, ``N``, ``S``, ``tau``, ...), a participation
pattern (a kind of :data:`bounds.result.PARTICIPATION_KINDS`, or ``full``), a measure (``grad-sq``:
E||grad f||^2 <= eps; ``grad``: eps on ||grad f||, i.e. E||grad f||^2 <= eps^2; ``gap``; ``dist-sq``),
a convexity class, and eps and/or a horizon R. Inputs only one result has (FAST's step ``eta_c``,
F3AST's ``var_s``) are given under that result's own name.

**Statement**: a result *covers* the setting when its convention is known, it assumes no more
convexity than the setting has, its participation kind is the setting's (or a special case of it
under stated conditions: i.i.d. sampling is FAST with q = 1 and m = n = S, and Amplified SCAFFOLD's
regularized participation with P = 1, rho^2 = 1/S, p_min = S/N), its quantity converts to the
setting's measure, every input its bound needs is given, and none of its checkable hypotheses fails.
Hypotheses nothing can decide are listed as conditions, never as met. ORDER results are evaluated
with every hidden constant 1 and marked so: their numbers are shapes, not guarantees.

**Conversions** (the setting's quantity <= factor x the result's; exact for the eps power):
||grad f||^2 <= 2 L (f - f*) and f - f* <= (L/2)||x - x*||^2 and ||grad f||^2 <= L^2 ||x - x*||^2 for
L-smooth f; f - f* <= ||grad f||^2/(2 mu), ||x - x*||^2 <= (2/mu)(f - f*) and ||x - x*||^2 <=
||grad f||^2/mu^2 need mu-strong convexity. Which iterate a quantity is taken at (final, averaged,
random) is stated per result and not converted.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bounds.conventions import COMMON, CONVEXITY, QUANTITIES, SQUARED, VECTORS, Convention, convention_of
from bounds.core.errors import UserInputError, unknown
from bounds.core.face import notebook_face
from bounds.core.record import BadRecord, Record, get, number, obj, register
from bounds.result import PARTICIPATION_KINDS, Kind, Result

#: setting measure -> (quantity, power): the setting's eps means quantity <= eps^power
MEASURES = {"grad-sq": ("grad-sq", 1), "grad": ("grad-sq", 2), "gap": ("gap", 1), "dist-sq": ("dist-sq", 1)}
PATTERNS = (*PARTICIPATION_KINDS, "full")
POSITIVE = {"N", "S", "R", "eps", "tau", "L", "mu", "q", "m", "n", "P", "p_min", "rho", "Kbar", "A1_B"}
INTEGER = {"N", "S", "R", "tau", "m", "n", "P", "Kbar", "Gamma_max"}
PROBABILITIES = {"q", "p_min"}

# (result quantity, setting quantity) -> (factor(setting), needs, needs strong convexity, the inequality)
_CONVERT: dict[tuple[str, str], tuple[Any, str, bool, str]] = {
    ("gap", "grad-sq"): (lambda s: 2 * s["L"], "L", False, "||grad f||^2 <= 2 L (f - f*) (L-smooth f)"),
    ("dist-sq", "gap"): (lambda s: s["L"] / 2, "L", False, "f - f* <= (L/2) ||x - x*||^2 (L-smooth f)"),
    ("dist-sq", "grad-sq"): (lambda s: s["L"] ** 2, "L", False, "||grad f||^2 <= L^2 ||x - x*||^2 (L-smooth f)"),
    ("grad-sq", "gap"): (lambda s: 1 / (2 * s["mu"]), "mu", True,
                         "f - f* <= ||grad f||^2 / (2 mu) (mu-strongly convex f)"),
    ("gap", "dist-sq"): (lambda s: 2 / s["mu"], "mu", True, "||x - x*||^2 <= (2/mu)(f - f*) (mu-strongly convex f)"),
    ("grad-sq", "dist-sq"): (lambda s: 1 / s["mu"] ** 2, "mu", True,
                             "||x - x*||^2 <= ||grad f||^2 / mu^2 (mu-strongly convex f)"),
}


@dataclass(frozen=True)
class Setting:
    """One setting to compare results on (see the module docstring); build it with :func:`make_setting`."""

    values: Mapping[str, Any]
    pattern: str
    measure: str
    convexity: str
    extras: Mapping[str, float] = field(default_factory=dict)

    @property
    def eps(self) -> float | None:
        return self.values.get("eps")

    @property
    def R(self) -> int | None:
        return self.values.get("R")

    def to_dict(self) -> dict[str, Any]:
        return {"values": dict(self.values), "extras": dict(self.extras), "pattern": self.pattern,
                "measure": self.measure, "quantity": QUANTITIES[MEASURES[self.measure][0]],
                "eps_power": MEASURES[self.measure][1], "convexity": self.convexity}


@dataclass(frozen=True)
class Row:
    """One result against the setting: covered (with values and conditions), undecided (values shown, but a
    hypothesis needs constants the setting does not give), or not covered (with the reason)."""

    key: str
    paper: str
    algorithm: str
    kind: str
    covered: bool
    undecided: bool = False
    rounds: float | None = None
    reached: float | None = None
    conditions: tuple[str, ...] = ()
    reason: str = ""
    order_constant_one: bool = False
    conversion: str = ""
    iterate: str = ""
    status: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "paper": self.paper, "algorithm": self.algorithm, "kind": self.kind,
                "covered": self.covered, "undecided": self.undecided, "rounds_for_eps": self.rounds, "eps_reached_at_R": self.reached,
                "conditions": list(self.conditions), "reason": self.reason,
                "order_constant_one": self.order_constant_one, "conversion": self.conversion, "iterate": self.iterate,
                "status": list(self.status)}


_ROW_TEXT = ("key", "paper", "algorithm", "kind", "reason", "conversion", "iterate")


def _saved_row(d: Any, where: str) -> Row:
    """A :class:`Row` from what ``Row.to_dict`` wrote."""
    d = obj(d, where)
    for name in _ROW_TEXT:
        get(d, name, str, where, optional=name not in ("key", "kind"))
    if not isinstance(d.get("covered"), bool):
        raise BadRecord(f"field '{where}.covered' is missing or not true/false")
    return Row(**{k: d[k] for k in _ROW_TEXT if k in d}, covered=d["covered"], undecided=bool(d.get("undecided")),
               rounds=number(d.get("rounds_for_eps")), reached=number(d.get("eps_reached_at_R")),
               conditions=tuple(d.get("conditions") or ()), order_constant_one=bool(d.get("order_constant_one")),
               status=tuple(d.get("status") or ()))


@register
@notebook_face(lambda c: f"{c.record_id}: {len(c.covered)} results cover it, {len(c.undecided)} undecided, "
                         f"{len(c.other)} do not")
@dataclass(frozen=True)
class Comparison(Record):
    """Results whose hypotheses the setting meets (``covered``, sorted), those whose hypotheses it cannot decide
    (``undecided``: values shown, same order), and the rest with the reason (``other``)."""

    setting: Setting
    covered: tuple[Row, ...]
    other: tuple[Row, ...]
    undecided: tuple[Row, ...] = ()

    KIND = "comparison"

    @property
    def record_id(self) -> str:
        s = self.setting
        return f"{s.pattern} {s.measure} {s.convexity}"

    @property
    def record_seeds(self) -> tuple[int, ...]:
        return ()  # closed forms: nothing random

    def payload(self) -> dict[str, Any]:
        return {"setting": self.setting.to_dict(), "sorted_by": "rounds_for_eps" if self.setting.eps else
                "eps_reached_at_R", "covered": [r.to_dict() for r in self.covered],
                "undecided": [r.to_dict() for r in self.undecided],
                "not_covered": [r.to_dict() for r in self.other],
                "note": "ORDER results are evaluated with every hidden constant 1 (order_constant_one): compare their "
                        "shapes, not their values, with explicit bounds"}

    @classmethod
    def read(cls, data: Mapping[str, Any], where: str) -> Comparison:
        st = get(data, "setting", Mapping, where)
        for name in ("pattern", "measure", "convexity"):
            get(st, name, str, where + ".setting")
        setting = Setting(values=dict(get(st, "values", Mapping, where + ".setting")), pattern=st["pattern"],
                          measure=st["measure"], convexity=st["convexity"], extras=dict(st.get("extras") or {}))
        rows = {name: tuple(_saved_row(r, f"{where}.{name}[{i}]") for i, r in enumerate(get(data, name, list, where)))
                for name in ("covered", "not_covered")}
        undecided = tuple(_saved_row(r, f"{where}.undecided[{i}]") for i, r in enumerate(data.get("undecided") or ()))
        return cls(setting=setting, covered=rows["covered"], other=rows["not_covered"], undecided=undecided)


def _number(name: str, raw: Any) -> float:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise UserInputError(f"{name}={raw!r} is not a number (for example {name}=0.5)") from None
    if not math.isfinite(value):
        raise UserInputError(f"{name}={raw} is not allowed; give a finite number")
    return value


def _vector(name: str, raw: Any) -> tuple[float, ...]:
    parts = raw.split(",") if isinstance(raw, str) else list(np.atleast_1d(raw))
    vec = tuple(_number(name, p) for p in parts)
    if any(v <= 0 for v in vec):
        raise UserInputError(f"{name} must have entries > 0 (comma-separated, for example {name}=0.5,0.5)")
    return vec


def _own_names(results: Sequence[Result]) -> set[str]:
    return {s.name for r in results for s in r.symbols} | {f"{s.name}2" for r in results for s in r.symbols
                                                          if s.squared_input}


def make_setting(assignments: Mapping[str, Any], *, pattern: str, measure: str = "grad-sq",
                 convexity: str = "nonconvex", results: Sequence[Result] | None = None) -> Setting:
    """Validate a setting: common names (``NAME2`` for the square of a squared one), other results' own inputs."""
    from bounds.registry import all_results

    if pattern not in PATTERNS:
        raise unknown("participation pattern", pattern, PATTERNS)
    if measure not in MEASURES:
        raise unknown("measure", measure, MEASURES)
    if convexity not in CONVEXITY:
        raise unknown("convexity", convexity, CONVEXITY)
    values: dict[str, Any] = {}
    extras: dict[str, float] = {}
    own = None
    for key, raw in assignments.items():
        base = key[:-1] if key.endswith("2") and key[:-1] in SQUARED else key
        if base in VECTORS:
            values[base] = _vector(key, raw)
            continue
        if base in COMMON:
            if base in values:
                raise UserInputError(f"{base} given twice (as {base} and {base}2)")
            x = _number(key, raw)
            if base != key:
                if x < 0:
                    raise UserInputError(f"{key}={raw} must be >= 0 (it is a square)")
                x = math.sqrt(x)
            values[base] = x
            continue
        own = own if own is not None else _own_names(results if results is not None else all_results())
        if key not in own:
            raise unknown("setting name", key, list(COMMON) + [f"{n}2" for n in SQUARED])
        extras[key] = _number(key, raw)
    for name, x in values.items():
        if name in VECTORS:
            continue
        if name in POSITIVE and x <= 0:
            raise UserInputError(f"{name}={x:g} must be > 0 ({COMMON[name]})")
        if x < 0:
            raise UserInputError(f"{name}={x:g} must be >= 0 ({COMMON[name]})")
        if name in PROBABILITIES and x > 1:
            raise UserInputError(f"{name}={x:g} must be a probability in [0, 1] ({COMMON[name]})")
        if name in INTEGER and x != round(x):
            raise UserInputError(f"{name}={x:g} must be an integer ({COMMON[name]})")
    if "eps" not in values and "R" not in values:
        raise UserInputError("give eps=... (target accuracy) or R=... (horizon), or both")
    if "S" in values and "N" in values and values["S"] > values["N"]:
        raise UserInputError(f"S={values['S']:g} clients per round exceeds N={values['N']:g} clients")
    if pattern == "full" and "S" in values and "N" in values and values["S"] != values["N"]:
        raise UserInputError(f"--pattern full means every client every round: S={values['S']:g} must equal "
                             f"N={values['N']:g} (or leave S out)")
    if pattern == "full" and "N" in values:
        values.setdefault("S", values["N"])
    if "zeta_G" in values:
        values.setdefault("A1_G", values["zeta_G"])
    values.setdefault("A1_B", 1.0)
    return Setting(values, pattern, measure, convexity, extras)


def _participation(res: Result, s: Setting) -> tuple[dict[str, Any], list[str]] | str:
    """Overrides and stated conditions under which the result's participation is the setting's, or the reason not."""
    kinds = [p.kind for p in res.participation]
    if not kinds:
        return {}, ["declares no participation assumption"]
    kind = kinds[0]
    pattern = "iid" if s.pattern == "full" else s.pattern
    full = s.pattern == "full" or ("S" in s.values and s.values.get("S") == s.values.get("N"))
    if kind == pattern or (kind == "random" and pattern == "iid"):
        return {}, ([] if kind == pattern else ["uniform sampling read as the survey's 'random sampling'"])
    if kind == "snapshot" and pattern == "iid" and "S" in s.values:
        return ({"q": 1.0, "m": s.values["S"], "n": s.values["S"]},
                ["i.i.d. sampling read as FAST with q = 1 (every round a snapshot round) and m = n = S"])
    # only a result that keeps p_min as an input can take i.i.d. sampling's p_min = S/N (the REG rows fix p_min = 1)
    if kind == "regularized" and pattern == "iid" and {"S", "N"} <= set(s.values) and "p_min" in res.participation[0].params:
        S, N = s.values["S"], s.values["N"]
        return ({"P": 1.0, "rho": 1 / math.sqrt(S), "p_min": S / N},
                ["i.i.d. sampling read as regularized participation with P = 1, rho^2 = 1/S, p_min = S/N "
                 "(Amplified SCAFFOLD's own i.i.d. case)"])
    if kind == "iid" and full and pattern != "iid":
        return {}, []
    return f"assumes {kind} participation ({PARTICIPATION_KINDS[kind]}); the setting's pattern is {s.pattern}"


def _conversion(conv: Convention, s: Setting) -> tuple[float, str] | str:
    """factor with setting quantity <= factor x result quantity, and the inequality used; or why not."""
    target = MEASURES[s.measure][0]
    assert conv.quantity is not None
    if conv.quantity == target:
        return 1.0, ""
    factor, needs, strong, text = _CONVERT[(conv.quantity, target)]
    if strong and s.convexity != "strongly-convex":
        return (f"measures {QUANTITIES[conv.quantity]}, the setting {QUANTITIES[target]}: converting needs "
                f"{text.split('(')[-1].rstrip(')')}, and the setting is {s.convexity}")
    if needs not in s.values:
        return f"measures {QUANTITIES[conv.quantity]}; converting to {QUANTITIES[target]} uses {text}: give {needs}"
    try:
        value = float(factor(s.values))
    except (ZeroDivisionError, OverflowError):
        value = math.inf
    if not (math.isfinite(value) and value > 0):
        return f"converting to {QUANTITIES[target]} uses {text}: its factor is not a finite positive float here"
    return value, f"converted with {text}"


def _inputs(res: Result, conv: Convention, s: Setting, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The result's own inputs read from the setting (what cannot be read is left out)."""
    src = {**s.values, **overrides}
    out: dict[str, Any] = {}
    for info in res.symbols:
        name = info.name
        if name in (conv.rounds, conv.eps):
            continue
        if name in s.extras:
            out[name] = s.extras[name]
        elif name in overrides:
            out[name] = overrides[name]
        elif name in conv.reads:
            read = conv.reads[name]
            if all(n in src for n in read.needs):
                try:
                    out[name] = read.fn(src)
                except (OverflowError, ZeroDivisionError, ValueError):
                    raise UserInputError(f"{name} = {read.text} is not a finite float at this setting") from None
        elif name in COMMON and name in src:
            out[name] = src[name]
    return out


def _row(res: Result, s: Setting) -> Row:
    conv = convention_of(res.key)
    base: dict[str, Any] = {"key": res.key, "paper": res.paper, "kind": res.kind.value,
                            "status": tuple(st.value for st in res.status)}
    if conv is None:
        return Row(**base, algorithm="?", covered=False,
                   reason="declares no convention (what its eps measures); declare one with bounds.conventions.declare")
    base["algorithm"] = conv.algorithm
    if conv.why_not:
        return Row(**base, covered=False, reason=conv.why_not)
    if conv.quantity is None:
        return Row(**base, covered=False, reason="its source does not say which error measure converges at this rate "
                                                 "(UNRECOVERED): it cannot be put on the setting's scale")
    if CONVEXITY.index(s.convexity) > CONVEXITY.index(conv.convexity):
        return Row(**base, covered=False, reason=f"assumes {conv.convexity} f; the setting is {s.convexity}")
    part = _participation(res, s)
    if isinstance(part, str):
        return Row(**base, covered=False, reason=part)
    overrides, conditions = part
    conv_out = _conversion(conv, s)
    if isinstance(conv_out, str):
        return Row(**base, covered=False, reason=conv_out)
    factor, conversion = conv_out
    p_set, p_r = MEASURES[s.measure][1], conv.power
    if p_set != p_r:
        power = (f"its eps bounds the quantity by eps^{p_r}, the setting's by eps^{p_set}: its eps = "
                 f"(setting eps)^({p_set}/{p_r}) (exact)")
        conversion = f"{conversion}; {power}" if conversion else power
    try:
        values = _inputs(res, conv, s, overrides)
    except UserInputError as exc:
        return Row(**base, covered=False, reason=f"cannot be evaluated here: {exc}")
    missing = sorted(res.required_for_terms() - set(values) - {conv.rounds, conv.eps})
    if missing:
        meaning = res.symbol_map
        return Row(**base, covered=False, reason="needs " + ", ".join(f"{n} ({meaning[n].meaning})" for n in missing)
                   + ", which the setting does not give")
    try:
        rounds, reached, at = _numbers(res, conv, s, values, factor)
        report = res.check({**values, **at})
    except UserInputError as exc:
        return Row(**base, covered=False, reason=f"cannot be evaluated here: {exc}")
    unencoded = {u.name for u in res.unencoded}
    for cond in report.conditions:
        if cond.holds is False:
            return Row(**base, covered=False, reason=f"hypothesis '{cond.name}' fails in this setting")
        if cond.holds is None and cond.name not in unencoded:
            conditions.append(f"unverified: {cond.name} ({cond.reason})")
    conditions += [f"assumed: {u.name}" for u in res.unencoded if not u.name.startswith("participation")]
    for name, x in (("rounds for eps", rounds), ("eps reached at R", reached)):
        if x is not None and not math.isfinite(x):
            conditions.append(f"{name} is not a finite float here ({x}): shown as absent")
    rounds = rounds if rounds is not None and math.isfinite(rounds) else None
    reached = reached if reached is not None and math.isfinite(reached) else None
    if rounds is None and reached is None:
        return Row(**base, covered=False, reason="no finite value at this setting: the bound does not reach eps at "
                                                 "any R (a floor), or its value overflows a float")
    open_ = [c.removeprefix("unverified: ") for c in conditions if c.startswith("unverified: ")]
    return Row(**base, covered=not open_, undecided=bool(open_), rounds=rounds, reached=reached,
               conditions=tuple(conditions), order_constant_one=res.kind is Kind.ORDER, conversion=conversion,
               iterate=conv.iterate,
               reason=("hypotheses this setting cannot decide: " + "; ".join(open_)) if open_ else "")


def _pow(x: float, p: float) -> float:
    """x**p in float64 with overflow to inf (Python floats raise instead)."""
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        return float(np.power(np.float64(x), p))


def _numbers(res: Result, conv: Convention, s: Setting, values: Mapping[str, Any],
             factor: float) -> tuple[float | None, float | None, dict[str, Any]]:
    """(rounds for the setting's eps, eps reached at the setting's R, the point hypotheses are checked at)."""
    q_set, p_set = MEASURES[s.measure]
    p_r = conv.power
    rounds = reached = None
    at: dict[str, Any] = {}
    if s.eps is not None:
        eps_own = _pow(_pow(s.eps, p_set) / factor, 1 / p_r)
        if conv.form == "rounds":
            rounds = float(np.asarray(res.evaluate({**values, conv.eps: eps_own}).value))
        else:
            sol = res.solve(conv.rounds, values, target=_pow(eps_own, p_r))
            rounds = float(sol.value) if sol.success and sol.value is not None else None
        if conv.form == "rounds":
            at[conv.eps] = eps_own
        if rounds is not None and math.isfinite(rounds) and conv.rounds in res.symbol_map:
            at[conv.rounds] = max(1, math.ceil(rounds))
    if s.R is not None:
        if conv.form == "error":
            own = float(np.asarray(res.evaluate({**values, conv.rounds: s.R}).value))
            reached = _pow(factor * own, 1 / p_set)
            at.setdefault(conv.rounds, s.R)
        else:
            with_R = {**values, conv.rounds: s.R} if conv.rounds in res.symbol_map else dict(values)
            sol = res.solve(conv.eps, with_R, target=float(s.R))
            if sol.success and sol.value is not None:
                reached = _pow(factor * _pow(float(sol.value), p_r), 1 / p_set)
                at.setdefault(conv.eps, float(sol.value))
            if conv.rounds in res.symbol_map:
                at.setdefault(conv.rounds, s.R)
    if conv.form == "rounds" and conv.eps not in at and conv.eps in res.symbol_map:
        at[conv.eps] = 1.0
    return rounds, reached, at


def compare(setting: Setting, keys: Sequence[str] | None = None) -> Comparison:
    """Every result (or those named in ``keys``) against ``setting``: covered ones sorted, undecided ones (a
    hypothesis needs constants the setting lacks) sorted apart, the rest with reasons.

    Sorted by rounds needed for eps when the setting has eps, else by the eps reached at R (smaller first);
    results that cannot reach eps sort last.
    """
    from bounds.registry import all_results, get

    results = [get(k) for k in keys] if keys else all_results()
    rows = [_row(res, setting) for res in results]
    def order(r: Row) -> float:
        x = r.rounds if setting.eps is not None else r.reached
        return math.inf if x is None else x

    covered = sorted((r for r in rows if r.covered), key=order)
    undecided = sorted((r for r in rows if r.undecided), key=order)
    return Comparison(setting, tuple(covered), tuple(r for r in rows if not (r.covered or r.undecided)),
                      tuple(undecided))


def curve(row_key: str, setting: Setting, R: np.ndarray) -> np.ndarray:
    """The eps reached (setting's convention) at each horizon in ``R``, for a covered result (vectorised).

    Rounds-form results are inverted on a grid of eps (their rounds count is decreasing in eps), so the
    curve needs no per-point solve; points outside the grid are nan.
    """
    from bounds.registry import get

    res = get(row_key)
    conv = convention_of(res.key)
    assert conv is not None and conv.quantity is not None
    part = _participation(res, setting)
    conv_out = _conversion(conv, setting)
    if isinstance(part, str) or isinstance(conv_out, str):
        raise UserInputError(f"{row_key} does not cover this setting; plot only covered results")
    factor = conv_out[0]
    values = _inputs(res, conv, setting, part[0])
    p_set = MEASURES[setting.measure][1]
    R = np.asarray(R, dtype=float)
    if conv.form == "error":
        own = np.asarray(res.evaluate({**values, conv.rounds: R}).value, dtype=float)
        return (factor * own) ** (1 / p_set)
    eps_grid = np.logspace(-12, 6, 4000)
    rounds = np.asarray(res.evaluate({**values, conv.eps: eps_grid}).value, dtype=float) * np.ones_like(eps_grid)
    order = np.argsort(rounds)
    eps_own = np.interp(np.log(R), np.log(rounds[order]), np.log(eps_grid[order]), left=np.nan, right=np.nan)
    return (factor * np.exp(eps_own) ** conv.power) ** (1 / p_set)
