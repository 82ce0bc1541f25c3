"""The one strict-JSON converter of the project: numpy scalars and arrays to Python, non-finite floats
to ``null`` (NaN) or the strings ``"inf"`` / ``"-inf"``.

It lives in the lowest layer because every layer writes records (``verify`` verdicts, ``reports``
documents, the CLI's ``--json``); the standard library is its only dependency. Infinity is kept as a
string, not dropped to ``null``, because an infinite bound or interval end means something
(``q_min = inf``: no q works) that ``null`` ("not computed") would hide.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any


def jsonable(obj: Any) -> Any:
    """A copy of ``obj`` that ``json.dumps(..., allow_nan=False)`` accepts."""
    if isinstance(obj, bool) or obj is None or isinstance(obj, (int, str)):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else (None if math.isnan(obj) else ("inf" if obj > 0 else "-inf"))
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if hasattr(obj, "tolist"):  # numpy arrays and scalars (np.float64 is a float, handled above)
        return jsonable(obj.tolist())
    if hasattr(obj, "item"):
        return jsonable(obj.item())
    return obj


def strict_json(obj: Any, indent: int | None = 1) -> str:
    """``obj`` as strict JSON text (no NaN/Infinity tokens), via :func:`jsonable`."""
    import json  # here: every command imports this module, and a text `check` needs no json (issue 30)

    return json.dumps(jsonable(obj), indent=indent, allow_nan=False)
