"""CPU and wall time of the commands a user meets first: the main job and the README's slow commands.

Run from the repository root: ``PYTHONPATH=. python tests/benchmarks/bench_readme_commands.py [--only NAME,...]
[--cpu-limit SECONDS]``; it writes ``tests/benchmarks/results/readme_commands.json`` (``--no-record``: print only), and
``python -m docs.benchmarks.generate`` turns that record into the user guide's table.

Each command runs once, in its own process, in a fresh temporary directory holding a copy of the clone's
``docs/examples``; its CPU time is the user + system time of that process and its children
(``resource.getrusage(RUSAGE_CHILDREN)``), which other jobs on a shared machine inflate far less than its
wall time; the load average before and after, the cores, the seed each command uses and the package
versions are in the record. A command that has used ``--cpu-limit`` seconds of CPU is stopped (the kernel's
CPU-time limit, so the limit means the same on a busy machine as on a quiet one) and recorded as not
``finished`` with the time it had used: a lower bound, never a measurement of the whole command.
The targets are the ones the documentation promises; ``meets`` is true only for a finished command whose CPU
time is within its target.

Where the time goes: ``report --quick`` records its own steps' wall seconds (``timings_s`` of its
results.json), kept as ``report_steps_wall_s``; ``--profile`` runs each selected command a second time under
cProfile and keeps, per command, the functions of this repository with the largest cumulative time
(``profile`` rows: cumulative seconds under the profiler, which inflates Python-heavy code, and the share of
the profiled run). The timing run is never the profiled one.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "tests" / "benchmarks" / "results" / "readme_commands.json"

#: name -> (arguments after ``convbound``, target CPU seconds or None). Every command uses seed 0 (its default).
COMMANDS: dict[str, tuple[list[str], float | None]] = {
    "report --quick": (["report", "--quick", "--out", "report", "--force"], 30.0),
    "verify all --quick": (["verify", "all", "--quick"], 15.0),
    "orders FAST.T1 --no-term-bases": (["orders", "FAST.T1", "--no-term-bases"], 30.0),
    "decide all": (["decide", "all"], None),
    "check FAST.T1": (["check", "FAST.T1", "L=1", "K=5", "m=10", "n=5", "q=0.5", "sigma2=1", "sigma_G2=0.25",
                       "zeta=1", "R=1000", "eta_c=0.005"], None),
}


def _children_cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def run_one(args: list[str], cpu_limit: float, keep_report: bool = False) -> dict:
    """Run ``convbound ARGS`` once in a fresh directory: wall and CPU seconds, exit status, whether it finished
    (and, with ``keep_report``, the report's own step times as ``report_steps_wall_s``)."""

    def limit_cpu() -> None:  # in the child: SIGXCPU at the soft limit ends it
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu_limit), int(cpu_limit) + 5))

    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(ROOT / "docs" / "examples", Path(tmp) / "docs" / "examples")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        cpu0, t0 = _children_cpu(), time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "reports.cli.main", *args], cwd=tmp, env=env,
                              capture_output=True, text=True, preexec_fn=limit_cpu)
        finished = done.returncode != -signal.SIGXCPU
        status = done.returncode if finished else None
        tail = (done.stdout + done.stderr)[-300:] if finished else f"stopped at {cpu_limit:g} s of CPU"
        wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
        out = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "exit": status, "finished": finished, "tail": tail}
        results = Path(tmp) / "report" / "results.json"
        if keep_report and results.is_file():
            out["report_steps_wall_s"] = json.loads(results.read_text(encoding="utf-8")).get("timings_s", {})
    return out


#: The CLI under cProfile with a CPU-time clock (``python -m cProfile`` times by the wall clock, which other
#: jobs on a shared machine inflate): argv[1] is the output file,
#: argv[2] the CPU seconds after which the command is stopped (its profile so far kept), the rest its arguments.
_PROFILED = """
import cProfile, signal, sys, time
class Stopped(BaseException):
    pass
def stop(*_):
    raise Stopped()
signal.signal(signal.SIGPROF, stop)
signal.setitimer(signal.ITIMER_PROF, float(sys.argv[2]))
from reports.cli.main import main
prof = cProfile.Profile(time.process_time)
code = 0
prof.enable()
try:
    main(sys.argv[3:])
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else 0
except Stopped:
    code = 124
prof.disable()
prof.dump_stats(sys.argv[1])
sys.exit(code)
"""


