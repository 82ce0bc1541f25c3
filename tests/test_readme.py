"""The README speaks to a user who has only this repository (issue 18, defect 8).

On 26ec3e4 it pointed to ``../shared/spec`` (a folder of the project's authors, not shipped) and
described its benchmark machine as "this workplace's 2-core CPU machine".
"""

import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_readme_points_to_nothing_outside_the_repository():
    assert "../shared" not in README
    assert not re.search(r"\bshared/(spec|seeds)\b", README)


def test_benchmark_machine_is_described_in_plain_words():
    section = README[README.index("## Benchmarks"):]
    assert "workplace" not in README
    intro = section[:600]
    assert re.search(r"2-core", intro) and re.search(r"\d+ GiB of memory", intro) and "no GPU" in intro


# --- the usage blocks, run in order in a fresh directory (issue 30 item 7) ------------------------------

#: Commands not run, each with why. Everything else in a ``console``/``bash`` block is run in order.
SKIPPED = {
    "verify all --workers 2": "a long run: the full suite, not --quick, on a local Dask cluster",
    "verify all --scheduler tcp://host:8786": "needs a running Dask cluster at a host the test does not have",
    "tests/benchmarks/planted/run.py": "a benchmark run (10 seeds x budget 300 per optimiser), minutes long",
}
#: The set-up blocks install packages (pip, apt); their ``convbound report --quick`` is the Reports block's
#: first command, which is run there (with --force, as a user who ran the set-up pastes it).
SETUP = ("pip install", "bash .ci/browser-deps")
#: What a clone holds that the blocks read (plugins, example models, the planted benchmark's plugin).
CLONED = ("docs/examples", "tests/benchmarks/planted")


def usage_blocks(text: str = README) -> list[tuple[int, str, list[str]]]:
    """(line number, command, quoted output lines) of every ``$ ...`` line of the console/bash blocks.

    A command's continuation lines (ending in a backslash) are joined; the lines after it up to the next
    ``$`` line or the fence's end are the output the README quotes for it (often none).
    """
    out: list[tuple[int, str, list[str]]] = []
    lines = text.splitlines()
    i, fence = 0, None
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            fence = line[3:].strip() if fence is None else None
        elif fence in ("console", "bash") and line.startswith("$ "):
            start, cmd = i + 1, line[2:]
            while cmd.rstrip().endswith("\\"):
                i += 1
                cmd = cmd.rstrip()[:-1] + " " + lines[i].strip()
            out.append((start, cmd, []))
        elif fence in ("console", "bash") and out and line.strip():
            out[-1][2].append(line)
        i += 1
    return out


def usage_commands(text: str = README) -> list[tuple[int, str]]:
    """(line number, command) of every ``$ ...`` line of the README's console/bash blocks, continuations joined."""
    return [(n, c) for n, c, _ in usage_blocks(text)]


def test_usage_commands_are_found():
    cmds = [c for _, c in usage_commands()]
    assert len(cmds) > 40
    assert any(c.startswith("convbound report") and "--include search.json" in c for c in cmds)
    # a continuation line is joined to its command
    assert any("--rounds 5000 --target 0.2 --json" in c and c.startswith("convbound simulate") for c in cmds)
    quoted = {c.split()[1]: q for _, c, q in usage_blocks() if q}
    assert quoted["check"][0].startswith("{") and quoted["solve"][0].startswith("R = 875")


def test_report_outputs_and_includes_do_not_collide():
    """Each report writes its own directory, and each file a command reads is shipped or written earlier."""
    cmds = [shlex.split(c, comments=True) for _, c in usage_commands()]
    outs = [a[a.index("--out") + 1] if "--out" in a else "convbound-report" for a in cmds
            if a[:2] == ["convbound", "report"]]
    assert len(outs) == len(set(outs)) == 3
    root = Path(__file__).resolve().parents[1]
    written: set[str] = set()
    for a in cmds:
        for i, tok in enumerate(a):
            if tok in ("--include", "--search", "--instance", "--from-json", "--plugin"):
                assert a[i + 1] in written or (root / a[i + 1]).is_file(), a[i + 1]
            if tok in (">", "--out", "--instance-out") and i + 1 < len(a):
                written.add(a[i + 1])
        if a[:2] == ["convbound", "report"]:
            out = a[a.index("--out") + 1] if "--out" in a else "convbound-report"
            written.add(f"{out}/results.json")
        if a[:2] == ["convbound", "conform"]:
            assert (root / a[2].split(":")[0]).is_file(), a[2]


