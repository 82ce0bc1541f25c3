"""Deprecated: the hand-built certificate functions became check specs over scenarios.

Each paper's scenarios and check groups now live together in ``verify.scenarios.<paper>`` (``CHECKS``),
run by :func:`verify.checks.run_group`. ``verify.certificates.common`` keeps ``Context`` and
``certificate`` importable for users' plugins, with a DeprecationWarning.
"""
