"""Moved to :mod:`bounds.core.jsonable`; this name keeps working, with a DeprecationWarning, until the next release."""

import warnings as _warnings

import bounds.core.jsonable as _moved
from bounds.core.jsonable import *  # noqa: F403

_warnings.warn("bounds.jsonable moved to bounds.core.jsonable; import it from there (the old name goes in the next release)",
               DeprecationWarning, stacklevel=2)


def __getattr__(name: str):  # names outside __all__ (private helpers) too
    return getattr(_moved, name)
