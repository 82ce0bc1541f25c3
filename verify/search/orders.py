"""Asymptotic orders along rays: the measured LHS's exponent against the RHS's, and what follows from them.

**Setting**: a :class:`verify.scenario.Scenario` of an UPPER result whose points are scored exactly
(``verify.exact_score``: no sampling error, any horizon); rays of its space (``verify.search.rays``): one scale
axis to one end of its range (the step to 0 with the horizon scaled, clients, noise, heterogeneity,
local steps, the participation fraction), from a base point.
**Quantity**: along a ray with axis value x (across the axis's whole range, from the opposite end), the local exponents d log LHS / d log x and d log RHS / d log x:
the LHS's fitted by least squares (``verify.fit.fit_loglog``, t interval at ``SLOPE_LEVEL``) over the last
:data:`DECADES` decades of exact evaluations; the RHS's both fitted on the same points and, term by term,
as sympy's leading exponent in the limit (each moving symbol of the result is a power of x, its power
read off the built instances' inputs).
**Statement** (what the table says, per ray): *fails far along* when the LHS decays more slowly than the
RHS toward the limit (LHS exponent interval strictly on the growing side of both the RHS's fitted exponent
and its limit exponent, by more than :data:`ORDER_TOL`): the ratio grows like x^(e_LHS - e_RHS), so it is extrapolated to where it
reaches :data:`TARGET`, that point (clipped to the axis) is evaluated and, above the RHS, confirmed by
``verify.search.falsify.confirm`` (exact, with its Monte Carlo cross-check); *loose* when the RHS decays more
slowly by at least :data:`LOOSE_GAP` (an order); *same order* otherwise; *not fitted* with the reason
(a ray shorter than 3 decades, a point not admissible or not scored exactly). The exponents are
measured over the ray's range only: they are evidence about the range, not a proof about the limit.
A deficiency between :data:`CONFIRM_TOL` and :data:`ORDER_TOL` (a planted (mu/L)^(1/64) is 0.016) is
extrapolated and tried too, and counts only where the violation is confirmed. Where log y is fitted
better against x than against log x (toward a high end: a contraction in the horizon), the row's
``model`` is "exponential" and its exponents are rates per unit of x (``fit_residuals`` keeps both fits'
residuals). Rays run past a cost cap and start from tight bases as ``verify.search.ray_bases`` says (``widened``
names the axis run past its cap).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

import numpy as np

from bounds.core.errors import PointRefused
from verify.scenario import Scenario, evaluate_point
from verify.search.rays import Ray, order_rays, ray_points, ray_through
from verify.verdict import VIOLATED_UNLESS, is_finding

__all__ = ["CLASSIFIED_KINDS", "RayOrder", "order_table", "ray_order"]

DECADES = 3.0     # the LHS exponent is fitted over at least this many decades of the axis
POINTS = 10       # evaluations along a ray (log-spaced from the base to the end)
ORDER_TOL = 0.05  # exponents closer than this are "the same order" unless a violation is confirmed
CONFIRM_TOL = 0.005  # a deficiency of at least this is extrapolated and tried (exact fits resolve 1/64)
LOOSE_GAP = 1.0   # the RHS decays more slowly by at least this: loose by an order
TARGET = 1.5      # the extrapolation aims at LHS/RHS = TARGET
#: the result kinds whose exponents the table classifies (an LHS decaying more slowly than the RHS fails them)
CLASSIFIED_KINDS = ("upper", "order")


@dataclass
class RayOrder:
    """One row of the orders table (``to_dict`` is its JSON)."""

    result: str
    scenario: str
    ray: str
    base: dict[str, Any]
    finding: str                       # fails far along | loose | same order | not fitted
    why: str = ""
    base_label: str = "default"
    x: list[float] = field(default_factory=list)
    lhs: list[float] = field(default_factory=list)
    rhs: list[float] = field(default_factory=list)
    lhs_fit: dict[str, Any] = field(default_factory=dict)
    rhs_fit: dict[str, Any] = field(default_factory=dict)
    rhs_leading: dict[str, Any] = field(default_factory=dict)  # term -> sympy leading exponent (or why not)
    moved: dict[str, float] = field(default_factory=dict)       # symbol -> its power of x along the ray
    violation: dict[str, Any] = field(default_factory=dict)     # point, extrapolated x, confirmation
    model: str = "power"                                       # power (log y on log x) | exponential (on x)
    fit_residuals: dict[str, list[float]] = field(default_factory=dict)  # model -> [LHS, RHS] residual s.e.
    widened: str = ""                                          # the axis run past a cost cap, said
    dropped: str = ""  # leading points (the opposite end) not scored exactly or not admissible: left out, said

    def to_dict(self) -> dict[str, Any]:
        from bounds.core.jsonable import jsonable

        return jsonable(asdict(self))


def _limit_sign(ray: Ray) -> int:
    """+1 when the ray's axis grows to its end, -1 when it shrinks: the ratio grows when sign (e_L - e_R) > 0."""
    return 1 if ray.end == "high" else -1


