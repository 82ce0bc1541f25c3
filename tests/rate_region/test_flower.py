"""Flower integration (issue 14, acceptance 3): Flower's own strategy and client manager, in-process, no training.

20 clients, independent availability a_k = 0.25 ... 0.95, cap k = 3, data weights p_k decreasing in k
(the rarely available clients hold the most data), so r* = argmin H is far from uniform.
"""

import logging

import numpy as np
import pytest

flwr = pytest.importorskip("flwr")

from rate_region.audit import audit  # noqa: E402
from rate_region.audit.synthetic import independent_availability  # noqa: E402
from rate_region.availability import Independent  # noqa: E402
from rate_region.flower import (  # noqa: E402
    F3ASTStrategy,
    FASTStrategy,
    LoggedStrategy,
    ParticipationLogger,
    drive_selection,
)
from rate_region.logs import read_log  # noqa: E402
from rate_region.optimum import min_variance_rates  # noqa: E402

N, K, T = 20, 3, 2000
A_K = np.linspace(0.25, 0.95, N)
P = np.linspace(4, 1, N) / np.linspace(4, 1, N).sum()
IDS = [f"c{i:02d}" for i in range(N)]


@pytest.fixture(scope="module")
def truth():
    model = Independent.build(A_K, K, P)
    return model, min_variance_rates(model, K, P).r_star


def _quiet_fedavg(**kw):
    from rate_region.flower import flower_default_strategy

    return flower_default_strategy(K, **kw)


def test_rstar_differs_from_uniform(truth):
    _, rstar = truth
    assert np.max(np.abs(rstar - K / N)) > 0.05


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_f3ast_strategy_reaches_rstar_and_the_audit_says_so(tmp_path, truth, seed):
    model, rstar = truth
    A = independent_availability(A_K, T, seed)
    logger = ParticipationLogger(IDS, P)
    drive_selection(F3ASTStrategy(IDS, K, P, model=model, logger=logger), A, IDS)
    path = logger.write(tmp_path / "f3ast.parquet")
    log = read_log(path)
    np.testing.assert_array_equal(log.available, A)  # the logger saw Flower's client manager as we drove it
    r = log.participated.mean(0)
    assert np.max(np.abs(r - rstar)) <= 0.02, np.abs(r - rstar)
    rec = audit(log, "rstar")
    assert rec.bias["flagged"] == []
    assert rec.variance["max_abs_dev_rstar"] <= 0.02
    assert rec.variance["ratio"] <= 1.01


def test_flower_default_sampler_shows_its_h_gap_and_underserved_clients(tmp_path, truth):
    import random

    _, rstar = truth
    A = independent_availability(A_K, T, 0)
    random.seed(0)  # Flower's SimpleClientManager samples with the random module
    logger = ParticipationLogger(IDS, P)
    drive_selection(LoggedStrategy(_quiet_fedavg(), logger), A, IDS)
    rec = audit(read_log(logger.write(tmp_path / "default.csv")), "rstar")
    r = np.asarray(rec.rates["r"])
    assert rec.variance["ratio"] > 1.3
    under = set(rec.bias["under_served"])
    # the heavy, rarely available clients are the ones the default sampler starves: r* - r > 0.05 there
    starved = set(np.flatnonzero(rstar - r > 0.05).tolist())
    assert starved and starved <= under
    assert 0 in under


def test_fast_strategy_log_meets_fast_check(tmp_path):
    A = np.ones((T, N), bool)  # FAST's snapshot rounds need every client connected
    logger = ParticipationLogger(IDS)
    drive_selection(FASTStrategy(IDS, q=0.3, m=5, seed=1, logger=logger, **_fastkw()), A, IDS)
    log = read_log(logger.write(tmp_path / "fast.jsonl"))
    assert log.snapshot is not None and abs(log.snapshot.mean() - 0.3) < 0.05
    rec = audit(log, "fast:0.3")
    fast = next(c for c in rec.checks if c["check"] == "fast")
    assert fast["status"] is True, fast["reason"]
    assert fast["evidence"]["snapshot_sizes"] == [5]


def _fastkw():
    logging.getLogger("flwr").setLevel(logging.ERROR)
    return {"fraction_fit": 0.0, "min_fit_clients": 2, "min_available_clients": 1}


def test_flwr_is_imported_only_by_the_flower_module():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    users = []
    for pkg in ("bounds", "rate_region", "quadratics", "verify", "reports"):
        for path in (root / pkg).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                if any(n.split(".")[0] == "flwr" for n in names):
                    users.append(str(path.relative_to(root)))
    # the participation side (rate_region/flower.py) and the conformance check's Flower form (verify/conformance/):
    # flwr is an optional extra, imported nowhere else
    assert sorted(set(users)) == ["rate_region/flower.py", "verify/conformance/examples.py",
                                  "verify/conformance/flower.py"], users