def _scalar_matches(quoted, actual) -> bool:
    """A quoted number matches the actual one rounded to the quoted digits; anything else must be equal."""
    if isinstance(quoted, Decimal):
        if isinstance(actual, bool) or not isinstance(actual, (int, float, Decimal)):
            return False
        step = Decimal(1).scaleb(quoted.as_tuple().exponent)
        return abs(Decimal(str(actual)) - quoted) <= step / 2
    return type(quoted) is type(actual) and quoted == actual


def json_contains(quoted, actual) -> bool:
    """Whether the quoted JSON is an excerpt of the actual: keys a subset, list items in order, values equal."""
    if isinstance(quoted, dict):
        return isinstance(actual, dict) and all(k in actual and json_contains(v, actual[k]) for k, v in quoted.items())
    if isinstance(quoted, list):
        if not isinstance(actual, list):
            return False
        rest = iter(actual)
        return all(any(json_contains(q, a) for a in rest) for q in quoted)
    return _scalar_matches(quoted, actual)


def quoted_output_matches(quoted: list[str], stdout: str) -> str | None:
    """None when the README's quoted output is an excerpt of stdout; otherwise what does not match.

    The README shortens outputs with ``...``. A quoted JSON object (first line ``{``) is read with each
    ``...`` removed and must be an excerpt of the printed JSON (json_contains); quoted text lines must
    appear in order among the printed lines, each line's ``...``-separated pieces in order within one line
    (runs of spaces count as one).
    """
    text = "\n".join(quoted)
    if text.lstrip().startswith("{"):
        cleaned = re.sub(r",\s*\.\.\.|\.\.\.\s*,?", "", text)
        want = json.loads(cleaned, parse_float=Decimal)
        try:
            got = json.loads(stdout, parse_float=Decimal)
        except ValueError:
            return f"printed no JSON: {stdout[:300]!r}"
        return None if json_contains(want, got) else f"quoted JSON {cleaned!r} is not in the printed {stdout!r}"
    squash = lambda s: re.sub(r"\s+", " ", s).strip()  # noqa: E731
    printed = iter(squash(line) for line in stdout.splitlines())
    for line in quoted:
        pieces = [squash(p) for p in line.split("...") if p.strip()]
        if not any(_pieces_in_order(pieces, got) for got in printed):
            return f"quoted line {line!r} is not printed (in order) in {stdout[-1500:]!r}"
    return None


def _pieces_in_order(pieces: list[str], line: str) -> bool:
    at = 0
    for piece in pieces:
        at = line.find(piece, at)
        if at < 0:
            return False
        at += len(piece)
    return True


def test_quoted_output_check_can_fail():
    """The matcher that the run uses: an excerpt passes; a changed number, key, order or missing line fails."""
    printed = json.dumps({"id": "X", "value": 0.17706250000000001, "terms": {"a": 0.16},
                          "conditions": [{"name": "c1", "holds": True}, {"name": "c2", "holds": None}]}, indent=2)
    assert quoted_output_matches(['{ "id": "X", "value": 0.1770625, "conditions": [ {"name": "c2", ...} ], ... }'],
                                 printed) is None
    assert quoted_output_matches(['{ "id": "X", "value": 0.177064 }'], printed)  # 0.1770625 is not 0.177064
    assert quoted_output_matches(['{ "id": "X", "terms": {"b": 0.16} }'], printed)
    assert quoted_output_matches(['{ "conditions": [ {"name": "c2"}, {"name": "c1"} ] }'], printed)
    assert quoted_output_matches(['{ "conditions": [ {"holds": false} ] }'], printed)
    text = "R = 875  (smallest R); bound there = 0.1999196\n  origin: file /x/docs/a.py\nmore"
    assert quoted_output_matches(["R = 875 (smallest R); bound ...", "origin: file .../docs/a.py"], text) is None
    assert quoted_output_matches(["R = 876 ..."], text)
    assert quoted_output_matches(["origin: file .../docs/a.py", "R = 875 ..."], text)  # order kept