def _moved_powers(xs: np.ndarray, values: list[Mapping[str, Any]]) -> dict[str, float]:
    """Each input of the result that moves along the ray, as the power p of x it follows (first to last point),
    rounded to a quarter (step, horizon, a square of a norm); inputs that do not move are left out."""
    out = {}
    for k, v0 in values[0].items():
        v1 = values[-1].get(k)
        if not isinstance(v0, (int, float)) or not isinstance(v1, (int, float)) or v0 <= 0 or v1 <= 0 or v0 == v1:
            continue
        p = math.log(v1 / v0) / math.log(xs[-1] / xs[0])
        out[k] = round(4 * p) / 4
    return out


def leading_exponents(result: Any, values: Mapping[str, Any], moved: Mapping[str, float], x0: float,
                      end: str) -> dict[str, Any]:
    """Per RHS term: its exponent in x at the limit (x -> 0 or oo), each moved symbol s = s0 (x/x0)^p.

    The term's sympy expression is evaluated in 80-digit arithmetic (mpmath) at x = x0 10^(-+FAR) and
    x0 10^(-+(FAR+1)); the slope of log term between them is the leading term's exponent (a power law's, to
    ~10^-FAR; a term that vanishes or explodes faster than any power gives -inf or inf). Why not
    ``sympy.limit`` of t f'/f: on these terms (powers with exponents in R, expm1/log1p, Min/Max) it ran for
    minutes without an answer."""
    import mpmath
    import sympy as sp

    far = 40
    t = sp.Symbol("t", positive=True)
    fixed = {s: sp.Float(values[s.name], 30) for s in result.rhs.free_symbols if s.name in values and s.name not in moved}
    scaled = {s: sp.Float(values[s.name], 30) * t ** sp.nsimplify(moved[s.name])
              for s in result.rhs.free_symbols if s.name in moved}
    sgn = -1 if end == "low" else 1
    out: dict[str, Any] = {}
    with mpmath.workdps(80):
        for term in result.terms:
            try:  # sympy evaluates on substitution: log1p(-1) at the step eta = 1/L is zoo, and Min(.., nan) raises
                e = term.expr.subs({**fixed, **scaled})
            except (ArithmeticError, TypeError, ValueError) as exc:
                out[term.name] = f"not evaluated at this point ({type(exc).__name__} on substitution)"
                continue
            if not e.has(t):
                out[term.name] = 0.0
                continue
            f = sp.lambdify(t, e, modules="mpmath")
            try:
                a, b = (mpmath.mpf(10) ** (sgn * far), mpmath.mpf(10) ** (sgn * (far + 1)))
                fa, fb = mpmath.mpf(f(a)), mpmath.mpf(f(b))
            except (ArithmeticError, TypeError, ValueError) as exc:  # mpmath at the limit (overflow, complex): said
                out[term.name] = f"not evaluated at the limit ({type(exc).__name__})"
                continue
            if fa == 0 or fb == 0:
                out[term.name] = -math.inf * sgn if fb == 0 else math.inf * sgn
                continue
            slope = float((mpmath.log(abs(fb)) - mpmath.log(abs(fa))) / (mpmath.log(b) - mpmath.log(a)))
            out[term.name] = slope if abs(slope) < 1e6 else math.copysign(math.inf, slope)
    return out


