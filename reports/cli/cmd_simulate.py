"""`convbound simulate`: run an FL algorithm under a participation pattern on a problem with exact constants."""

from __future__ import annotations

import click

from reports.cli.common import (
    INDEX_COUNT,
    atomic_write_text,
    check_device,
    check_output_path,
    echo_json,
    esc,
    parse_assignments,
    seed_option,
)

# exit status of a run in which every trial diverged: it ran, but there is no number to report
EXIT_ALL_DIVERGED = 1


class _ListingCommand(click.Command):
    """A command whose epilog (the registry's list of KEY=VALUE names) is built only for its own --help.

    Why: the listing imports ``quadratics.registry`` and with it torch; building it while the CLI
    registers its commands made every `convbound` call pay for torch.
    """

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        try:
            from quadratics.registry import help_text

            text = help_text()
        except Exception as exc:  # the listing must never break --help
            text = f"(the list of names is not available: {exc})"
        formatter.write_paragraph()
        formatter.write_text("KEY=VALUE names (defaults shown):")
        with formatter.indentation():
            for line in text.splitlines():
                formatter.write_text(line)


def register(cli: click.Group) -> None:
    cli.add_command(simulate_cmd)


@click.command("simulate", cls=_ListingCommand)
@click.option("--problem", required=True, help="quadratic | quadratic-diagonal | quadratic-rotated | logistic | lower-bound | nonconvex (hyphens and underscores alike)")
@click.option("--algorithm", default="fedavg", show_default=True,
              help="fedavg fedprox scaffold fast f3ast amplified-fedavg amplified-scaffold")
@click.option("--pattern", default="uniform", show_default=True,
              help="uniform cyclic regularized arbitrary fast availability")
@click.argument("assignments", nargs=-1)
@click.option("--trials", type=INDEX_COUNT, default=20, show_default=True, help="independent runs (one batch)")
@click.option("--rounds", type=INDEX_COUNT, default=100, show_default=True, help="communication rounds")
@click.option("--device", default="auto", show_default=True, help="auto | cpu | cuda")
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="write per-round means and CI (CSV)")
@click.option("--json", "as_json", is_flag=True, help="print the summary as JSON")
@click.option("--target", default=None, help="report the first round with mean objective gap <= EPS")
@seed_option()
@click.option("--force", is_flag=True, help="overwrite --out (a regular file only)")
@click.option("--exact", is_flag=True,
              help="exact expectations from the moment recursion (quadratics.exact: no trials, no sampling error, "
                   "a floating-point error bound per value) where the problem, algorithm and pattern declare their "
                   "laws; otherwise one line says which declaration is missing (exit 2)")
