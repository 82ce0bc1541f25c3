"""Instance files (``falsify --instance-out``, ``verify --instance``): reading them, checked key by key.

**Setting**: an instance file is JSON written by :meth:`verify.search.falsify.SearchRecord.instance_file`:
``format``, ``scenario``, ``point``, ``trials``, ``seeds`` (one), ``level``, ``device`` and ``expect``
(the recorded verdict and numbers). A person may edit one, or hand us something else entirely.
**Rule**: :func:`load_instance` reads only a regular file (never a FIFO: the read would wait forever),
reads it as a record of the one record model (:class:`InstanceFile`, ``bounds.core.record``), which
checks every key for its type and range (a boolean is not a number, a seed is an integer in [0, 2^63),
a level lies in [0.5, 0.999999], trials are an integer >= 2, the point's values are numbers or names
on the scenario's axes), and refuses anything else in one line naming the key.
Sizes (trials x the instance's clients, dimension, rounds) are the caller's to weigh:
:func:`instance_sizes` gives them without running anything.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bounds.core.errors import PointRefused, UserInputError
from bounds.core.face import notebook_face
from bounds.core.record import Record, clip, describe, is_number, register

__all__ = ["INSTANCE_FORMAT", "LEVEL_RANGE", "InstanceFile", "SEED_LIMIT", "instance_sizes", "largest_instance", "largest_point",
           "load_instance"]

INSTANCE_FORMAT = "convbound-instance/1"
#: Seeds both numpy's SeedSequence and torch's generator accept: 0 <= seed < 2^63.
SEED_LIMIT = 2**63
#: Confidence levels a confirmation may use: below 0.5 an interval says nothing, above 1 - 1e-6 the
#: Student-t quantile leaves float64's useful range (0.5 + level / 2 rounds to 1).
LEVEL_RANGE = (0.5, 0.999999)
_KEYS = ("schema", "format", "scenario", "point", "trials", "seeds", "level", "device", "expect", "plugin")
_LIMIT = 2**20  # an instance file is about 1 kB
_WRITTEN_BY = "as written by `convbound falsify --instance-out`"


def load_instance(path: str) -> dict[str, Any]:
    """The checked content of an instance file; every problem is one ``UserInputError`` line.

    >>> load_instance("/no/such.json")
    Traceback (most recent call last):
    ...
    bounds.core.errors.UserInputError: instance file /no/such.json does not exist; give a JSON instance file as written by `convbound falsify --instance-out`
    """
    from bounds.core.files import read_json

    data = read_json(path, "instance file", f"a JSON instance file {_WRITTEN_BY}", limit=_LIMIT, not_json="is not JSON")
    return check_instance(data, f"instance file {path}")


def check_instance(data: Any, where: str) -> dict[str, Any]:
    """``data`` after checking every key (see the module docstring); ``where`` starts each message."""
    if not isinstance(data, dict):
        raise UserInputError(f"{where}: expected a JSON object with keys {', '.join(_KEYS)}, not {describe(data)}; "
                             f"give a file {_WRITTEN_BY}")
    return InstanceFile.from_dict(data, where).payload()


@register
@notebook_face(lambda r: f"{r.scenario} at {len(r.point)} values, {r.trials} trials, seed {r.seeds[0]}")
@dataclass(frozen=True)
class InstanceFile(Record):
    """One replayable instance (``falsify --instance-out``); ``from_dict`` checks every key (module docstring).

    ``point`` is the scenario's full point (defaults filled in); ``level``, ``device``, ``expect`` and
    ``plugin`` are None when the file does not give them.
    """

    scenario: str
    point: Mapping[str, Any]
    trials: int
    seeds: tuple[int, ...]
    level: float | None = None
    device: str | None = None
    expect: Mapping[str, Any] | None = None
    plugin: Mapping[str, str] | None = None

    KIND = "instance"

    @property
    def record_id(self) -> str:
        return self.scenario

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": INSTANCE_FORMAT, "scenario": self.scenario, "point": dict(self.point),
                               "trials": self.trials, "seeds": list(self.seeds)}
        for key in ("level", "device", "expect", "plugin"):
            if getattr(self, key) is not None:
                out[key] = dict(getattr(self, key)) if key in ("expect", "plugin") else getattr(self, key)
        return out

    @classmethod
    def read(cls, data: Mapping[str, Any], where: str) -> InstanceFile:
        extra = sorted(str(k) for k in data if k not in _KEYS)
        if extra:
            raise UserInputError(f"{where}: unknown key(s) {clip(', '.join(extra))}; valid: {', '.join(_KEYS)}")
        missing = [k for k in ("format", "scenario", "point", "trials", "seeds") if k not in data]
        if missing:
            raise UserInputError(f"{where} needs keys format, scenario, point, trials, seeds (missing: "
                                 f"{', '.join(missing)}) {_WRITTEN_BY}")
        if data["format"] != INSTANCE_FORMAT:
            raise UserInputError(f"{where}: format {clip(data['format'])} is not {INSTANCE_FORMAT!r}; give a file "
                                 f"{_WRITTEN_BY}")
        plugin = _plugin(data, where) if "plugin" in data else None
        scenario = _scenario(data["scenario"], where)
        point = _point(scenario, data["point"], where)
        trials = _integer(data["trials"], "trials", where, low=2, high=None,
                          hint="an integer >= 2 (an interval needs two)")
        seeds = data["seeds"]
        if not isinstance(seeds, list) or len(seeds) != 1:
            raise UserInputError(f"{where}: seeds must be a list of one integer in [0, 2^63), not {describe(seeds)}")
        seed = _integer(seeds[0], "seeds[0]", where, low=0, high=SEED_LIMIT - 1, hint="an integer in [0, 2^63)")
        device = data.get("device")
        if "device" in data and (not isinstance(device, str) or not re.fullmatch(r"cpu|cuda(:\d{1,3})?", device)):
            raise UserInputError(f"{where}: device must be \"cpu\", \"cuda\" or \"cuda:N\", not {describe(device)}")
        return cls(scenario=scenario.id, point=point, trials=trials, seeds=(seed,),
                   level=_level(data["level"], where) if "level" in data else None, device=device,
                   expect=_expect(data["expect"], where) if "expect" in data else None, plugin=plugin)


def _plugin(data: Mapping[str, Any], where: str) -> dict[str, str]:
    """The plugin file a plugin scenario's instance records, loaded when its content is as recorded.

    A recorded plugin is reloaded when its file exists with the recorded sha256 (and its scenario is not
    registered yet); otherwise the refusal names the file it needs: missing, or changed since the search.
    """
    import hashlib

    from bounds.plugins import add_files
    from verify.scenarios import registry

    rec = data["plugin"]
    if not (isinstance(rec, dict) and set(rec) == {"path", "sha256"} and isinstance(rec["path"], str)
            and isinstance(rec["sha256"], str) and re.fullmatch(r"[0-9a-f]{64}", rec["sha256"])):
        raise UserInputError(f"{where}: plugin must be {{\"path\": file, \"sha256\": 64 hex digits}}, not "
                             f"{describe(rec)}")
    need = rec["path"]
    give = f"give it with `convbound --plugin {need} verify --instance ...`"
    try:
        with open(need, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        raise UserInputError(f"{where} needs plugin file {need} (scenario {clip(data.get('scenario'))}), which "
                             f"cannot be read here; {give} (from where it is)") from None
    if digest != rec["sha256"]:
        raise UserInputError(f"{where} needs plugin file {need} as it was (sha256 {rec['sha256'][:12]}...); that "
                             f"file has changed since (sha256 {digest[:12]}...): restore it to replay these numbers")
    if data.get("scenario") not in registry():
        add_files([need])
    return {"path": need, "sha256": digest}


def instance_sizes(scenario: Any, point: Mapping[str, Any]) -> dict[str, Any]:
    """Clients, dimension, local steps and rounds of the instance at ``point`` (built, not run), and ``exact``:
    how evaluate_point scores it (``"exact"``, ``"per-trial"`` or ``""`` when simulated; verify.exact_score).

    Read from the built problem (``M``, ``d``), algorithm (``K``) and ``Instance.rounds``; a plugin's
    problem without those attributes counts as 1 client of dimension 1 (the estimate is then low).
    """
    from verify.exact_score import scored_exactly

    inst = scenario.build(scenario.point(point))
    problem, algorithm = inst.problem, inst.algorithm
    return {"clients": _positive(getattr(problem, "M", 1)), "dim": _positive(getattr(problem, "d", 1)),
            "local_steps": _positive(getattr(algorithm, "K", 1)), "rounds": _positive(inst.rounds),
            "exact": scored_exactly(inst)}


def largest_point(scenario: Any) -> dict[str, Any]:
    """The default point with every integer axis at its top (the largest instance a search may draw).

    Falls back to the default point when the builder refuses that corner (its axes may be coupled).
    """
    return largest_instance(scenario)[0]


def largest_instance(scenario: Any) -> tuple[dict[str, Any], Any]:
    """:func:`largest_point` and its instance, built once (at d = 1,000 a build can take a fifth of a second)."""
    top = {p.name: int(p.high) for p in scenario.space if p.choices is None and p.integer}
    try:
        point = scenario.point(top)
        return point, scenario.build(point)
    except PointRefused:  # the builder refuses the corner (its axes may be coupled): the default still sizes it
        point = scenario.point({})
        return point, scenario.build(point)


def _positive(x: Any) -> int:
    try:
        return max(1, int(x))
    except (TypeError, ValueError, OverflowError):
        return 1


def _scenario(name: Any, where: str) -> Any:
    from verify.scenarios import get

    if not isinstance(name, str) or not name.strip():
        raise UserInputError(f"{where}: scenario must be a scenario id such as \"FAST.T1\", not {describe(name)}")
    try:
        return get(name)
    except UserInputError as exc:
        raise UserInputError(f"{where}: {exc}") from None


def _point(scenario: Any, point: Any, where: str) -> dict[str, Any]:
    if not isinstance(point, dict):
        raise UserInputError(f"{where}: point must be an object of parameter values, not {describe(point)}")
    for key, value in point.items():
        # a boolean is no number (float(True) is 1.0), a list or an object is no value of an axis
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise UserInputError(f"{where}: point {clip(key)} must be a number or a name, not {describe(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise UserInputError(f"{where}: point {clip(key)}={value} must be finite")
    try:
        return scenario.point(point)
    except (UserInputError, OverflowError, ValueError) as exc:
        raise UserInputError(f"{where}: point: {exc}") from None


def _integer(value: Any, key: str, where: str, *, low: int, high: int | None, hint: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        raise UserInputError(f"{where}: {key} must be {hint}, not {describe(value)}")
    return value


def _level(value: Any, where: str) -> float:
    low, high = LEVEL_RANGE
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise UserInputError(f"{where}: level must be a confidence level in [{low}, {high}], not {describe(value)}")
    return float(value)


def _expect(value: Any, where: str) -> dict[str, Any]:
    from verify.verdict import VERDICTS

    if not isinstance(value, dict):
        raise UserInputError(f"{where}: expect must be an object (verdict, lhs, ci, rhs), not {describe(value)}")
    extra = sorted(str(k) for k in value if k not in ("verdict", "lhs", "ci", "rhs"))
    if extra:
        raise UserInputError(f"{where}: expect has unknown key(s) {clip(', '.join(extra))}; valid: verdict, lhs, ci, rhs")
    if "verdict" in value and value["verdict"] not in VERDICTS:
        raise UserInputError(f"{where}: expect.verdict must be one of {', '.join(VERDICTS)}, not {clip(value['verdict'])}")
    for key in ("lhs", "rhs"):
        if key in value and not _maybe_number(value[key]):
            raise UserInputError(f"{where}: expect.{key} must be a number or null, not {describe(value[key])}")
    if "ci" in value:
        ci = value["ci"]
        if not isinstance(ci, list) or len(ci) != 2 or not all(_maybe_number(c) for c in ci):
            raise UserInputError(f"{where}: expect.ci must be a list of two numbers (or nulls), not {describe(ci)}")
    return dict(value)


def _maybe_number(x: Any) -> bool:
    return x is None or is_number(x)  # strict JSON writes an infinite bound as the text "inf"
