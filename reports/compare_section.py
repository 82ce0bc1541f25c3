"""The comparison of results on one setting, drawn and laid out for the CLI and the report.

``compare_figure`` draws the eps each chosen result reaches against the horizon R on one log-log
figure (ORDER results dashed: constant 1, shapes only); ``comparison_rows`` is the table both the
CLI and the report print; ``quick_settings`` are the settings of the report's comparison section.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from bounds.compare import Comparison, Setting, curve

PLOT_POINTS = 200
MAX_CURVES = 10


def compare_figure(comparison: Comparison, keys: Sequence[str] = (), r_max: float | None = None):
    """eps reached (setting's measure) against R for ``keys`` (default: the first covered results)."""
    from matplotlib.figure import Figure

    from reports.figures import log_scale

    setting = comparison.setting
    covered = {r.key: r for r in (*comparison.covered, *comparison.undecided)}
    chosen = list(keys) or list(covered)[:MAX_CURVES]
    top = r_max or max([setting.R or 0] + [r.rounds or 0 for r in covered.values() if r.rounds]) * 4 or 1e4
    R = np.unique(np.round(np.logspace(0, np.log10(max(top, 10.0)), PLOT_POINTS)))
    fig = Figure(figsize=(7.0, 4.2), dpi=120)
    fig.subplots_adjust(left=0.12, right=0.70, bottom=0.13, top=0.92)
    ax = fig.add_subplot()
    for key in chosen:
        y = curve(key, setting, R)
        style = "--" if covered[key].order_constant_one else "-"
        ok = np.isfinite(y) & (y > 0)
        ax.plot(R[ok], y[ok], style, label=key + (" (O, C=1)" if covered[key].order_constant_one else ""))
    log_scale(ax, "x")
    log_scale(ax, "y")
    if setting.eps is not None:
        ax.axhline(setting.eps, color="grey", lw=0.8, ls=":", label=f"eps = {setting.eps:g}")
    ax.set_xlabel("rounds R")
    ax.set_ylabel(f"eps reached ({setting.measure})")
    ax.set_title(f"bounds on one setting ({setting.pattern}, {setting.convexity})", fontsize=9)
    ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def comparison_rows(comparison: Comparison) -> list[dict[str, Any]]:
    """Covered results first (sorted as compared), then the undecided ones (values shown; a hypothesis the setting
    cannot decide), then the others with their reasons, as plain rows."""
    rows = []
    for r in (*comparison.covered, *comparison.undecided):
        unverified = sum(c.startswith("unverified") for c in r.conditions)
        assumed = sum(c.startswith("assumed") for c in r.conditions)
        read_as = [c for c in r.conditions if not c.startswith(("unverified", "assumed"))]
        marks = [t for t in r.status if t not in ("PUBLISHED", "INFERRED")]
        short = [("ORDER, constant 1" if r.order_constant_one else "explicit bound")
                 + (f" ({', '.join(marks)}: see show {r.key})" if marks else ""), *read_as,
                 *(["converted: " + r.conversion.split(";")[0].removeprefix("converted with ")] if r.conversion else []),
                 *([f"{unverified} unverified"] if unverified else []), f"{assumed} assumed condition(s)"]
        rows.append({"key": r.key, "algorithm": r.algorithm, "covered": r.covered, "undecided": r.undecided,
                     "rounds": None if r.rounds is None else float(np.ceil(r.rounds * (1 - 1e-12))), "reached": r.reached,
                     "short": "; ".join(short),
                     "note": ("ORDER: constant 1; " if r.order_constant_one else "") + "; ".join(
                         x for x in (r.conversion, *r.conditions) if x)})
    for r in comparison.other:
        rows.append({"key": r.key, "algorithm": r.algorithm, "covered": False, "undecided": False, "rounds": None,
                     "reached": None,
                     "short": r.reason, "note": r.reason})
    return rows


def quick_settings() -> list[tuple[str, Setting]]:
    """The report's comparison settings: the quick suite's FAST-style (i.i.d. sampling, non-convex) and
    F3AST-style (static rates, strongly convex) instances, at the constants of their worked examples."""
    from bounds.compare import make_setting

    fast = make_setting({"L": 1, "tau": 5, "S": 10, "N": 100, "sigma": 1, "zeta_G": 0.5, "Delta0": 1, "eps": 0.05,
                         "R": 1000, "eta_c": 0.005}, pattern="iid", measure="grad-sq", convexity="nonconvex")
    f3ast = make_setting({"L": 4, "mu": 1, "tau": 5, "G": 1, "D0": 1, "sigma": 1, "p": "0.5,0.5", "r": "0.5,0.5",
                          "Gamma": 0.1, "var_s": 400 / 3, "R": 1000, "eps": 0.05},
                         pattern="static-rate", measure="gap", convexity="strongly-convex")
    return [("FAST-style: S = 10 of N = 100 uniformly, non-convex, E||grad f||^2 <= eps", fast),
            ("F3AST-style: static rates r = (0.5, 0.5), strongly convex, f - f* <= eps", f3ast)]
