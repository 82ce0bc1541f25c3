"""Demonstration logs for `convbound audit` (README / docs/audit.md): ``python -m rate_region.audit.demo OUTDIR``.

Writes three logs, each seeded:
``biased.csv``: 100 always-available clients, 10 per round over 3000 rounds, from a sampler with a
planted bug: clients 95-99 (5%) are drawn with weight x0.3 (the kind of bug FedML #611 reports);
``f3ast_flower.parquet``: Flower's FedAvg with the F3AST strategy (rate_region.flower) driven through
Flower's own client manager for 2000 rounds on 20 clients (availability 0.25 ... 0.95, weights p
decreasing, k = 3), and ``flower_default.parquet``: the same with Flower's default sampler.
The last two need flwr (``pip install -e ".[flower]"``); without it only ``biased.csv`` is written.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from rate_region.audit.synthetic import biased_uniform, independent_availability

SEED = 0


def biased_log(out: Path) -> Path:
    from rate_region.logs import write_log

    A = np.ones((3000, 100), bool)
    S = biased_uniform(A, 10, np.arange(95, 100), 0.3, SEED)
    return write_log(out / "biased.csv", A, S)


def flower_logs(out: Path) -> list[Path]:
    import random

    from rate_region.availability import Independent
    from rate_region.flower import (
        F3ASTStrategy,
        LoggedStrategy,
        ParticipationLogger,
        drive_selection,
        flower_default_strategy,
    )

    N, K, T = 20, 3, 2000
    a = np.linspace(0.25, 0.95, N)
    p = np.linspace(4, 1, N) / np.linspace(4, 1, N).sum()
    ids = [f"c{i:02d}" for i in range(N)]
    A = independent_availability(a, T, SEED)
    model = Independent.build(a, K, p)
    f3 = ParticipationLogger(ids, p)
    drive_selection(F3ASTStrategy(ids, K, p, model=model, logger=f3), A, ids)
    random.seed(SEED)  # Flower's SimpleClientManager samples with the random module
    default = ParticipationLogger(ids, p)
    drive_selection(LoggedStrategy(flower_default_strategy(K), default), A, ids)
    return [f3.write(out / "f3ast_flower.parquet"), default.write(out / "flower_default.parquet")]


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0] if argv else ".")
    out.mkdir(parents=True, exist_ok=True)
    paths = [biased_log(out)]
    try:
        paths += flower_logs(out)
    except ImportError:
        print("flwr not installed: skipped the Flower logs (pip install -e '.[flower]')")
    for p in paths:
        print(p)


if __name__ == "__main__":
    main()
