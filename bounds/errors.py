"""Moved to :mod:`bounds.core.errors`; this name keeps working, with a DeprecationWarning, until the next release."""

import warnings as _warnings

import bounds.core.errors as _moved
from bounds.core.errors import *  # noqa: F403

_warnings.warn("bounds.errors moved to bounds.core.errors; import it from there (the old name goes in the next release)",
               DeprecationWarning, stacklevel=2)


def __getattr__(name: str):  # names outside __all__ (private helpers) too
    return getattr(_moved, name)
