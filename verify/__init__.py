"""verify: evidence that encoded results hold — certificates, rate fits, negative controls, strategies.

Torch-free at import: ``Verification`` (the JSON record), ``decide``/``mean_ci`` (verdicts; the names of
all verdicts are ``VERDICTS``),
``fit_loglog``/``fit_over_seeds`` (slopes), ``run_suite`` (imports the simulation lazily).
Hypothesis strategies: ``verify.testing.strategies.params_for(key)``.
Check groups are specs over scenarios (:mod:`verify.checks`: ``Certify``, ``Control``, ``Sweep``,
``Contrast``, ``Exact``, run by one runner through ``verify.scenario.evaluate_point``). A user's own
hand-built check: ``Check`` (joins ``convbound verify`` through a plugin), ``Context`` (trials, seed,
device; ``ctx.simulate``), ``certificate`` (measured samples vs the RHS -> ``Verification``).
>>> from verify import mean_ci
>>> mean_ci([1.0, 2.0, 3.0]).mean
2.0

Testing helpers for a user's test suite: :mod:`verify.testing` (also as pytest fixtures, ``-p convbound``).
"""

from importlib import import_module
from typing import Any

from bounds.core import moved as _moved

# Where each public name lives. Loaded on first use (PEP 562), so importing one light module of verify
# (verify.decision, for `show` and `check`) does not load the check groups and their statistics (about 1.6 s).
_HOME = {"Context": "verify.checks", "Check": "verify.extensions", "certificate": "verify.extensions",
         "SlopeFit": "verify.fit", "fit_loglog": "verify.fit", "fit_over_seeds": "verify.fit",
         "Verification": "verify.record", "all_ok": "verify.suite", "run_suite": "verify.suite", "select": "verify.suite",
         "VERDICTS": "verify.verdict", "decide": "verify.verdict", "mean_ci": "verify.verdict", "ratio": "verify.verdict"}

_moved.install()  # names removed in 0.2.0 (verify.executor, ...) fail with a message naming their new place

__all__ = ["Check", "Context", "SlopeFit", "VERDICTS", "Verification", "all_ok", "certificate", "decide", "fit_loglog",
           "fit_over_seeds", "mean_ci", "ratio", "run_suite", "select"]


def __getattr__(name: str) -> Any:
    if name in _HOME:
        value = getattr(import_module(_HOME[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'verify' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
