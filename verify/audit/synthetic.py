"""Moved to :mod:`rate_region.audit.synthetic`; this name keeps working, with a DeprecationWarning, until the next release."""

import warnings as _warnings

import rate_region.audit.synthetic as _moved
from rate_region.audit.synthetic import *  # noqa: F403

_warnings.warn("verify.audit.synthetic moved to rate_region.audit.synthetic; import it from there (the old name goes in the next release)",
               DeprecationWarning, stacklevel=2)


def __getattr__(name: str):  # names outside __all__ (private helpers) too
    return getattr(_moved, name)
