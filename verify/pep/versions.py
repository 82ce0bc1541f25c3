"""The versions a worst-case record carries: Python's and the solver stack's.

Read from the installed distributions (``importlib.metadata``) rather than ``verify.suite.versions``, which
would import the verify package and torch (2.4 s measured) for a record that uses neither.
"""

from __future__ import annotations

import contextlib
import platform

PACKAGES = ("convbound", "numpy", "scipy", "cvxpy", "clarabel", "scs", "pepit")


def record_versions() -> dict[str, str]:
    """Python's version and that of every installed package of :data:`PACKAGES` (absent ones left out)."""
    # imported here: importlib.metadata reads every distribution's metadata, which `check` and `show` never need
    # (they import the worst-case record type to read stored evidence)
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for dist in PACKAGES:
        with contextlib.suppress(PackageNotFoundError):
            out[dist] = version(dist)
    return out
