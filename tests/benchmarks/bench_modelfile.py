"""Benchmark: a 10^6-client availability model read from a file and r* solved by `convbound region` (issue 21 item 5).

    python tests/benchmarks/bench_modelfile.py [--clients 1000000] [--repeats 3] [--toml] [--out FILE.json]
    python -m pytest tests/benchmarks/bench_modelfile.py --benchmark-enable -s

Goal: the model loads in well under a second, and the whole process (`convbound region --model x.parquet`:
interpreter start, imports, load, r*, the printed table) ends in under 3 s on 2 cores. Each command runs in a
child process; wall time, CPU time (user + system of the child, RUSAGE_CHILDREN) and peak RSS are reported,
because on a shared machine the wall time includes waiting for a core. The model: q_k ~ U(0.05, 0.95),
weights from lognormal(0, 1) data sizes, k = 1000, seed 0; written as Parquet, CSV and NPZ (and as TOML with
``--toml``, the only format before: about 10 MB of text) outside the timing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
SEED = 0


def write_models(directory: Path, clients: int, toml: bool = False) -> dict[str, Path]:
    import polars as pl

    rng = np.random.default_rng(SEED)
    q = rng.uniform(0.05, 0.95, clients)
    w = rng.lognormal(0.0, 1.0, clients)
    k = np.full(clients, 1000 if clients >= 10_000 else max(1, clients // 10))
    out = {"parquet": directory / "model.parquet", "csv": directory / "model.csv", "npz": directory / "model.npz"}
    pl.DataFrame({"q": q, "weight": w, "k": k}).write_parquet(out["parquet"])
    pl.DataFrame({"q": q, "weight": w, "k": k}).write_csv(out["csv"])
    np.savez(out["npz"], q=q, weight=w, k=np.int64(k[0]))
    if toml:
        p = w / w.sum()
        qs, ps = ", ".join(map(repr, q.tolist())), ", ".join(map(repr, p.tolist()))
        text = f'kind = "independent"\nk = {k[0]}\nq = [{qs}]\nweights = [{ps}]\n'
        out["toml"] = directory / "model.toml"
        out["toml"].write_text(text)
    return out


_CHILD = ("import resource, sys\nfrom reports.cli.main import main\nrc = 0\n"
          "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    rc = e.code or 0\n"
          "sys.stderr.write(f'RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n')\nsys.exit(rc)\n")


def run_region(path: Path) -> dict:
    """`convbound region --model PATH` (the CLI's main) in a child: wall s, CPU s, its peak RSS MiB, exit code."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", _CHILD, "region", "--model", str(path)], env=env,
                         capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rss = [int(x.split()[1]) for x in res.stderr.splitlines() if x.startswith("RSS ")]
    return {"wall_s": wall, "cpu_s": cpu, "peak_rss_mib": rss[-1] / 1024 if rss else None, "exit": res.returncode,
            "stderr": res.stderr[-300:]}


def time_load(path: Path) -> dict:
    """The reader alone, in this process (imports already paid): wall and CPU seconds."""
    from rate_region.modelfile import load_model_file

    load_model_file(path)  # warm the imports (polars) so that the figure is the read and validation only
    t, c = time.perf_counter(), time.process_time()
    m = load_model_file(path)
    return {"wall_s": time.perf_counter() - t, "cpu_s": time.process_time() - c, "clients": m.n_clients}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--toml", action="store_true", help="also time the same model as TOML")
    ap.add_argument("--out", default=None, help="write the record as JSON")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    record: dict = {"clients": args.clients, "seed": SEED, "repeats": args.repeats, "load": {}, "region": {},
                    "versions": {"python": platform.python_version(), "numpy": np.__version__},
                    "machine": {"cpus": os.cpu_count(), "affinity": len(os.sched_getaffinity(0)),
                                "load_average_before": os.getloadavg()[0]}}
    with tempfile.TemporaryDirectory() as d:
        paths = write_models(Path(d), args.clients, args.toml)
        for fmt, path in paths.items():
            record["load"][fmt] = time_load(path)
            runs = [run_region(path) for _ in range(args.repeats)]
            assert all(r["exit"] == 0 for r in runs), runs[0]["stderr"]
            record["region"][fmt] = runs
            print(f"{fmt:8s} load {record['load'][fmt]['wall_s']:.3f} s (CPU {record['load'][fmt]['cpu_s']:.3f} s); "
                  "region whole process: " + ", ".join(f"{r['wall_s']:.2f} s (CPU {r['cpu_s']:.2f} s)" for r in runs)
                  + f"; peak RSS {max(r['peak_rss_mib'] for r in runs):.0f} MiB")
    record["machine"]["load_average_after"] = os.getloadavg()[0]
    print(f"load average {record['machine']['load_average_before']:.1f} before, "
          f"{record['machine']['load_average_after']:.1f} after; {record['machine']['affinity']} usable cores")
    if args.out:
        Path(args.out).write_text(json.dumps(record, indent=2))
    return record


def test_region_million_clients_parquet(benchmark):
    rec = benchmark.pedantic(main, args=(["--repeats", "1"],), rounds=1, iterations=1)
    assert rec["load"]["parquet"]["wall_s"] < 1.0


if __name__ == "__main__":
    main()
