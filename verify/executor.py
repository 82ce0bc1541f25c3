"""Moved to :mod:`verify.runtime.executor`; this name keeps working, with a DeprecationWarning, until the next release."""

import warnings as _warnings

import verify.runtime.executor as _moved
from verify.runtime.executor import *  # noqa: F403

_warnings.warn("verify.executor moved to verify.runtime.executor; import it from there (the old name goes in the next release)",
               DeprecationWarning, stacklevel=2)


def __getattr__(name: str):  # names outside __all__ (private helpers) too
    return getattr(_moved, name)
