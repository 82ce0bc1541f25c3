"""Snapshot the outputs of `list`, `show` and `check` to compare two versions byte for byte.

Run from the repository root: ``PYTHONPATH=. python tests/benchmarks/cli_outputs.py save DIR`` on
one version, then ``... compare DIR`` on the other; ``compare`` lists every output that differs and
exits 1 if any does. Covered: `list` (table and --json), `show KEY` and `show KEY --json` for every
registered key, `check KEY` (text and --json) at each result's worked example (or with no values,
which gives the one-line error naming what is needed), and three commands run in a fresh
interpreter (`list --json`, `show FAST.T1`, `check FAST.T1 ... --json`), so that start-up paths
which build only part of the registry are compared too. Used when changing how results are built
or loaded (issue 10, start-up time); not a unit test because it compares two versions.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

T1 = ["L=1", "K=5", "m=10", "n=5", "q=0.5", "sigma=1", "sigma_G=0.5", "zeta=1", "R=1000", "eta_c=0.005"]
FRESH = {
    "fresh_list_json": ["list", "--json"],
    "fresh_show_FAST.T1": ["show", "FAST.T1"],
    "fresh_check_FAST.T1_json": ["check", "FAST.T1", *T1, "--json"],
    "fresh_check_FAST.T1": ["check", "FAST.T1", *T1],
}


def _value(v) -> str:
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v)
    return str(v)


def outputs() -> dict[str, str]:
    """Name -> stdout + exit status of every covered command."""
    env = {**os.environ, "COLUMNS": "160", "NO_COLOR": "1", "TERM": "dumb"}
    out: dict[str, str] = {}
    for name, argv in FRESH.items():
        p = subprocess.run([sys.executable, "-m", "reports.cli.main", *argv], capture_output=True, text=True, env=env)
        out[name] = f"{p.stdout}\n[stderr]{p.stderr}\n[exit {p.returncode}]"
    os.environ.update(COLUMNS="160", NO_COLOR="1", TERM="dumb")
    from click.testing import CliRunner

    from bounds import all_results
    from reports.cli.main import _register_all, cli

    _register_all()
    runner = CliRunner()

    def run(name: str, argv: list[str]) -> None:
        r = runner.invoke(cli, argv)
        err = "" if r.exception is None or isinstance(r.exception, SystemExit) else repr(r.exception)
        out[name] = f"{r.output}\n[exit {r.exit_code}]{err}"

    run("list", ["list"])
    run("list_json", ["list", "--json"])
    for res in all_results():
        run(f"show_{res.key}", ["show", res.key])
        run(f"show_json_{res.key}", ["show", res.key, "--json"])
        run(f"show_latex_{res.key}", ["show", res.key, "--latex"])
        kv = [f"{k}={_value(v)}" for k, v in res.example]
        run(f"check_{res.key}", ["check", res.key, *kv])
        run(f"check_json_{res.key}", ["check", res.key, *kv, "--json"])
    return out


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("save", "compare"):
        print(__doc__.splitlines()[2])
        return 2
    folder = Path(sys.argv[2])
    now = outputs()
    if sys.argv[1] == "save":
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in now.items():
            (folder / f"{name}.txt").write_text(text)
        print(f"saved {len(now)} outputs to {folder}")
        return 0
    saved = {p.stem: p.read_text() for p in folder.glob("*.txt")}
    differ = sorted(k for k in saved.keys() | now.keys() if saved.get(k) != now.get(k))
    for k in differ:
        print(f"differs: {k}" if k in saved and k in now else f"only in {'saved' if k in saved else 'now'}: {k}")
    print(f"{len(now)} outputs compared, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
