"""Names of problems, patterns and algorithms with their KEY=VALUE parameters (for the CLI and verify).

Keys are shared across components: a key given once goes to every chosen component that takes
it (``M`` is the problem's and the pattern's; ``P`` the pattern's and an amplified algorithm's).
``build(problem, pattern, algorithm, values)`` validates every key and returns the three objects.
Names are looked up with hyphens and underscores alike (``amplified-scaffold`` = ``amplified_scaffold``).

**Symbols** (one meaning each across the simulator and the CLI; :data:`SYMBOLS`): ``zeta`` is
heterogeneity, never FAST's initial gap (the papers' zeta of FAST is the constant ``Delta`` =
F(x0) - F*); ``L`` is smoothness, never the lower-bound objective's x4 coefficient (``a_even``).

The built-in tables are ``PROBLEMS``, ``PATTERNS`` and ``ALGORITHMS`` (name -> :class:`Spec`).

Plugins add problems and algorithms (entry points ``convbound.problems``/``convbound.algorithms``,
``--plugin`` files defining ``problems()``/``algorithms()``): each returns a list of :class:`Spec`
with ``name`` set, e.g. ``Spec(my_builder, {"eta": Key(float, 0.01, "step")}, "my method", name="mine")``.
:func:`problems` and :func:`algorithms` are the merged tables (built-ins first).

>>> from quadratics.registry import algorithms
>>> algorithms()["fedavg"].origin
'built-in'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from bounds import plugins
from bounds.core.errors import UserInputError, unknown


def _lazy(module: str, name: str) -> Callable[..., Any]:
    """A builder that imports ``quadratics.<module>.<name>`` when called.

    Why: the tables below are read by ``--help`` and by plugins' listings; importing the builders'
    modules would load torch for a listing (2.4 s, 294 MB) that never builds anything.
    """
    def build(**kw: Any) -> Any:
        from importlib import import_module

        return getattr(import_module(f"quadratics.{module}"), name)(**kw)

    build.__name__ = build.__qualname__ = name
    build.__doc__ = f"quadratics.{module}.{name}, imported on first call."
    return build



__all__ = ["ALGORITHMS", "PATTERNS", "PROBLEMS", "Key", "Spec", "algorithms", "build", "help_text", "problems"]


@dataclass(frozen=True)
class Key:
    """One KEY=VALUE parameter: its type (``float``, ``int``, ``str``), default and one line of help.

    >>> Key(float, 0.01, "local step size").default
    0.01
    """

    kind: type
    default: Any
    help: str


@dataclass(frozen=True)
class Spec:
    """A named component: ``builder(**keys)`` returns the problem/pattern/algorithm object.

    ``name`` is required for plugin components (the table key); ``origin`` is set by the registry.

    >>> Spec(print, {}, "a component", name="demo").origin
    'built-in'
    """

    builder: Callable[..., Any]
    keys: Mapping[str, Key]
    help: str
    name: str = ""
    origin: str = "built-in"


def _k(kind: type, default: Any, text: str) -> Key:
    return Key(kind, default, text)


PROBLEMS: dict[str, Spec] = {
    "quadratic": Spec(_lazy("heterogeneous", "heterogeneous_quadratic"), {
        "L": _k(float, 1.0, "largest curvature"), "mu": _k(float, 0.1, "smallest curvature"),
        "d": _k(int, 10, "dimension"), "M": _k(int, 10, "clients"),
        "zeta": _k(float, 1.0, "heterogeneity sup_x max_i ||grad F_i - grad F|| (= sigma_G)"),
        "sigma": _k(float, 1.0, "gradient noise, E||xi||^2 = sigma^2"), "D0": _k(float, 1.0, "||x0 - x*||^2"),
        "instance": _k(int, 0, "seed of the instance draw")}, "shared-Hessian heterogeneous quadratics"),
    "lower-bound": Spec(_lazy("lower_bound", "lower_bound_objective"), {
        "mu": _k(float, 1.0, "x1 curvature"), "H": _k(float, 16.0, "smoothness"),
        "a_even": _k(float, 2.0, "even clients' x4 coefficient (the paper code's L)"),
        "lamb": _k(float, 1.0, "odd clients' x4 coefficient"),
        "c": _k(float, 1.0, "x1 target"), "zeta": _k(float, 16.0, "heterogeneity (at x*)"),
        "sigma": _k(float, 1.0, "noise std on x3"), "M": _k(int, 2, "clients (even)")},
        "4-D lower-bound objective of the Amplified SCAFFOLD experiments (lamb <= mu <= H/16)"),
    "nonconvex": Spec(_lazy("nonconvex", "cosine_nonconvex"), {
        "L": _k(float, 1.0, "smoothness"), "mu": _k(float, 0.1, "smallest quadratic curvature"),
        "amp": _k(float, 0.5, "cosine amplitude (non-convex when amp > mu)"), "d": _k(int, 10, "dimension"),
        "M": _k(int, 10, "clients"), "zeta": _k(float, 1.0, "heterogeneity (= sigma_G)"),
        "sigma": _k(float, 1.0, "gradient noise"), "spread": _k(float, 3.0, "range of the centre"),
        "instance": _k(int, 0, "seed of the instance draw")}, "quadratic + amp * sum cos(x_j), exact inf F"),
}
_CURV = {
    "L": _k(float, 1.0, "largest client curvature"), "mu": _k(float, 0.1, "smallest client curvature"),
    "d": _k(int, 10, "dimension"), "M": _k(int, 10, "clients"),
    "zeta": _k(float, 1.0, "heterogeneity at x*: max_i ||grad F_i(x*)||"),
    "sigma": _k(float, 1.0, "gradient noise, E||xi||^2 = sigma^2"), "D0": _k(float, 1.0, "||x0 - x*||^2"),
    "mix": _k(float, 1.0, "client curvature spread in [0,1] (0: shared Hessian)"),
    "radius": _k(float, None, "sigma_G domain ||x - x*|| <= radius (default 2 sqrt(D0) + 1)"),
    "instance": _k(int, 0, "seed of the instance draw")}
PROBLEMS.update({
    "quadratic-diagonal": Spec(_lazy("curvature", "diagonal_quadratic"), dict(_CURV), "per-client diagonal Hessians (client drift)"),
    "quadratic-rotated": Spec(_lazy("curvature", "rotated_quadratic"), dict(_CURV), "per-client rotated Hessians Q_i diag Q_i^T (client drift)"),
    "logistic": Spec(_lazy("logistic", "logistic_regression"), {
        "d": _k(int, 10, "dimension"), "M": _k(int, 10, "clients"), "n": _k(int, 50, "samples per client"),
        "lam": _k(float, 0.1, "L2 coefficient (= mu)"), "spread": _k(float, 1.0, "client feature-mean distance"),
        "sigma": _k(float, 1.0, "gradient noise"), "instance": _k(int, 0, "seed of the data draw")},
        "L2-regularised logistic regression, distinct client data"),
})

SYMBOLS: dict[str, str] = {
    "zeta": "heterogeneity (problem key; at x* for lower-bound, quadratic-*, logistic constants)",
    "Delta": "initial gap F(x0) - F* (FAST's zeta, Amplified SCAFFOLD's Delta)",
    "sigma_G": "sup_x max_i ||grad F_i - grad F|| (FAST A3; on the stated domain for quadratic-diagonal/rotated)",
    "L": "smoothness (lower-bound: H; the paper code's x4 coefficient L is a_even)",
    "D0": "||x0 - x*||^2 (FAST's kappa in Theorem 2)",
}

def _availability(**kw: Any) -> Any:
    from .availability import availability  # imports rate_region: only when chosen

    return availability(**kw)


PATTERNS: dict[str, Spec] = {
    "uniform": Spec(_lazy("participation", "uniform"), {"S": _k(int, 1, "clients per round")}, "S of M uniformly without replacement"),
    "cyclic": Spec(_lazy("participation", "cyclic"), {"S": _k(int, 1, "clients per round"), "P": _k(int, 480, "period"),
                                 "groups": _k(int, 2, "number of groups")},
                   "cyclic groups, each available for P/groups rounds"),
    "regularized": Spec(_lazy("participation", "regularized"), {"S": _k(int, 1, "clients per round"), "P": _k(int, 10, "window")},
                        "every client in every window, window-average weight 1/M"),
    "arbitrary": Spec(_lazy("participation", "arbitrary"), {"S": _k(int, 1, "clients per round"),
                                       "dist": _k(str, "beta", "propensity law beta|gamma|weibull"),
                                       "a": _k(float, 0.5, "first shape"), "b": _k(float, 0.5, "second shape/scale")},
                      "propensity-proportional sampling (FAST's ACP)"),
    "fast": Spec(_lazy("snapshot", "fast_mixture"), {"m": _k(int, 1, "snapshot cohort"), "n": _k(int, 1, "arbitrary cohort"),
                                "q": _k(float, None, "snapshot probability in [0,1]"),
                                "I": _k(int, None, "snapshot interval"), "adaptive": _k(int, 0, "1: FAST Algorithm 2"),
                                "lam": _k(float, 1.0, "adaptive gain"), "dist": _k(str, "beta", "ACP law"),
                                "a": _k(float, 0.5, "first shape"), "b": _k(float, 0.5, "second shape/scale")},
                 "FAST snapshots mixed into arbitrary participation"),
    "availability": Spec(_availability, {"model": _k(str, "home-devices", "rate_region model name"),
                                "S": _k(int, None, "cap K_t (default: the model's)"),
                                "selection": _k(str, "f3ast", "f3ast|naive"), "beta": _k(float, 1e-3, "rate smoothing"),
                                "objective": _k(str, "p2", "H objective p2|p"), "rates": _k(str, "post", "post|pre")},
                         "rate_region availability with F3AST greedy or naive selection"),
}

_STEP = {"eta": _k(float, 0.01, "local step size"), "K": _k(int, 10, "local steps"),
         "eta_g": _k(float, 1.0, "server step size")}
_AMP = {"gamma": _k(float, 1.5, "amplification"), "P": _k(int, None, "window (default: the pattern's P)")}
ALGORITHMS: dict[str, Spec] = {
    "fedavg": Spec(_lazy("local_methods", "fedavg"), dict(_STEP), "FedAvg"),
    "fedprox": Spec(_lazy("local_methods", "fedprox"), {**_STEP, "mu_prox": _k(float, 0.01, "proximal coefficient")}, "FedProx"),
    "scaffold": Spec(_lazy("local_methods", "scaffold"), dict(_STEP), "SCAFFOLD (option II)"),
    "fast": Spec(_lazy("local_methods", "fast"), {**_STEP, "base": _k(str, "fedavg", "fedavg|fedprox|scaffold"),
                            "mu_prox": _k(float, 0.0, "proximal coefficient")}, "FAST = base under the fast pattern"),
    "f3ast": Spec(_lazy("local_methods", "f3ast"), dict(_STEP), "importance weights p_k/r_k(t) (availability pattern)"),
    "amplified_fedavg": Spec(_lazy("amplified", "amplified_fedavg"), {**_STEP, **_AMP}, "Amplified FedAvg"),
    "amplified_scaffold": Spec(_lazy("amplified", "amplified_scaffold"), {**_STEP, **_AMP,
                                                         "variant": _k(str, "paper", "paper (Algorithm 1) | code")},
                               "Amplified SCAFFOLD"),
}


def _plugin_table(kind: str, builtins: Mapping[str, Spec]) -> dict[str, Spec]:
    def key(spec: Spec) -> str:
        if not isinstance(spec, Spec) or not spec.name:
            raise UserInputError(f"{kind}() must return quadratics.registry.Spec objects with a name")
        return spec.name

    return plugins.merge(kind, builtins, key=key, tag=lambda spec, where: replace(spec, origin=where))


def problems() -> dict[str, Spec]:
    """Every problem: the built-in :data:`PROBLEMS`, then plugin problems (merged on each call)."""
    return _plugin_table("problems", PROBLEMS)


def algorithms() -> dict[str, Spec]:
    """Every algorithm: the built-in :data:`ALGORITHMS`, then plugin algorithms."""
    return _plugin_table("algorithms", ALGORITHMS)


def _convert(name: str, key: Key, text: Any) -> Any:
    if not isinstance(text, str):
        return text
    if key.kind is str:
        return text
    try:
        value = float(text)
    except ValueError:
        raise UserInputError(f"{name}={text!r} is not a number") from None
    if key.kind is int:
        if not value.is_integer():
            raise UserInputError(f"{name}={text!r} must be an integer")
        return int(value)
    return value


def canonical(table: Mapping[str, Any], name: str) -> str | None:
    """The key of ``table`` that ``name`` means, hyphens and underscores alike; None if none."""
    if name in table:
        return name
    want = name.replace("_", "-")
    for key in table:
        if key.replace("_", "-") == want:
            return key
    return None


def _spec(table: Mapping[str, Spec], kind: str, name: str) -> Spec:
    key = canonical(table, name)
    if key is None:
        raise unknown(kind, name, table)
    return table[key]


def build(problem: str, pattern: str, algorithm: str, values: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    """Problem, pattern and algorithm objects from names and shared KEY=VALUE parameters."""
    ps, qs = _spec(problems(), "problem", problem), _spec(PATTERNS, "pattern", pattern)
    al = _spec(algorithms(), "algorithm", algorithm)
    known = set(ps.keys) | set(qs.keys) | set(al.keys)
    for key in values:
        if key not in known:
            raise UserInputError(f"unknown key {key!r} for problem {problem}, pattern {pattern}, algorithm {algorithm}; "
                                 f"valid: {', '.join(sorted(known))}")

    def args(spec: Spec) -> dict[str, Any]:
        return {k: _convert(k, key, values[k]) if k in values else key.default for k, key in spec.keys.items()}

    pa = args(ps)
    if "instance" in pa:
        pa["seed"] = pa.pop("instance")
    if "amp" in pa:
        pa["beta"] = pa.pop("amp")
    prob = ps.builder(**pa)
    qa = args(qs)
    pattern = canonical(PATTERNS, pattern) or pattern
    if pattern == "fast":
        qa["adaptive"] = bool(qa["adaptive"])
    pat = qs.builder(M=prob.M, **qa)
    aa = args(al)
    if "P" in aa and aa["P"] is None:
        aa["P"] = pat.constants.get("P") or 1
    alg = al.builder(**aa)
    return prob, pat, alg


def help_text() -> str:
    """Lines listing every component and its keys (for ``--help``)."""
    lines = []
    for title, table in (("problems", problems()), ("patterns", PATTERNS), ("algorithms", algorithms())):
        lines.append(f"{title}:")
        for name, spec in table.items():
            keys = " ".join(f"{k}={'' if v.default is None else v.default}" for k, v in spec.keys.items())
            origin = "" if spec.origin == "built-in" else f"  [{spec.origin}]"
            lines.append(f"  {name}: {keys}{origin}")
    lines.append("names: hyphens and underscores alike. symbols (one meaning each):")
    lines += [f"  {k}: {v}" for k, v in SYMBOLS.items()]
    return "\n".join(lines)
