"""Conformance of a user's federated implementation to the algorithm and participation law it claims.

:func:`conform` runs the implementation (a plain round function, a torch step over all trials, or a Flower
strategy) on quadratic clients and compares the mean and second moment of the model at every round with the
reference algorithm's exact moments (:mod:`verify.conformance.reference`), at a stated family-wise error rate.
Correct implementations in the three forms, to copy from: :mod:`verify.conformance.examples`.

Names: ALGORITHMS and LAWS (what may be claimed), FORMS (function, torch, flower), DEFAULT_TRIALS (trials per
scenario by form), ALPHA (the default family-wise error rate); Setting, Client, Cohort and TorchCohort (what an
implementation is handed); ConformanceResult and Departure (the record).
"""

from .check import DEFAULT_TRIALS, ConformOptions, conform
from .claims import ALGORITHMS, LAWS, Setting
from .compare import ALPHA, ConformanceResult, Departure
from .oracles import Client, Cohort, TorchCohort
from .runners import FORMS

__all__ = ["ALGORITHMS", "ALPHA", "DEFAULT_TRIALS", "FORMS", "LAWS", "Client", "Cohort", "ConformOptions", "ConformanceResult",
           "Departure", "Setting", "TorchCohort", "conform"]
