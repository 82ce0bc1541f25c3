"""Declared scenarios: a result's setting as a record, and one builder that turns it into a searchable scenario.

**Setting**: a result of ``bounds`` declares its formula, symbols (with domains), hypotheses, participation kind
and, where it has one, a prescribed step (``Result.prescribed``). What it cannot declare, because it is not maths
but the engine's vocabulary, a :class:`Declares` record says beside it: which engine algorithm and participation
law the theorem is about, which engine families meet its function class, which measure is its LHS, and how each
of its symbols is read off an instance (``reads``: symbol -> a name of the instance's context, see
:func:`context`). These records stay in ``verify`` (the engine's names are not maths; ``bounds`` holds none).
**Quantity**: :func:`declared_scenario` builds the axes (each end from a domain, a hypothesis or a named cost cap,
said in its ``source``) and a module-level builder :func:`build_declared` (``point -> Instance``), scored by
``verify.scenario.evaluate_point`` like every hand-built scenario; a point's hypotheses are decided by ``bounds``
at the values read off the instance, never by this module.
**Statement**: for an ORDER result (hidden constants) a point's LHS/argument only bounds the hidden constant from
below (``verify.verdict``: ``unverified``); the meaningful check of such a scenario is the orders analysis along
its rays (``verify.search.orders``), whose exponents do not depend on the constant.
Measures that count rounds to a target (``rounds_to_*``) stop at the run's horizon R: a target never reached
reads R + 1, a lower bound on the true count, so a censored point can understate the LHS, never overstate it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Any

import numpy as np

from verify.scenario import Instance, Param, Scenario, at_round, mean_over_rounds
from verify.scenarios.families import FAMILY_AXES, ball_terms, strongly_convex

__all__ = ["AXES", "Declares", "build_declared", "context", "declared_scenario"]

D = 4  # dimension of a declared instance: the results bound no d, and a small d keeps a point cheap


@dataclass(frozen=True)
class Declares:
    """What a result is about, in the engine's words.

    Args:
        result: the result's key (``bounds`` registry).
        id: the scenario's id; title: one line for tables.
        algorithm: a key of :data:`ALGORITHMS` (the method the theorem is about).
        law: a key of :data:`LAWS` (the participation law; its constants are the pattern's own).
        families: the engine families whose every instance meets the result's function class.
        measure: a key of :data:`MEASURES` (the operational LHS).
        reads: result symbol -> context name or a number (symbols whose name is a context name need no entry;
            a symbol read from nowhere is left out and its hypotheses stay undecided unless ``assumed``).
        step: the local step eta as an expression of context names (times the ``step_frac`` axis where
            the space has it); ``prescribed:NAME``: the result's own prescribed expression for NAME.
        gamma: the server-side amplification step (amplified methods), an expression like ``step``.
        axes: the generic axes (:data:`AXES`) the space searches; fixed: axis values the declaration pins.
        assumed: hypothesis or assumption name -> why it is met by construction (or taken as met).
        eta_g: the server step; local: prescribed local steps (``prescribed:I``) rounded up, else the K axis.
        notes: the reading's caveats, carried into the scenario.
    """

    result: str
    id: str
    title: str
    algorithm: str
    law: str
    families: tuple[str, ...]
    measure: str
    step: str
    axes: tuple[str, ...]
    reads: Mapping[str, str] = field(default_factory=dict)
    fixed: Mapping[str, Any] = field(default_factory=dict)
    assumed: Mapping[str, str] = field(default_factory=dict)
    gamma: str = "1"
    eta_g: float = 1.0
    local: str = ""
    notes: tuple[str, ...] = ()


# The generic axes ------------------------------------------------------------------------------------------------

COST = "a Monte Carlo cost cap (verify.search.cost sizes each point; the result bounds no such value)"

AXES: dict[str, Param] = {p.name: p for p in (
    Param("M", 2, 32, 8, integer=True, log=True, doc="clients N",
          source="2: the fewest clients with heterogeneity; 32: " + COST),
    Param("s_frac", 0.05, 1.0, 0.5, doc="clients per round S as a fraction of N (S = round(s_frac N) in [1, N])",
          source="1 <= S <= N (the law's domain)"),
    Param("K", 1, 16, 2, integer=True, log=True, doc="local steps per round",
          source="1: domain K >= 1; 16: " + COST),
    Param("R", 2, 4000, 200, integer=True, log=True, doc="rounds (the horizon; for a rounds-to-target measure, "
          "the longest run)", source="2: the fewest rounds with a measured mean; 4000: " + COST),
    Param("zeta", 1e-4, 10.0, 1.0, log=True, doc="heterogeneity (client-gradient deviation at x*)",
          source="heterogeneity >= 0 (domain): 1e-4 stands for 0 on a log scale; 10: 10x the gradient scale"),
    Param("sigma", 0.0, 3.0, 1.0, doc="stochastic-gradient noise std. dev.",
          source="sigma >= 0 (domain; linear so 0 itself is drawn); 3: 3x the gradient scale"),
    Param("D0", 1e-4, 100.0, 1.0, log=True, doc="||x0 - x*||^2 (quadratic families)",
          source="a distance >= 0 (domain): 1e-4 stands for 0; 100: 100x the default scale"),
    Param("mu_frac", 0.05, 1.0, 0.5, doc="mu / L (strongly convex families; logistic: lam / L_loss)",
          source="0 < mu <= L; a knob of the family (not an input of the result)"),
    Param("step_frac", 1e-4, 1.0, 1.0, log=True, doc="the step as a fraction of the declared step",
          source="the declared step (a hypothesis's cap or the result's prescribed step) is the top; 1e-4 of it "
                 "the bottom"),
    Param("eps", 1e-3, 1.0, 0.1, log=True, doc="target accuracy of a rounds-to-target measure",
          source="eps > 0 (domain): 1e-3 .. 1 on a log scale (below 1e-3 the run's horizon cap is reached first)"),
    Param("c", 0.01, 1.0, 0.25, log=True, doc="the constant c of a prescribed step",
          source="c > 0 (domain): 0.01 .. 1 (the step hypotheses bound c from above through R)"),
    Param("draw", 0, 999, 0, integer=True, doc="seed of the problem's random draw", source="any seed"),
)}


#: measures the exact path scores from moments on the quadratic families (``verify.measures``): their scenarios'
#: size axes end where the domain's log axis stops, and each point's cost is handled at the point
EXACT_MEASURES = ("grad_sq_avg", "grad_sq_avg1", "dist_sq_final")
WIDE = {"M": 1000, "K": 1000, "R": 10**6}
PER_POINT = ("the result bounds no such value: the log axis stops at {high:g}; each point's cost is handled at the "
             "point (verify.search.cost): scored exactly where the exact path applies, a simulated point past the "
             "per-point budget is cut and counted")


def declared_space(decl: Declares) -> tuple[Param, ...]:
    """The searched axes: the problem family, the declared generic axes (defaults moved to ``fixed``; the size axes
    widened to the domain's log ends where the measure is scored exactly), the knobs of the families declared."""
    import dataclasses

    def axis(name: str) -> Param:
        p = dataclasses.replace(AXES[name], default=decl.fixed.get(name, AXES[name].default))
        if decl.measure in EXACT_MEASURES and name in WIDE:
            low = p.source.split(";")[0]  # the low end's reason stays; the cost cap goes
            p = dataclasses.replace(p, high=WIDE[name], source=f"{low}; " + PER_POINT.format(high=WIDE[name]))
        return p

    problem = Param("problem", default=decl.families[0], choices=decl.families,
                    doc="objective family (verify.scenarios.families)",
                    source="the engine's families that meet the result's function class (its declaration)")
    axes = [axis(a) for a in decl.axes]
    knobs = [p for p in FAMILY_AXES if p.families is None or set(p.families) & set(decl.families)]
    return (problem, *axes, AXES["draw"], *knobs)


def declared_scenario(decl: Declares) -> Scenario:
    """``decl`` as a :class:`Scenario` built by :func:`build_declared` (the declaration is bound by name)."""
    return Scenario(decl.id, decl.result, decl.title, declared_space(decl), partial(build_declared, decl=decl.id),
                    notes=("declared scenario (verify.scenarios.declared)", *decl.notes))


# Engine vocabulary ------------------------------------------------------------------------------------------------

def _problem(family: str, point: Mapping[str, Any], M: int) -> Any:
    from quadratics import cosine_nonconvex

    if family == "nonconvex":
        return cosine_nonconvex(L=1.0, mu=0.2, beta=0.5, d=D, M=M, zeta=float(point["zeta"]),
                                sigma=float(point["sigma"]), seed=int(point["draw"]))
    return strongly_convex(family, point, mu=float(point["mu_frac"]), d=D, M=M, zeta=float(point["zeta"]),
                           sigma=float(point["sigma"]), D0=float(point["D0"]))


def _law(law: str, M: int, S: int, q: float) -> Any:
    from quadratics import cyclic, fast_mixture, regularized, uniform

    if law == "full":
        return uniform(M=M, S=M)
    if law == "uniform":
        return uniform(M=M, S=S)
    if law == "regularized":  # windows of P = 2 rounds, half the clients a round (every client once a window)
        return regularized(M=M, S=M // 2, P=2)
    if law == "cyclic":  # two groups taking turns, S of the active group a round
        return cyclic(M=M, S=max(1, min(S, M // 2)), P=2, groups=2)
    if law == "snapshot":  # FAST: m = n = S, snapshot probability q
        return fast_mixture(M=M, m=S, n=S, q=q)
    raise ValueError(f"unknown law {law!r}; valid: full, uniform, regularized, cyclic, snapshot")


LAWS = ("full", "uniform", "regularized", "cyclic", "snapshot")


def _algorithm(name: str, eta: float, K: int, gamma: float, P: int, eta_g: float) -> Any:
    from quadratics import amplified_fedavg, amplified_scaffold, fast, fedavg, scaffold

    table = {"fedavg": lambda: fedavg(eta=eta, K=K, eta_g=eta_g), "scaffold": lambda: scaffold(eta=eta, K=K, eta_g=eta_g),
             "fast": lambda: fast(eta=eta, K=K, eta_g=eta_g),
             "amplified_fedavg": lambda: amplified_fedavg(eta=eta, K=K, gamma=gamma, P=P, eta_g=eta_g),
             "amplified_scaffold": lambda: amplified_scaffold(eta=eta, K=K, gamma=gamma, P=P, eta_g=eta_g)}
    return table[name]()


ALGORITHMS = ("fedavg", "scaffold", "fast", "amplified_fedavg", "amplified_scaffold")


# Measures (per-trial LHS samples) ----------------------------------------------------------------------------------

def _first_at_most(curves: np.ndarray, level: float, never: float) -> np.ndarray:
    """Per trial (columns), the first row index whose value is <= level (``never`` when none; inf diverged)."""
    hit = curves <= level
    first = np.where(hit.any(axis=0), hit.argmax(axis=0), never).astype(float)
    return np.where(np.isfinite(curves).all(axis=0), first, math.inf)


def rounds_to_gap(sim: Any, eps: float, R: int) -> np.ndarray:
    """First round r at which the running mean of f(x_0..x_r) - f* is <= eps: by convexity an upper bound on the
    gap of the averaged iterate x_bar_r, so it is at least the rounds the averaged iterate needs."""
    gap = np.asarray(sim.metrics["gap"], dtype=float)
    running = np.cumsum(gap, axis=0) / np.arange(1, gap.shape[0] + 1)[:, None]
    return _first_at_most(running, eps, R + 1)


def rounds_to_grad(sim: Any, eps: float, R: int, every: int = 1, scale: float = 1.0) -> np.ndarray:
    """First round r at which the mean of ||grad f||^2 over the iterates x_0, x_every, .. below r (the expectation
    over a uniformly chosen one) is <= eps; ``scale`` multiplies the count (R I: local steps)."""
    g = np.asarray(sim.metrics["grad_sq"], dtype=float)[::every]
    running = np.cumsum(g, axis=0) / np.arange(1, g.shape[0] + 1)[:, None]
    # a window index times P is a round; never reached reads R + 1 rounds (a lower bound on the true count)
    return _first_at_most(running, eps, (R + 1) / every) * every * scale


def grad_mean(sim: Any, first: int, last: int) -> np.ndarray:
    return mean_over_rounds(sim, "grad_sq", first, last)


MEASURES = {
    "grad_sq_avg": "(1/R) sum_{r=0..R-1} E||grad f(x_r)||^2",
    "grad_sq_avg1": "(1/R) sum_{r=1..R} E||grad f(x_r)||^2",
    "dist_sq_final": "E||x_R - x*||^2",
    "rounds_to_gap": "rounds until the running mean of f(x_r) - f* is <= eps (>= the averaged iterate's)",
    "rounds_to_grad": "rounds until the mean of ||grad f||^2 over the iterates so far is <= eps",
    "rounds_to_grad_eps2": "rounds until the mean of ||grad f||^2 over the window starts so far is <= eps^2",
    "steps_to_grad_eps2": "local steps R I until the mean of ||grad f||^2 over the window starts so far is <= eps^2",
    "window_grad": "mean of E||grad f(x_{mP})||^2 over the window starts m = 0..R/P - 1",
}


def window_grad(sim: Any, R: int, P: int) -> np.ndarray:
    """Per trial, the mean of ||grad f||^2 over the window starts x_0, x_P, .. (Amplified SCAFFOLD's x_hat)."""
    g = np.asarray(sim.metrics["grad_sq"], dtype=float)[0:R:P]
    out = g.mean(axis=0)
    return np.where(np.isfinite(out), out, math.inf)


def _measure(name: str, R: int, eps: float, every: int, K: int) -> Any:
    if name == "grad_sq_avg":
        return partial(mean_over_rounds, metric="grad_sq", first=0, last=R - 1)
    if name == "grad_sq_avg1":
        return partial(mean_over_rounds, metric="grad_sq", first=1, last=R)
    if name == "dist_sq_final":
        return partial(at_round, metric="dist_sq", r=R)
    if name == "rounds_to_gap":
        return partial(rounds_to_gap, eps=eps, R=R)
    if name == "rounds_to_grad":
        return partial(rounds_to_grad, eps=eps, R=R)
    if name in ("rounds_to_grad_eps2", "steps_to_grad_eps2"):
        return partial(rounds_to_grad, eps=eps**2, R=R, every=every, scale=K if name.startswith("steps") else 1.0)
    if name == "window_grad":
        return partial(window_grad, R=R, P=every)
    raise ValueError(f"unknown measure {name!r}; valid: {', '.join(MEASURES)}")


# The builder ----------------------------------------------------------------------------------------------------------

def context(problem: Any, pattern: Any, run: Mapping[str, Any]) -> dict[str, float]:
    """The names a declaration reads symbols from: the problem's constants (``L, mu, sigma, sigma_G, zeta, Delta,
    D0``, ``D = sqrt(D0)``, ``F = Delta``; ``G = sigma_G, B = 1`` (A1 follows from sigma_G: (1/N) sum ||grad f_i||^2 =
    ||grad f||^2 + (1/N) sum ||grad f_i - grad f||^2), ``kappa = sigma_G``), the law's (``S, P, p_min``,
    ``rho = sqrt(rho2)``, ``Kbar`` = groups) and the run's (``N, K, I, R, T, eps, c, q, m, n, eta, gamma``)."""
    k = {n: float(v) for n, v in problem.constants.items() if _scalar(v)}
    c = {n: float(v) for n, v in pattern.constants.items() if _scalar(v)}
    out = {**k, **c}
    if "sigma_G" in k:
        out.update(G=k["sigma_G"], B=1.0, kappa=k["sigma_G"])
    if "D0" in k:
        out["D"] = math.sqrt(k["D0"])
    if "Delta" in k:
        out["F"] = k["Delta"]
    if "rho2" in c:
        out["rho"] = math.sqrt(c["rho2"])
    if "groups" in c:
        out["Kbar"] = c["groups"]
    out.update({n: float(v) for n, v in run.items()})
    return out


def _expr(text: str, ctx: Mapping[str, float], result: Any) -> float:
    """The declaration ``text`` (an expression in the context's names, or ``prescribed:NAME``: the result's
    prescribed expression) evaluated in float64 at ``ctx``."""
    if text.startswith("prescribed:"):
        fn, names = _compiled(result.prescribed_map[text.split(":", 1)[1]])
    else:
        fn, names = _parsed(text, tuple(sorted(ctx)))
    missing = [n for n in names if n not in ctx]
    if missing:
        raise ValueError(f"{text}: no context value for {', '.join(missing)}")
    return float(fn(*(ctx[n] for n in names)))


@lru_cache(maxsize=64)
def _parsed(text: str, names: tuple[str, ...]) -> tuple[Any, tuple[str, ...]]:
    import sympy as sp

    # every context name is a plain symbol here ('I' is a name, not sqrt(-1))
    return _compiled(sp.sympify(text, locals={n: sp.Symbol(n) for n in names}))


@lru_cache(maxsize=64)
def _compiled(expr: Any) -> tuple[Any, tuple[str, ...]]:
    """``expr`` as a float64 function of its free symbols (sorted by name) and those names. Why compiled: a
    search builds hundreds of instances, and sympy's substitution into Min/Max took 40 ms per build; the
    compiled form agrees with it to the last one or two bits."""
    import sympy as sp

    syms = sorted(expr.free_symbols, key=str)
    return sp.lambdify(syms, expr, "math"), tuple(str(s) for s in syms)


#: the declarations by scenario id, filled by :func:`register` (the builder is bound by id: workers rebuild it)
DECLARED: dict[str, Declares] = {}


def register(decls: list[Declares]) -> list[Scenario]:
    """Record ``decls`` by id and return their scenarios."""
    for d in decls:
        DECLARED[d.id] = d
    return [declared_scenario(d) for d in decls]


def build_declared(point: Mapping[str, Any], decl: str) -> Instance:
    """The instance of declaration ``decl`` (by scenario id) at ``point``."""
    import bounds

    if not DECLARED:
        from verify.scenarios import registry

        registry()  # fills DECLARED in a worker that rebuilds a point from its scenario id
    d = DECLARED[decl]
    res = bounds.get(d.result)
    pt = {**dict(d.fixed), **dict(point)}
    M = int(pt.get("M", 8))
    S = max(1, min(M, round(float(pt.get("s_frac", 1.0)) * M)))
    q = float(pt.get("q", 1.0))
    pb = _problem(str(pt["problem"]), pt, M)
    pat = _law(d.law, M, S, q)
    R = int(pt.get("R", pt.get("T", 200)))
    run: dict[str, Any] = {"N": M, "R": R, "T": R, "eps": float(pt.get("eps", 0.1)), "c": float(pt.get("c", 0.25)),
                           "q": q, "m": S, "n": S, "K": int(pt.get("K", 1))}
    ctx = context(pb, pat, run)
    if d.local:  # the result prescribes the local steps (e.g. I = I*): rounded up, at least 1
        K = max(1, math.ceil(_expr(d.local, ctx, res)))  # past a cost cap: cut at the point (verify.search.cost)
        ctx.update(K=K, I=K)
    ctx.setdefault("I", ctx["K"])
    eta = _expr(d.step, ctx, res) * float(pt.get("step_frac", 1.0))
    gamma = _expr(d.gamma, ctx, res)
    ctx.update(eta=eta, gamma=gamma, eta_c=eta, eta_0=eta)
    K, P = int(ctx["K"]), int(ctx.get("P", 1))
    values = {s: (float(d.reads[s]) if _is_number(d.reads[s]) else ctx[d.reads[s]]) if s in d.reads else ctx[s]
              for s in res.symbol_map if s in d.reads or s in ctx}
    ball = ball_terms(pb)
    return Instance(problem=pb, algorithm=_algorithm(d.algorithm, eta, K, gamma, P, d.eta_g), pattern=pat, rounds=R,
                    values=values, measure=_measure(d.measure, R, run["eps"], P, K),
                    assumed={**dict(d.assumed), **ball.get("assumed", {})}, run_broken=ball.get("run_broken"),
                    curve="grad_sq" if "grad" in d.measure else None,
                    describe={"problem": pb.describe(), "algorithm": d.algorithm, "law": d.law,
                              "pattern": {k: v for k, v in pat.constants.items() if np.ndim(v) == 0},
                              "K": K, "eta": eta, "gamma": gamma, "eta_g": d.eta_g, "R": R,
                              "measure": MEASURES[d.measure]},
                    notes=d.notes)


def _scalar(v: Any) -> bool:
    """A constant a symbol can be read from: a real number (not a flag, a vector or an unset None)."""
    return isinstance(v, (int, float, np.number)) and not isinstance(v, bool)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
