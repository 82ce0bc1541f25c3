"""`convbound worst-case --nonconvex`: the non-convex branch of the worst-case command (verify.pep.nonconvex)."""

from __future__ import annotations

import math
from typing import Any

import click

from bounds.core.errors import UserInputError
from reports.cli.common import echo_json


def run_nonconvex(opts: dict[str, Any]) -> None:
    """Solve and print the non-convex worst case described by the command's options."""
    from verify.pep import parse_law
    from verify.pep.nonconvex import NC_MEASURES, NCSetting
    from verify.pep.nonconvex_core import solve_nc

    if opts["method"] not in ("local_gd", "scaffold"):
        raise UserInputError(f"--nonconvex supports --method local_gd or scaffold, not {opts['method']!r}")
    if opts["measure"] not in NC_MEASURES:
        raise UserInputError(f"--nonconvex --measure {opts['measure']!r} is not valid; valid: {', '.join(NC_MEASURES)}")
    if opts["relaxed"] or opts["per_round"] or opts["banded"]:
        raise UserInputError("--nonconvex has its own sparse route (--window); drop --relaxed, --per-round, --banded")
    for flag, key in (("--K", "K"), ("--R", "R"), ("--M", "M"), ("--window", "window")):
        if opts[key] is not None and abs(opts[key]) >= 2**63:  # before any size estimate turns it into a float
            raise UserInputError(f"{flag} {opts[key]} is beyond any size a worst case can have; give at most 2^63 - 1")
    if not math.isfinite(opts["max_seconds"]) or opts["max_seconds"] <= 0:
        raise UserInputError(f"--max-seconds {opts['max_seconds']} must be a positive, finite number of seconds")
    law = parse_law(opts["law"]) if opts["law"] is not None else None
    s = NCSetting(method=opts["method"], L=opts["L"], zeta=opts["zeta"], eta=opts["eta"], K=opts["K"], R=opts["R"],
                  M=opts["M"], eta_g=opts["eta_g"], Delta=opts["Delta"], measure=opts["measure"],
                  initial=opts["initial"], hetero=opts["hetero"], law=law, sigma=opts["sigma"])
    from verify.pep.nonconvex_cover import coverage_nc

    wc = solve_nc(s, window=opts["window"], max_seconds=opts["max_seconds"])
    if wc.value is not None:
        from dataclasses import replace

        wc = replace(wc, coverage=tuple(coverage_nc(s, wc.value, wc.certified)))
    record = wc.to_dict()
    if opts["as_json"]:
        echo_json(record)
    else:
        _print(record)
    if not wc.success:
        raise SystemExit(1)


def _print(r: dict[str, Any]) -> None:
    cert = r["certificate"]
    p = r["parameters"]
    click.echo(f"{r['method']} on L-smooth (non-convex) clients: worst case of {p['measure']} = {r['value']} "
               f"({r['exactness']}; certificate: {cert.get('status')}; {r['solve_seconds']:.2f} s)")
    click.echo("parameters: " + ", ".join(f"{k}={v}" for k, v in p.items()))
    if cert.get("status") == "certified":
        click.echo(f"dual certificate ({cert['recheck']}): proved upper bound {cert['proved_upper_bound']}; margin "
                   f"t = {cert.get('t', float('nan')):.2e}, largest multiplier fix {cert.get('balance_fix', 0.0):.2e}")
    elif cert.get("reason"):
        click.echo(f"not certified: {cert['reason']}")
    for note in r["notes"]:
        click.echo(f"note: {note}")
    for row in r["coverage"]:
        if row.get("covers") == "no":
            continue
        ratio = row.get("ratio")
        click.echo(f"{row['key']}: {row['covers']}; bound {row.get('bound')}; worst / bound "
                   f"{'n/a' if ratio is None else f'{ratio:.4g}'}; {row.get('verdict', '')}")
    others = sum(1 for row in r["coverage"] if row.get("covers") == "no")
    click.echo(f"{len(r['coverage']) - others} non-convex result(s) compared; {others} do not cover this setting "
               "(reasons in --json, field coverage)")