def simulate_cmd(problem, algorithm, pattern, assignments, trials, rounds, device, out, as_json, target, seed,
                 force, exact) -> int:
    """Simulate T trials of an algorithm; report final metrics with confidence intervals.

    Metrics per round: F(x)-F*, ||grad F(x)||^2, ||x-x*||^2 (and f_log for lower-bound, where
    --target is checked on f_log as the paper logged it; rounds_to.round_true_f is on f).
    Sizes that cannot fit in memory or in CONVBOUND_MAX_SECONDS (default 600) are refused up
    front with the estimate. Exit status 1 when every trial diverged (the summary says so).
    \f
    The reason for the parameter count: click passes one parameter per option.
    """
    from reports.cli.common import parse_number

    check_device(device)
    values = parse_assignments(assignments)
    _refuse_non_finite_and_bad_seeds(values)
    eps = None if target is None else parse_number("--target", target)
    if eps is not None and eps <= 0:
        raise _bad(f"--target={target} must be positive (an accuracy such as 1e-3)")
    if out is not None:
        check_output_path(out, force=force)  # before minutes of simulation, not after
    from quadratics.engine import resolve_device, simulate
    from quadratics.registry import ALGORITHMS, PATTERNS, PROBLEMS, build

    problem = _canonical("problem", problem, PROBLEMS)
    pattern = _canonical("pattern", pattern, PATTERNS)
    algorithm = _canonical("algorithm", algorithm, ALGORITHMS)
    if exact:
        if out is not None or eps is not None:
            raise _bad("--exact prints exact expectations: --out (per-round CSV of a simulation) and --target do "
                       "not apply; drop them or drop --exact")
        # one trial of one round sizes the round maps (M, d, K); the horizon costs only log R matrix products
        _refuse_absurd_sizes(problem, algorithm, values, 1, 1, PROBLEMS, ALGORITHMS)
        built = build(problem, pattern, algorithm, values)
        _refuse_costly_exact(built, rounds)
        return _exact(built, rounds, as_json)
    _refuse_absurd_sizes(problem, algorithm, values, trials, rounds, PROBLEMS, ALGORITHMS)
    dev = resolve_device(device)
    prob, pat, alg = build(problem, pattern, algorithm, values)
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    show = console.is_terminal and rounds * trials >= 20000
    with Progress(console=console, transient=True, disable=not show) as bar:
        task = bar.add_task("simulating", total=rounds)
        sim = simulate(prob, alg, pat, trials, rounds, seed=seed, device=dev,
                       progress=(lambda r: bar.update(task, completed=r)) if show else None)
    summary = sim.summary(eps).to_dict()
    d = summary["diverged"]
    all_diverged = d["count"] >= d["trials"]
    summary["status"] = "all trials diverged" if all_diverged else "ok"
    if out is not None:
        atomic_write_text(out, sim.to_csv(), force=force)
        summary["csv"] = str(out)
    if as_json:
        echo_json(summary)
    else:
        _print_summary(summary, alg, pat, prob, trials, rounds, eps)
    if all_diverged:
        click.echo(f"convbound: every one of the {d['trials']} trials diverged (first at round {d['first_round']}): "
                   "no metric to report; lower the step size", err=True)
        return EXIT_ALL_DIVERGED
    return 0


def _exact(built, rounds: int, as_json: bool) -> int:
    """Print the exact E of each metric at round R and averaged over rounds 1..R, each with its rounding bound."""
    from dataclasses import asdict

    from quadratics.exact import exact_moments

    prob, pat, alg = built
    res = exact_moments(prob, alg, pat, rounds)  # UserInputError (one line, exit 2) when a declaration is missing
    if as_json:
        echo_json({"method": "exact moments (no trials)", **asdict(res)})
        return 0
    from rich.table import Table

    from reports.cli.common import out_console

    table = Table(title=esc(f"{alg.name} / {pat.name} / {prob.name}: exact, {rounds} rounds (law: {res.law})"))
    for col in ("metric", f"E at round {rounds}", "± rounding bound", f"mean of E over rounds 1..{rounds}",
                "± rounding bound"):
        table.add_column(col)
    for m in res.final:
        table.add_row(esc(m), f"{res.final[m]:.10g}", f"{res.final_err[m]:.2g}", f"{res.mean[m]:.10g}",
                      f"{res.mean_err[m]:.2g}")
    con = out_console()
    con.print(table)
    con.print(esc(f"no sampling error: the values are expectations over participation and noise, computed from "
                  f"the moment recursion (order {res.order}) in {res.wall_seconds:.3g} s; each ± is an upper bound "
                  "on its floating-point error"))
    return 0


def _refuse_non_finite_and_bad_seeds(values) -> None:
    """Every KEY=VALUE number of a simulation is finite (eta=inf, mu_prox=nan mean nothing), and the
    instance seed lies in the seed range, whatever the component that reads it."""
    import math

    from reports.cli.common import SEED_MAX

    for key, text in values.items():
        try:
            x = float(text)
        except ValueError:
            continue  # text keys (dist, base, variant) and non-numbers: the registry names them
        if not math.isfinite(x):
            raise _bad(f"{key}={text} is not allowed; give a finite number")
        if key == "instance" and not (x.is_integer() and 0 <= x <= SEED_MAX):
            raise _bad(f"instance={text} is a seed: give an integer with 0 <= instance < 2^63")


