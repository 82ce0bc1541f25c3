"""`convbound conform`: check a user's federated implementation against the algorithm and law it claims."""

from __future__ import annotations

import click

from reports.cli.common import (
    atomic_write_text,
    check_output_path,
    dumps,
    echo_json,
    esc,
    progress_bar,
    seed_option,
)

ALGORITHM_NAMES = ("fedavg", "fedprox", "scaffold", "fast", "f3ast", "amplified_fedavg", "amplified_scaffold",
                   "fedavgm", "fedadam", "fedyogi", "fedadagrad")
SECONDS = 60  # the default time limits (verify.conformance.limits; kept apart so that --help needs no import)
LAW_NAMES = ("uniform", "bernoulli", "cyclic", "fast-snapshot", "static-policy")


def register(cli: click.Group) -> None:
    cli.add_command(conform_cmd)


@click.command("conform")
@click.argument("implementation", metavar="FILE.py:NAME")
@click.option("--algorithm", required=True, metavar="NAME",
              help=f"The algorithm the implementation claims: {', '.join(ALGORITHM_NAMES)}.")
@click.option("--law", required=True, metavar="NAME", help=f"The participation law it claims: {', '.join(LAW_NAMES)}.")
@click.option("--form", default="function", show_default=True, metavar="FORM",
              help="function: round_fn(x, cohort, K, rng, state); torch: step(x [T, d], cohort, K, generator, "
                   "state); flower: make_strategy(setting) -> flwr Strategy.")
@click.option("--trials", type=int, default=None, help="Trials per scenario (default: 300 function, 2000 torch, "
                                                        "200 flower).")
@click.option("--alpha", type=float, default=1e-3, show_default=True, help="Family-wise error rate (Bonferroni).")
@click.option("--rounds", type=int, default=6, show_default=True, help="Rounds per scenario.")
@click.option("--round-seconds", type=float, default=float(SECONDS), show_default=True,
              help="Time limit of one call of the implementation (a round of one trial; torch: of all trials; "
                   "flower: one round of one run).")
@click.option("--import-seconds", type=float, default=float(SECONDS), show_default=True,
              help="Time limit of importing FILE.py or the module.")
@seed_option()
@click.option("--out", default=None, metavar="FILE.json", help="Write the record as JSON.")
@click.option("--force", is_flag=True, help="Overwrite --out.")
@click.option("--json", "as_json", is_flag=True, help="Print the record as JSON.")
def conform_cmd(implementation: str, algorithm: str, law: str, form: str, trials: int | None, alpha: float,
                rounds: int, round_seconds: float, import_seconds: float, seed: int, out: str | None, force: bool,
                as_json: bool) -> None:
    """Run IMPLEMENTATION (FILE.py:NAME or package.module:NAME) on quadratic clients and compare the mean and
    second moment of its model at every round with the claimed algorithm's exact moments under the claimed law.
    Exit 0 when it conforms, 1 when it departs, 2 on bad input.
    \f
    The reason for the parameter count: click passes one parameter per option.
    """
    from verify.conformance import conform
    from verify.conformance.check import check_request
    from verify.conformance.limits import check_seconds
    from verify.conformance.load import load_implementation

    # before loading: a wrong name or a count that cannot fit is one line without running the user's module
    check_request(algorithm, law, form, trials, alpha, rounds)
    check_seconds("round_seconds", round_seconds)
    if out is not None:
        check_output_path(out, force=force)
    impl = load_implementation(implementation, check_seconds("import_seconds", import_seconds))
    with progress_bar() as bar:  # seconds to minutes with the user's code: a spinner on a terminal only
        bar.add_task(f"conform: {implementation} against {algorithm} under {law}", total=None)
        result = conform(impl, algorithm=algorithm, law=law, form=form, trials=trials, seed=seed, alpha=alpha,
                         rounds=rounds, round_seconds=round_seconds, name=implementation)
    if out is not None:
        atomic_write_text(out, dumps(result.to_dict()), force=force)
    if as_json:
        echo_json(result.to_dict())
    else:
        click.echo(esc(result.message))
        for sc in result.scenarios:
            ref = sc.reference if sc.reference == "exact" else f"{sc.reference} ({sc.why_not_exact})"
            click.echo(esc(f"  {sc.name}: {sc.family}, sigma {sc.sigma:g}, {sc.trials} trials, {sc.rounds} rounds, "
                           f"reference {ref}; max |z| {sc.max_abs_z:.2f}, {sc.departures} departures"))
    if not result.conforms:
        raise click.exceptions.Exit(1)
