"""Which LaTeX parser the import uses, by measurement: statements read correctly / silently wrong / refused.

Run from the repository root (sympy's ANTLR backend needs ``antlr4-python3-runtime==4.11``; the
project's environment has 4.13.2, with which sympy 1.14 refuses to load it, so a side environment is used)::

    python -m venv --system-site-packages /tmp/latexbench
    /tmp/latexbench/bin/pip install "antlr4-python3-runtime==4.11.0" lark
    PYTHONPATH=. /tmp/latexbench/bin/python tests/benchmarks/bench_latex_parsers.py [--out FILE.json]

Candidates: ``convbound`` (bounds.latex_parse, this project's grammar), ``sympy-antlr`` and ``sympy-lark``
(``sympy.parsing.latex.parse_latex(s, backend=...)``). Inputs: the 20 real statements and the near-misses
of ``tests/bounds/latex_cases.py`` plus the generated near-misses of ``tests/bounds/test_latex_import.py``,
each with a hand-written expected reading or "no exact reading" (must be refused).

Light preprocessing for sympy, to be fair to it: a relation's right side is compared for a bound (sympy
parses ``LHS \\le RHS`` whole); its symbol names are mapped to ours by spelling (``eta_{c}`` -> ``eta_c``,
``p_k`` -> ``p[k]``, ``e`` -> Euler's number). Outcomes: ``correct`` (equal to the expected reading),
``refused`` (an exception; for an input with no exact reading this is the right answer), ``silent`` (a
value that is not the expected reading, or any value for an input that has none: a silent misreading).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import sympy as sp

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "bounds")]

from latex_cases import DECLARED, NEAR_MISSES, STATEMENTS, k, p, r, tables  # noqa: E402
from test_latex_import import READ, _equal, _generated_near_misses  # noqa: E402

from bounds.core.errors import UserInputError  # noqa: E402


def _key(name: str) -> str:
    return name.replace("\\", "").replace("{", "").replace("}", "").replace(" ", "").replace("mathrm", "")


_BY_SPELLING = {_key(latex): sp.Symbol(name) for latex, (name, _) in DECLARED.items()}


def _ours(how: str, tex: str):
    table, vectors = tables()
    return READ[how](tex, table, vectors).value


def _sympy(backend: str):
    from sympy.parsing.latex import parse_latex

    def read(how: str, tex: str):
        value = parse_latex(tex, backend=backend)
        if how == "bound" and isinstance(value, sp.core.relational.Relational):
            value = value.rhs
        if how == "rel":
            value = [value]
        return value
    return read


def _rename(value, symbols):
    """sympy's symbols -> ours, by spelling (so a correct reading compares equal)."""
    if isinstance(value, list):
        return [_rename(v, symbols) for v in value]
    if not isinstance(value, sp.Basic):
        return value
    subs = {}
    for s in value.free_symbols | {a for a in value.atoms(sp.Symbol)}:
        spelled = _key(s.name)
        if spelled in ("p_k", "r_k"):
            subs[s] = (p if spelled[0] == "p" else r)[k]
        elif spelled == "k":
            subs[s] = k
        elif spelled == "e":
            subs[s] = sp.E
        elif spelled in _BY_SPELLING:
            subs[s] = symbols[_BY_SPELLING[spelled].name]
    return value.xreplace(subs)


def classify(read, cases, symbols, rename: bool) -> dict[str, int]:
    counts = {"correct": 0, "silent": 0, "refused_right": 0, "refused_wrong": 0}
    examples: list[str] = []
    for how, tex, want in cases:
        try:
            got = read(how, tex)
            got = _rename(got, symbols) if rename else got  # ours already reads into the declared symbols
        except (UserInputError, Exception):  # noqa: BLE001 - any exception is a refusal for this count
            counts["refused_right" if want is None else "refused_wrong"] += 1
            continue
        try:
            ok = want is not None and _equal(got, want)
        except Exception:  # noqa: BLE001 - e.g. a Boolean where an expression was expected
            ok = False
        counts["correct" if ok else "silent"] += 1
        if not ok and len(examples) < 6:
            examples.append(f"{tex!r} -> {got}")
    return {**counts, "examples": examples}  # type: ignore[dict-item]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    from latex_cases import S

    statements = [(c["how"], c["tex"], c["expected"]) for c in STATEMENTS]
    near = [(h, t, w) for h, t, w in NEAR_MISSES] + _generated_near_misses()
    candidates = {"convbound": _ours, "sympy-antlr": _sympy("antlr"), "sympy-lark": _sympy("lark")}
    record = {"python": platform.python_version(), "sympy": sp.__version__, "candidates": {}}
    for lib in ("antlr4", "lark"):
        try:
            from importlib.metadata import version
            record[lib] = version("antlr4-python3-runtime" if lib == "antlr4" else lib)
        except Exception:  # noqa: BLE001
            record[lib] = "not installed"
    print(f"sympy {sp.__version__}, antlr4-python3-runtime {record['antlr4']}, lark {record['lark']}")
    print(f"{'candidate':<12} {'set':<14} {'n':>3} {'correct':>8} {'silent':>7} {'refused (right)':>16} "
          f"{'refused (wrong)':>16} {'s':>6}")
    for name, read in candidates.items():
        record["candidates"][name] = {}
        for label, cases in (("statements", statements), ("near-misses", near)):
            t0 = time.perf_counter()
            try:
                counts = classify(read, cases, S, rename=name != "convbound")
            except ImportError as exc:
                print(f"{name:<12} {label:<14} not available: {exc}")
                record["candidates"][name][label] = {"available": False, "why": str(exc)}
                continue
            dt = time.perf_counter() - t0
            record["candidates"][name][label] = {"n": len(cases), **counts, "seconds": round(dt, 2)}
            print(f"{name:<12} {label:<14} {len(cases):>3} {counts['correct']:>8} {counts['silent']:>7} "
                  f"{counts['refused_right']:>16} {counts['refused_wrong']:>16} {dt:>6.2f}")
            for ex in counts["examples"][:3]:
                print(f"{'':<27} silent: {ex}")
    if args.out:
        Path(args.out).write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
