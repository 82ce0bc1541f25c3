"""`convbound region`: achievable participation rates, r* = argmin H, membership, the F3AST sampler."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from bounds.core.errors import UserInputError
from reports.cli.common import (
    COUNT,
    FINITE,
    SEED,
    atomic_write_bytes,
    canonical_name,
    check_output_path,
    check_output_paths,
    echo_json,
    esc,
    figure_bytes,
    parse_float_list,
    short_text,
)


def register(cli: click.Group) -> None:
    cli.add_command(region_cmd)


def _read_weights(path: str) -> list[float]:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserInputError(f"weights file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserInputError(f"cannot read weights file {path}: {exc}") from None
    text = text.strip()
    if text.startswith("["):
        try:
            vals = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UserInputError(f"weights file {path}: malformed JSON at line {exc.lineno}: {exc.msg}") from None
        if not isinstance(vals, list) or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            raise UserInputError(f"weights file {path}: expected a JSON list of numbers")
        return [float(v) for v in vals]
    words = text.replace(",", " ").split()
    try:
        vals = [float(w) for w in words]
    except ValueError:
        vals = []
    if not vals:
        raise UserInputError(f"weights file {path}: expected numbers separated by spaces, commas or newlines, "
                             "or a JSON list such as [0.5, 0.5]")
    return vals


def _figure_bytes(fig, path: str) -> bytes:
    suffix = Path(path).suffix.lower().lstrip(".") or "png"
    if suffix not in ("png", "pdf", "svg"):
        raise UserInputError(f"--plot {path}: unsupported format {suffix!r}; use .png, .pdf or .svg")
    return figure_bytes(fig, suffix, bbox_inches="tight")


@click.command("region")
@click.option("--model", "model_spec", required=True, metavar="NAME|FILE",
              help="A named model (table1, table1-markov, always, scarce, home-devices, smartphones, uneven, cyclic) or a "
                   "model file: TOML, or Parquet/CSV/NPZ with columns q, weight, k (docs/audit.md).")
@click.option("--clients", type=COUNT, default=None, help="Number of clients of a named model (default: the paper's, 100).")
@click.option("--model-seed", type=SEED, default=0, show_default=True, help="Seed of a named model's random parameters.")
@click.option("--k", "k", type=int, default=None, help="Cap: at most K clients per round (default: the model's).")
@click.option("--objective", type=click.Choice(["p2", "p"]), default="p2", show_default=True,
              help="H = sum p^2/r (p2) or sum p/r (p), eq. (3).")
@click.option("--weights", "weights_file", default=None, metavar="FILE", help="Weights p (JSON list or numbers); default the model's (uniform except 'uneven').")
@click.option("--method", type=click.Choice(["auto", "polymatroid", "enumeration", "cvxpy"]), default="auto", show_default=True)
@click.option("--check", "check", default=None, metavar="r1,r2,...", help="Test whether this rate vector is achievable.")
@click.option("--simulate", is_flag=True, help="Run the F3AST sampler (eqs. 4-5) and report the distance to r*.")
@click.option("--sampler", type=click.Choice(["f3ast", "naive"]), default="f3ast", show_default=True)
@click.option("--beta", type=FINITE, default=1e-3, show_default=True, help="Rate smoothing beta of eq. (5).")
@click.option("--rounds", type=COUNT, default=20_000, show_default=True)
@click.option("--runs", type=COUNT, default=8, show_default=True)
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the simulation.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--arrays", "arrays_file", default=None, metavar="FILE.npz",
              help="With --json: write r*, p and the levels to this .npz file and name it in the JSON "
                   "(default: the arrays are printed whole inside the JSON).")
@click.option("--plot", default=None, metavar="FILE", help="Write a plot (.png/.pdf/.svg) of R, or of r(t) with --simulate.")
@click.option("--force", is_flag=True, help="Overwrite the --plot (or --arrays) file (a regular file only).")
def region_cmd(**options: Any) -> None:
    """Achievable participation rates R (F3AST eq. 2), r* = argmin H (eq. 3), membership, and the sampler."""
    o = RegionOptions(**options)
    r = _checked(o)
    model, cap, p = _model(o)
    if r is not None:
        _membership(o, model, cap, r)
    elif o.simulate:
        _simulation(o, model, cap, p)
    else:
        _optimum(o, model, cap, p)


@dataclass(frozen=True)
class RegionOptions:
    """The command line of ``region``, one field per option (click passes them by name)."""

    model_spec: str
    clients: int | None
    model_seed: int
    k: int | None
    objective: str
    weights_file: str | None
    method: str
    check: str | None
    simulate: bool
    sampler: str
    beta: float
    rounds: int
    runs: int
    seed: int
    as_json: bool
    plot: str | None
    force: bool
    arrays_file: str | None = None


def _checked(o: RegionOptions) -> list[float] | None:
    """Refuse contradictory or out-of-range options before any work; the rates of ``--check`` if given."""
    if o.arrays_file is not None:
        if not o.as_json or o.check is not None or o.simulate:
            raise UserInputError("--arrays goes with --json when computing r* (not with --check or --simulate)")
        if Path(o.arrays_file).suffix.lower() != ".npz":
            raise UserInputError(f"--arrays {o.arrays_file}: the file name must end in .npz")
        check_output_path(o.arrays_file, force=o.force)
    if o.check is not None and o.simulate:
        raise UserInputError("--check and --simulate cannot be combined; run them separately")
    if o.plot is not None:
        check_output_paths(o.force, {"--arrays": o.arrays_file, "--plot": o.plot})  # before the work, not after
        if Path(o.plot).suffix.lower() not in (".png", ".pdf", ".svg", ""):
            raise UserInputError(f"--plot {short_text(o.plot)}: unsupported format; use .png, .pdf or .svg")
    if not 0 < o.beta <= 1:
        raise UserInputError(f"--beta {o.beta} must lie in (0, 1] (rate smoothing of eq. (5))")
    r = None
    if o.check is not None:
        r = parse_float_list("--check", o.check)
        if any(not 0 <= x <= 1 for x in r):
            raise UserInputError(f"--check {short_text(o.check)}: rates are probabilities per round and must lie "
                                 "in [0, 1]")
    if o.clients is not None:
        from bounds.core.limits import refuse_if_too_big, region_cost

        refuse_if_too_big(region_cost(o.clients, o.rounds if o.simulate else 0, o.runs if o.simulate else 0),
                          "lower --clients" + (", --rounds or --runs" if o.simulate else ""))
    return r


def _model(o: RegionOptions) -> tuple[Any, Any, Any]:
    """The availability model (a name or a file), its cap and the weights p (None: the model's)."""
    import numpy as np

    from bounds.core.limits import region_max_clients
    from rate_region.availability import make_cap
    from rate_region.modelfile import get_model, is_model_file
    from rate_region.models import MODEL_NAMES

    spec = o.model_spec
    if not is_model_file(spec):
        spec = canonical_name("availability model", spec, MODEL_NAMES)  # home_devices = home-devices
    model = get_model(spec, o.clients, o.model_seed, k=o.k, max_clients=region_max_clients())
    cap = make_cap(o.k, model.cap)
    p = None if o.weights_file is None else np.asarray(_read_weights(o.weights_file))
    return model, cap, p


def _membership(o: RegionOptions, model: Any, cap: Any, r: list[float]) -> None:
    import numpy as np

    from rate_region.region import membership

    res = membership(model, cap, r)
    fig = None
    if o.plot is not None and model.n_clients <= 64:
        from rate_region.plots import plot_region

        fig = plot_region(model, cap, points={"r": np.asarray(r)})
    if o.as_json:
        echo_json(res.to_dict())
    else:
        _print_membership(res)
    if fig is not None and o.plot is not None:
        atomic_write_bytes(o.plot, _figure_bytes(fig, o.plot), force=o.force)


def _simulation(o: RegionOptions, model: Any, cap: Any, p: Any) -> None:
    from rate_region.sampler import simulate_sampler

    run = simulate_sampler(model, cap, p, beta=o.beta, rounds=o.rounds, runs=o.runs, seed=o.seed, sampler=o.sampler,
                           objective=o.objective)
    if o.as_json:
        echo_json(run.to_dict())
    else:
        _print_simulation(run)
    if o.plot is not None:
        from rate_region.plots import plot_trajectory

        atomic_write_bytes(o.plot, _figure_bytes(plot_trajectory(run), o.plot), force=o.force)


def _optimum(o: RegionOptions, model: Any, cap: Any, p: Any) -> None:
    from rate_region.optimum import min_variance_rates

    opt = min_variance_rates(model, cap, p, o.objective, method=o.method)
    if o.as_json:
        if o.arrays_file is not None:
            atomic_write_bytes(o.arrays_file, opt.arrays_npz(), force=o.force)
        d = opt.to_dict(arrays_file=o.arrays_file)
        d["model"] = model.describe()
        if model.n_clients <= 4:
            from rate_region.region import extreme_points, naive_rate

            d["vertices"] = extreme_points(model, cap).tolist()
            nr = naive_rate(model, cap, opt.p)
            d["naive_rate"] = None if nr is None else nr.tolist()
        echo_json(d)
    else:
        _print_optimum(model, opt)
    if o.plot is not None:
        from rate_region.plots import plot_region

        fig = plot_region(model, cap, points={"r*": opt.r_star})
        atomic_write_bytes(o.plot, _figure_bytes(fig, o.plot), force=o.force)
    if not opt.success:
        raise UserInputError(f"no optimum: {opt.message}")


def _fmt(v, n=20) -> str:
    v = list(v)
    s = ", ".join(f"{x:.6g}" for x in v[:n])
    return "(" + s + (f", ... {len(v) - n} more" if len(v) > n else "") + ")"


def _print_optimum(model, opt) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=esc(f"r* = argmin H over R: {model.name}, {model.n_clients} clients, cap {opt.cap['description']}"))
    t.add_column("quantity")
    t.add_column("value")
    rows = [("r*", _fmt(opt.r_star)), (f"H(r*), objective {opt.objective}", f"{opt.H:.10g}"),
            ("H(1) full participation", f"{opt.H_full:.10g}"),
            ("price H(r*)/H(1)", f"{opt.H / opt.H_full:.6g}" if opt.H_full > 0 else "-"),
            ("method", opt.method + (f" ({opt.solver})" if opt.solver else "")),
            ("status", f"{opt.status}: {opt.message}")]
    if opt.kkt:
        rows.append(("KKT", ", ".join(f"{k}={v:.3g}" for k, v in opt.kkt.items() if v is not None)))
    for name, value in rows:
        t.add_row(esc(name), esc(value))
    Console().print(t)


