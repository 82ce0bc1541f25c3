"""Run the certificates, rate checks and controls: ``run_suite(ids="all", quick=False, ...)``.

Each check group (a certificate with its hypothesis-breaking control, a rate fit, a control) is one
function of a paper module in ``verify.certificates``; ``ids`` selects groups by exact id or by
paper prefix (``FAST``, ``F3AST``, ``ASCAF``).
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable, Sequence
from importlib import import_module

from bounds.errors import UserInputError, unknown
from verify.record import Verification

PAPER_MODULES = ("verify.certificates.fast", "verify.certificates.f3ast", "verify.certificates.ascaf")


def _paper_modules():
    """The certificate modules that are present (a missing one is skipped, a broken one raises)."""
    for name in PAPER_MODULES:
        try:
            yield import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise


def registry() -> dict[str, Callable]:
    """Check id -> function(ctx) -> list[Verification], in suite order."""
    out: dict[str, Callable] = {}
    for mod in _paper_modules():
        out.update(mod.CHECKS)
    return out


def control_ids(quick: bool = False, ids: str | Sequence[str] = "all") -> list[str]:
    """Ids of the negative controls the selected check groups must return (each must be ``violated``)."""
    chosen = set(select(ids))
    out: list[str] = []
    for mod in _paper_modules():
        for gid, controls in getattr(mod, "CONTROLS", {}).items():
            if gid in chosen:
                out += list(controls)
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


def run_suite(ids: str | Sequence[str] = "all", quick: bool = False, trials: int | None = None,
              device: str = "auto", seed: int = 0,
              progress: Callable[[int, int, str], None] | None = None) -> list[Verification]:
    """Run the selected checks; returns every Verification (certificates, their controls, rates).

    Args:
        ids: ``"all"``, a check id (``FAST.T2``), a paper prefix (``FAST``) or a list of those.
        quick: smaller Monte Carlo sizes and sweeps (the whole suite in under two minutes on 2 CPU cores).
        trials: override the trial count of every check (>= 2).
        device: ``auto`` | ``cpu`` | ``cuda``.
        seed: base seed; same seed and device give the same numbers.
        progress: called as ``progress(done, total, check_id)`` before each check and at the end.
    """
    from verify.certificates.common import Context

    if trials is not None and (int(trials) != trials or trials < 2):
        raise UserInputError(f"--trials {trials} must be an integer >= 2 (a confidence interval needs two runs)")
    if int(seed) != seed or seed < 0:
        raise UserInputError(f"--seed {seed} must be a non-negative integer")
    chosen = select(ids)
    from quadratics import resolve_device

    dev = str(resolve_device(device))
    ctx = Context(quick=quick, trials=trials, seed=int(seed), device=dev)
    reg = registry()
    vers = versions()
    out: list[Verification] = []
    for i, cid in enumerate(chosen):
        if progress:
            progress(i, len(chosen), cid)
        t0 = time.perf_counter()
        results = reg[cid](ctx)
        elapsed = time.perf_counter() - t0
        out += [v.replace(versions=vers, device=dev, elapsed_s=v.elapsed_s or elapsed) for v in results]
    if progress:
        progress(len(chosen), len(chosen), "")
    return out


def all_ok(results: Sequence[Verification]) -> bool:
    """Every verdict is the expected one (certificates hold, controls violated)."""
    return all(v.ok for v in results)
