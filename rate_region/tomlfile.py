"""TOML file format for an availability model.

Top-level keys (clients are numbered from 0; rows are 0/1 per client)::

    kind = "table"        # table | independent | periodic | cyclic | markov | named
    k = 1                 # fixed cap; or a random cap K_t:  [cap] values = [1, 2]  probs = [0.5, 0.5]
    weights = [0.5, 0.5]  # optional data weights p (default uniform)

    # kind = "table"        i.i.d. in time, explicit law over availability sets
    sets  = [[1, 1], [1, 0], [0, 1], [0, 0]]
    probs = [0.3, 0.075, 0.5, 0.125]
    # kind = "independent"  q = [0.2, 0.5, ...]              per-client probabilities
    # kind = "periodic"     q = [...]  f = [...]            q_{i,t} = f[t mod len(f)] q_i
    # kind = "cyclic"       groups = [0, 1, 0, 1]  q = [...] (q optional, default 1)
    # kind = "markov"       states = [[1, 0], [0, 1]]  transition = [[0.9, 0.1], [0.2, 0.8]]
    # kind = "named"        name = "scarce"  clients = 100  seed = 0

Errors name the file and the line (syntax) or the key and its line (content).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bounds.core.errors import UserInputError, unknown
from rate_region.availability import (
    AvailabilityModel,
    CyclicGroups,
    Independent,
    JointTable,
    MarkovChain,
    Periodic,
)

KINDS = ("table", "independent", "periodic", "cyclic", "markov", "named")
_KEYS = {
    "table": {"sets", "probs"},
    "independent": {"q"},
    "periodic": {"q", "f"},
    "cyclic": {"groups", "q"},
    "markov": {"states", "transition"},
    "named": {"name", "clients", "seed"},
}
_COMMON = {"kind", "k", "cap", "weights", "description"}


def _line_of(text: str, key: str) -> str:
    for i, line in enumerate(text.splitlines(), start=1):
        if re.match(rf"\s*\[?\s*{re.escape(key)}\s*[=\]]", line):
            return f"line {i}"
    return "no line"


def _parse(path: Path) -> tuple[dict, str]:
    from bounds.core.files import parse_toml, read_text

    # a regular file only (a FIFO would wait forever), of at most 64 MB
    text = read_text(path, "model file", "a .toml availability model (see rate_region.tomlfile)")
    return parse_toml(text, str(path)), text


def model_from_dict(data: dict, text: str = "", source: str = "<dict>") -> AvailabilityModel:
    """Build a model from parsed TOML data (see the module docstring for the keys)."""
    kind = data.get("kind")
    if kind is None:
        raise UserInputError(f"{source}: missing key 'kind' (one of {', '.join(KINDS)})")
    if kind not in KINDS:
        raise unknown("model kind", str(kind), KINDS)
    extra = set(data) - _COMMON - _KEYS[kind]
    if extra:
        key = sorted(extra)[0]
        raise UserInputError(
            f"{source}: unknown key {key!r} at {_line_of(text, key)} for kind {kind!r}; "
            f"valid keys: {', '.join(sorted(_COMMON | _KEYS[kind]))}"
        )

    def need(key):
        if key not in data:
            raise UserInputError(f"{source}: kind {kind!r} needs key {key!r}")
        return data[key]

    if "k" in data and "cap" in data:
        raise UserInputError(f"{source}: give either 'k' (fixed cap, {_line_of(text, 'k')}) or a [cap] table, not both")
    if "cap" in data:
        capd = data["cap"]
        if not isinstance(capd, dict) or set(capd) != {"values", "probs"}:
            raise UserInputError(f"{source}: [cap] ({_line_of(text, 'cap')}) needs exactly 'values' and 'probs'")
        for key in ("values", "probs"):
            # a string or a scalar where a list belongs ("values = 3") used to end in a TypeError
            vals = capd[key]
            if not isinstance(vals, list) or not vals or not all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
                raise UserInputError(f"{source}: [cap] {key} ({_line_of(text, 'cap')}) must be a non-empty list of "
                                     f"numbers, e.g. values = [1, 2] and probs = [0.5, 0.5]")
        if len(capd["values"]) != len(capd["probs"]):
            raise UserInputError(f"{source}: [cap] values and probs differ in length")
        if not all(float(v).is_integer() and v >= 0 for v in capd["values"]):
            raise UserInputError(f"{source}: [cap] values must be non-negative integers (caps K)")
        cap: Any = {int(v): float(p) for v, p in zip(capd["values"], capd["probs"])}
    else:
        cap = data.get("k", 1 if kind != "named" else None)
    weights = data.get("weights")

    try:
        if kind == "named":
            from rate_region.models import named_model

            m = named_model(str(need("name")), data.get("clients"), int(data.get("seed", 0)))
            from rate_region.availability import make_cap

            if cap is not None or weights is not None:
                import dataclasses

                changes: dict[str, Any] = {}
                if cap is not None:
                    changes["cap"] = make_cap(cap)
                if weights is not None:
                    from rate_region.availability import _default_weights

                    changes["weights"] = _default_weights(m.n_clients, weights)
                m = dataclasses.replace(m, **changes)  # type: ignore[type-var]  # every model class is a dataclass
            return m
        if kind == "table":
            return JointTable.build(need("sets"), need("probs"), cap, weights, name=Path(source).stem)
        if kind == "independent":
            return Independent.build(need("q"), cap, weights, name=Path(source).stem)
        if kind == "periodic":
            return Periodic.build(need("q"), need("f"), cap, weights, name=Path(source).stem)
        if kind == "cyclic":
            return CyclicGroups.build(need("groups"), cap, data.get("q"), weights, name=Path(source).stem)
        return MarkovChain.build(need("states"), need("transition"), cap, weights, name=Path(source).stem)
    except UserInputError as exc:
        raise UserInputError(f"{source}: {exc}") from None
    except (TypeError, ValueError) as exc:
        # ragged arrays and non-numbers reach numpy as TypeError/ValueError: keep them one line
        keys = [k for k in _KEYS[kind] | {"weights"} if k in data]
        lines = ", ".join(f"{k} at {_line_of(text, k)}" for k in keys)
        raise UserInputError(f"{source}: malformed values ({lines}): {str(exc).splitlines()[0]}") from None


def load_model(path) -> AvailabilityModel:
    path = Path(path)
    data, text = _parse(path)
    return model_from_dict(data, text, str(path))