def _window(xs: np.ndarray) -> np.ndarray:
    """Indices of the last DECADES decades of the ray (at least 4 points)."""
    lx = np.abs(np.log10(xs) - np.log10(xs[-1]))
    idx = np.nonzero(lx <= DECADES + 1e-9)[0]
    return idx if idx.size >= 4 else np.arange(max(0, xs.size - 4), xs.size)


def _fits(xs: np.ndarray, ys: np.ndarray) -> tuple[Any, Any, float, float]:
    """Both models of log y on the window: power (against log x) and exponential (against x), with each one's
    residual standard error in log y (the smaller is the better-supported model)."""
    from scipy import stats

    from verify.fit import SlopeFit, fit_loglog

    power = fit_loglog(xs, ys)
    ly = np.log(ys)
    res = stats.linregress(xs, ly)
    half = float(_t(len(xs) - 2)) * float(res.stderr)
    expo = SlopeFit(float(res.slope), float(res.intercept), float(res.slope) - half, float(res.slope) + half,
                    float(res.stderr), int(len(xs)), power.level, "linregress on x (exponential)")
    resid = (lambda a, b: float(np.sqrt(np.sum((ly - (a + b)) ** 2) / max(1, len(xs) - 2))))  # noqa: E731
    return power, expo, resid(power.intercept, power.slope * np.log(xs)), resid(expo.intercept, expo.slope * xs)


def _t(dof: int) -> float:
    from bounds.core.stats import SLOPE_LEVEL, t_quantile

    return float(t_quantile(SLOPE_LEVEL, dof))


def _ray_points(scenario: Scenario, ray: Ray, base: Mapping[str, Any], points: int) -> list[dict]:
    pts = ray_through(scenario.space, base, ray, points)
    if ray.horizon:  # past where the horizon reaches its axis's end the ray is another one (horizon fixed): cut
        h_end = next(float(p.high) for p in scenario.space if p.name == ray.horizon)
        first = next((i for i, p in enumerate(pts) if float(p[ray.horizon]) >= h_end), len(pts) - 1)
        pts = pts[:first + 1]
    return pts


