"""Moved to :mod:`rate_region.audit`; this name keeps working, with a DeprecationWarning, until the next release."""

import warnings as _warnings

import rate_region.audit as _moved
from rate_region.audit import *  # noqa: F403

_warnings.warn("verify.audit moved to rate_region.audit; import it from there (the old name goes in the next release)",
               DeprecationWarning, stacklevel=2)


def __getattr__(name: str):  # names outside __all__ (private helpers) too
    return getattr(_moved, name)
