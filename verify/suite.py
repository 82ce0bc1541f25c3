"""Run the certificates, rate checks and controls: ``run_suite(ids="all", quick=False, ...)``.

Each check group (a certificate with its hypothesis-breaking control, a rate fit, a control) is a
:class:`verify.checks.Group` of specs over scenarios, listed in ``CHECKS`` of its paper's module
(``verify.scenarios.fast``, ``f3ast``, ``ascaf``, beside the scenarios) and run by the one runner,
:func:`verify.checks.run_group`; ``ids`` selects groups by exact id or by paper prefix (``FAST``,
``F3AST``, ``ASCAF``). Plugin check groups (``convbound.scenarios`` entry points, ``--plugin`` files
defining ``scenarios()``) follow the built-ins (:mod:`verify.extensions`).
"""

from __future__ import annotations

import dataclasses
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from bounds.core.errors import UserInputError, unknown
from verify.record import Verification
from verify.scenarios import PAPER_MODULES
from verify.verdict import HOLDS, UNVERIFIED

# Groups that take longest (about 14, 4 and 3 s of a 30 s full suite on one core): started first on a
# cluster so that the workers finish together. Scheduling only: a group's numbers never depend on it.
LONG_GROUPS = ("ASCAF.T1", "FAST.T1", "FAST.T1.toy1", "FAST.C3.rate")


def _paper_modules():
    """The paper modules that are present (a missing one is skipped, a broken one raises)."""
    for name in PAPER_MODULES:
        try:
            yield import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise


def registry() -> dict[str, Callable]:
    """Check id -> group (``verify.checks.Group``, or a plugin's ``Check``), called as ``group(ctx)``, in suite order."""
    out: dict[str, Callable] = {}
    for mod in _paper_modules():
        out.update({g.id: g for g in getattr(mod, "CHECKS", ())})
    from verify.extensions import plugin_checks

    return plugin_checks(out)


def control_ids(quick: bool = False, ids: str | Sequence[str] = "all") -> list[str]:
    """Ids of the negative controls the selected check groups must return (each must be ``violated``)."""
    reg = registry()
    out: list[str] = []
    for gid in select(ids):
        out += list(getattr(reg[gid], "controls", ()))
    return out


def select(ids: str | Sequence[str] = "all") -> list[str]:
    """Check ids for ``ids`` ("all", an id, a paper prefix, or a list of those)."""
    reg = registry()
    words = [ids] if isinstance(ids, str) else list(ids)
    chosen: list[str] = []
    for word in words:
        if word == "all":
            hits = list(reg)
        elif word in reg:
            hits = [word]
        else:
            hits = [k for k in reg if k.split(".")[0] == word or k.startswith(word + ".")]
        if not hits:
            raise unknown("check id", word, ["all", *reg, *sorted({k.split('.')[0] for k in reg})])
        chosen += [h for h in hits if h not in chosen]
    return chosen


def versions() -> dict[str, str]:
    import numpy
    import scipy

    out = {"python": platform.python_version(), "numpy": numpy.__version__, "scipy": scipy.__version__}
    try:
        import torch

        out["torch"] = torch.__version__
    except ImportError:  # pragma: no cover
        pass
    try:
        from importlib.metadata import version

        out["convbound"] = version("convbound")
    except Exception:  # pragma: no cover - not installed as a distribution
        pass
    return out


def run_group(check_id: str, quick: bool = False, trials: int | None = None, device: str = "cpu",
              seed: int = 0) -> list[Verification]:
    """One check group's records (the unit of work of a distributed run; ``device`` already resolved).

    The group's numbers depend on ``seed`` and its own id only (each spec's seed is a named stream of
    the base seed keyed by the group id and the spec's position, ``bounds.core.seeds``), so a subset,
    another order or another process gives the same numbers.
    """
    from verify.checks import Context

    ctx = Context(quick=quick, trials=trials, seed=int(seed), device=device)
    t0 = time.perf_counter()
    results = registry()[check_id](ctx)
    elapsed = time.perf_counter() - t0
    vers = versions()
    return [v.replace(versions=vers, device=device, elapsed_s=v.elapsed_s or elapsed) for v in results]


