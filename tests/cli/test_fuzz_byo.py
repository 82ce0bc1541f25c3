"""A generated corpus of bad invocations of the newer commands, run in-process: each refused in one line, exit 2,
before any work.

The corpus is built by rule: each option of ``import-latex``, ``orders``, ``decide``, ``worst-case --nonconvex``,
``simulate --exact`` and ``falsify --optimiser X`` crossed with the bad values of its type (negative, zero,
huge: 10^9, 2^63, 2^64; nan, inf, empty, non-numeric, very long strings; missing files, directories, devices,
files of the wrong kind), and LaTeX documents whose formula breaks one of the import's limits. Every value
here is bad by the command's documented contract, so the oracle is: exit 2, exactly one line on stderr, no
traceback (``test_fuzz_newer._judge``).

"Before any work" is checked without a clock: the functions that do each command's work (the orders table,
the exact moments, the search, the non-convex PEP once sized, the decisions once every file is read) are replaced by a stub that raises, so a
case that got past validation fails as a traceback naming the stub, whatever it would have cost. The
hang guard of ``test_fuzz_newer._run`` (SIGALRM) stays as a backstop for a case stuck inside validation.
"""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

import pytest
from test_fuzz_newer import _judge

ROOT = Path(__file__).resolve().parents[2]
SAVED = ROOT / "tests" / "benchmarks" / "falsify_runs"
HUGE = [str(10**9), str(2**63), str(2**64)]
COUNT_BAD = ["-1", "0", *HUGE, "nan", "inf", "", "abc", "1.5", "9" * 400]
FLOAT_BAD = ["nan", "inf", "-inf", "", "abc", "1e999", "x" * 5000]
WORD_BAD = ["", "nope", "x" * 5000, "FAST.T1,,FAST.T1"]
OPTIMISERS = ["corners", "stratified", "random", "climb", "seeded", "rays"]


class _Ran(BaseException):
    """A command reached its work: validation let a bad value through."""


def _latex_document(bound: str) -> str:
    return ("id = \"X.tex\"\nlhs = \"final-gap\"\n[provenance]\nseed = \"s\"\nlocator = \"T\"\n[symbols]\n"
            "a = { meaning = \"a\" }\nb = { meaning = \"b\" }\nR = { meaning = \"rounds\", domain = \"positive_integer\" }\n"
            f"[bound]\nlatex = '''F(x_R)-F^* \\le {bound}'''\n")


# formulas with no exact reading, or past a documented limit of the import (docs/latex-import.md)
_BAD_BOUNDS = {
    "deep-frac": "\\frac{" * 5000 + "a" + "}{b}" * 5000, "deep-paren": "(" * 9000 + "a" + ")" * 9000,
    "deep-brace": "{" * 9000 + "a" + "}" * 9000, "deep-pow": "a^{" * 5000 + "2" + "}" * 5000,
    "deep-bar": "\\bar" * 4000 + " a", "long-formula": "a+" * 15000 + "a", "digits": "9" * 10_001 + "a",
    "tower": "10^{10^{10^{10}}}", "tower-sym": "a^{10^{10^{10}}}", "min-one": "\\min\\{a\\}", "max-one": "\\max(a)",
    "newcommand": "\\newcommand{\\x}{a} \\x", "def": "\\def\\x{a} a", "unknown-macro": "\\foo a",
    "unbalanced": "(a+b", "unbalanced-brace": "\\frac{a}{b", "doubled-op": "a++b", "doubled-rel": "a \\le\\le b",
    "div-zero": "\\frac{a}{0}", "imaginary": "\\sqrt{-1} a", "braced-number": "a{2}",
}


