"""Moved to :mod:`verify.testing.pytest_plugin`; this name keeps working, with a DeprecationWarning, until the next release."""

import warnings as _warnings

import verify.testing.pytest_plugin as _moved
from verify.testing.pytest_plugin import *  # noqa: F403

_warnings.warn("verify.pytest_plugin moved to verify.testing.pytest_plugin; import it from there (the old name goes in the next release)",
               DeprecationWarning, stacklevel=2)


def __getattr__(name: str):  # names outside __all__ (private helpers) too
    return getattr(_moved, name)