def group_tasks(chosen: Sequence[str], quick: bool, trials: int | None, device: str, seed: int,
                plugins: Sequence[str] = ()) -> list:
    """One :class:`verify.runtime.executor.Task` per check group; each carries this process's plugin files
    (``bounds.plugins.files()`` unless given) so a worker registers the same checks."""
    from bounds.plugins import files
    from verify.runtime.executor import Task

    plugins = tuple(plugins) or files()
    return [Task("verify.suite:run_group", {"check_id": cid, "quick": bool(quick), "trials": trials,
                                            "device": device, "seed": int(seed)}, key=cid, plugins=tuple(plugins),
                 priority=len(LONG_GROUPS) - LONG_GROUPS.index(cid) if cid in LONG_GROUPS else 0)
            for cid in chosen]


def failed_group(outcome) -> Verification:
    """A record standing for a group that did not run: verdict ``unverified``, so the suite is not ok."""
    return Verification(
        id=outcome.key, title=f"check group {outcome.key} did not complete", verdict=UNVERIFIED, expected=HOLDS,
        lhs=float("nan"), ci=(float("nan"), float("nan")), rhs=float("nan"), ratio=float("nan"),
        instance={"task": dict(outcome.inputs)}, kind="certificate", trials=0,
        seed=int(outcome.inputs.get("seed", 0)), notes=(f"INCOMPLETE: {outcome.describe()}",),
    )


@dataclass(frozen=True)
class SuiteOptions:
    """How the suite runs (see :func:`run_suite`'s Args): sizes, device, seed, where the groups run."""

    quick: bool = False
    trials: int | None = None
    device: str = "auto"
    seed: int = 0
    scheduler: str | None = None
    workers: int | None = None
    plugins: Sequence[str] = ()


def run_groups(ids: str | Sequence[str] = "all", options: SuiteOptions | None = None, *,
               progress: Callable[[int, int, str], None] | None = None,
               **option_fields: Any) -> tuple[dict[str, list[Verification]], list]:
    """Records per check group (suite order) and the executor's outcomes; see :func:`run_suite`."""
    from verify.runtime.executor import check_scheduler, run_tasks

    opts = dataclasses.replace(options or SuiteOptions(), **option_fields)
    trials, seed, device, workers, scheduler = opts.trials, opts.seed, opts.device, opts.workers, opts.scheduler
    if trials is not None and (int(trials) != trials or trials < 2):
        raise UserInputError(f"trials={trials} must be an integer >= 2 (a confidence interval needs two runs)",
                             param="trials")
    if int(seed) != seed or seed < 0:
        raise UserInputError(f"seed={seed} must be a non-negative integer", param="seed")
    check_scheduler(scheduler, workers)
    chosen = select(ids)
    from quadratics import resolve_device

    dev = str(resolve_device(device))
    outcomes = run_tasks(group_tasks(chosen, opts.quick, trials, dev, seed, opts.plugins), scheduler=scheduler,
                         workers=workers, progress=progress if progress is not None else False)
    groups = {o.key: (list(o.value) if o.ok else [failed_group(o)]) for o in outcomes}
    return groups, outcomes


def run_suite(ids: str | Sequence[str] = "all", options: SuiteOptions | None = None, *,
              progress: Callable[[int, int, str], None] | None = None, **option_fields: Any) -> list[Verification]:
    """Run the selected checks; returns every Verification (certificates, their controls, rates).

    Args:
        ids: ``"all"``, a check id (``FAST.T2``), a paper prefix (``FAST``) or a list of those.
        options: a :class:`SuiteOptions` (the fields below), or its fields as keywords
            (``run_suite("FAST", quick=True, seed=1)``).
        quick: smaller Monte Carlo sizes and sweeps (the whole suite in under two minutes on 2 CPU cores).
        trials: override the trial count of every check (>= 2).
        device: ``auto`` | ``cpu`` | ``cuda``.
        seed: base seed; same seed and device give the same numbers, whatever the scheduler.
        progress: called as ``progress(done, total, check_id)`` as check groups complete.
        scheduler, workers: where the groups run (``verify.runtime.executor.run_tasks``): in this process by
            default, ``"local"``/``workers`` for a local Dask cluster, ``"tcp://host:port"`` for a cluster.
        plugins: plugin files each worker loads first.

    A group that fails (an error, or its worker lost past the retries) yields one ``unverified``
    record whose note starts ``INCOMPLETE:`` and names the group's inputs; the others still run.
    """
    groups, _ = run_groups(ids, options, progress=progress, **option_fields)
    return [v for records in groups.values() for v in records]


def all_ok(results: Sequence[Verification]) -> bool:
    """Every verdict is the expected one (certificates hold, controls violated)."""
    return all(v.ok for v in results)