def _bad(message: str) -> Exception:
    from bounds.core.errors import UserInputError

    return UserInputError(message)


def _canonical(kind: str, word: str, table) -> str:
    from reports.cli.common import canonical_name

    return canonical_name(kind, word, table)


def _refuse_absurd_sizes(problem, algorithm, values, trials, rounds, problems, algorithms) -> None:
    """Read the sizes (M clients, dimension d, K local steps) as the run will and refuse what cannot fit."""
    from bounds.core.limits import Cost, refuse_if_too_big, simulation_cost
    from reports.cli.common import parse_number

    def size(key: str, table, name: str, default: int) -> int:
        spec = table.get(name)
        if key in values:
            x = parse_number(key, values[key])
        elif spec is not None and key in spec.keys and spec.keys[key].default is not None:
            x = float(spec.keys[key].default)
        else:
            return default
        return max(1, int(min(x, 1e30)))  # the registry rejects non-integers and non-positive sizes itself

    M = size("M", problems, problem, 10)
    d = size("d", problems, problem, 4)
    K = size("K", algorithms, algorithm, 1)
    refuse_if_too_big(simulation_cost(trials, rounds, M, d, K),
                      "lower --trials, --rounds, M, d or K")
    if problem in DENSE_HESSIAN:  # its builder holds a d x d matrix before any round (d = 100,000: 80 GB)
        refuse_if_too_big(Cost(8.0 * d * d, 0.0, f"the {problem} problem's d x d Hessian (d = {d})"), "lower d",
                          ("d", d))


#: Problems whose builder holds a dense d x d matrix (the per-client curvature families refuse their M x d x d
#: themselves, quadratics.curvature).
DENSE_HESSIAN = frozenset({"quadratic"})


def _refuse_costly_exact(built, rounds: int) -> None:
    """The exact moment recursion's matrices (order^2 numbers per block, repeated squaring over log R products),
    sized from the built objects as a search sizes an exact point (verify.search.cost), before any is made."""
    from bounds.core.limits import exact_cost, refuse_if_too_big
    from quadratics.exact.evaluate import applies, exact_shape

    prob, pat, alg = built
    if not applies(prob, alg, pat, rounds)[0]:
        return  # nothing to size: the exact evaluation refuses the instance itself, saying which declaration is missing
    order, blocks = exact_shape(prob, alg, pat)
    M, d, K = (max(1, int(getattr(o, a, 1) or 1)) for o, a in ((prob, "M"), (prob, "d"), (alg, "K")))
    setup = (60.0 * M * d + 6.0 * K * d, 12.0 * M * d) if blocks > 1 else (0.0, 0.0)
    refuse_if_too_big(exact_cost(order, rounds, blocks, setup), "lower d or M (the moment matrices grow with d^2 "
                      "unless the problem is coordinate-wise), or drop --exact and simulate")


def _print_summary(summary, alg, pat, prob, trials, rounds, eps) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=esc(f"{alg.name} / {pat.name} / {prob.name}: {trials} trials, {rounds} rounds"))
    levels = {f["level"] for f in summary["final"].values()}
    for col in ("metric", "mean", " / ".join(f"{lv:.0%} CI" for lv in sorted(levels)) or "CI", "trials"):
        table.add_column(col)
    for name, f in summary["final"].items():
        table.add_row(esc(name), esc(f"{f['mean']:.6g}"), esc(f"[{f['ci_low']:.6g}, {f['ci_high']:.6g}]"),
                      str(f["trials"]))
    out = Console()
    out.print(table)
    rt = summary["rounds_to"]
    if eps is not None:
        out.print(esc(f"rounds to {rt['metric']} <= {eps}: {rt['round']}"
                      + (f" (true f: {rt.get('round_true_f')})" if "round_true_f" in rt else "")))
    d = summary["diverged"]
    out.print(esc(f"diverged: {d['count']} of {d['trials']}" + (f", first at round {d['first_round']}" if d["count"] else "")))
    out.print(esc(f"client local steps per second: {summary['steps_per_second']:,.0f} on {summary['versions']['device']}"))
