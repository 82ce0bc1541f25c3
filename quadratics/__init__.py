"""quadratics: batched simulation of FL algorithms under participation patterns on objectives
with exact constants.

Problems: :func:`heterogeneous_quadratic` (shared Hessian), :func:`diagonal_quadratic` and
:func:`rotated_quadratic` (distinct client Hessians: client drift), :func:`logistic_regression`,
:func:`lower_bound_objective`, :func:`cosine_nonconvex`; what the engine calls on them:
:class:`quadratics.problem.Bound`.
Patterns: :func:`uniform`, :func:`cyclic`, :func:`regularized`, :func:`arbitrary`,
:func:`fast_mixture`, :func:`availability` (rate_region models + F3AST/naive selection),
:func:`static_policy` (a fixed static policy's selection law, known rates).
Local step schedules: :func:`step_schedule`, :func:`f3ast_steps` (any local method's ``eta``).
Algorithms: :func:`fedavg`, :func:`fedprox`, :func:`scaffold`, :func:`fast`, :func:`f3ast`,
:func:`amplified_fedavg`, :func:`amplified_scaffold`.
Engine: :func:`simulate` -> :class:`Simulation` (``.summary(target).to_dict()``, ``.to_csv()``).
Components by name (CLI keys, plugins): :mod:`quadratics.registry`.
Exact expectations (no sampling error) on the quadratic families: :mod:`quadratics.exact`.

>>> from quadratics import fedavg, heterogeneous_quadratic, simulate, uniform
>>> pb = heterogeneous_quadratic(L=1.0, mu=1.0, d=1, M=2, zeta=0.0, sigma=0.0, D0=1.0)
>>> sim = simulate(pb, fedavg(eta=0.5, K=1), uniform(M=2, S=2), trials=2, rounds=3, device="cpu")
>>> sim.mean("dist_sq").tolist()  # gradient descent on x^2/2 with step 1/2 halves x each round
[1.0, 0.25, 0.0625, 0.015625]
"""

from importlib import import_module
from typing import Any

# Public name -> submodule. The package loads its submodules (and with them torch) on first use of a name:
# `convbound simulate --help` and the registry's listings read this package without simulating anything.
_HOME = {
    "Algorithm": "algorithm", "active": "algorithm", "local_sgd": "algorithm", "amplified_fedavg": "amplified",
    "amplified_scaffold": "amplified", "static_policy": "availability", "curvature_quadratic": "curvature",
    "diagonal_quadratic": "curvature", "rotated_quadratic": "curvature", "resolve_device": "engine",
    "simulate": "engine", "heterogeneous_quadratic": "heterogeneous", "f3ast": "local_methods",
    "fast": "local_methods", "fedavg": "local_methods", "fedprox": "local_methods",
    "local_method": "local_methods", "scaffold": "local_methods", "logistic_regression": "logistic",
    "lower_bound_objective": "lower_bound", "cosine_nonconvex": "nonconvex", "Pattern": "participation",
    "arbitrary": "participation", "cyclic": "participation", "regularized": "participation",
    "uniform": "participation", "StepSchedule": "schedule", "f3ast_steps": "schedule", "step_schedule": "schedule",
    "fast_mixture": "snapshot", "Simulation": "summary", "Summary": "summary", "t_interval": "summary",
}

__all__ = [
    "Algorithm", "Pattern", "Simulation", "StepSchedule", "Summary", "active", "amplified_fedavg",
    "amplified_scaffold", "arbitrary", "cosine_nonconvex", "curvature_quadratic", "cyclic", "diagonal_quadratic",
    "f3ast", "f3ast_steps", "fast", "fast_mixture", "fedavg", "fedprox", "heterogeneous_quadratic", "local_method",
    "local_sgd", "logistic_regression", "lower_bound_objective", "regularized", "resolve_device", "rotated_quadratic",
    "scaffold", "simulate", "static_policy", "step_schedule", "t_interval", "uniform",
]


def __getattr__(name: str) -> Any:
    if name in _HOME:
        value = getattr(import_module(f".{_HOME[name]}", __name__), name)
        globals()[name] = value  # later look-ups skip this hook
        return value
    raise AttributeError(f"module 'quadratics' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
