"""The falsify command's minimal counterexample: shrink a confirmed violation and say it in a few lines."""

from __future__ import annotations

from typing import Any

import click


def shrink_into(doc: dict[str, Any], sc: Any, rec: Any, *, trials: int, confirm_trials: int, seed: int,
                as_json: bool) -> None:
    """Add ``doc["shrunk"]`` (``verify.search.shrink.ShrinkRecord``) and print its lines unless ``as_json``."""
    from verify.search.confirmation import plugin_guard
    from verify.search.shrink import shrink

    with plugin_guard(sc):
        sr = shrink(sc, rec.best["point"], trials=trials, confirm_trials=confirm_trials, seed=seed)
    doc["shrunk"] = sr.to_dict()
    if as_json:
        return
    c, cf = sr.confirmation, sr.closed_form
    moved = ", ".join(f"{m['axis']} {m['from']} -> {m['to']}" for m in sr.moves) or "none kept"
    click.echo(f"minimal counterexample ({len(sr.moves)} moves: {moved}): {c.get('verdict')}, ratio "
               f"{c.get('ratio', float('nan')):.4g} ({c.get('method')})")
    click.echo("shrunk point: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                           for k, v in sr.shrunk.items()))
    if cf.get("derived"):
        beside = cf.get("lhs_exact_path")
        beside = beside if beside is not None else cf.get("lhs_monte_carlo")
        click.echo(f"closed form ({cf['setting']}; measure {cf.get('measure')}): LHS(R) = {cf['lhs_of_R']}  vs  "
                   f"RHS(R) = {cf['rhs_of_R']}; at R = {cf['numbers']['R']}: {cf['lhs_closed_form']:.10g} "
                   f"({cf.get('compared_with', 'exact path')} {beside:.10g}) vs {cf['rhs_at_point']:.10g}; "
                   f"violated for R in {cf.get('violated_for_R')}")
    else:
        click.echo(f"closed form: not derived ({cf.get('why', 'not asked')})")
