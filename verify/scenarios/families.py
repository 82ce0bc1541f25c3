"""The scenarios' ``problem`` axis: which engine families a result admits, how a point builds one, and
the hypothesis a run must show for the families whose heterogeneity constant holds only on a ball.

**Setting**: the engine's families (``quadratics.registry``): ``quadratic`` (shared Hessian),
``quadratic-diagonal`` / ``quadratic-rotated`` (distinct client Hessians: client drift),
``logistic`` (L2-regularised logistic regression, non-quadratic), ``nonconvex`` (cosine).
:data:`STRONGLY_CONVEX` are those whose every F_i is mu-strongly convex with mu > 0 (FAST.T2,
F3AST.T3.5, ASCAF.T1); :data:`SMOOTH` adds the non-convex one (FAST.T1).
**Quantity**: a scenario reads every result input from ``problem.constants`` (never retyped here).
Two choices of this module set *knobs*, not inputs:
* the curvature families take the point's L = 1, mu, zeta (heterogeneity at x*), sigma, D0 and the
  ``mix`` axis; their ``sigma_G`` is the exact sup over the ball ||x - x*|| <= radius (default
  2 sqrt(D0) + 1), so FAST A3 is established only while the run stays in the ball
  (:func:`left_ball`, as the FAST.T1.drift scenario does): a run whose recorded global model
  leaves it makes the point inadmissible (never scored); local models are not recorded, which the
  point carries as an assumption (:data:`LOCAL_ASSUMED`), so a confirmed violation there reads
  ``unverified``;
* ``logistic`` has no settable L: its data (``spread``, ``samples`` axes, the draw) fix the loss
  part's smoothness L_loss = max_i lambda_max(Z_i^T Z_i)/(4n), and lam = mu_frac x L_loss, so the
  result's mu/L = lam / (L_loss + lam) = mu_frac / (1 + mu_frac). L_loss is read from a first build
  at lam = 1 (the data draw does not depend on lam), as that build's constants L - mu. Its sigma_G
  is a global bound (no ball) and its heterogeneity comes from ``spread``, not ``zeta``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from verify.scenario import Param

CURVATURE = ("quadratic-diagonal", "quadratic-rotated")
STRONGLY_CONVEX = ("quadratic", *CURVATURE, "logistic")
SMOOTH = ("nonconvex", *STRONGLY_CONVEX)

A3_BALL = "FAST A3 on the stated domain ||x - x*|| <= radius"
LOCAL_ASSUMED = ("sigma_G is the sup over the ball ||x - x*|| <= radius; every recorded global model is checked to "
                 "lie inside it (else the point is inadmissible), local models are not recorded and are taken to")

FAMILY_AXES = (
    Param("mix", 0.0, 1.0, 1.0, doc="quadratic-diagonal/-rotated only: client curvature spread (0: shared Hessian)",
          source="the family's own range: 0 (shared Hessian) to 1 (client curvatures spread over [mu, L])",
          families=CURVATURE),
    Param("spread", 0.0, 4.0, 1.0, doc="logistic only: distance of the client feature means from 0 (heterogeneity)",
          source="0: no heterogeneity (domain >= 0); 4: the family's separable regime (larger adds nothing new)",
          families=("logistic",)),
    # few samples: a logistic step costs O(samples d) per client
    Param("samples", 4, 16, 8, integer=True, log=True, doc="logistic only: samples per client",
          source="4..16: the logistic family's own knob (not an input of any result; unused by the other "
                 "families), kept small since a logistic point is simulated at O(samples d) per client step",
          families=("logistic",)),
)


#: the largest dimension at which a simulated family with per-client matrices or data is built for a search point:
#: its build grows steeply with d (measured on the 2-core machine, load 3-4: quadratic-rotated 13 s at d = 32,
#: M = 1000 and 17 s at d = 100, M = 100; logistic 15 s at d = 100, M = 100, 16 samples), and the point is simulated
#: anyway; the shared-Hessian quadratic (exact at any d) and the cosine family are built at any d
BUILT_D_MAX = 32


def refuse_costly_build(family: str, d: int) -> None:
    """Raise :class:`bounds.core.errors.SizeRefused` (a search counts the point as cut by cost) where ``family``'s
    build at dimension ``d`` is past :data:`BUILT_D_MAX` (the distinct-Hessian and logistic families)."""
    from bounds.core.errors import SizeRefused

    if family in (*CURVATURE, "logistic") and d > BUILT_D_MAX:
        raise SizeRefused(f"the {family} family is built up to d = {BUILT_D_MAX} for a search point (its build grows "
                          f"steeply with d; see verify.scenarios.families.BUILT_D_MAX): d = {d} is not built, "
                          "counted as cut by cost")


def strongly_convex(family: str, point: Mapping[str, Any], *, mu: float, d: int, M: int, zeta: float,
                    sigma: float, D0: float, L: float = 1.0) -> Any:
    """The ``family`` problem at ``point`` (axes ``mix``, ``spread``, ``samples``, ``draw``).

    ``L``, ``mu``, ``zeta``, ``D0`` are the quadratic families' knobs; for ``logistic``, ``mu`` is
    read as mu_frac (lam = mu x L_loss, see the module docstring) and ``zeta``, ``D0``, ``L`` are unused.
    The reason for nine parameters: besides the family and its point, they are the problem's mathematical
    constants (mu, d, M, zeta, sigma, D0, L), passed on by name to the family's constructor.
    """
    from quadratics import curvature_quadratic, heterogeneous_quadratic, logistic_regression

    seed = int(point["draw"])
    if family == "quadratic":
        return heterogeneous_quadratic(L=L, mu=mu, d=d, M=M, zeta=zeta, sigma=sigma, D0=D0, seed=seed)
    if family in CURVATURE:
        return curvature_quadratic(family.split("-")[1], L=L, mu=mu, d=d, M=M, zeta=zeta, sigma=sigma, D0=D0,
                                   mix=float(point["mix"]), seed=seed)
    if family == "logistic":
        kw: dict[str, Any] = dict(d=d, M=M, n=int(point["samples"]), spread=float(point["spread"]), sigma=sigma,
                                  seed=seed)
        c1 = logistic_regression(lam=1.0, **kw).constants
        return logistic_regression(lam=mu * (c1["L"] - c1["mu"]), **kw)
    return plugin_problem(family, point, L=L, mu=mu, d=d, M=M, zeta=zeta, sigma=sigma, D0=D0)


#: the knobs a plugin problem may take, by the name of its ``quadratics.registry.Spec`` key
PLUGIN_KEYS = ("L", "mu", "d", "M", "zeta", "sigma", "D0", "instance")


def plugin_problem(family: str, point: Mapping[str, Any], **knobs: Any) -> Any:
    """A plugin problem (``problems()`` of a plugin, ``quadratics.registry.problems()``) at ``point``.

    Why here: a scenario family (a ``problem`` axis whose choices include a plugin problem's name) builds
    it like the built-in families. The problem's builder receives each of its keys named in
    :data:`PLUGIN_KEYS` (``instance`` is the point's ``draw``); its other keys keep their defaults. Its
    ``constants`` must carry what the scenario reads (``L``, ``mu``, ``sigma``, ``sigma_G``, ``D0``, ...).
    """
    from quadratics.registry import problems

    table = problems()
    spec = table.get(family)
    if spec is None or spec.origin == "built-in":
        raise ValueError(f"family {family!r} is neither a strongly convex family ({', '.join(STRONGLY_CONVEX)}) "
                         f"nor a plugin problem ({', '.join(k for k, v in table.items() if v.origin != 'built-in')})")
    given = {**knobs, "instance": int(point["draw"])}
    return spec.builder(**{k: given[k] for k in spec.keys if k in given})


def left_ball(sim: Any, radius: float) -> dict[str, str]:
    """``{A3_BALL: why}`` when a recorded global model of any trial leaves ||x - x*|| <= radius (or diverged)."""
    dist = np.asarray(sim.metrics["dist_sq"], dtype=float)
    far = math.sqrt(float(np.max(dist))) if np.isfinite(dist).all() else math.inf
    if far <= radius:
        return {}
    return {A3_BALL: f"the run leaves the ball: largest ||x_r - x*|| = {far:.4g} > radius {radius:.4g}, where "
                     "sigma_G no longer bounds the client-gradient deviation"}


def ball_terms(pb: Any) -> dict[str, Any]:
    """Instance fields for a family whose sigma_G holds on a ball (``run_broken``, ``assumed``), else none."""
    from functools import partial

    if "radius" not in pb.constants:
        return {}
    return {"run_broken": partial(left_ball, radius=pb.constants["radius"]),
            "assumed": {A3_BALL + " at local models": LOCAL_ASSUMED}}


#: A problem's constants (``quadratics``' ``constants``) by their names in the common notation (bounds.conventions).
PROBLEM_TO_COMMON = {"L": "L", "mu": "mu", "sigma": "sigma", "sigma_G": "zeta_G", "Delta": "Delta0", "D0": "D0"}


def own_inputs(key: str, c: Mapping[str, float], names: tuple[str, ...], **run: Any) -> dict[str, Any]:
    """Result ``key``'s own inputs ``names`` read from a problem's constants through ``bounds.conventions`` (FAST's
    ``sigma_G`` is the common zeta_G, its ``zeta`` the initial gap Delta0, its ``kappa`` the initial squared
    distance D0), plus the run's own values ``run`` (K, m, n, q, R, eta_c, ...)."""
    from bounds.conventions import read_inputs

    common = {PROBLEM_TO_COMMON[k]: v for k, v in c.items() if k in PROBLEM_TO_COMMON}
    return {**read_inputs(key, common, names), **run}
