"""Moved to :mod:`verify.testing.strategies`; this name keeps working, with a DeprecationWarning, until the next release."""

import warnings as _warnings

import verify.testing.strategies as _moved
from verify.testing.strategies import *  # noqa: F403

_warnings.warn("verify.strategies moved to verify.testing.strategies; import it from there (the old name goes in the next release)",
               DeprecationWarning, stacklevel=2)


def __getattr__(name: str):  # names outside __all__ (private helpers) too
    return getattr(_moved, name)
