"""The result type of every check: one :class:`Verification` per certificate, rate check or control.

Torch-free so a saved JSON list renders without torch (``reports``). Field names are the JSON
contract with the report renderer; keep them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from bounds.core.face import notebook_face, short
from bounds.core.jsonable import jsonable
from bounds.core.record import BadRecord, Record, describe, get, is_number, number, numbers, register
from verify.verdict import HOLDS, VERDICTS

KINDS = ("certificate", "rate", "control")


def shape_text(m: Mapping[str, Any]) -> str:
    """A shape check's measurement in words: the fitted constant's range and its spread against the limit."""
    return (f"fitted constant c in [{short(m['c_min'])}, {short(m['c_max'])}], spread {short(m['spread'])} "
            f"(limit {short(m['spread_limit'])})")


def _summary(v: Verification) -> str:
    word = f"{v.verdict} {'; '.join(v.unless)}" if v.unless else v.verdict
    if v.measured:
        return f"{v.id}: {word} (expected {v.expected}); {shape_text(v.measured)}, {v.trials} trials, seed {v.seed}"
    ci = f" [{short(v.ci[0])}, {short(v.ci[1])}]" if v.ci[0] is not None else ""
    return (f"{v.id}: {word} (expected {v.expected}); LHS {short(v.lhs)}{ci} vs RHS {short(v.rhs)}, "
            f"{v.trials} trials, seed {v.seed}")


def _rows(v: Verification) -> list[tuple[str, Any]]:
    rows = [(k, short(getattr(v, k)) if isinstance(getattr(v, k), float) else getattr(v, k))
            for k in ("title", "kind", "verdict", "expected", "lhs", "rhs", "ratio", "trials", "seed", "device")]
    rows.insert(5, ("interval", f"[{short(v.ci[0])}, {short(v.ci[1])}]"))
    return rows + [("note", n) for n in v.notes]


@register
@notebook_face(_summary, rows=_rows)
@dataclass(frozen=True)
class Verification(Record):
    """Outcome of one check.

    Args:
        id: check id, e.g. ``FAST.T1``, ``FAST.T2@corrected``, ``FAST.C2.rate``, ``FAST.T1.control:step-cap``.
        title: one line for tables.
        verdict: a word of ``verify.verdict.VERDICTS`` (``holds``, ``violated``, ``violated unless``...).
        expected: the verdict that counts as success (``violated`` for negative controls).
        lhs: estimate of the measured quantity (for rate checks: the fitted slope).
        ci: [low, high] confidence interval of ``lhs``.
        rhs: right-hand side at the instance (for rate checks: the predicted exponent).
        ratio: lhs / rhs (tightness).
        instance: constants used (problem, algorithm, pattern, result inputs).
        control: True for a negative control.
        kind: ``certificate`` | ``rate`` | ``control``.
        trials, seed: Monte Carlo size and base seed.
        variant: result variant (``published``, ``corrected``, ...), or ``""``.
        conditions: ``bounds`` hypothesis checks at the instance (``ConditionCheck.to_dict()``).
        series: optional lists for figures (``x``, ``lhs``, ``ci_low``, ``ci_high``, ``rhs``, ``fit_slope``...).
        notes: findings and caveats, one per entry.
        versions, device, elapsed_s: provenance of the run.
        unless: for ``violated unless``: the hypotheses (by name) whose failure at the point is the only
            way the bound survives (the notes say what each would need); empty otherwise.
        measured: a shape check's own quantities under their own names (``quantity``, ``c_min``, ``c_max``,
            ``spread``, ``spread_limit``): such a check compares no LHS with an RHS, so ``lhs``, ``ci``,
            ``rhs`` and ``ratio`` are empty; empty for every other check.
    """

    id: str
    title: str
    verdict: str
    expected: str = HOLDS
    lhs: float | None = None
    ci: tuple[float | None, float | None] = (None, None)
    rhs: float | None = None
    ratio: float | None = None
    instance: Mapping[str, Any] = field(default_factory=dict)
    control: bool = False
    kind: str = "certificate"
    trials: int = 0
    seed: int = 0
    variant: str = ""
    conditions: tuple[Mapping[str, Any], ...] = ()
    series: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    versions: Mapping[str, str] = field(default_factory=dict)
    device: str = "cpu"
    elapsed_s: float = 0.0
    unless: tuple[str, ...] = ()
    measured: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} not in {VERDICTS}")
        if self.expected not in VERDICTS:
            raise ValueError(f"expected {self.expected!r} not in {VERDICTS}")
        if self.kind not in KINDS:
            raise ValueError(f"kind {self.kind!r} not in {KINDS}")

    @property
    def ok(self) -> bool:
        """The verdict is the expected one."""
        return self.verdict == self.expected

    KIND = "verification"

    def payload(self) -> dict[str, Any]:
        out = jsonable(asdict(self))
        out["ok"] = self.ok
        return out

    @classmethod
    def read(cls, data: Mapping[str, Any], where: str) -> Verification:
        check_fields(data, where)
        names = {f.name for f in fields(cls)}
        # a null field takes its default (only the numbers may be null: "not computed")
        kw = {k: data[k] for k in names if k in data and (data[k] is not None or k in ("lhs", "rhs", "ratio"))}
        # bounds.core.jsonable wrote infinities as "inf"/"-inf": read them back as floats (null stays None)
        for key in ("lhs", "rhs", "ratio"):
            if key in kw:
                kw[key] = number(kw[key])
        if "ci" in kw:
            kw["ci"] = tuple(number(x) for x in kw["ci"])
        if isinstance(kw.get("notes"), str):
            kw["notes"] = (kw["notes"],)
        if kw.get("conditions") == {}:  # older records wrote {} for "no conditions"
            kw["conditions"] = ()
        for key in ("conditions", "notes", "unless"):
            if key in kw:
                kw[key] = tuple(kw[key])
        return cls(**kw)

    def replace(self, **changes: Any) -> Verification:
        from dataclasses import replace

        return replace(self, **changes)


def check_fields(v: Any, where: str) -> None:
    """The fields of a saved verification that renderers read (``BadRecord`` naming the first bad one)."""
    if not isinstance(v, Mapping):
        raise BadRecord(f"field '{where}' is {describe(v)}; expected an object (a verification record)")
    get(v, "id", str, where)
    for name in ("verdict", "expected"):
        value = get(v, name, str, where, optional=(name == "expected"))
        if value is not None and value not in VERDICTS:
            raise BadRecord(f"field '{where}.{name}' is {value!r}; expected one of {', '.join(VERDICTS)}")
    for name in ("lhs", "rhs", "ratio"):
        if v.get(name) is not None and not is_number(v[name]):
            raise BadRecord(f"field '{where}.{name}' is {describe(v[name])}; expected a number or null")
    ci = v.get("ci")
    if ci is not None:
        if not isinstance(ci, list) or len(ci) != 2:
            raise BadRecord(f"field '{where}.ci' is {describe(ci)}; expected [low, high]")
        numbers(ci, where + ".ci")
    for name, kind in (("title", str), ("kind", str), ("instance", Mapping), ("series", Mapping)):
        get(v, name, kind, where, optional=True)
    series = v.get("series") or {}
    for name in ("x", "lhs", "ci_low", "ci_high", "rhs", "fit_ci"):
        if series.get(name) is not None:
            numbers(series[name], f"{where}.series.{name}")
    conds = v.get("conditions")
    if isinstance(conds, list):
        check_conditions(conds, where + ".conditions")
    elif conds not in (None, {}):  # an empty object is tolerated: older records wrote {} for "none"
        raise BadRecord(f"field '{where}.conditions' is {describe(conds)}; expected a list of conditions")
    notes = v.get("notes")
    if notes is not None and not isinstance(notes, (list, str)):
        raise BadRecord(f"field '{where}.notes' is {describe(notes)}; expected a list of text")


def check_conditions(conds: Any, where: str) -> None:
    """Hypothesis checks as ``ConditionCheck.to_dict()`` writes them (a rate check's per point of its series)."""
    if conds is None:
        return
    if not isinstance(conds, list):
        raise BadRecord(f"field '{where}' is {describe(conds)}; expected a list of conditions")
    for i, c in enumerate(conds):
        at = f"{where}[{i}]"
        if not isinstance(c, Mapping):
            raise BadRecord(f"field '{at}' is {describe(c)}; expected an object")
        if "name" not in c and "checks" in c:  # a rate check: {"R": ..., "checks": [...]}
            check_conditions(get(c, "checks", list, at), at + ".checks")
            continue
        get(c, "name", str, at)
        if c.get("holds") not in (True, False, None):
            raise BadRecord(f"field '{at}.holds' is {describe(c.get('holds'))}; expected true, false or null")
        for name in ("lhs", "rhs", "margin"):
            if c.get(name) is not None and not is_number(c[name]):
                raise BadRecord(f"field '{at}.{name}' is {describe(c[name])}; expected a number or null")