def ray_order(scenario: Scenario, ray: Ray, base: Mapping[str, Any], *, confirm_trials: int = 256,
              seed: int = 0, points: int = POINTS) -> RayOrder:
    """One ray's row: evaluate exactly along it, fit both exponents, extrapolate and confirm a deficiency."""
    import bounds
    from verify.search.ray_bases import exact_at, widened

    res = bounds.get(scenario.result)
    row = RayOrder(res.key, scenario.id, ray.name, dict(base), "not fitted")
    scenario, row.widened = widened(scenario, ray, base, DECADES)
    pts = _ray_points(scenario, ray, base, points)
    xs = np.array([float(p[ray.axis]) for p in pts])
    if len(xs) < 4 or xs[0] <= 0 or abs(math.log10(xs[-1] / xs[0])) < DECADES - 1e-9:
        row.why = f"the ray spans {abs(math.log10(xs[-1] / xs[0])) if xs[0] > 0 else 0:.2g} decades (< {DECADES:g})"
        return row
    if res.kind.value not in CLASSIFIED_KINDS:
        row.why = (f"a {res.kind.value} result: the table classifies an upper bound's (or an order's) exponents, "
                   "where an LHS decaying more slowly than the RHS fails it; this one's are not classified")
        return row
    ests: list[Any] = []
    dropped: list[tuple[float, str]] = []
    for i, p in enumerate(pts):  # each point's fidelity is read before it is evaluated: nothing is simulated
        e, why = exact_at(scenario, p, seed=seed)
        bad = (f"not scored exactly: {why}" if e is None else _inadmissible(e) if e.score is None
               else "at LHS 0" if not e.lhs > 0 else "")
        if bad and not ests:
            # before the first good point (the opposite end: T = 1, a mean over no round): left out, said, and
            # the rest must still span DECADES; past it a bad point leaves the ray not fitted
            dropped.append((float(xs[i]), bad))
            continue
        if bad:
            row.why = f"point {i} of the ray is {bad} ({ray.axis} = {xs[i]:.4g})"
            return row
        ests.append(e)
    if not ests:  # no point of the ray is scored exactly and admissible: the first one's reason
        row.why = f"point 0 of the ray is {dropped[0][1]} ({ray.axis} = {dropped[0][0]:.4g}), as is every point after it"
        return row
    if dropped:
        row.dropped = "; ".join(f"{ray.axis} = {x:.4g} ({bad})" for x, bad in dropped)
        pts, xs = pts[len(dropped):], xs[len(dropped):]
        if len(xs) < 4 or abs(math.log10(xs[-1] / xs[0])) < DECADES - 1e-9:
            row.why = (f"point 0 of the ray is {dropped[0][1]} ({ray.axis} = {dropped[0][0]:.4g}); its "
                       f"{len(xs)} exactly scored, admissible points span {abs(math.log10(xs[-1] / xs[0])):.2g} "
                       f"decades (< {DECADES:g})")
            return row
    lhs, rhs = np.array([e.lhs for e in ests]), np.array([e.rhs for e in ests])
    row.x, row.lhs, row.rhs = xs.tolist(), lhs.tolist(), rhs.tolist()
    w = _window(xs)
    lf, lexp, lres_p, lres_e = _fits(xs[w], lhs[w])
    rf, rexp, rres_p, rres_e = _fits(xs[w], rhs[w])
    # the better-supported model of the two sides together: an exponential in x (a contraction in the horizon)
    # fits log y against x, not log x; its exponents are rates per unit of x
    row.model = "exponential" if ray.end == "high" and lres_e + rres_e < 0.5 * (lres_p + rres_p) else "power"
    if row.model == "exponential":
        lf, rf = lexp, rexp
    row.lhs_fit, row.rhs_fit = lf.to_dict(), rf.to_dict()
    row.fit_residuals = {"power": [lres_p, rres_p], "exponential": [lres_e, rres_e]}
    row.moved = _moved_powers(xs, [e.values for e in ests])
    row.rhs_leading = leading_exponents(res, ests[-1].values, row.moved, float(xs[-1]), ray.end)
    _classify(row, scenario, _Samples(ray, pts, xs, lhs / rhs), (lf, rf), confirm_trials, seed)
    return row


def _inadmissible(e: Any) -> str:
    """Why a point has no score: the hypotheses decided false there, or one left undecided."""
    if e.broken:
        return f"not admissible ({', '.join(e.broken)} false)"
    return "not admissible (a hypothesis undecided there)"


class _Samples(NamedTuple):
    """One ray's evaluations: the points, their coordinate on the ray's axis and their LHS/RHS."""

    ray: Ray
    pts: list[dict]
    xs: np.ndarray
    ratios: np.ndarray