def _cases(tmp: Path) -> list[tuple[str, list[str]]]:
    """(class, argv) for every bad invocation; files are made in ``tmp``."""
    out: list[tuple[str, list[str]]] = []

    def add(cls: str, argv: list[str]) -> None:
        out.append((cls, argv))

    # files of the wrong kind, shared by every option that reads one
    (tmp / "dir").mkdir(exist_ok=True)
    (tmp / "empty.json").write_text("")
    (tmp / "junk.json").write_bytes(b"\x00\xff\xfe junk")
    (tmp / "list.json").write_text("[1, 2]")
    (tmp / "big.toml").write_text("# " + "x" * (2**20 + 10))
    other = tmp / "other.json"
    shutil.copy(SAVED / "ASCAF.T1.random.json", other)  # a search record about ASCAF.T1
    bad_files = [str(tmp / "missing.json"), str(tmp / "dir"), "/dev/zero", str(tmp / "empty.json"),
                 str(tmp / "junk.json"), str(tmp / "list.json"), "/" + "x" * 5000]

    # import-latex: the file, --lhs, and every broken formula
    for f in [*bad_files, str(tmp / "big.toml")]:
        add("import-latex file", ["import-latex", f])
    for name, bound in _BAD_BOUNDS.items():
        path = tmp / f"bound-{name}.toml"
        path.write_text(_latex_document(bound))
        add(f"import-latex {name}", ["import-latex", str(path)])
        add(f"import-latex {name} --plugin", ["import-latex", str(path), "--plugin"])
    good = tmp / "good.toml"
    good.write_text(_latex_document("\\frac{a}{R}"))
    for word in WORD_BAD:
        add("import-latex --lhs", ["import-latex", str(good), "--lhs", word])
    for f in [str(tmp / "dir"), "/dev/full/x", str(tmp / "missing" / "out.toml")]:
        add("import-latex --out", ["import-latex", str(good), "--out", f])

    # orders: the id, each count, --ray
    for word in WORD_BAD + ["FAST.T1,FAST.T1", ",", "FAST.T1,"]:
        add("orders id", ["orders", word])
    for opt in ("--points", "--confirm-trials", "--seed"):
        for v in COUNT_BAD + ([] if opt == "--seed" else ["1", "3"] if opt == "--points" else ["1"]):
            if opt == "--seed" and v in ("0", str(10**9)):
                continue  # valid seeds
            add(f"orders {opt}", ["orders", "FAST.T1", opt, v])
    for word in WORD_BAD + [",", "R,,R"]:
        add("orders --ray", ["orders", "FAST.T1", "--ray", word])

    # decide: the id, --search and --worst-case files (and a record about another result), the counts
    for word in WORD_BAD:
        add("decide id", ["decide", word, "--no-live-pep"])
    for f in [*bad_files, str(other)]:
        add("decide --search", ["decide", "FAST.T2", "--no-live-pep", "--search", f])
        add("decide --worst-case", ["decide", "FAST.T2", "--no-live-pep", "--worst-case", f])
    for v in COUNT_BAD:
        add("decide --search-budget", ["decide", "FAST.T2", "--no-live-pep", "--search-budget", v])
    for v in ["-1", str(2**63), str(2**64), "nan", "", "abc"]:
        add("decide --seed", ["decide", "FAST.T2", "--no-live-pep", "--seed", v])

    # worst-case --nonconvex: counts, reals, words
    base = ["worst-case", "--nonconvex", "--eta", "0.1", "--measure", "avg_grad_sq"]
    for opt in ("--K", "--R", "--M", "--window", "--interval", "--cohort"):
        for v in COUNT_BAD:
            if (opt == "--window" and v == str(10**9)) or (opt in ("--interval", "--cohort") and v in HUGE + ["9" * 400]):
                continue  # a window past the chain keeps every pair; interval and cohort are FAST's (unused here)
            add(f"worst-case --nonconvex {opt}", [*base, opt, v])
    for opt in ("--eta", "--L", "--zeta", "--Delta", "--sigma", "--eta-g", "--max-seconds"):
        for v in FLOAT_BAD + ["-1"]:
            argv = [*base, opt, v] if opt != "--eta" else ["worst-case", "--nonconvex", "--eta", v,
                                                            "--measure", "avg_grad_sq"]
            add(f"worst-case --nonconvex {opt}", argv)
    for opt in ("--measure", "--initial", "--hetero", "--method", "--participation"):
        for word in WORD_BAD[:3]:
            add(f"worst-case --nonconvex {opt}", [*base, opt, word])

    # simulate --exact: the sizes given as KEY=VALUE, the counts, the names
    sim = ["simulate", "--exact", "--problem", "quadratic"]
    for key in ("d", "M", "K"):
        for v in ["-1", "0", *HUGE, "nan", "inf", "abc", "1.5", "100000"]:
            if key != "d" and v == "100000":
                continue
            add(f"simulate --exact {key}=", [*sim, f"{key}={v}"])
    add("simulate --exact d and M", [*sim, "d=20000", "M=50000"])
    for opt in ("--rounds", "--trials"):
        for v in ["-1", "0", "nan", "inf", "", "abc", "1.5", str(2**64)]:
            add(f"simulate --exact {opt}", [*sim, opt, v])
    for opt in ("--problem", "--algorithm", "--pattern", "--device"):
        for word in WORD_BAD[:3]:
            argv = [*sim[:2], "--problem", "quadratic", opt, word] if opt != "--problem" else [*sim[:2], opt, word]
            add(f"simulate --exact {opt}", argv)
    add("simulate --exact --out", [*sim, "--out", str(tmp / "x.csv")])

    # falsify --optimiser X crossed with its sizes and --time
    for opt_name in OPTIMISERS + ["", "nope", "x" * 5000]:
        if opt_name not in OPTIMISERS:
            add("falsify --optimiser", ["falsify", "FAST.T1", "--optimiser", opt_name])
            continue
        for opt in ("--budget", "--trials", "--confirm-trials", "--population"):
            for v in ["-1", "0", str(2**63), str(2**64), "nan", "abc", ""]:
                if opt == "--population" and v in HUGE:
                    continue  # a population past the budget is capped at it (documented: test_fuzz_newer's 'ok')
                add(f"falsify {opt_name} {opt}", ["falsify", "FAST.T1", "--optimiser", opt_name, opt, v])
        for v in ["0", "-3", "nan", "inf", "", "abc"]:
            add(f"falsify {opt_name} --time", ["falsify", "FAST.T1", "--optimiser", opt_name, "--time", v])
    return out