def profile_one(name: str, args: list[str], cpu_limit: float, top: int = 12) -> list[dict]:
    """Run ``convbound ARGS`` under cProfile in a fresh directory: this repository's functions by cumulative time."""
    import pstats

    def limit_cpu() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu_limit) + 30, int(cpu_limit) + 35))  # past the timer

    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(ROOT / "docs" / "examples", Path(tmp) / "docs" / "examples")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        prof = Path(tmp) / "run.prof"
        done = subprocess.run([sys.executable, "-c", _PROFILED, str(prof), str(cpu_limit), *args], cwd=tmp,
                              env=env, capture_output=True, text=True, preexec_fn=limit_cpu)
        if done.returncode not in (0, 124) or not prof.is_file():
            return [{"command": name, "function": f"not profiled (exit {done.returncode})"}]
        stopped = done.returncode == 124
        stats = pstats.Stats(str(prof)).stats  # type: ignore[attr-defined]
    total = max(ct for (file, _, fn), (_, _, _, ct, _) in stats.items() if fn == "main" and file.endswith("main.py"))
    ours = [(f"{Path(file).relative_to(ROOT)}:{fn}", ct) for (file, _, fn), (_, _, _, ct, _) in stats.items()
            if file.startswith(str(ROOT)) and "/tests/" not in file and fn not in ("<module>", "main", "invoke")]
    ours.sort(key=lambda item: -item[1])
    return [{"command": name, "stopped": stopped, "function": f, "cumulative_s": round(ct, 2),
             "share": round(ct / total, 3)} for f, ct in ours[:top]]


def versions() -> dict[str, str]:
    from verify.suite import versions as suite_versions

    return suite_versions()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=None, help="comma-separated names of COMMANDS (default: all)")
    ap.add_argument("--cpu-limit", type=float, default=300.0, help="CPU seconds after which a command is stopped")
    ap.add_argument("--no-record", action="store_true", help=f"do not write {RECORD.relative_to(ROOT)}")
    ap.add_argument("--profile", action="store_true", help="also profile each selected command (a second run)")
    args = ap.parse_args()
    names = list(COMMANDS) if args.only is None else [w.strip() for w in args.only.split(",") if w.strip()]
    unknown = [n for n in names if n not in COMMANDS]
    if unknown:
        raise SystemExit(f"--only: unknown {unknown}; valid: {', '.join(COMMANDS)}")
    previous = json.loads(RECORD.read_text(encoding="utf-8")) if RECORD.is_file() else {}
    rows = {r["command"]: r for r in previous.get("rows", [])}
    profile = {r["command"]: [] for r in previous.get("profile", [])}
    for r in previous.get("profile", []):
        profile[r["command"]].append(r)
    steps = previous.get("report_steps_wall_s", {})
    for name in names:
        argv, target = COMMANDS[name]
        load_before = os.getloadavg()
        row = run_one(argv, args.cpu_limit, keep_report=name == "report --quick")
        steps = row.pop("report_steps_wall_s", steps)
        row.update(command=name, argv=["convbound", *argv], target_cpu_s=target, seed=0,
                   load_before=[round(x, 2) for x in load_before],
                   load_after=[round(x, 2) for x in os.getloadavg()],
                   meets=None if target is None else bool(row["finished"] and row["exit"] == 0
                                                          and row["cpu_s"] <= target),
                   measured_at=time.strftime("%Y-%m-%d %H:%M:%S"))
        rows[name] = row
        if args.profile:
            profile[name] = profile_one(name, argv, args.cpu_limit)
        print(f"{name}: {row['cpu_s']:.1f} s CPU, {row['wall_s']:.1f} s wall, exit {row['exit']}, "
              f"{'finished' if row['finished'] else 'STOPPED'} (load {row['load_before'][0]:.2f})", flush=True)
    record = {"what": "CPU and wall time of the README's commands, one run each in a fresh directory",
              "command": "PYTHONPATH=. python tests/benchmarks/bench_readme_commands.py --profile",
              "machine": {"cores": os.cpu_count(), "platform": platform.platform(), "processor": platform.machine()},
              "versions": versions(),
              "rows": [rows[n] for n in COMMANDS if n in rows],
              "report_steps_wall_s": steps,
              "profile": [r for n in COMMANDS for r in profile.get(n, [])]}
    if not args.no_record:
        RECORD.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {RECORD.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