def _classify(row: RayOrder, scenario: Scenario, samples: _Samples, fits: tuple[Any, Any], confirm_trials: int,
              seed: int) -> None:
    """The row's finding from the two fits (module docstring's statement); a deficiency of at least
    CONFIRM_TOL is extrapolated and tried, one under ORDER_TOL counts only where it is confirmed."""
    ray, (lf, rf) = samples.ray, fits
    sign = _limit_sign(ray)
    # sign (e_L - e_R) with the LHS's interval: > 0, the ratio grows toward the limit; < 0, it shrinks
    lo_d, hi_d = sorted((sign * (lf.low - rf.slope), sign * (lf.high - rf.slope)))
    # the RHS's exponent at the limit: the slowest term toward 0 (min), the fastest-growing toward oo (max);
    # a power's exponent, so compared only under the power model
    lead = [e for e in row.rhs_leading.values() if isinstance(e, float) and math.isfinite(e)]
    lo_lim = hi_lim = None
    e_lim = math.nan
    if row.model == "power" and lead and len(lead) == len(row.rhs_leading):
        e_lim = max(lead) if sign > 0 else min(lead)
        lo_lim, hi_lim = sorted((sign * (lf.low - e_lim), sign * (lf.high - e_lim)))
    unit = "rate per unit of" if row.model == "exponential" else "exponent in"
    said = (f"LHS {unit} {ray.axis} {lf.slope:.3g} [{lf.low:.3g}, {lf.high:.3g}], RHS {rf.slope:.3g} "
            f"(fitted on the same points, {row.model} model)")
    if lo_d > CONFIRM_TOL:
        row.violation = _extrapolate(scenario, samples, lf.slope - rf.slope, confirm_trials, seed,
                                     row.model)
        conf = row.violation["confirmation"]
        # a conditional violation ("violated unless" named hypotheses fail at the point) is confirmed exactly as a
        # violation is (verify.verdict.FINDINGS); the row says which, and the hypotheses it rests on
        confirmed = is_finding(str(conf.get("verdict")))
        grows = (f"x^{lf.slope - rf.slope:+.3g}" if row.model == "power"
                 else f"exp({lf.slope - rf.slope:+.3g} x)")
        if confirmed or (lo_d > ORDER_TOL and lo_lim is not None and lo_lim > ORDER_TOL):
            row.finding = "fails far along"
            row.why = f"{said}: LHS/RHS grows like {grows} (x = {ray.axis}) toward the {ray.end} end"
            if conf.get("verdict") == VIOLATED_UNLESS:
                row.why += f" (a conditional violation: unless {', '.join(map(str, conf.get('unless') or ()))} fails there)"
            return
        row.finding = "same order"
        row.why = (f"{said}: LHS/RHS grows over the range, but no violation was confirmed (verdict "
                   f"{conf.get('verdict')!s})"
                   + (f" and at the limit the RHS's exponent is {e_lim:.3g} (its terms' leading exponents): a transient"
                      if lo_lim is not None else ""))
        return
    if hi_d <= -(LOOSE_GAP - ORDER_TOL) and (hi_lim is None or hi_lim <= -(LOOSE_GAP - ORDER_TOL)) \
            and row.model == "power":
        row.finding = "loose"
        row.why = f"{said}: the RHS decays more slowly by {-hi_d:.3g} or more toward the {ray.end} end"
        return
    row.finding = "same order"
    row.why = said


