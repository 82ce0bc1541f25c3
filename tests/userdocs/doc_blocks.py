"""The command and Python blocks of the README and the user guide, and how to run them as a user would.

A console/bash block's ``$ ...`` lines are commands (continuation lines ending in a backslash joined); the
lines after a command up to the next ``$`` line or the fence's end are the output the page quotes for it. A
``python`` block is a program run as written. Used by ``test_readme.py`` and ``test_guide.py``.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shlex
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def usage_blocks(text: str) -> list[tuple[int, str, list[str]]]:
    """(line number, command, quoted output lines) of every ``$ ...`` line of the console/bash blocks."""
    out: list[tuple[int, str, list[str]]] = []
    lines = text.splitlines()
    i, fence = 0, None
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith("```"):
            fence = line[3:].strip() if fence is None else None
        elif fence in ("console", "bash") and line.startswith("$ "):
            start, cmd = i + 1, line[2:]
            while cmd.rstrip().endswith("\\"):
                i += 1
                cmd = cmd.rstrip()[:-1] + " " + lines[i].strip()
            out.append((start, cmd, []))
        elif fence in ("console", "bash") and out and line:
            out[-1][2].append(line)
        i += 1
    return out


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(line number, source) of every ``python`` fenced block."""
    out: list[tuple[int, str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            start, body = i + 2, []
            i += 1
            while lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            out.append((start, "\n".join(body) + "\n"))
        i += 1
    return out


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
    """None when the page's quoted output is an excerpt of stdout; otherwise what does not match.

    Pages shorten outputs with ``...``. Quoted JSON (first line ``{`` or ``[``) is read with each ``...``
    removed and must be an excerpt of the printed JSON (json_contains); quoted text lines must appear in
    order among the printed lines, each line's ``...``-separated pieces in order within one line (runs of
    spaces count as one).
    """
    text = "\n".join(quoted)
    if text.lstrip()[:1] in ("{", "["):
        cleaned = re.sub(r",\s*\.\.\.|\.\.\.\s*,?", "", text)
        want = json.loads(cleaned, parse_float=Decimal)
        try:
            got = json.loads(stdout, parse_float=Decimal)
        except ValueError:
            return f"printed no JSON: {stdout[:300]!r}"
        return None if json_contains(want, got) else f"quoted JSON {cleaned!r} is not in the printed {stdout[:2000]!r}"
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


def shell_line(cmd: str) -> str:
    """The command as printed, its leading ``convbound`` replaced by the in-tree CLI (nothing else changed)."""
    if cmd.startswith("convbound "):
        cmd = f"{shlex.quote(sys.executable)} -m reports.cli.main {cmd[len('convbound '):]}"
    elif cmd.startswith("python "):
        cmd = f"{shlex.quote(sys.executable)} {cmd[len('python '):]}"
    return cmd


def run_shell(cmd: str, cwd: Path, timeout: float) -> tuple[int, str, str, float]:
    """Run one command in bash in cwd with the working tree first on the path: (exit, stdout, stderr, CPU s)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(["bash", "-c", shell_line(cmd)], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=timeout)
        code, stdout, stderr = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:  # a failure of this block, reported with the others
        code, stdout, stderr = 124, "", f"timed out after {exc.timeout} s wall"
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return code, stdout, stderr, cpu