def test_quoted_outputs_are_printed(convbound, monkeypatch):
    """Every command whose output the README quotes prints it (in-process: fast, so in every run)."""
    from bounds import plugins

    quoted = [(n, c, q) for n, c, q in usage_blocks() if q]
    assert len(quoted) >= 4
    monkeypatch.chdir(Path(__file__).resolve().parents[1])  # the README's paths are the clone's
    try:
        for lineno, cmd, lines in quoted:
            argv = shlex.split(cmd, comments=True)
            assert argv[0] == "convbound" and ">" not in argv, cmd
            run = convbound(*argv[1:])
            assert run.code == 0, (lineno, cmd, run.err)
            assert (wrong := quoted_output_matches(lines, run.out)) is None, (lineno, wrong)
    finally:
        plugins.clear_files()  # the --plugin runs register a result; later tests start without it


#: Wall-clock limit of one command: generous, because the shared machine can run 10-30x slower than a quiet one.
BLOCK_TIMEOUT_S = 3600


def _shell_line(cmd: str) -> str:
    """The command as printed, its leading ``convbound`` replaced by the in-tree CLI (nothing else changed)."""
    if cmd.startswith("convbound "):
        cmd = f"{shlex.quote(sys.executable)} -m reports.cli.main {cmd[len('convbound '):]}"
    return cmd


def _run_block(cmd: str, cwd: Path, env: dict[str, str]) -> tuple[int, str, str, float]:
    """Run one command in bash in cwd: (exit status, stdout, stderr, CPU seconds of the command)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(["bash", "-c", _shell_line(cmd)], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=BLOCK_TIMEOUT_S)
        code, stdout, stderr = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:  # a failure of this block, reported with the others
        code, stdout, stderr = 124, "", f"timed out after {exc.timeout} s wall"
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return code, stdout, stderr, cpu


def run_usage_blocks(workdir: Path, log=None, first_line: int = 0) -> tuple[list[str], list[str]]:
    """Run every usage command in order in workdir (a fresh directory): (failures, one timing line each).

    Each command runs in its own process (bash -c, as pasted into a shell: comments, ``>`` redirection),
    must exit 0 and print what the README quotes after it. Skipped: the set-up blocks, SKIPPED and the
    commands above README line ``first_line`` (to resume a run; a complete run starts at 0).
    """
    root = Path(__file__).resolve().parents[1]
    for sub in CLONED:
        shutil.copytree(root / sub, workdir / sub)
    env = {**os.environ, "PYTHONPATH": str(root)}
    failed, timings = [], []
    for lineno, cmd, quoted in usage_blocks():
        if any(s in cmd for s in SETUP) or any(s in cmd for s in SKIPPED) or lineno < first_line:
            continue
        t0 = time.perf_counter()
        code, stdout, stderr, cpu = _run_block(cmd, workdir, env)
        wall = time.perf_counter() - t0
        timings.append(f"{wall:7.1f} s wall {cpu:7.1f} s CPU  exit {code}  line {lineno}: {cmd[:80]}")
        if log is not None:
            print(timings[-1], file=log, flush=True)
        if code:
            failed.append(f"README line {lineno}: exit {code}: {cmd}\n{stderr[-600:]}{stdout[-600:] if code == 1 else ''}")
        elif quoted and (wrong := quoted_output_matches(quoted, stdout)):
            failed.append(f"README line {lineno}: {cmd}\n{wrong}")
    return failed, timings


# Measured in the README's test section; on request, not in every run (see there for why).
@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("CONVBOUND_README_RUN") != "1",
                    reason="runs every README usage block (minutes): set CONVBOUND_README_RUN=1")
def test_usage_blocks_run_in_order_in_a_fresh_directory(tmp_path):
    first = int(os.environ.get("CONVBOUND_README_FROM", "0"))  # resume at a README line (diagnosis only)
    failed, timings = run_usage_blocks(tmp_path, log=sys.__stderr__, first_line=first)
    assert not failed, "\n\n".join(failed) + "\n\ntimings:\n" + "\n".join(timings)
    assert first == 0, "a partial run (CONVBOUND_README_FROM) passed; only a run from line 0 is complete"
