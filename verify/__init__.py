"""verify: evidence that encoded results hold — certificates, rate fits, negative controls, strategies.

Torch-free at import: ``Verification`` (the JSON record), ``decide``/``mean_ci`` (verdicts),
``fit_loglog``/``fit_over_seeds`` (slopes), ``run_suite`` (imports the simulation lazily).
Hypothesis strategies: ``verify.strategies.params_for(key)``.
"""

from verify.fit import SlopeFit, fit_loglog, fit_over_seeds
from verify.record import Verification
from verify.suite import all_ok, run_suite, select
from verify.verdict import VERDICTS, decide, mean_ci, ratio

__all__ = ["SlopeFit", "VERDICTS", "Verification", "all_ok", "decide", "fit_loglog", "fit_over_seeds", "mean_ci",
           "ratio", "run_suite", "select"]
