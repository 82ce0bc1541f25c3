"""`convbound worst-case`: exact worst case of a federated method by performance estimation."""

from __future__ import annotations

import click

from bounds.core.errors import UserInputError
from reports.cli.common import COUNT, echo_json, save_evidence, write_store_options


@click.command("worst-case")
@click.option("--method", default="local_gd", show_default=True, help="local_gd | scaffold | fast")
@click.option("--L", "L", type=float, default=1.0, show_default=True, help="smoothness of every client")
@click.option("--mu", type=float, default=0.1, show_default=True, help="strong convexity (0: convex)")
@click.option("--zeta", type=float, default=0.0, show_default=True,
              help="heterogeneity at the optimum: ||grad f_i(x*)|| <= zeta")
@click.option("--eta", type=float, required=True, help="client step size")
@click.option("--K", "K", type=int, default=1, show_default=True, help="local steps per round")
@click.option("--R", "R", type=int, default=1, show_default=True, help="rounds")
@click.option("--M", "M", type=int, default=2, show_default=True,
              help="clients (2 is exact for symmetric methods)")
@click.option("--eta-g", type=float, default=1.0, show_default=True, help="server step size")
@click.option("--D0", "D0", type=float, default=1.0, show_default=True, help="bound on ||x0 - x*||^2")
@click.option("--measure", default="dist_sq", show_default=True, help="dist_sq (||x_R-x*||^2) | gap (F(x_R)-F*)")
@click.option("--interval", "I", type=COUNT, default=2, show_default=True,
              help="fast: rounds 0, I, 2I, ... are snapshot rounds (all clients)")
@click.option("--cohort", "S", type=COUNT, default=1, show_default=True,
              help="fast: the other rounds aggregate clients 0..S-1")
@click.option("--participation", "law", default=None,
              help="a random law drawn every round: full | uniform:m | bernoulli:p | snapshot:q,m,uniform:n | "
                   "snapshot:q,m,cohort:n (FAST's coin; with --method fast it replaces the fixed schedule)")
@click.option("--sigma", type=float, default=0.0, show_default=True,
              help="noise level of each local gradient: E||xi||^2 <= sigma^2 (the value is then an upper bound)")
@click.option("--solver", default="CLARABEL", show_default=True, help="CLARABEL | SCS (through cvxpy)")
@click.option("--max-seconds", type=float, default=600.0, show_default=True,
              help="refuse instances whose estimated solve time exceeds this (memory is bounded accordingly)")
@click.option("--relaxed", is_flag=True,
              help="a random law by its moments: an upper bound (exact for R = 1) whose size grows linearly in R "
                   "instead of with the number of pattern sequences")
@click.option("--per-round", is_flag=True,
              help="instead: the per-round certificate E||x_{r+1}-x*||^2 <= rho E||x_r-x*||^2 + c (one-round SDP, "
                   "any R, even 10^22) and its bound at R")
@click.option("--banded", is_flag=True,
              help="long horizons (K x R up to about 1,000): a certified upper bound from the PEP restricted to pairs of "
                   "points at most --window local steps apart, solved on its chordal pattern (local_gd, full "
                   "participation, dist_sq), with a bracket of the exact value (lower end: the farthest fixed point of "
                   "one round, proved, or a quadratic instance attained in floating point; the record says which)")
@click.option("--window", type=int, default=None,
              help="--banded: keep the interpolation inequalities of points at most this many local steps apart "
                   "(and those with x*); K x R - 1 or more keeps them all (the full PEP)  [default: 1]")
@click.option("--nonconvex", is_flag=True,
              help="L-smooth, possibly non-convex clients (mu ignored): --measure min_grad_sq | avg_grad_sq | "
                   "avg_grad_sq0 | gap, --Delta, --initial, --hetero; --zeta bounds ||grad f_i - grad F|| "
                   "(verify.pep.nonconvex); --window: the chordal route (full participation)")
