"""`convbound verify`: empirical certificates, rate fits and negative controls with verdicts."""

from __future__ import annotations

import click

from reports.cli.common import echo_json

_STYLE = {"holds": "green", "violated": "red", "inconclusive": "yellow", "unverified": "cyan",
          "inapplicable": "magenta", "pending": "dim"}


def _fmt(x) -> str:
    return "-" if x is None or x != x else f"{x:.3g}"


def register(cli: click.Group) -> None:
    @cli.command("verify")
    @click.argument("ids", nargs=-1, required=False)
    @click.option("--quick", is_flag=True, help="smaller Monte Carlo sizes (whole suite < 2 min on 2 CPU cores)")
    @click.option("--trials", type=int, default=None, help="trials per check (default: per check)")
    @click.option("--device", default="auto", show_default=True, help="auto | cpu | cuda")
    @click.option("--seed", type=int, default=0, show_default=True)
    @click.option("--json", "as_json", is_flag=True, help="print the list of verification records as JSON")
    @click.option("--instance", "instance_file", default=None,
                  help="replay an instance file written by `convbound falsify --instance-out` (no IDS then)")
    def verify_cmd(ids, quick, trials, device, seed, as_json, instance_file) -> int:
        """Run certificates (ID: FAST.T1, FAST.T2, ..., a paper prefix FAST/F3AST/ASCAF, or all).

        Exit status 0 when every verdict is as expected (certificates hold, negative controls
        violated), 1 otherwise, 2 on bad input.
        """
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        from bounds.errors import UserInputError
        from verify.suite import all_ok, run_suite, select

        if instance_file and ids:
            raise UserInputError("give either check IDS or --instance FILE, not both")
        if not instance_file and not ids:
            raise UserInputError("give check IDS (FAST.T1, a paper prefix FAST, or all) or --instance FILE")
        if instance_file:
            from verify.falsify import replay

            ids = ()
        select(list(ids) if ids else "all")  # bad ids fail before any work
        err = Console(stderr=True)
        with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                      TimeElapsedColumn(), console=err, transient=True) as bar:
            task = bar.add_task("verify", total=None)

            def progress(done: int, total: int, cid: str) -> None:
                bar.update(task, completed=done, total=total, description=f"verify {cid}")

            results = ([replay(instance_file, device=None if device == "auto" else device)] if instance_file else
                       run_suite(list(ids), quick=quick, trials=trials, device=device, seed=seed, progress=progress))
        if as_json:
            echo_json([v.to_dict() for v in results])
        else:
            from rich.markup import escape
            from rich.table import Table

            table = Table(title="convbound verify", show_lines=False)
            table.add_column("id", no_wrap=True)
            table.add_column("verdict", no_wrap=True, min_width=12)
            table.add_column("ok", no_wrap=True)
            for col in ("LHS", "CI", "RHS", "ratio", "n"):
                table.add_column(col, justify="right", no_wrap=True)
            for v in results:
                style = _STYLE.get(v.verdict, "")
                mark = "[green]yes[/green]" if v.ok else f"[red]no[/red] (want {v.expected})"
                table.add_row(escape(v.id), f"[{style}]{v.verdict}[/{style}]", mark, _fmt(v.lhs),
                              f"[{_fmt(v.ci[0])}, {_fmt(v.ci[1])}]", _fmt(v.rhs), _fmt(v.ratio), str(v.trials))
            out = Console()
            if out.width < 120:
                out = Console(width=120)
            out.print(table)
            shown: set[str] = set()
            for v in results:
                for note in v.notes:
                    if note in shown:
                        continue
                    if note.startswith("FINDING") or v.verdict in ("pending", "unverified") or not v.ok:
                        shown.add(note)
                        out.print(f"[bold]{escape(v.id)}[/bold]: {escape(note)}")
        ok = all_ok(results)
        if not as_json:
            Console().print("all verdicts as expected" if ok else "[red]some verdicts are not as expected[/red]")
        return 0 if ok else 1
