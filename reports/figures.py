"""Figures of a report document, drawn with matplotlib's object API (Agg, no pyplot state).

Each ``*_figure`` takes the plain dict of its section and returns a ``matplotlib.figure.Figure``;
:func:`report_figures` draws every figure a document calls for and returns PNG bytes, which both
renderers embed (the HTML as base64, the PDF as images) so the two show the same pictures.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from reports.document import anchor, fmt

WIDTH, HEIGHT, DPI = 6.4, 3.6, 120


@dataclass(frozen=True)
class FigureImage:
    """A drawn figure: where it belongs (section anchor), its caption, and PNG bytes."""

    id: str
    anchor: str
    caption: str
    png: bytes


def log_scale(ax, which: str) -> None:
    """``ax``'s ``which`` axis ("x" or "y") on a log scale: minor ticks at 2 and 5 of each decade, labels as plain
    text (10⁻², 2×10⁻²). Why not matplotlib's defaults (minor ticks 2 to 9, labels in mathtext): each tick is an
    object laid out at every draw and each distinct label a mathtext parse; the two took 3.7 s and 1.7 s of the
    quick report's 9.5 s of figures. Which ticks carry a label is matplotlib's rule (``LogFormatter``)."""
    from matplotlib.ticker import LogLocator

    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    axis = ax.xaxis if which == "x" else ax.yaxis
    axis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))
    axis.set_major_formatter(_power_formatter())
    axis.set_minor_formatter(_power_formatter(labelOnlyBase=False))


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _power(x: float) -> str:
    """``x`` > 0 as 10ⁿ or m×10ⁿ in plain text."""
    e = math.floor(math.log10(x) + 1e-9)
    m = x / 10.0**e
    power = "10" + str(e).translate(_SUPERSCRIPT)
    return power if abs(m - 1) < 1e-9 else f"{m:.3g}×{power}"


def _power_formatter(**kwargs):
    return _power_formatter_class()(base=10, **kwargs)


@lru_cache(maxsize=1)
def _power_formatter_class():
    from matplotlib.ticker import LogFormatter  # here: importing this module loads no matplotlib

    class PowerFormatter(LogFormatter):
        def _num_to_string(self, x, vmin, vmax):
            return _power(x)

    return PowerFormatter


def _figure():
    from matplotlib.figure import Figure

    # fixed margins: constrained layout costs ~1 s per log-scaled figure
    fig = Figure(figsize=(WIDTH, HEIGHT), dpi=DPI)
    fig.subplots_adjust(left=0.15, right=0.97, bottom=0.15, top=0.9)
    return fig, fig.add_subplot()


def to_png(fig) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()


def _arr(values: Any) -> np.ndarray:
    return np.asarray([np.nan if v is None else v for v in values], dtype=float)


# Measured error against R
MAX_POINTS = 400


def error_vs_rounds_figure(check: Mapping[str, Any]):
    """Measured LHS (with its confidence band when given) against the bound, log-log.

    A rate check's series carries ``fit_slope`` (and ``fit_ci``, ``predicted_slope``): the fitted
    power law is drawn with that slope. A certificate's series is the measured curve over rounds;
    its bound at the instance (``rhs``) is drawn as a level when the series has no RHS curve.
    """
    s = check["series"]
    x, lhs = _arr(s["x"]), _arr(s["lhs"])
    keep = x > 0  # log axis
    if keep.sum() > MAX_POINTS:  # thin long trajectories evenly in log x
        idx = np.unique(np.geomspace(1, keep.sum(), MAX_POINTS).astype(int) - 1)
        keep = np.flatnonzero(keep)[idx]
    xs, ys = x[keep], lhs[keep]
    fig, ax = _figure()
    if "ci_low" in s and "ci_high" in s:
        from reports.document import ci_label

        ax.fill_between(xs, _arr(s["ci_low"])[keep], _arr(s["ci_high"])[keep], alpha=0.25, color="C0",
                        label=ci_label(check))
    ax.plot(xs, ys, "o-" if xs.size <= 40 else "-", color="C0", ms=4, label="measured " + s.get("lhs_name", "LHS"))
    if "rhs" in s:
        ax.plot(xs, _arr(s["rhs"])[keep], "--", color="C3", label="bound (RHS)")
    elif isinstance(check.get("rhs"), (int, float)) and check.get("kind") != "rate":
        ax.axhline(float(check["rhs"]), color="C3", ls="--",
                   label=f"bound at the instance = {fmt(check['rhs'], 3)}" + (" (weakened)" if check.get("control") else ""))
    ok = (xs > 0) & (ys > 0) & np.isfinite(ys)
    if s.get("fit_slope") is not None and ok.sum() >= 2:
        slope = float(s["fit_slope"])
        icpt = (float(s["fit_intercept"]) if s.get("fit_intercept") is not None  # natural-log intercept
                else float(np.mean(np.log(ys[ok]) - slope * np.log(xs[ok]))))
        label = f"fit: slope {fmt(slope, 3)}"
        if s.get("fit_ci"):
            label += f" [{fmt(s['fit_ci'][0], 3)}, {fmt(s['fit_ci'][1], 3)}]"
        if s.get("predicted_slope") is not None:
            label += f", predicted {fmt(s['predicted_slope'], 3)}"
        ax.plot(xs[ok], np.exp(icpt) * xs[ok] ** slope, ":", color="k", label=label)
    log_scale(ax, "x")
    if ys.size and np.all(ys[np.isfinite(ys)] > 0):
        log_scale(ax, "y")
    sweep = s.get("fit_slope") is not None or "rhs" in s  # a sweep over R, else a curve over rounds
    ax.set_xlabel(s.get("x_label", "communication rounds R (count)" if sweep else "round r (count)"))
    ax.set_ylabel(s.get("y_label", "measured left side (problem units)" if sweep
                        else "mean over trials (problem units)"))
    ax.set_title(f"{check.get('id')}: " + ("measured left side vs R" if sweep else "measured curve over rounds"),
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig


# Bound terms
def terms_figure(result: Mapping[str, Any]):
    """The right side's named terms over a sweep of one variable: values (log-log) and stacked shares.

    Without a sweep: one stacked bar of the terms at the example values.
    """
    from matplotlib.figure import Figure

    sweep = result.get("sweep")
    if not sweep:
        fig, ax = _figure()
        terms = result["example"]["check"]["terms"]
        left = 0.0
        for i, (name, val) in enumerate(terms.items()):
            val = max(float(val), 0.0) if val is not None and math.isfinite(float(val)) else 0.0
            ax.barh([0], [val], left=left, color=f"C{i}", label=f"{name} = {fmt(val, 3)}")
            left += val
        ax.set_yticks([])
        ax.set_xlabel("right side at the example values (units of the left side)")
        ax.set_title(f"{result.get('key')}: terms of the bound, stacked", fontsize=10)
        ax.legend(fontsize=8, loc="best")
        return fig
    fig = Figure(figsize=(WIDTH, HEIGHT), dpi=DPI)
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.14, top=0.88, wspace=0.32)
    ax, share = fig.subplots(1, 2)
    x = _arr(sweep["x"])
    names = list(sweep["terms"])
    ys = np.array([np.clip(_arr(sweep["terms"][n]), 0, None) for n in names])
    total = ys.sum(0)
    for i, n in enumerate(names):
        ax.plot(x, np.where(ys[i] > 0, ys[i], np.nan), color=f"C{i}", label=n)
    ax.plot(x, total, "k--", lw=1, label="bound (sum)")
    log_scale(ax, "x")
    if np.nanmin(np.where(total > 0, total, np.nan)) > 0:
        log_scale(ax, "y")
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(total > 0, ys / total, 0.0)
    share.stackplot(x, *frac, labels=names, colors=[f"C{i}" for i in range(len(names))], alpha=0.85)
    log_scale(share, "x")
    share.set_ylim(0, 1)
    for a in (ax, share):
        if sweep.get("example") is not None:
            a.axvline(float(sweep["example"]), color="k", lw=0.8, ls=":")
        a.set_xlabel(sweep.get("x_label", f"{sweep['var']} (others at the example)"), fontsize=8)
        a.grid(True, alpha=0.3)
        a.tick_params(labelsize=7)
    ax.set_ylabel("term value (units of the left side)", fontsize=8)
    share.set_ylabel("share of the bound (fraction)", fontsize=8)
    ax.legend(fontsize=7, loc="best")
    fig.suptitle(f"{result.get('key')}: terms of the bound (dotted: example {sweep['var']})", fontsize=10)
    return fig


# Participation rates
def region_figure(region: Mapping[str, Any]):
    """The achievable rate region (2 clients) with its marked points and r*."""
    fig, ax = _figure()
    fig.subplots_adjust(left=0.1, right=0.62)
    v = np.asarray(region["vertices"], dtype=float)
    ax.fill(v[:, 0], v[:, 1], color="C0", alpha=0.2, label="achievable region")
    ax.plot(np.r_[v[:, 0], v[0, 0]], np.r_[v[:, 1], v[0, 1]], color="C0", lw=1)
    styles = {"r^a": dict(marker="o", color="C1", ms=8), "r^b": dict(marker="o", color="C2", ms=15, mfc="none", mew=2),
              "naive": dict(marker="s", color="C4", ms=8), "r*": dict(marker="*", color="C3", ms=14)}
    for i, (label, pt) in enumerate((region.get("points") or {}).items()):
        style = styles.get(label, dict(marker="D", color=f"C{(i + 5) % 10}", ms=7))
        ax.plot([pt[0]], [pt[1]], ls="none", label=f"{label} = ({fmt(pt[0], 3)}, {fmt(pt[1], 3)})", **style)
    ax.set_xlabel("r_1: rate of client 1 (fraction of rounds)")
    ax.set_ylabel("r_2: rate of client 2 (fraction of rounds)")
    top = 1.08 * float(max(v.max(), *(max(p) for p in (region.get("points") or {"": [0]}).values())))
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_aspect("equal", adjustable="box")
    ax.set_title(region.get("title", "Achievable participation rates"), fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    ax.grid(True, alpha=0.3)
    return fig


def sampler_figure(sampler: Mapping[str, Any]):
    """r_k(t) of the F3AST sampler against the target r*."""
    fig, ax = _figure()
    t = _arr(sampler["t"])
    r = np.asarray(sampler["r"], dtype=float)  # [T, N]
    star = sampler.get("r_star")
    n_show = min(r.shape[1], 8)
    for k in range(n_show):
        ax.plot(t, r[:, k], color=f"C{k}", lw=1.2, label=f"r_{k + 1}(t)")
        if star is not None:
            ax.axhline(float(star[k]), color=f"C{k}", ls="--", lw=0.8)
    if r.shape[1] > n_show:
        ax.text(0.01, 0.02, f"first {n_show} of {r.shape[1]} clients shown", transform=ax.transAxes, fontsize=7)
    log_scale(ax, "x")
    ax.set_xlabel("round t (count)")
    ax.set_ylabel("rate r_k(t) (fraction of rounds)")
    ax.set_title(sampler.get("title", "F3AST sampler: rates approach r* (dashed)"), fontsize=10)
    ax.legend(fontsize=8, ncol=2)
    ax.grid(True, alpha=0.3)
    return fig


def participation_figure(part: Mapping[str, Any]):
    """Participation weights of a pattern as a client x round heatmap."""
    fig, ax = _figure()
    w = np.asarray(part["weights"], dtype=float)  # [clients, rounds]
    im = ax.imshow(w, aspect="auto", interpolation="nearest", cmap="viridis", origin="lower",
                   extent=(-0.5, w.shape[1] - 0.5, 0.5, w.shape[0] + 0.5))
    fig.subplots_adjust(right=1.0)
    fig.colorbar(im, ax=ax, label=part.get("weight_label", "aggregation weight q_r^i (dimensionless)"))
    ax.set_xlabel("round r (count)")
    ax.set_ylabel("client i (index)")
    ax.set_title(part.get("title", f"Participation pattern: {part.get('name', '')}"), fontsize=10)
    return fig


def report_figures(doc: Mapping[str, Any]) -> list[FigureImage]:
    """Every figure of a document, in report order."""
    from matplotlib import rcParams

    rcParams["svg.fonttype"] = "none"
    out: list[FigureImage] = []

    def add(ident: str, where: str, caption: str, make, data) -> None:
        out.append(FigureImage(ident, where, caption, _drawn(make, data)))

    for r in doc.get("results") or []:
        if r.get("sweep"):  # without a sweep the terms table says all a single bar would
            add(f"terms-{r['key']}", anchor("res", r["key"]),
                f"Terms of the bound of {r['key']} at its example values.", terms_figure, r)
    if doc.get("region"):
        add("region", "region", "Achievable region, marked policies and the minimiser r* of H.", region_figure,
            doc["region"])
    if doc.get("sampler"):
        add("sampler", "sampler", "F3AST sampler: rates r_k(t) over rounds; dashed lines are r*.", sampler_figure,
            doc["sampler"])
    if doc.get("participation"):
        add("participation", "participation", "Participation weights, client x round.", participation_figure,
            doc["participation"])
    for v in doc.get("verifications") or []:
        s = v.get("series") or {}
        if "x" in s and "lhs" in s and len(s["x"]) >= 2:
            add(f"series-{v['id']}", anchor("chk", v["id"]),
                f"{v['id']}: measured quantity against the bound"
                + (", with the fitted slope." if (v.get("series") or {}).get("fit_slope") is not None else "."),
                error_vs_rounds_figure, v)
    return out


#: PNG bytes by (figure function, its data frozen), the most recent first out; at most _DRAWN_AT_MOST of them
_DRAWN: dict[tuple[Any, Any], bytes] = {}
_DRAWN_AT_MOST = 64


def _drawn(make, data: Any) -> bytes:
    """``to_png(make(data))``, kept for data that is plain values. Why: a figure is a pure function of its
    section's data, and one process often draws the same section again (``--from-json`` after a run, a
    document rendered once per variant): drawing is most of a page's rendering time (about 0.15 s a figure)."""
    frozen = _frozen(data)
    if frozen is None:
        return to_png(make(data))
    key = (make, frozen)
    png = _DRAWN.get(key)
    if png is None:
        if len(_DRAWN) >= _DRAWN_AT_MOST:  # a bounded memo: the oldest figure goes first
            _DRAWN.pop(next(iter(_DRAWN)))
        png = _DRAWN[key] = to_png(make(data))
    return png


def _frozen(x: Any) -> Any:
    """A hashable copy of plain data that tells every type apart (1, 1.0, True and "1"; a list and a tuple;
    0.0 and -0.0 by their repr), or None where ``x`` holds anything else (an array: drawn every time)."""
    if x is None or isinstance(x, (str, bool, int)):
        return (type(x).__name__, x)
    if isinstance(x, float):
        return (type(x).__name__, repr(float(x)))
    if isinstance(x, Mapping):
        items = [(_frozen(k), _frozen(v)) for k, v in x.items()]
        return None if any(k is None or v is None for k, v in items) else ("map", tuple(items))
    if isinstance(x, (list, tuple)):
        parts = [_frozen(v) for v in x]
        return None if any(v is None for v in parts) else (type(x).__name__, tuple(parts))
    return None