def _extrapolate(scenario: Scenario, samples: _Samples, gap: float, confirm_trials: int, seed: int,
                 model: str = "power") -> dict[str, Any]:
    """The ray's point where the ratio (x^gap, or exp(gap x) under the exponential model) reaches TARGET
    (clipped to the axis), evaluated and confirmed."""
    ray, pts, xs, ratios = samples
    from verify.search.falsify import confirm

    i = int(np.argmax(ratios))
    if ratios[-1] <= 0:
        x_star = float(xs[-1])
    elif model == "exponential":
        x_star = float(xs[-1] + math.log(TARGET / ratios[-1]) / gap)
    else:
        x_star = float(xs[-1] * (TARGET / ratios[-1]) ** (1.0 / gap))
    out: dict[str, Any] = {"extrapolated_x": x_star, "axis": ray.axis}
    # the far end of the ray bounds the search: the predicted point if inside, else the end, else the best seen
    axis = next(p for p in scenario.space if p.name == ray.axis)
    inside = float(axis.low) <= x_star <= float(axis.high)
    frac = (math.log(x_star / xs[0]) / math.log(xs[-1] / xs[0])) if inside and x_star > 0 else 1.0
    cand = ray_points(scenario.space, pts[0], ray, [min(1.0, max(0.0, frac))])[0]
    est = evaluate_point(scenario, cand, trials=2, seed=seed)
    if not (est.score is not None and est.score > 1) and ratios[i] > 1:
        cand, est = pts[i], evaluate_point(scenario, pts[i], trials=2, seed=seed)
    out.update(point=cand, ratio=est.ratio, inside_space=inside)
    if est.score is None or est.score <= 1:
        out["confirmation"] = {"verdict": "not claimed",
                               "why": f"LHS/RHS {est.ratio:.4g} at the ray's point: the violation is predicted at "
                                      f"{ray.axis} = {x_star:.4g}" + ("" if inside else ", outside the space")}
        return out
    conf, _ = confirm(scenario, cand, trials=confirm_trials, seed=seed)
    out["confirmation"] = conf
    return out


def term_bases(scenario: Scenario, *, seed: int = 0, candidates: int = 256,
               share: float = 0.9) -> dict[str, dict[str, Any]]:
    """Per RHS term, a point where that term is at least ``share`` of the RHS (else where its share is largest),
    the one nearest the default point in log coordinates among ``candidates`` seeded draws (the ``random``
    optimiser's law over the searched space, ``verify.search.search_options.search_space``), scored exactly where any such draw is (``verify.search.cost.instance_fidelity``): a ray from
    there shows that term's order, not masked by another term of the same order, starts from a typical point
    rather than a corner, and is evaluated (the table fits exact evaluations only; a base not scored exactly
    leaves its rays "not fitted"). A term that is 0 at every draw has no base. Each draw is built once for
    both its shares and its fidelity, nearest first, and only until every term has its base (the builds are
    most of this function's cost)."""
    import bounds
    from verify.search.search_options import search_space
    from verify.search.stratified import Random

    scenario.register_result()
    result = bounds.get(scenario.result)
    # drawn from what a search draws (each categorical axis cut to its ``searched`` values): a choice left out of
    # searches is a check's control or a family searched only on request, and a base there (the survey's constant
    # step, outside our reading of its rate) would make its rays about another statement
    draw = Random(search_space(scenario), seed)
    draw.first = False
    pts = draw.draws(candidates)
    default = scenario.default_point()
    num = [p for p in scenario.space if p.choices is None and p.low < p.high and p.name != "draw"]

    def dist(pt: Mapping[str, Any]) -> float:
        return sum(((math.log(max(float(pt[p.name]), 1e-300)) - math.log(max(float(default[p.name]), 1e-300)))
                    if p.low > 0 else float(pt[p.name]) - float(default[p.name])) ** 2 for p in num)

    # Draws are built nearest first, and the scan stops once every term has an exactly scored draw with at least
    # ``share``: the first such draw is then the nearest of the whole set, so the choice is the full scan's
    # (measured on FAST.T2: the builds, a batched eigh over up to 1,000 clients each, were 121 s of 144)
    names = [term.name for term in result.terms]
    shares: dict[int, dict[str, float]] = {}
    exact: dict[int, bool] = {}
    found: set[str] = set()
    for i in sorted(range(len(pts)), key=lambda j: dist(pts[j])):
        shares[i], exact[i] = _shares_and_fidelity(scenario, result, pts[i])
        if exact[i]:
            found |= {t for t in names if shares[i].get(t, 0.0) >= share}
        if found >= set(names):
            break
    out = {}
    for t in names:
        if not max((sh.get(t, 0.0) for sh in shares.values()), default=0.0) > 0:
            continue  # an empty stratum: the term is 0 at every draw
        pool = [i for i in shares if exact[i]] or list(shares)
        ok = [i for i in pool if shares[i].get(t, 0.0) >= share]
        best = (min(ok, key=lambda i: (dist(pts[i]), i)) if ok else
                max(pool, key=lambda i: (shares[i].get(t, -1.0), -i)))
        out[f"{t} dominates"] = scenario.point(pts[best])
    return out


