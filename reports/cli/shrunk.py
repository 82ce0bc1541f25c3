"""The falsify command's minimal counterexample: shrink a confirmed violation and say it in a few lines."""

from __future__ import annotations

from typing import Any


def shrink_into(doc: dict[str, Any], sc: Any, rec: Any, *, trials: int, confirm_trials: int, seed: int,
                as_json: bool) -> list[str]:
    """Add ``doc["shrunk"]`` (``verify.search.shrink.ShrinkRecord``); returns its lines (none for ``as_json``).

    The caller prints them after the search's result: the minimal counterexample follows the finding it
    shrinks, never comes before it. A spinner on a terminal shows that the shrink is running.
    """
    from reports.cli.common import progress_bar
    from verify.search.confirmation import plugin_guard
    from verify.search.shrink import shrink

    with plugin_guard(sc), progress_bar() as bar:
        if not as_json:
            bar.add_task("shrinking the confirmed violation to a minimal counterexample", total=None)
        sr = shrink(sc, rec.best["point"], trials=trials, confirm_trials=confirm_trials, seed=seed)
    doc["shrunk"] = sr.to_dict()
    if as_json:
        return []
    c, cf = sr.confirmation, sr.closed_form
    moved = ", ".join(f"{m['axis']} {m['from']} -> {m['to']}" for m in sr.moves) or "none kept"
    lines = [f"minimal counterexample ({len(sr.moves)} moves: {moved}): {c.get('verdict')}, ratio "
             f"{c.get('ratio', float('nan')):.4g} ({c.get('method')})",
             "shrunk point: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                          for k, v in sr.shrunk.items())]
    if cf.get("derived"):
        beside = cf.get("lhs_exact_path")
        beside = beside if beside is not None else cf.get("lhs_monte_carlo")
        lines.append(f"closed form ({cf['setting']}; measure {cf.get('measure')}): LHS(R) = {cf['lhs_of_R']}  vs  "
                     f"RHS(R) = {cf['rhs_of_R']}; at R = {cf['numbers']['R']}: {cf['lhs_closed_form']:.10g} "
                     f"({cf.get('compared_with', 'exact path')} {beside:.10g}) vs {cf['rhs_at_point']:.10g}; "
                     f"violated for R in {cf.get('violated_for_R')}")
    else:
        lines.append(f"closed form: not derived ({cf.get('why', 'not asked')})")
    return lines
