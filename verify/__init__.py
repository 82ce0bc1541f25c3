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

from bounds.core import moved as _moved
from verify.checks import Context
from verify.extensions import Check, certificate
from verify.fit import SlopeFit, fit_loglog, fit_over_seeds
from verify.record import Verification
from verify.suite import all_ok, run_suite, select
from verify.verdict import VERDICTS, decide, mean_ci, ratio

_moved.install()  # names removed in 0.2.0 (verify.executor, ...) fail with a message naming their new place

__all__ = ["Check", "Context", "SlopeFit", "VERDICTS", "Verification", "all_ok", "certificate", "decide", "fit_loglog",
           "fit_over_seeds", "mean_ci", "ratio", "run_suite", "select"]
