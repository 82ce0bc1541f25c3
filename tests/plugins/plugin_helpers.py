"""Shared paths and a subprocess runner for the plugin tests (imported by bare name, like tests/quadratics)."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from bounds import plugins

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
FEDAVG_EXAMPLE = EXAMPLES / "fedavg_local_sgd.py"


def run_cli(args, *, extra_path=(), cwd=None, env=None, timeout=300):
    """`python -m reports.cli.main ARGS` in a subprocess with this checkout (and extra_path) importable."""
    full = dict(os.environ)
    full.pop(plugins.ENV_VAR, None)
    full.update(env or {})
    full["PYTHONPATH"] = os.pathsep.join([str(ROOT), *map(str, extra_path)])
    return subprocess.run([sys.executable, "-m", "reports.cli.main", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=full, timeout=timeout)


def fedavg_hand_lhs(point):
    """The docs example USER.FEDAVG at ``point``: E||x_R - x*||^2 coordinate by coordinate, by hand (neither
    the engine nor the exact path): with a = 1 - eta lam, c = a^K, e_{r+1} = c e_r + (1 - c)(b_S - x*) - eta sum_k a^(K-1-k) xi_k / m, so
    E e_R^2 = c^(2R) x*^2 + (1 - c^(2R)) / (1 - c^2) [(1 - c)^2 Var_S + eta^2 (sigma^2 / d) sum_k a^(2k) / m],
    Var_S = (M - m) / (m (M - 1)) mean_i (b_i - x*)^2 (m of M without replacement)."""
    inst = plugins.load_file(str(FEDAVG_EXAMPLE)).build(point)
    pb, v = inst.problem, inst.values
    eta, K, R, m, M = v["eta"], v["K"], v["R"], v["m"], v["M"]
    a = 1 - eta * pb.lam
    c = a**K
    var_s = (M - m) / (m * (M - 1)) * np.mean((pb.b - pb.x_star) ** 2, axis=0)
    noise = eta**2 * (pb.sigma**2 / pb.d) * sum(a ** (2 * k) for k in range(K)) / m
    return float(np.sum(c ** (2 * R) * pb.x_star**2 + (1 - c ** (2 * R)) / (1 - c**2) * ((1 - c) ** 2 * var_s + noise)))
