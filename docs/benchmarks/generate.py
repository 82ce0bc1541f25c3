"""Write the user guide's benchmark pages from the benchmark records: ``python -m docs.benchmarks.generate``.

Every ``tests/benchmarks/results/*.json`` record becomes ``docs/benchmarks/<name>.md``: what it measures (the
record's own ``what``, or the first paragraph of the benchmark script that wrote it), the command, its scalar
fields, and each list of rows as a table; ``index.md`` lists them. Nothing on these pages is typed by hand, so
a number cannot go stale without the test that compares the committed pages with this output failing
(``tests/userdocs/test_benchmark_pages.py``).

What is left out: fields that identify a development run rather than describe the measurement (commits,
dates, load averages, working-tree names) stay in the records; a text cell that names one is shortened.
CPU times are given beside wall times wherever the record has them: CPU time is what other jobs on a shared
machine inflate least.
"""

from __future__ import annotations

import ast
import json
import math
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "tests" / "benchmarks" / "results"
PAGES = Path(__file__).resolve().parent

#: Keys of development provenance, kept in the records and left off the pages.
_DROP = re.compile(r"(^|_)(commit|date|load|loads|tree|measured_at|load_average)(_|$)|^load", re.IGNORECASE)
#: Tokens of development provenance inside text: a commit hash, a date, an issue or item number, a load figure.
_TOKENS = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b|\b\d{4}-\d{2}-\d{2}\b"
                     r"|\b(issues?|items?)\s+\d+(\s*(,|and)\s*\d+)*|\bload( average)?\s*(of\s*)?[\d.]+(\s*(-|to)\s*[\d.]+)?",
                     re.IGNORECASE)
#: Columns shown (in this order) for a record's row lists, where the whole row would be too wide to read.
COLUMNS: dict[str, dict[str, list[str]]] = {
    "campaign_main": {"runs": ["id", "seed", "command", "exit", "user_s", "system_s", "wall_s", "peak_rss_kb",
                               "decision"]},
    "readme_commands": {"rows": ["command", "target_cpu_s", "cpu_s", "wall_s", "finished", "exit", "meets"],
                        "profile": ["command", "stopped", "function", "cumulative_s", "share"]},
}
MAX_ROWS = 80
MAX_CELL = 90


def clean_text(text: str) -> str:
    """Text without development provenance (see the module docstring), on one line, without table bars."""
    text = _TOKENS.sub("…", str(text))
    text = re.sub(r"\s+", " ", text).strip().replace("|", "\\|")
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def cell(value: Any) -> str:
    """One table cell: numbers to 4 significant digits, booleans as yes/no, nested values as short JSON."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.4g}"
    if isinstance(value, str):
        return clean_text(value)
    return clean_text(json.dumps(value, separators=(", ", ": ")))


def _kept(key: str) -> bool:
    return not _DROP.search(key)


def _is_rows(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, Mapping) for v in value)


def scalars(record: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted key, value) of every field that is not a list of rows; nested mappings are flattened."""
    out: list[tuple[str, Any]] = []
    for key, value in record.items():
        name = f"{prefix}{key}"
        if not _kept(str(key)) or _is_rows(value):
            continue
        if isinstance(value, Mapping):
            out += scalars(value, name + ".")
        else:
            out.append((name, value))
    return out


def row_lists(record: Mapping[str, Any], prefix: str = "") -> list[tuple[str, list[Mapping[str, Any]]]]:
    """(dotted key, rows) of every list of mappings, at the top level or inside a nested mapping."""
    out: list[tuple[str, list[Mapping[str, Any]]]] = []
    for key, value in record.items():
        if not _kept(str(key)):
            continue
        if _is_rows(value):
            out.append((f"{prefix}{key}", value))
        elif isinstance(value, Mapping):
            out += row_lists(value, f"{prefix}{key}.")
    return out


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _script_summary(command: str) -> str:
    """The first paragraph of the module docstring of the benchmark script a command names, if any."""
    match = re.search(r"tests/benchmarks/[\w/]+\.py", command)
    if not match or not (ROOT / match.group(0)).is_file():
        return ""
    doc = ast.get_docstring(ast.parse((ROOT / match.group(0)).read_text(encoding="utf-8"))) or ""
    return clean_text(doc.split("\n\n")[0]).replace("\\|", "|") if doc else ""


def page(name: str, record: Mapping[str, Any]) -> str:
    """The Markdown page of one record."""
    command = next((str(record[k]) for k in ("command", "script", "benchmark") if isinstance(record.get(k), str)), "")
    what = str(record.get("what") or "") or _script_summary(command)
    parts = [f"# {name}", "", f"Generated from `tests/benchmarks/results/{name}.json` by `python -m docs.benchmarks.generate`;"
             " do not edit by hand.", ""]
    if what:
        parts += [clean_text(what).replace("\\|", "|"), ""]
    if command:
        parts += ["```console", f"$ {clean_text(command)}", "```", ""]
    fields = [(k, v) for k, v in scalars(record) if k not in ("what", "command", "script", "benchmark")]
    if fields:
        parts += ["## Fields", "", table(["field", "value"], [[f"`{k}`", cell(v)] for k, v in fields]), ""]
    for key, rows in row_lists(record):
        wanted = COLUMNS.get(name, {}).get(key)
        header = wanted or list(dict.fromkeys(k for r in rows for k in r if _kept(str(k))))
        shown = rows[:MAX_ROWS]
        parts += [f"## {key}", ""]
        if len(rows) > len(shown):
            parts += [f"The first {len(shown)} of {len(rows)} rows; the record holds all of them.", ""]
        parts += [table(header, [[cell(r.get(h)) for h in header] for r in shown]), ""]
    return "\n".join(parts).rstrip() + "\n"


INDEX_HEAD = """# Benchmarks

What the commands cost and what the searches find, one page per benchmark record. Every table here is
written from a record in `tests/benchmarks/results/` by `python -m docs.benchmarks.generate`, and a test
fails while a committed page differs from what the generator writes. Each record says how it was made (the
command on its page); rerunning that command rewrites the record, and the generator the page. Times are
per run on the machine the record names; CPU times are the ones to compare, since other jobs on a shared
machine inflate wall times far more.

The first page is the one a new user meets first: the main job (`report --quick`) and the slowest commands
of the README, with the CPU time the documentation targets for each.
"""


def pages() -> dict[str, str]:
    """File name -> content of every generated page (``index.md`` included)."""
    names = sorted(p.stem for p in RECORDS.glob("*.json"))
    if "readme_commands" in names:  # the page a user meets first
        names.remove("readme_commands")
        names.insert(0, "readme_commands")
    out = {f"{n}.md": page(n, json.loads((RECORDS / f"{n}.json").read_text(encoding="utf-8"))) for n in names}
    toc = ["```{toctree}", ":maxdepth: 1", "", *names, "```", ""]
    out["index.md"] = INDEX_HEAD + "\n" + "\n".join(toc)
    return out


def main(argv: list[str] | None = None) -> int:
    """Write every page; stale pages of records that no longer exist are removed."""
    want = pages()
    for old in PAGES.glob("*.md"):
        if old.name not in want:
            old.unlink()
    for name, text in want.items():
        (PAGES / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(want)} pages to {PAGES.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
