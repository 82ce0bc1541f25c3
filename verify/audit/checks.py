"""Moved to :mod:`rate_region.audit.checks`; this name keeps working, with a DeprecationWarning, until the next release."""

import warnings as _warnings

import rate_region.audit.checks as _moved
from rate_region.audit.checks import *  # noqa: F403

_warnings.warn("verify.audit.checks moved to rate_region.audit.checks; import it from there (the old name goes in the next release)",
               DeprecationWarning, stacklevel=2)


def __getattr__(name: str):  # names outside __all__ (private helpers) too
    return getattr(_moved, name)