def _print_membership(res) -> None:
    from rich.console import Console

    con = Console()
    con.print(esc(f"r = {_fmt(res.r)}: ") + f"[bold]{'achievable' if res.achievable else 'NOT achievable'}[/bold] "
              + esc(f"({res.method})"))
    con.print(esc(res.message))
    if res.direction is not None:
        con.print(esc(f"separating direction d = {_fmt(res.direction)}: d.r - max_R d.x = {res.margin:.6g} > 0"))
    if res.policy is not None:
        d = res.policy.to_dict(max_rows=30)
        con.print(esc(f"static policy ({d['n_rows']} rows; configuration -> selected set with probability):"))
        for row in d["rows"]:
            con.print(esc(f"  A={row['available']} (K={row['cap']}, pi={row['config_prob']:.4g}): "
                          f"select {row['select']} w.p. {row['prob']:.4g}"))
        if d["truncated"]:
            con.print("  ... (use --json for all rows)")


def _print_simulation(run) -> None:
    from rich.console import Console

    con = Console()
    s = run.summary()
    con.print(esc(f"{run.sampler} sampler, beta={run.beta:g}, {run.rounds} rounds x {run.runs} runs (seed {run.seed})"))
    con.print(esc(f"mean final r(T)          = {_fmt(s['mean_final_r'])}"))
    con.print(esc(f"selection freq (2nd half) = {_fmt(s['mean_frequency'])}"))
    if run.r_star is not None:
        con.print(esc(f"r* ({run.r_star_method})      = {_fmt(run.r_star)}"))
        for key in ("distance_final", "distance_frequency"):
            d = s[key]
            con.print(esc(f"{key}: mean {d['mean']:.4g}, {d['level']:.0%} CI [{d['ci'][0]:.4g}, {d['ci'][1]:.4g}], "
                              f"max {d['max']:.4g}"))
