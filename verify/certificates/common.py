"""Deprecated import path: ``Context`` is ``verify.checks.Context``, ``certificate`` is ``verify.certificate``."""

import warnings

from verify.checks import Context
from verify.extensions import certificate

warnings.warn("verify.certificates.common is deprecated: use verify.Context and verify.certificate "
              "(check groups: verify.checks)", DeprecationWarning, stacklevel=2)

__all__ = ["Context", "certificate"]