def _shares_and_fidelity(scenario: Scenario, result: Any, point: Mapping[str, Any]) -> tuple[dict[str, float], bool]:
    """Each RHS term's share at ``point`` ({} where the builder or the result refuses it or the RHS is not a
    positive number) and whether the point is scored exactly (exact or per-trial, within the per-point budget)."""
    from bounds.evaluate import evaluate
    from verify.search.cost import instance_fidelity

    try:
        inst = scenario.build(scenario.point(point))
        vals = {k: abs(float(v)) for k, v in evaluate(result, dict(inst.values)).terms.items()}
        exact = inst.run is None and instance_fidelity(inst, 2)[0] in ("exact", "per-trial")
    except PointRefused:  # a point the builder or the result refuses: no share, as the stratified optimiser does
        return {}, False
    total = sum(vals.values())
    if not math.isfinite(total) or total <= 0:
        return {}, exact
    return {k: v / total for k, v in vals.items()}, exact


def order_table(scenario: Scenario, *, base: Mapping[str, Any] | None = None, terms: bool = True,
                only: Sequence[str] | None = None, confirm_trials: int = 256, seed: int = 0,
                points: int = POINTS, tight: bool = True,
                dominant_bases: Mapping[str, dict[str, Any]] | None = None) -> list[RayOrder]:
    """Every ray of ``scenario`` (``only``: the rays of these axes) from the base point (default: the scenario's
    default), with ``terms`` from each term-dominant point (:func:`term_bases`; ``dominant_bases``: its value at
    this seed, computed once by a caller that asks axis by axis), and with ``tight`` from each
    term's tight base of that ray (``verify.search.ray_bases.tight_base``: the bound otherwise tight at the ray's end).

    torch runs one intra-op thread meanwhile (``quadratics.exact.moments.one_torch_thread``): the table scores
    exact points only (builds, declared rounds, d recursions of 3 numbers), and a confirmation's cross-check fits
    the per-point budget of a search's simulated points, which are simulated on one thread too."""
    from quadratics.exact.moments import one_torch_thread

    with one_torch_thread():
        return _order_table(scenario, base, terms, only, confirm_trials, seed, points, tight, dominant_bases)


def _order_table(scenario: Scenario, base: Mapping[str, Any] | None, terms: bool, only: Sequence[str] | None,
                 confirm_trials: int, seed: int, points: int, tight: bool,
                 dominant_bases: Mapping[str, dict[str, Any]] | None) -> list[RayOrder]:
    from verify.search.ray_bases import tight_base, widened

    bases = {"default": scenario.point(base)}
    dominant: dict[str, dict[str, Any]] = {}
    if terms or tight:
        dominant = dict(dominant_bases) if dominant_bases is not None else term_bases(scenario, seed=seed)
        bases.update(dominant if terms else {})
    out = []
    for r in order_rays(scenario.space):
        if only and r.axis not in only:
            continue
        mine = dict(bases)
        scores: dict[tuple, float] = {}  # this ray's far ends scored, shared by its bases' climbs
        for label, b in (dominant.items() if tight else ()):
            sc, _ = widened(scenario, r, b, DECADES)
            tb, ratio = tight_base(sc, r, b, seed=seed, scores=scores)
            if math.isfinite(ratio) and tb not in mine.values():
                mine[f"tight at the end, from '{label}'"] = tb
        for label, b in mine.items():
            row = ray_order(scenario, r, b, confirm_trials=confirm_trials, seed=seed, points=points)
            row.base_label = label
            out.append(row)
    return out
