"""The answer of a paper module's PEP coverage rule, and the reasons several papers' rules share.

**Setting**: each paper module (``verify.scenarios.<paper>``) declares ``pep_coverage(key, s)``: how its
result ``key`` relates to a worst-case setting ``s`` (``verify.pep.setting.Setting``); ``verify.pep.compare``
asks every paper module and evaluates what they answer.
**Quantity**: :data:`Cover`: (covers, reason, inputs): ``covers`` is ``yes`` (the setting is an instance of
the result's class: its tightness ratio is a check), ``comparison`` (the bound is evaluated at a value that
bounds every instance's own, not a per-instance check) or ``no``; ``inputs``: the result's own inputs at the
setting (None when not evaluated). A rule answers None for keys that are not its paper's.
"""

from __future__ import annotations

from typing import Any

Cover = tuple[str, str, "dict[str, Any] | None"]

NONCONVEX = ("a gradient-norm result for non-convex clients: compared by the non-convex worst case "
             "(worst-case --nonconvex, verify.pep.nonconvex_cover), not this distance measure")
ORDER = "order result (hidden constant): only its scaling is checkable, no tightness ratio"
NO_RULE = "no rule relates this result to deterministic local methods; not compared"
