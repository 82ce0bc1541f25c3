"""Planted-wrong bounds, each beside its correct counterpart, as one plugin file (issue 19 item 5).

Base: the correct FedAvg bound of ``docs/examples/fedavg_local_sgd.py`` (E||x_R - x*||^2 of local SGD
on a shared-Hessian quadratic under uniform m-of-M sampling; proof in that file, checked against an
exact computation in ``tests/plugins/test_user_scenario.py``). Each planted result edits one thing,
the way a derivation goes wrong; every one is FALSE somewhere in the scenario's space (the benchmark
only measures whether a search finds where). ``PLANT.correct`` is the counterpart: a search must never
claim a violation of it.

Load: ``convbound --plugin tests/benchmarks/planted/planted.py falsify PLANT.noise-10x``.
Run all: ``python tests/benchmarks/planted/run.py`` (see its docstring).

Client drift: on a shared Hessian the local models drift by nothing beyond the sampling term (x+ - x* is
B^K (x - x*) plus zero-mean parts), so 'heterogeneity' in the entries above is the client-sampling term.
The PLANT.drift-* entries plant errors in a second correct bound, ``docs/examples/fedavg_drift.py``
(FedAvg with all M clients on quadratics with distinct client Hessians: optimisation, drift, cross and
noise terms; proof in that file, checked against an independent exact computation in
``tests/plugins/test_drift_bound.py``), beside its own counterpart PLANT.drift-correct. A drift term
"10x too small" is the drift amplitude B_R scaled by 1/sqrt(10), so that its square (the drift term) is 10x
too small and the cross term 2 A_R B_R shrinks with it, as a too-small constant in B_R would do.
"""
from pathlib import Path

import sympy

from bounds import plugins

_EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"
_BASE = plugins.load_file(str(_EXAMPLES / "fedavg_local_sgd.py"))
_DRIFT = plugins.load_file(str(_EXAMPLES / "fedavg_drift.py"))
T = _BASE.TERMS
eta, K, R, m, M, L, sigma, mu = _BASE.eta, _BASE.K, _BASE.R, _BASE.m, _BASE.M, _BASE.L, _BASE.sigma, _BASE.mu
rho, S_R = _BASE.rho, _BASE.S_R

#: id -> (what is wrong, terms, step cap as a multiple of 1/L)
PLANTED = {
    "PLANT.correct": ("nothing: the correct counterpart", T, 1),
    "PLANT.drop-noise": ("dropped term: the noise term is missing", {k: v for k, v in T.items() if k != "noise"}, 1),
    "PLANT.opt-10x": ("optimisation term 10x too small", {**T, "optimisation": T["optimisation"] / 10}, 1),
    "PLANT.opt-100x": ("optimisation term 100x too small", {**T, "optimisation": T["optimisation"] / 100}, 1),
    "PLANT.noise-10x": ("noise term 10x too small", {**T, "noise": T["noise"] / 10}, 1),
    "PLANT.noise-100x": ("noise term 100x too small", {**T, "noise": T["noise"] / 100}, 1),
    "PLANT.het-10x": ("heterogeneity (client-sampling) term 10x too small", {**T, "sampling": T["sampling"] / 10}, 1),
    "PLANT.het-100x": ("heterogeneity (client-sampling) term 100x too small",
                       {**T, "sampling": T["sampling"] / 100}, 1),
    "PLANT.eta-power": ("wrong power of eta: noise term eta^3 L instead of eta^2",
                        {**T, "noise": T["noise"] * eta * L}, 1),
    "PLANT.K-power": ("wrong power of K: sampling term K instead of K^2", {**T, "sampling": T["sampling"] / K}, 1),
    "PLANT.R-power": ("wrong power of R: contraction rho^(2 K R^2) instead of rho^(2 K R)",
                      {**T, "optimisation": rho ** (2 * K * R**2) * _BASE.D0}, 1),
    "PLANT.no-sampling": ("missing client-sampling variance term", {k: v for k, v in T.items() if k != "sampling"}, 1),
    "PLANT.participation-direction": ("participation correction in the wrong direction: noise sigma^2 m / M^2 "
                                      "instead of sigma^2 / m", {**T, "noise": T["noise"] * m**2 / M**2}, 1),
    "PLANT.step-generous": ("too generous step condition: eta <= 2.5/L instead of eta <= 1/L", T, 2.5),
}
_SHARED = set(PLANTED)

_DT = _DRIFT.TERMS
#: the drift bound's entries (base docs/examples/fedavg_drift.py), same layout
PLANTED.update({
    "PLANT.drift-correct": ("nothing: the drift bound's correct counterpart", _DT, 1),
    "PLANT.drift-10x": ("drift term 10x too small (drift amplitude / sqrt(10); cross term with it)",
                        _DRIFT.drift_terms(sympy.Rational(1, 10)), 1),
    "PLANT.drift-100x": ("drift term 100x too small (drift amplitude / 10; cross term with it)",
                         _DRIFT.drift_terms(sympy.Rational(1, 100)), 1),
    "PLANT.drift-dropped": ("dropped term: client drift missing (drift and cross terms)",
                            {k: v for k, v in _DT.items() if k not in ("drift", "cross")}, 1),
})


def _base(key):
    return _BASE if key in _SHARED else _DRIFT


def results():
    return [_base(key).make_result(key, terms, cap, title=f"{key}: {what}")
            for key, (what, terms, cap) in PLANTED.items()]


def scenarios():
    return [_base(key).make_scenario(key, step_cap=cap) for key, (_, _, cap) in PLANTED.items()]
