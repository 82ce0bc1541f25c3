"""The record of a non-convex worst case (``NCWorstCase``): what ``solve_nc`` returns and a saved JSON reads back.

**Quantity**: the certified value (a proved upper bound on the worst case over the class of
verify.pep.nonconvex when ``certified``), the solver's status, the certificate and, when asked, the coverage rows
(verify.pep.nonconvex_cover), the horizon sweep and its trend (verify.pep.nonconvex_sweep). ``to_dict`` writes
``class`` = :data:`NONCONVEX_CLASS`, on which the worst-case record reader (verify.pep.core) dispatches.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bounds.core.face import notebook_face, short
from verify.pep.nonconvex import NCSetting

# The class name a non-convex worst-case record carries (NCWorstCase.to_dict writes it; the reader dispatches on it).
NONCONVEX_CLASS = "L-smooth (non-convex)"


def _summary(w: NCWorstCase) -> str:
    s = w.setting
    return (f"{s.method} on L-smooth clients (L={short(s.L)}, K={s.K}, R={s.R}, M={s.M}): worst {s.measure} "
            f"{short(w.value)}, certificate {w.certificate.get('status')}")


@notebook_face(_summary, rows=lambda w: [("value", short(w.value)), ("certificate", w.certificate.get("status")),
                                         ("exactness", w.exactness), ("window", w.window),
                                         *((c.get("key", ""), c.get("ratio", c.get("reason", ""))) for c in w.coverage)])
@dataclass(frozen=True)
class NCWorstCase:
    """The worst case of one non-convex setting.

    Args: setting; value: the proved upper bound when certified, else the solver's value; primal_value: the
    objective at the solver's point (attained in floating point by the solved PEP); certificate: status and
    residuals; solve_seconds; window: None (full PEP) or the window; exactness; notes; versions; size;
    coverage: tightness of every non-convex result (verify.pep.nonconvex_cover), when asked; sweep, trend: the
    tightness along the horizon and its fitted exponents (verify.pep.nonconvex_sweep), when asked.
    """

    setting: NCSetting
    value: float | None
    primal_value: float | None
    solver_status: str
    certificate: Mapping[str, Any]
    solve_seconds: float
    window: int | None = None
    exactness: str = "upper bound"
    notes: tuple[str, ...] = ()
    versions: Mapping[str, str] = field(default_factory=dict)
    size: Mapping[str, Any] = field(default_factory=dict)
    coverage: tuple[Mapping[str, Any], ...] = ()
    sweep: tuple[Mapping[str, Any], ...] = ()
    trend: Mapping[str, Any] = field(default_factory=dict)

    @property
    def certified(self) -> bool:
        """The value is a proved upper bound (the exact recheck passed)."""
        return self.certificate.get("status") == "certified" and self.value is not None

    @property
    def success(self) -> bool:
        return self.value is not None and self.certificate.get("status") in ("certified", "approximate")

    def ratio(self, bound: float) -> float | None:
        """worst case / ``bound`` (None when either is missing or bound <= 0); a proof of the bound at this setting
        only when ``certified`` and the ratio is <= 1."""
        if self.value is None or not bound or bound <= 0 or not math.isfinite(bound):
            return None
        return self.value / bound

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "worst-case", "class": NONCONVEX_CLASS, "method": self.setting.method,
                "parameters": self.setting.to_dict(), "value": self.value, "primal_value": self.primal_value,
                "certified": self.certified, "success": self.success, "solver": "CLARABEL",
                "solver_status": self.solver_status, "certificate": dict(self.certificate),
                "solve_seconds": self.solve_seconds, "window": self.window, "exactness": self.exactness,
                "notes": list(self.notes), "versions": dict(self.versions), "size": dict(self.size),
                "seeds": "n/a (deterministic SDP)", "coverage": [dict(c) for c in self.coverage],
                "sweep": [dict(r) for r in self.sweep], "trend": dict(self.trend)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> NCWorstCase:
        return cls(NCSetting.from_dict(d["parameters"]), d["value"], d.get("primal_value"), d["solver_status"],
                   dict(d["certificate"]), d["solve_seconds"], d.get("window"), d.get("exactness", "upper bound"),
                   tuple(d.get("notes", ())), dict(d.get("versions", {})), dict(d.get("size", {})),
                   tuple(d.get("coverage", ())), tuple(d.get("sweep", ())), dict(d.get("trend", {})))