@click.option("--Delta", "Delta", type=float, default=1.0, show_default=True,
              help="--nonconvex: F(x0) - F_inf <= Delta (or F(x0) - F(x_R) with --initial F_R)")
@click.option("--initial", default="F_inf", show_default=True, help="--nonconvex: F_inf | F_R")
@click.option("--hetero", default="evaluated", show_default=True,
              help="--nonconvex: dissimilarity at every evaluated point (evaluated) or at the models x_r (rounds)")
@click.option("--json", "as_json", is_flag=True, help="print the WorstCase record as JSON")
@write_store_options
def worst_case_cmd(method, L, mu, zeta, eta, K, R, M, eta_g, D0, measure, I, S, law, sigma, solver,  # noqa: E741
                   max_seconds, relaxed, per_round, banded, window, nonconvex, Delta, initial, hetero,
                   as_json, store=None, no_store=False) -> None:
    """Exact worst case over smooth (strongly) convex clients with heterogeneity at the optimum.

    Solves the performance-estimation SDP (Clarabel or SCS through cvxpy) of the method under the
    participation law, the worst case of the expected measure, rechecks its dual certificate in exact
    arithmetic, and prints the worst case, the certificate's status, the solve time, and the tightness
    (worst case / bound) of every encoded result that covers the setting, with the reason for the others.
    Sizes are estimated first: an SDP over the time (or the memory it implies) is refused with the estimate.
    \f
    The reason for the parameter count: click passes one parameter per option.
    """
    from verify.evidence.store import writing_path

    store_path = writing_path(store, no_store)
    if nonconvex or per_round:  # no record decide reads yet: refused when asked for, else nothing is written
        if store is not None:
            raise UserInputError("--store keeps the worst case of the whole horizon (no --nonconvex, no --per-round "
                                 "record is evidence decide reads yet); drop --store or those options")
        store_path = None
    if nonconvex:
        from reports.cli.worstcase_nonconvex import run_nonconvex

        run_nonconvex(dict(method=method, L=L, zeta=zeta, eta=eta, K=K, R=R, M=M, eta_g=eta_g, Delta=Delta,
                           measure=measure, initial=initial, hetero=hetero, law=law, sigma=sigma, window=window,
                           max_seconds=max_seconds, relaxed=relaxed, per_round=per_round, banded=banded,
                           as_json=as_json))
        return
    from verify.pep import Setting, parse_law, solve

    parsed = parse_law(law) if law is not None else None
    fixed = method == "fast" and parsed is None  # FAST's deterministic interval, generated round by round
    setting = Setting(method=method, L=L, mu=mu, zeta=zeta, eta=eta, K=K, R=R, M=M, eta_g=eta_g, D0=D0,
                      measure=measure, I=I if fixed else None, S=S if fixed else None, law=parsed, sigma=sigma)
    if per_round:
        _per_round(setting, solver, max_seconds, as_json)
        return
    if window is not None and not banded:
        raise UserInputError(f"--window {window} needs --banded (the window of the banded route)")
    if banded:
        from verify.pep.banded import solve_banded

        if relaxed or not isinstance(solver, str) or solver.upper() != "CLARABEL":
            raise UserInputError("--banded solves with Clarabel and full participation: drop --relaxed and "
                                 "--solver (valid: --solver CLARABEL)")
        with _spinner(setting):
            wc = solve_banded(setting, window=1 if window is None else window, max_seconds=max_seconds)
    else:
        with _spinner(setting):
            wc = solve(setting, solver=solver, max_seconds=max_seconds, relaxed=relaxed)
    record = wc.to_dict()
    if wc.success:
        from verify.evidence.records import worst_case_records

        save_evidence(store_path, lambda: worst_case_records(wc))
    if as_json:
        echo_json(record)
    else:
        _print(record)
    if not wc.success:  # the solver returned no value: the record says why, the exit status says it failed
        raise SystemExit(1)


