"""`convbound simulate`: run an FL algorithm under a participation pattern on a problem with exact constants."""

from __future__ import annotations

import click

from reports.cli.common import atomic_write_text, echo_json, parse_assignments


def _epilog() -> str:
    from quadratics.registry import help_text  # light: no torch import at module level of registry users

    return "\b\nKEY=VALUE names (defaults shown):\n" + help_text()


def register(cli: click.Group) -> None:
    try:
        epilog = _epilog()
    except Exception:  # the listing must never break the whole CLI
        epilog = None

    @cli.command("simulate", epilog=epilog)
    @click.option("--problem", required=True, help="quadratic | quadratic-diagonal | quadratic-rotated | logistic | lower-bound | nonconvex")
    @click.option("--algorithm", default="fedavg", show_default=True,
                  help="fedavg fedprox scaffold fast f3ast amplified_fedavg amplified_scaffold")
    @click.option("--pattern", default="uniform", show_default=True,
                  help="uniform cyclic regularized arbitrary fast availability")
    @click.argument("assignments", nargs=-1)
    @click.option("--trials", type=int, default=20, show_default=True, help="independent runs (one batch)")
    @click.option("--rounds", type=int, default=100, show_default=True, help="communication rounds")
    @click.option("--device", default="auto", show_default=True, help="auto | cpu | cuda")
    @click.option("--out", type=click.Path(dir_okay=False), default=None, help="write per-round means and CI (CSV)")
    @click.option("--json", "as_json", is_flag=True, help="print the summary as JSON")
    @click.option("--target", type=float, default=None, help="report the first round with mean objective gap <= EPS")
    @click.option("--seed", type=int, default=0, show_default=True)
    @click.option("--force", is_flag=True, help="overwrite --out")
    def simulate_cmd(problem, algorithm, pattern, assignments, trials, rounds, device, out, as_json, target, seed,
                     force) -> None:
        """Simulate T trials of an algorithm; report final metrics with confidence intervals.

        Metrics per round: F(x)-F*, ||grad F(x)||^2, ||x-x*||^2 (and f_log for lower-bound, where
        --target is checked on f_log as the paper logged it; rounds_to.round_true_f is on f).
        """
        from pathlib import Path

        from bounds.errors import UserInputError
        from quadratics.engine import resolve_device, simulate
        from quadratics.registry import build

        values = parse_assignments(assignments)
        if trials < 1 or rounds < 1:
            raise UserInputError("--trials and --rounds must be at least 1")
        dev = resolve_device(device)
        prob, pat, alg = build(problem, pattern, algorithm, values)
        if out is not None and Path(out).exists() and not force:
            raise UserInputError(f"{out} exists; pass --force to overwrite it")
        from rich.console import Console
        from rich.progress import Progress

        console = Console(stderr=True)
        show = console.is_terminal and rounds * trials >= 20000
        with Progress(console=console, transient=True, disable=not show) as bar:
            task = bar.add_task("simulating", total=rounds)
            sim = simulate(prob, alg, pat, trials, rounds, seed=seed, device=dev,
                           progress=(lambda r: bar.update(task, completed=r)) if show else None)
        summary = sim.summary(target).to_dict()
        if out is not None:
            atomic_write_text(out, sim.to_csv(), force=force)
            summary["csv"] = str(out)
        if as_json:
            echo_json(summary)
            return
        from rich.table import Table

        table = Table(title=f"{alg.name} / {pat.name} / {prob.name}: {trials} trials, {rounds} rounds")
        for col in ("metric", "mean", "95% CI", "trials"):
            table.add_column(col)
        for name, f in summary["final"].items():
            table.add_row(name, f"{f['mean']:.6g}", f"[{f['ci_low']:.6g}, {f['ci_high']:.6g}]", str(f["trials"]))
        out_console = Console()
        out_console.print(table)
        rt = summary["rounds_to"]
        if target is not None:
            out_console.print(f"rounds to {rt['metric']} <= {target}: {rt['round']}"
                              + (f" (true f: {rt.get('round_true_f')})" if "round_true_f" in rt else ""))
        d = summary["diverged"]
        out_console.print(f"diverged: {d['count']} of {d['trials']}" + (f", first at round {d['first_round']}" if d["count"] else ""))
        out_console.print(f"client local steps per second: {summary['steps_per_second']:,.0f} on {summary['versions']['device']}")
