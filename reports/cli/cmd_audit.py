"""`convbound audit LOG`: participation log against the theorems' participation assumptions."""

from __future__ import annotations

import click

from reports.cli.common import atomic_write_text, check_output_paths, echo_json


def register(cli: click.Group) -> None:
    cli.add_command(audit_cmd)


@click.command("audit")
@click.argument("log_path", metavar="LOG")
@click.option("--columns", default=None, metavar="ROLE=NAME,...",
              help="Column names, e.g. round=r,client=c,available=a,participated=s,weight=w,snapshot=snap.")
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet", "jsonl"]), default=None,
              help="Log format (default: from the suffix).")
@click.option("--target", default="rstar", show_default=True,
              help="Rates to test against: uniform:k/N, rstar (of the fitted or given model), fast:q, "
                   "available:k (k uniformly among each round's available clients) or available.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="False discovery rate (Benjamini-Hochberg).")
@click.option("--level", type=float, default=None,
              help="Confidence level of the intervals [default: bounds.core.stats.RATE_LEVEL].")
@click.option("--period", type=int, default=None, help="Window length P of regularized participation (Amplified SCAFFOLD).")
@click.option("--k", "k", type=int, default=None, help="Cap per round (default: the largest participant count in the log).")
@click.option("--model", "model_spec", default=None, metavar="NAME|FILE",
              help="Availability model for r* and the region: a name, or a TOML, Parquet, CSV or NPZ file "
                   "(default: the one fitted to the log).")
@click.option("--objective", type=click.Choice(["p2", "p"]), default="p2", show_default=True)
@click.option("--write-model", default=None, metavar="FILE", help="Write the fitted model (TOML, for region --model).")
@click.option("--html", "html_path", default=None, metavar="FILE", help="Write the report section as an HTML page.")
@click.option("--json", "as_json", is_flag=True, help="Print the audit record as JSON.")
@click.option("--force", is_flag=True, help="Overwrite --write-model / --html files.")
def audit_cmd(log_path, columns, fmt, target, alpha, level, period, k, model_spec, objective, write_model, html_path,
              as_json, force) -> None:
    """Audit a participation log: rates with CIs, bias test (FDR), fitted availability model, hypotheses, H gap.
    \f
    The reason for the parameter count: click passes one parameter per option.
    """
    from bounds.core.errors import UserInputError
    from bounds.core.limits import audit_max_cells
    from bounds.core.stats import RATE_LEVEL
    from rate_region.audit import audit
    from rate_region.audit.core import check_level, parse_target
    from rate_region.logs import BYTES_PER_CELL, parse_columns, read_log

    level = RATE_LEVEL if level is None else level

    if period is not None and period < 1:
        raise UserInputError(f"--period {period}: a window length is a positive integer")
    check_level(level, alpha)  # the options first: a bad one is refused before the log is read
    check_output_paths(force, {"--write-model": write_model, "--html": html_path})
    parse_target(target)
    if k is not None and k < 1:
        raise UserInputError(f"--k {k}: the cap per round is a positive integer")
    log = read_log(log_path, parse_columns(columns), fmt, max_cells=audit_max_cells(BYTES_PER_CELL))
    model = None
    if model_spec is not None:
        from bounds.core.limits import region_max_clients
        from rate_region.modelfile import get_model

        cap = k if k is not None else max(int(log.participated.sum(1).max()), 1)
        model = get_model(model_spec, k=cap, max_clients=region_max_clients())
    rec = audit(log, target, alpha=alpha, level=level, period=period, model=model, k=k, objective=objective)
    d = rec.to_dict()
    if write_model is not None:
        atomic_write_text(write_model, rec.model_toml, force=force)
    if html_path is not None:
        from reports.audit_section import audit_page

        atomic_write_text(html_path, audit_page(d), force=force)
    if as_json:
        echo_json(d)
    else:
        click.echo(rec.text())
        if write_model is not None:
            click.echo(f"model written to {write_model} (use: convbound region --model {write_model})")