@pytest.fixture
def no_work(monkeypatch):
    """Every command's work replaced by a stub that raises: a bad case must be refused before reaching it."""
    import quadratics.exact
    import verify.decision_sources
    import verify.pep.nonconvex_core
    import verify.search.falsify
    import verify.search.orders

    def ran(name):
        def stub(*args, **kwargs):
            raise _Ran(f"{name} was reached: the bad value was not refused before the work")
        return stub

    for module, name in ((verify.search.orders, "order_table"), (quadratics.exact, "exact_moments"),
                         (verify.search.falsify, "search"), (verify.pep.nonconvex_core, "build_nc"),
                         (verify.decision_sources, "run_searches"), (verify.decision_sources, "decide_with")):
        monkeypatch.setattr(module, name, ran(f"{module.__name__}.{name}"))


def test_corpus_of_bad_invocations_is_refused_in_one_line_before_any_work(tmp_path, monkeypatch, no_work):
    monkeypatch.chdir(tmp_path)
    cases = _cases(tmp_path)
    failures = []
    for cls, argv in cases:
        try:
            _judge(cls, argv, "bad")
        except AssertionError as exc:
            failures.append(f"[{cls}] " + str(exc).splitlines()[0][:300])
    assert not failures, f"{len(failures)} of {len(cases)} bad invocations not refused as they should be:\n" \
        + "\n".join(failures)


def test_corpus_is_large_and_covers_every_new_command(tmp_path):
    cases = _cases(tmp_path)
    assert len(cases) >= 300
    covered = {argv[0] + (" --nonconvex" if "--nonconvex" in argv else "") + (" --exact" if "--exact" in argv else "")
               for _, argv in cases}
    assert covered >= {"import-latex", "orders", "decide", "worst-case --nonconvex", "simulate --exact", "falsify"}
    assert {a for _, argv in cases for a in argv if a in OPTIMISERS} == set(OPTIMISERS)


def test_import_latex_from_stdin_of_endless_zeros_is_refused(monkeypatch, no_work):
    """`import-latex - < /dev/zero`: standard input is read up to its cap, never to the end."""

    class Zeros(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def readinto(self, b) -> int:
            b[:] = b"\0" * len(b)
            return len(b)

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(Zeros())))
    _judge("import-latex -", ["import-latex", "-"], "bad")


def test_a_record_about_another_result_names_both(tmp_path, no_work):
    from test_fuzz_newer import _run

    code, _, err, crash, _ = _run(["decide", "FAST.T2", "--no-live-pep", "--search",
                                   str(SAVED / "ASCAF.T1.random.json")])
    assert crash is None and code == 2
    record = json.loads((SAVED / "ASCAF.T1.random.json").read_text())
    assert f"a search about {record['result']}" in err and "not about FAST.T2" in err