def _spinner(setting):
    """A spinner on a terminal while the SDP is built and solved (seconds to minutes; nothing when piped)."""
    from reports.cli.common import progress_bar

    bar = progress_bar()
    bar.add_task(f"worst case of {setting.method}, K = {setting.K}, R = {setting.R}: solving", total=None)
    return bar


def _per_round(setting, solver: str, max_seconds: float, as_json: bool) -> None:
    from dataclasses import replace

    from verify.pep import check_size, validate
    from verify.pep.lyapunov import record

    validate(setting)
    check_size(replace(setting, R=1), max_seconds)  # the one-round SDP, before anything is built
    rec = record(setting, [setting.R], solver=solver.upper() if isinstance(solver, str) else solver)
    if as_json:
        echo_json(rec)
        return
    for ln in rec["lines"]:
        click.echo(f"per round (tangent at D={ln['D']:.6g}): E||x_(r+1)-x*||^2 <= {ln['rho']:.10g} E||x_r-x*||^2 "
                   f"+ {ln['c']:.6g}  (exact recheck; solver {ln['solver_status']})")
    click.echo(f"bound at R={setting.R}: {rec['bounds'][str(setting.R)]:.10g} (for every R: iterate the minimum "
               "of these lines from D0)")


def _print(record: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    con = Console()
    p = record["parameters"]
    cert = record["certificate"]
    what = "||x_R - x*||^2" if p["measure"] == "dist_sq" else "F(x_R) - F*"
    expect = "E " if p.get("participation") not in (None, "full", "schedule") or p.get("sigma") else ""
    con.print(f"{record['method']}: worst case of {expect}{what} = {record['value']} ({record['exactness']}; "
              f"primal {record['primal_value']}; solver {record['solver']}: {record['solver_status']}; "
              f"certificate: {cert.get('status')}; {record['solve_seconds']:.2f} s)")
    con.print("parameters: " + ", ".join(f"{k}={v}" for k, v in p.items() if k != "schedule"))
    con.print(f"symmetry: {record['symmetry']}")
    if cert.get("status") != "failed":
        margin = (f"residual smallest eigenvalue {cert['min_eig_float']:.2e}" if "min_eig_float" in cert else
                  f"residual proved positive semidefinite (margin t = {cert.get('t', float('nan')):.2e})")
        con.print(f"dual certificate ({cert.get('recheck')}): proved upper bound {cert.get('proved_upper_bound')}; "
                  f"{margin}, largest multiplier fix {cert.get('balance_fix', float('nan')):.2e}"
                  + (f"; {cert['reason']}" if cert.get("reason") else ""))
    else:
        con.print(f"no value: {cert.get('reason')}")
    for note in record["notes"]:
        con.print(f"note: {note}")
    table = Table(title="encoded results and this setting")
    for col in ("result", "covers", "bound", "worst / bound", "hypotheses"):
        table.add_column(col, overflow="fold")
    rows = [row for row in record["coverage"] if row["covers"] != "no"]
    for row in rows:
        ratio = row.get("ratio")
        hyps = row.get("hypotheses", {})
        failed = [name for name, ok in hyps.items() if ok is False]
        unknown = [name for name, ok in hyps.items() if ok is None]
        hyp = ("FAIL: " + "; ".join(failed)) if failed else ("unverified: " + "; ".join(unknown)) if unknown else "hold"
        table.add_row(row["key"], row["covers"], f"{row.get('bound', float('nan')):.6g}",
                      "n/a" if ratio is None else f"{ratio:.4f}", hyp)
    shown = len(rows)
    if shown:
        con.print(table)
        for reason in dict.fromkeys(row["reason"] for row in rows):
            con.print(f"why: {reason}")
        if any(row.get("hypotheses_hold") is not True for row in rows):
            con.print("a ratio whose hypotheses do not all hold measures the formula only, not the theorem")
    others = len(record["coverage"]) - shown
    con.print(f"{shown} encoded result(s) cover or compare with this setting; {others} do not "
              f"(reasons in --json, field coverage)")


def register(cli: click.Group) -> None:
    cli.add_command(worst_case_cmd)
