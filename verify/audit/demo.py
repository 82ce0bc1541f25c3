"""Moved to :mod:`rate_region.audit.demo`; this name keeps working, with a DeprecationWarning, until the next release."""

import warnings as _warnings

import rate_region.audit.demo as _moved
from rate_region.audit.demo import *  # noqa: F403

_warnings.warn("verify.audit.demo moved to rate_region.audit.demo; import it from there (the old name goes in the next release)",
               DeprecationWarning, stacklevel=2)


def __getattr__(name: str):  # names outside __all__ (private helpers) too
    return getattr(_moved, name)


if __name__ == "__main__":  # ``python -m verify.audit.demo DIR``, as documented before the move
    _moved.main()
