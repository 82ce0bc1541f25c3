"""A generated bad-input suite for the newer inputs: TOML results, instance files, falsify, report
--include/--out, --plugin and region --arrays, run in-process.

Each case is ``(cls, argv, files, expect)``. ``files`` maps a name to what the file is (text, bytes, or
a special file: FIFO, directory, link, /dev/null); they are made in one temporary directory and
``{tmp}`` in ``argv`` names it. ``expect``:

* ``bad``: exit 2 and exactly one line on stderr (``convbound: error: ...\\n``, no blank line, no
  traceback), nothing written;
* ``ok``: exit 0 (or 1 where the command says "ran, but the answer is no"), no traceback, nothing on
  stderr but notes, no library warning.

The oracle never asks the code under test: a mutation is bad or good by the documented layout of the
file (which keys are required, which types and values are allowed), by the TOML/JSON parsers of the
standard library (truncations and junk count only when they no longer parse), or by construction (the
generated good formulas are built from positive symbols with operations that keep them finite and real).
Every case must be refused fast: a hang (a FIFO read) fails the case after 20 s instead of stalling CI.
Nothing is excused: no case is marked xfail. Same seed, same cases.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import os
import random
import signal
import stat
import sys
import tomllib
import warnings
from pathlib import Path
from typing import Any

import pytest

from reports.cli.main import main

SEED = 20261124
FIFO, DIR, DEVNULL = object(), object(), object()
HANG_S = int(os.environ.get("CONVBOUND_FUZZ_HANG_S", "20"))


class Link:
    """A symbolic link to ``target`` (a name in the case directory, or an absolute path)."""

    def __init__(self, target: str):
        self.target = target

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Link) and other.target == self.target


SIZES = ["0", "1", "-1", str(2**31), str(2**63), str(2**64), str(10**22), "nan", "inf"]
CHECK_VALUES = ["L=1", "gamma=1", "n=10", "D2=1"]

# --- the good TOML result (docs/examples/gd_drori_teboulle.toml, with every optional key present)
GOOD_TOML: dict[str, Any] = {
    "id": "DT14.T3.1", "title": "Gradient descent, L-smooth convex", "paper": "Drori & Teboulle 2014",
    "kind": "upper", "lhs": "f(x_n) - f*", "lhs_latex": "f(x_n) - f^*", "status": ["PUBLISHED"], "flags": [],
    "reconstructed": False, "notes": "a note", "variant": "published",
    "provenance": {"seed": "Drori & Teboulle 2014", "locator": "Theorem 3.1", "equation": "(3.1)", "spec": "none"},
    "symbols": {"L": {"meaning": "smoothness", "domain": "positive"},
                "gamma": {"meaning": "step size", "domain": "positive", "prefer": "max", "unrecovered": False},
                "n": {"meaning": "iterations", "domain": "positive_integer"},
                "D2": {"meaning": "||x0 - x*||^2", "domain": "positive"}},
    "terms": [{"name": "optimisation", "expr": "L * D2 / (4*n*L*gamma + 2)", "meaning": "the bound"}],
    "hypotheses": [{"name": "step size", "relation": "gamma <= 1/L", "meaning": "the step"}],
    "example": {"L": 1, "gamma": 1, "n": 10, "D2": 1},
    "rate": {"n": -1},
}
# key -> (allowed Python types, required); a path is a tuple of keys ("*" stands for each table entry)
TOML_SCHEMA: dict[tuple, tuple[tuple[type, ...], bool]] = {
    ("id",): ((str,), True), ("title",): ((str,), False), ("paper",): ((str,), False), ("kind",): ((str,), True),
    ("lhs",): ((str,), False), ("lhs_latex",): ((str,), False), ("status",): ((str, list), False),
    ("flags",): ((str, list), False), ("reconstructed",): ((bool,), False), ("notes",): ((str,), False),
    ("variant",): ((str,), False), ("provenance",): ((dict,), True), ("symbols",): ((dict,), True),
    ("terms",): ((list,), True), ("hypotheses",): ((list,), False), ("example",): ((dict,), False),
    ("rate",): ((dict,), False),
    ("provenance", "seed"): ((str,), True), ("provenance", "locator"): ((str,), True),
    ("provenance", "equation"): ((str,), False), ("provenance", "spec"): ((str,), False),
    ("symbols", "gamma", "meaning"): ((str,), False), ("symbols", "gamma", "domain"): ((str,), False),
    ("symbols", "gamma", "prefer"): ((str,), False), ("symbols", "gamma", "unrecovered"): ((bool,), False),
    ("terms", 0, "name"): ((str,), False), ("terms", 0, "expr"): ((str,), True),
    ("terms", 0, "meaning"): ((str,), False),
    ("hypotheses", 0, "name"): ((str,), False), ("hypotheses", 0, "relation"): ((str,), True),
    ("hypotheses", 0, "meaning"): ((str,), False),
}
# keys whose value is a name from a list (or a formula): the word "text" is no valid value of them
TEXT_IS_BAD = {("kind",), ("status",), ("symbols", "gamma", "domain"), ("symbols", "gamma", "prefer"),
               ("terms", 0, "expr"), ("hypotheses", 0, "relation")}
# strings that are no valid value of a key whose type is a string
BAD_STRINGS = {("id",): ["", " ", "two words", "A@B"], ("kind",): ["", "uper", "UPPER!"], ("status",): ["", "pub"],
               ("variant",): ["", "a b"], ("provenance", "seed"): ["", "  "], ("provenance", "locator"): [""],
               ("symbols", "gamma", "domain"): ["", "positiv", "vector"],
               ("symbols", "gamma", "prefer"): ["", "bogus", "target"],
               ("terms", 0, "expr"): ["", " "], ("hypotheses", 0, "relation"): ["", "gamma", "gamma == 1"]}

BAD_FORMULAS = [
    "(" * 300 + "L" + ")" * 300, "-" * 1500 + "L", "+-" * 700 + "L", "1/0", "log(0)", "sqrt(-1)", "(-1)**0.5",
    "1e999", "1" * 2000, "1" * 400, "10**64*10**64*10**64*10**64*10**64", "(10**64)**64", "L**1000", "inf",
    "nan", "L <= 1", "__import__('os')", "L.real", "L[0]", "lambda: 1", "'text'", "L if L else 1", "L and 1",
    "sqrt()", "sqrt(L, x=1)", "log(L - L)", "1/(L - L)", "Max(sqrt(-1), 1)", "L +", "L\x00", "x" * 2001,
    "L" + "**L" * 90, "exp(" * 50 + "L" + ")" * 50, "Abs(-1/0)", "floor(1/0)", "L @ L", "L // 2", "L % 2",
    "L << 1", "~L", "not L", "[L]", "{L: 1}", "f'{L}'", "L == 1", "L < 1 < 2", "Min()", "undeclared + 1",
    # exponent towers (issue 30): a ValueError from the guard's message, or minutes of big-integer arithmetic
    "((10**64)**64)**64", "((((10**64)**64)**64)**64)**64", "(10**60*10**60)**64", "((1/10**64)**64)**64",
]
BAD_RELATIONS = ["gamma <= 1/0", "gamma <= sqrt(-1)", "gamma", "gamma == 1", "1 <= 2", "gamma <= 1 <= 2",
                 "(gamma <= 1) <= 2", "gamma <= " + "(" * 100 + "1" + ")" * 100, "gamma <= L <= 1", "gamma in L"]



def _axis_high(scenario: str, axis: str) -> int:
    """The top of a scenario's axis, read from the scenario (axes move: FAST.T1's M ended at 16 before exact
    scoring lifted its cost cap)."""
    from verify.scenarios import get

    return int(next(p.high for p in get(scenario).space if p.name == axis))


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v == math.inf else "-inf" if v == -math.inf else repr(v))
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string is a JSON string (\uXXXX escapes included)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def toml_text(doc: dict[str, Any]) -> str:
    """TOML of a result document: scalars and inline tables at the top, tables and arrays of tables after."""
    lines = []
    for k, v in doc.items():
        if not (isinstance(v, dict) or (isinstance(v, list) and v and all(isinstance(x, dict) for x in v))):
            lines.append(f"{json.dumps(k)} = {_toml_value(v)}")
    for k, v in doc.items():
        if isinstance(v, dict):
            lines.append(f"[{json.dumps(k)}]")
            lines += [f"{json.dumps(str(a))} = {_toml_value(b)}" for a, b in v.items()]
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for item in v:
                lines.append(f"[[{json.dumps(k)}]]")
                lines += [f"{json.dumps(str(a))} = {_toml_value(b)}" for a, b in item.items()]
    return "\n".join(lines) + "\n"


def _get(doc: Any, path: tuple) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _set(doc: Any, path: tuple, value: Any) -> dict:
    out = copy.deepcopy(doc)
    parent = _get(out, path[:-1])
    parent[path[-1]] = value
    return out


def _delete(doc: Any, path: tuple) -> dict:
    out = copy.deepcopy(doc)
    del _get(out, path[:-1])[path[-1]]
    return out


def _good_formula(rng: random.Random, depth: int = 3) -> str:
    """A formula that is a finite positive real for positive L, gamma, n, D2 (by construction)."""
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(["L", "gamma", "n", "D2", str(rng.randint(1, 9)), f"{rng.randint(1, 99)}/{rng.randint(1, 9)}",
                           "pi", "E", "0.5"])
    a, b = _good_formula(rng, depth - 1), _good_formula(rng, depth - 1)
    form = rng.choice(["({a} + {b})", "({a} * {b})", "({a} / {b})", "({a})**{k}", "sqrt({a})", "log(1 + {a})",
                       "exp(-{a})", "Max({a}, {b})", "Min({a}, {b})", "ceiling({a}) + 1", "floor({a}) + 1",
                       "Abs({a} - {b}) + {b}", "1/(1 + {a})"])
    return form.format(a=a, b=b, k=rng.randint(1, 3))


def _cases() -> list[tuple[str, list[str], dict[str, Any], str]]:
    rng = random.Random(SEED)
    cases: list[tuple[str, list[str], dict[str, Any], str]] = []
    counter = [0]

    def add(cls: str, argv: list[str], files: dict[str, Any] | None = None, expect: str = "bad") -> None:
        cases.append((cls, [str(a) for a in argv], files or {}, expect))

    def toml_case(cls: str, content: Any, expect: str, commands=("check", "show", "solve")) -> None:
        counter[0] += 1
        name = f"r{counter[0]}.toml"
        for cmd in commands:
            tail = {"check": CHECK_VALUES, "show": [], "solve": ["--for", "gamma", "L=1", "n=10", "D2=1"]}[cmd]
            add(cls, [cmd, "--file", "{tmp}/" + name, *tail], {name: content}, expect)

    # ============ TOML results: check/show/solve --file
    toml_case("toml-ok", toml_text(GOOD_TOML), "ok")
    for path, (types, required) in TOML_SCHEMA.items():
        # a key deleted: refused when required, accepted otherwise
        toml_case("toml-delete", toml_text(_delete(GOOD_TOML, path)), "bad" if required else "ok",
                  ("check", "show") if not required else ("check", "show", "solve"))
        # a value of a type the key does not take (a list of strings is allowed for status/flags)
        for value in (7, 1.5, True, "text", [1, 2], {"a": 1}):
            if (value is True and bool in types) or (value == "text" and str in types and path not in TEXT_IS_BAD) \
                    or (path == ("rate",) and value == {"a": 1}):
                continue  # a valid value: no case
            toml_case("toml-type", toml_text(_set(GOOD_TOML, path, value)), "bad", ("check", "show"))
        # nested one level deeper than its type allows
        current = _get(GOOD_TOML, path)
        if not isinstance(current, (dict, list)):
            toml_case("toml-nest", toml_text(_set(GOOD_TOML, path, {"v": current})), "bad", ("show",))
            if list not in types:
                toml_case("toml-nest", toml_text(_set(GOOD_TOML, path, [current])), "bad", ("show",))
        for word in BAD_STRINGS.get(path, []):
            toml_case("toml-value", toml_text(_set(GOOD_TOML, path, word)), "bad", ("check", "show"))
    # empties: a table or list emptied (required ones refused), an unknown key at every level
    for path, expect in ((("symbols",), "bad"), (("terms",), "bad"), (("provenance",), "bad"),
                         (("hypotheses",), "ok"), (("example",), "ok"), (("rate",), "ok"), (("flags",), "ok")):
        empty = {} if isinstance(_get(GOOD_TOML, path), dict) else []
        toml_case("toml-empty", toml_text(_set(GOOD_TOML, path, empty)), expect, ("check", "show"))
    for path in ((), ("provenance",), ("symbols", "gamma"), ("terms", 0), ("hypotheses", 0)):
        toml_case("toml-unknown-key", toml_text(_set(GOOD_TOML, (*path, "domian"), "positive")), "bad", ("show",))
    # formulas that are no finite real, too deep, too long or not formulas at all
    for formula in BAD_FORMULAS:
        toml_case("toml-formula", toml_text(_set(GOOD_TOML, ("terms", 0, "expr"), formula)), "bad")
    for relation in BAD_RELATIONS:
        toml_case("toml-relation", toml_text(_set(GOOD_TOML, ("hypotheses", 0, "relation"), relation)), "bad",
                  ("check", "show"))
    # formulas that are finite positive reals by construction: accepted, and nothing raises later
    for _ in range(30):
        formula = _good_formula(rng)
        text = toml_text(_set(GOOD_TOML, ("terms", 0, "expr"), formula))
        toml_case("toml-good-formula", text, "ok")
        name = f"r{counter[0]}.toml"  # the same file, asked more: far from 1, and the bound's minimiser
        for values in (["L=1e300", "gamma=1e-300", "n=1e15", "D2=1e300"], ["L=1e-300", "gamma=1e300", "n=1", "D2=1e-300"]):
            add("toml-good-formula", ["check", "--file", "{tmp}/" + name, *values, "--json"], {name: text}, "ok")
        add("toml-good-formula", ["solve", "--file", "{tmp}/" + name, "--for", "gamma", "L=1", "n=10", "D2=1", "--mode",
                                  "argmin"], {name: text}, "ok")
    # example and rate values
    for value in (math.nan, math.inf, -math.inf, "x", True, [1], {"a": 1}):
        toml_case("toml-example", toml_text(_set(GOOD_TOML, ("example", "L"), value)), "bad", ("show",))
    for key, value in (("L", -1), ("n", 1.5), ("n", 0), ("nosuch", 1), ("gamma", 0)):
        toml_case("toml-example", toml_text(_set(GOOD_TOML, ("example", key), value)), "bad", ("show",))
    for value in ("x", "1/0", True, math.nan, math.inf, [1], {"a": 1}, "1" * 50):
        toml_case("toml-rate", toml_text(_set(GOOD_TOML, ("rate", "n"), value)), "bad", ("show",))
    digits = "1" * 5000  # beyond Python's 4,300-digit limit of int <-> text: tomllib itself raises
    for line, where in (('"L" = 1\n', "example"), ('"n" = -1\n', "rate"), ('"id" = "DT14.T3.1"\n', "id")):
        assert line in toml_text(GOOD_TOML), where
        huge = toml_text(GOOD_TOML).replace(line, line.split(" = ")[0] + " = " + digits + "\n", 1)
        toml_case("toml-bigint", huge, "bad", ("show",))
    for value in ("-1/2", 0.5, 2, "3"):
        toml_case("toml-rate", toml_text(_set(GOOD_TOML, ("rate", "n"), value)), "ok", ("show",))
    for value in ("FLAG", ["FLAG", "INFERRED"]):
        toml_case("toml-status", toml_text(_set(GOOD_TOML, ("status",), value)), "ok", ("show",))
    for value in (["PUBLISHED", 3], ["bogus"], [["PUBLISHED"]]):
        toml_case("toml-status", toml_text(_set(GOOD_TOML, ("status",), value)), "bad", ("show",))
    # symbol specs: a bare string is a meaning; other scalars are not a spec; names that are no identifier
    toml_case("toml-symbol", toml_text(_set(GOOD_TOML, ("symbols", "D2"), "||x0 - x*||^2")), "ok", ("show",))
    for name in ("sqrt", "pi", "_x", "2x", "a-b"):
        toml_case("toml-symbol", toml_text(_set(GOOD_TOML, ("symbols", name), {"meaning": "x"})), "bad", ("show",))
    toml_case("toml-symbol", toml_text(_delete(GOOD_TOML, ("symbols", "D2"))), "bad", ("show",))
    # the whole file: truncated (only where tomllib no longer parses it), binary junk, not UTF-8
    text = toml_text(GOOD_TOML)
    cuts = 0
    while cuts < 12:
        cut = rng.randrange(1, len(text) - 1)
        try:
            tomllib.loads(text[:cut])
        except tomllib.TOMLDecodeError:
            toml_case("toml-truncated", text[:cut], "bad", ("check",))
            cuts += 1
    for _ in range(8):
        junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 400)))
        try:
            tomllib.loads(junk.decode("utf-8"))
            continue  # junk that happens to be TOML is no case
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            toml_case("toml-junk", junk, "bad", ("check",))
    for odd in ("\ufeff" + text, text.replace("=", "\u00a0=", 1), text.replace('"upper"', "upper")):
        try:
            tomllib.loads(odd)
        except tomllib.TOMLDecodeError:
            toml_case("toml-junk", odd, "bad", ("check",))
    toml_case("toml-junk", text.encode("utf-16"), "bad", ("check",))
    toml_case("toml-big", text + "#" * (2**20 + 10) + "\n", "bad", ("check",))
    # special files and paths as --file
    for name, what in (("fifo.toml", FIFO), ("dir.toml", DIR), ("null.toml", DEVNULL), ("empty.toml", ""),
                       ("dangling.toml", Link("nowhere.toml")), ("todir.toml", Link("adir")),
                       ("tofifo.toml", Link("fifo.toml"))):
        files = {name: what, "adir": DIR, "fifo.toml": FIFO}
        for cmd in ("check", "show", "solve"):
            add("toml-special", [cmd, "--file", "{tmp}/" + name, *(CHECK_VALUES if cmd == "check" else [])], files)
    for word in ("", " ", "/", "/dev/zero", "/proc/self/mem", "{tmp}/nosuch.toml", "{tmp}"):
        add("toml-special", ["show", "--file", word], {})
    add("toml-ok", ["show", "--file", "{tmp}/link.toml"], {"link.toml": Link("good.toml"),
                                                            "good.toml": toml_text(GOOD_TOML)}, "ok")

    # ============ --plugin: special and broken files
    plugin_files = {"p_fifo.py": FIFO, "p_dir.py": DIR, "p_null.py": DEVNULL, "p_syntax.py": "def (:\n",
                    "p_exit.py": "import sys\nsys.exit(0)\n", "p_exit3.py": "raise SystemExit(3)\n",
                    "p_rec.py": "def f():\n    return f()\nf()\n", "p_import.py": "import no_such_module_xyz\n",
                    "p_junk.py": b"\x00\xff\xfe junk", "p_txt.txt": "x = 1\n", "p_bad.toml": "id = \n",
                    "p_link.py": Link("nowhere.py"), "p_deep.toml": toml_text(_set(GOOD_TOML, ("terms", 0, "expr"),
                                                                                       "-" * 1500 + "L"))}
    for name, what in plugin_files.items():
        add("plugin", ["--plugin", "{tmp}/" + name, "list", "--json"], {name: what})
    add("plugin", ["--plugin", "", "list"], {})
    add("plugin-ok", ["--plugin", "{tmp}/p_ok.toml", "list", "--json"], {"p_ok.toml": toml_text(GOOD_TOML)}, "ok")

    # ============ instance files: verify --instance
    for path_, value, expect in INSTANCE_MUTATIONS:
        doc = _delete(GOOD_INSTANCE, path_) if value is _DELETE else _set(GOOD_INSTANCE, path_, value)
        counter[0] += 1
        name = f"i{counter[0]}.json"
        add("instance", ["verify", "--instance", "{tmp}/" + name], {name: json.dumps(doc)}, expect)
    text = json.dumps(GOOD_INSTANCE)
    for i in range(10):
        cut = rng.randrange(1, len(text) - 1)
        add("instance-truncated", ["verify", "--instance", f"{{tmp}}/t{i}.json"], {f"t{i}.json": text[:cut]})
    for i, junk in enumerate([b"\xff\xfe\x00", b"", b"[]", b"null", b"3", b'"x"', b"[" * 100_000,
                              b'{"a": ' * 50_000, json.dumps([GOOD_INSTANCE]).encode(),
                              b'{"format": "convbound-instance/1", "format": 1}']):
        add("instance-junk", ["verify", "--instance", f"{{tmp}}/j{i}.json"], {f"j{i}.json": junk})
    for name, what in (("ififo.json", FIFO), ("idir.json", DIR), ("inull.json", DEVNULL),
                       ("ilink.json", Link("nowhere.json"))):
        add("instance-special", ["verify", "--instance", "{tmp}/" + name], {name: what})
    add("instance-special", ["verify", "--instance", ""], {})
    good = {"good.json": json.dumps(GOOD_INSTANCE)}
    for extra in (["--trials", "5"], ["--seed", "5"], ["--seed", "0"], ["--quick"], ["--workers", "2"],
                  ["--scheduler", "local"], ["--scheduler", "inprocess"], ["FAST.T1"], ["--device", "tpu"]):
        add("instance-options", ["verify", "--instance", "{tmp}/good.json", *extra], good)
    add("instance-ok", ["verify", "--instance", "{tmp}/good.json", "--json"], good, "ok")

    # ============ falsify: sizes, schedulers, output paths
    # a scenario scored exactly in about a second: the sizes and schedulers checked here are not FAST.T1's own
    fal = ["falsify", "SCAF.T1.sampling", "--budget", "2", "--trials", "2", "--confirm-trials", "4"]
    for value in SIZES:
        for opt, good_values in (("--budget", {"1"}), ("--trials", set()), ("--confirm-trials", set()),
                                 ("--population", {"1", str(2**31), str(2**63), str(2**64), str(10**22)}),
                                 ("--time", {"1", str(2**31), str(2**63), str(2**64), str(10**22)}),
                                 ("--seed", {"0", "1", str(2**31)})):
            add("falsify-size", [*fal, opt, value], {}, "ok" if value in good_values else "bad")
        add("falsify-size", [*fal, "--budget", value, "--time", "3"], {}, "ok" if value == "1" else "bad")
        # --workers of any size with inprocess is refused; with a refusal after it, still one line
        add("falsify-workers", [*fal, "--workers", value, "--scheduler", "inprocess"])
        add("falsify-workers", [*fal, "--workers", value, "--budget", "0"])
    for value in SIZES:  # verify's own --trials: every size here is refused (one trial gives no interval)
        add("verify-size", ["verify", "FAST.T1", "--quick", "--trials", value])
    for value in (str(2**63 - 1), str(10**18), str(10**9), str(10**8)):
        add("falsify-size", ["falsify", "FAST.T1", "--budget", value, "--time", "3"])
        add("falsify-size", ["falsify", "FAST.T1", "--budget", value])
    for value in (str(10**9), str(10**6), str(2**31 - 1)):
        add("falsify-size", ["falsify", "FAST.T1", "--budget", "2", "--trials", value])
        add("falsify-size", ["falsify", "FAST.T1", "--budget", "2", "--confirm-trials", value])
    for sid in ("FAST.T2@corrected", "F3AST.T3.5@explicit", "ASCAF.T1"):
        add("falsify-size", ["falsify", sid, "--budget", "2", "--confirm-trials", str(10**7)])
    for word in ("127.0.0.1", "127.0.0.1:8786", "tcp://127.0.0.1", "tcp://h:abc", "tcp://", "tcp://:8786",
                 "tcp://h:0", "tcp://h:65536", "tcp://h:99999999999", "tcp://h:-1", "tcp://h h:1", "tcp://h:1/x",
                 "LOCAL", "in-process", "dask://h:1", "tcp://h:1:2", "x" * 300):
        add("falsify-scheduler", [*fal, "--scheduler", word])
    add("falsify-scheduler", [*fal, "--scheduler", "tcp://127.0.0.1:1", "--workers", "2"])
    # issue 30: a count above verify.runtime.executor.MAX_WORKERS; an unreachable host; two outputs on one file
    for value in ("1025", str(2**63), str(10**22)):
        add("falsify-workers", [*fal, "--workers", value])
    add("falsify-scheduler", [*fal, "--scheduler", "tcp://127.0.0.1:1"])
    for a, b in (("--out", "--instance-out"), ("--out", "--trace"), ("--instance-out", "--trace")):
        add("falsify-output", [*fal, a, "{tmp}/same.out", b, "{tmp}/same.out"])
    specials = {"fifo.out": FIFO, "dir.out": DIR, "link.out": Link("target.txt"), "target.txt": "keep",
                "exists.out": "old"}
    for opt in ("--out", "--instance-out", "--trace"):
        for where in ("", " ", "{tmp}/dir.out", "{tmp}/fifo.out", "{tmp}/link.out", "/dev/null", "{tmp}/exists.out",
                      "{tmp}/missing/x.json", "{tmp}/" + "n" * 300, "/proc/convbound.json"):
            add("falsify-out", [*fal, opt, where], specials)
        for where in ("{tmp}/dir.out", "{tmp}/fifo.out", "{tmp}/link.out", "/dev/null"):
            add("falsify-out", [*fal, opt, where, "--force"], specials)
    add("falsify-ok", [*fal, "--out", "{tmp}/rec.json", "--instance-out", "{tmp}/inst.json", "--json"], {}, "ok")

    # ============ report: --include, --from-json and --out of special files
    rep = ["report", "--from-json", "{tmp}/doc-ok.json"]
    doc_file = {"doc-ok.json": "DOC"}
    for name, what in (("inc_fifo.json", FIFO), ("inc_dir.json", DIR), ("inc_null.json", DEVNULL),
                       ("inc_link.json", Link("nowhere.json")), ("inc_empty.json", ""),
                       ("inc_junk.json", b"\xff\xd8\xff\xe0 jpeg"), ("inc_deep.json", "[" * 100_000),
                       ("inc_big.json", Big(64 * 2**20 + 1)), ("inc_trunc.json", '{"kind": "worst-case", "res'),
                       ("inc_nan.json", "NaN"), ("inc_list.json", "[1, 2]")):
        add("report-include", [*rep, "--include", "{tmp}/" + name, "--out", "{tmp}/out-" + name],
            {**doc_file, name: what})
        add("report-from-json", ["report", "--from-json", "{tmp}/" + name, "--out", "{tmp}/o2-" + name], {name: what})
    add("report-include", [*rep, "--include", "", "--out", "{tmp}/o-empty"], doc_file)
    for name, what in (("rfifo", FIFO), ("rnull", Link("/dev/null")), ("rfile", "text"),
                       ("rdangling", Link("nowhere")), ("rlinkfile", Link("rfile")),
                       ("rother", {"notes.txt": "mine"})):
        for force in ([], ["--force"]):
            add("report-out", [*rep, "--out", "{tmp}/" + name, *force], {**doc_file, name: what, "rfile": "text"})
    for where in ("", " ", "/proc/convbound-report", "{tmp}/missing/deeper", "{tmp}/" + "d" * 300):
        add("report-out", [*rep, "--out", where], doc_file)

    # ============ region --arrays
    reg = ["region", "--model", "table1", "--json"]
    for where in ("", "{tmp}/a.txt", "{tmp}/adir.npz", "{tmp}/fifo.npz", "/dev/null", "{tmp}/link.npz",
                  "{tmp}/missing/a.npz", "{tmp}/" + "n" * 300 + ".npz", "/proc/a.npz", "{tmp}/exists.npz"):
        files = {"adir.npz": DIR, "fifo.npz": FIFO, "link.npz": Link("t.npz"), "t.npz": "x", "exists.npz": "x"}
        add("region-arrays", [*reg, "--arrays", where], files)
        if where not in ("", "{tmp}/a.txt", "{tmp}/missing/a.npz", "{tmp}/exists.npz"):
            add("region-arrays", [*reg, "--arrays", where, "--force"], files)
    add("region-arrays", ["region", "--model", "table1", "--arrays", "{tmp}/x.npz"], {})
    add("region-arrays", [*reg, "--check", "0.3,0.5", "--arrays", "{tmp}/x.npz"], {})
    add("region-arrays-ok", [*reg, "--arrays", "{tmp}/new.npz"], {}, "ok")
    for name, what in (("mfifo.toml", FIFO), ("mdir.toml", DIR), ("mnull.toml", Link("/dev/null")),
                       ("mjunk.toml", b"\xff\xfe"), ("mempty.toml", ""),
                       ("mbig.toml", 'kind = "independent"\nq = [0.5]\nk = ' + "1" * 5000 + "\n")):
        add("region-model", ["region", "--model", "{tmp}/" + name], {name: what})
    return cases


_DELETE = object()
GOOD_INSTANCE: dict[str, Any] = {
    "format": "convbound-instance/1", "scenario": "FAST.T1",
    "point": {"problem": "quadratic", "M": 4, "K": 2, "R": 20, "d": 2, "samples": 4},
    "trials": 4, "seeds": [12345], "level": 0.99, "device": "cpu",
    "expect": {"verdict": "holds", "lhs": 0.5, "ci": [0.4, 0.6], "rhs": 1.0},
}
INSTANCE_MUTATIONS: list[tuple[tuple, Any, str]] = []  # (path, value or _DELETE, expect)


def _instance_mutations() -> None:
    m = INSTANCE_MUTATIONS
    m += [((key,), _DELETE, "bad") for key in ("format", "scenario", "point", "trials", "seeds")]
    m += [((key,), _DELETE, "ok") for key in ("level", "device", "expect")]
    m.append((("format",), "convbound-instance/2", "bad"))
    m += [(("level",), v, "bad") for v in (0, 1, 2, -0.5, None, "0.99", True, [0.99], {"v": 0.99}, 0.4999,
                                            1 - 1e-16, math.nan, math.inf)]
    m += [(("seeds",), [v], "bad") for v in (-1, True, False, 2**63, 2**64, 10**22, 1.5, "1", None, [1], {"v": 1})]
    m += [(("seeds",), v, "bad") for v in ([1, 2], [], 1, None)]
    m += [(("trials",), v, "bad") for v in (0, 1, -1, 2**31, 2**63, 2**64, 2**70, 10**22, 1e22, 2.0, "5", True, None,
                                             [4], {"a": [1]}, 10**8, math.nan, math.inf)]
    m += [(("point", "M"), v, "bad") for v in (True, [4], {"v": 4}, None, math.nan, math.inf, "four", 10**30, -4,
                                                4.5, _axis_high("FAST.T1", "M") + 1)]  # just past the axis
    m += [(("point", "problem"), v, "bad") for v in ("nosuch", True, 1)]
    m += [(("point", "nosuch"), 1, "bad"), (("point",), [1, 2], "bad"), (("point",), None, "bad")]
    m += [(("expect",), v, "bad") for v in ("holds", [1], 7, True)]
    m += [(("expect", k), v, "bad") for k, v in (("verdict", "maybe"), ("verdict", 3), ("lhs", "x"), ("lhs", [1]),
                                                  ("ci", [1]), ("ci", "x"), ("ci", [1, 2, 3]), ("rhs", {"a": 1}),
                                                  ("nosuch", 1))]
    m += [(("device",), v, "bad") for v in ("tpu", "cuda:x", 3, None, "", "cuda:9999")]
    m += [(("scenario",), v, "bad") for v in (3, None, "", "FAST.T9", ["FAST.T1"], True)]
    m.append((("unknown",), "x", "bad"))


_instance_mutations()


class Big:
    """A file of ``size`` spaces, written when the case runs (not held in the case list)."""

    def __init__(self, size: int):
        self.size = size

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Big) and other.size == self.size


def _materialise(tmp: Path, files: dict[str, Any]) -> None:
    """Make each file of a case in ``tmp`` (once: cases share names only for identical content)."""
    for name, what in files.items():
        path = tmp / name
        if os.path.lexists(path):
            continue
        if what is FIFO:
            os.mkfifo(path)
        elif what is DIR:
            path.mkdir()
        elif what is DEVNULL:
            path.symlink_to("/dev/null")
        elif isinstance(what, Link):
            path.symlink_to(what.target if what.target.startswith("/") else tmp / what.target)
        elif isinstance(what, dict):
            path.mkdir()
            for inner, text in what.items():
                (path / inner).write_text(text)
        elif what == "DOC":
            sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reports"))
            from report_fixtures import fixture_doc

            path.write_text(json.dumps(fixture_doc()))
        elif isinstance(what, Big):
            with open(path, "wb") as fh:
                fh.truncate(what.size)  # a sparse file of NUL bytes: its size is what counts
        elif isinstance(what, bytes):
            path.write_bytes(what)
        else:
            path.write_text(what, encoding="utf-8")


class _Hang(Exception):
    pass


def _run(argv: list[str]) -> tuple[int, str, str, BaseException | None, list[str]]:
    out, err = io.StringIO(), io.StringIO()
    code, crash = 0, None

    def alarm(signum, frame):
        raise _Hang(f"no answer within {HANG_S} s (a FIFO read?)")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(HANG_S)
    with warnings.catch_warnings(record=True) as caught:
        # the command line's own environment: Python's default filters (deprecations hidden)
        warnings.resetwarnings()
        warnings.simplefilter("default")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.filterwarnings("ignore", category=PendingDeprecationWarning)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except BaseException as exc:  # a traceback (or a hang): what this suite exists to catch
                crash = exc
            finally:
                signal.alarm(0)
                signal.signal(signal.SIGALRM, previous)
                from bounds.plugins import clear_files

                clear_files()  # a plugin a case loaded must not stay for the next one
    return code, out.getvalue(), err.getvalue(), crash, [f"{w.category.__name__}: {w.message}" for w in caught]


def _judge(cls: str, argv: list[str], expect: str) -> None:
    code, out, err, crash, warned = _run(argv)
    shown = " ".join(a if len(a) < 60 else a[:20] + "..." + a[-25:] for a in argv)
    assert crash is None, f"traceback ({type(crash).__name__}: {str(crash)[:300]}) from: convbound {shown}"
    assert "Traceback" not in err
    assert not warned, f"library warning(s) {warned[:2]} from: convbound {shown}"
    assert len(err) < 2000, f"error message of {len(err)} characters from: convbound {shown}"
    if expect == "bad":
        assert code == 2, f"bad input accepted (exit {code}) by: convbound {shown}\n{out[:300]}{err[:300]}"
        assert err.startswith("convbound: error: ") and err.endswith("\n") and err.count("\n") == 1, \
            f"not exactly one line on stderr: {err!r}"
    else:
        assert code in (0, 1), f"good input refused (exit {code}) by: convbound {shown}: {err}"
        others = [line for line in err.splitlines() if line and not line.startswith("convbound: note: ")]
        assert not others, f"stderr beside good output: {others[:3]}"


CASES = _cases()


@pytest.fixture(scope="module")
def case_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz-newer")


def _params():
    return [pytest.param(i, cls, argv, files, expect, id=f"{i:03d}-{cls}") for i, (cls, argv, files, expect)
            in enumerate(CASES)]


@pytest.mark.parametrize("index, cls, argv, files, expect", _params())
def test_generated_invocation(index, cls, argv, files, expect, case_dir, monkeypatch):
    case = case_dir / f"c{index}"
    case.mkdir()
    _materialise(case, files)
    monkeypatch.chdir(case)
    before = _snapshot(case)
    _judge(cls, [a.replace("{tmp}", str(case)) for a in argv], expect)
    if expect == "bad":  # a refusal writes nothing and leaves nothing behind, hidden or not
        assert _snapshot(case) == before, f"files changed by a refused command: {sorted(_snapshot(case) ^ before)}"
    assert not any(p.name.startswith(".") for p in case.iterdir()), "a hidden temporary file was left behind"
    for name, what in files.items():  # what the command must not touch is still what it was
        path = case / name
        if what is FIFO:
            assert stat.S_ISFIFO(os.lstat(path).st_mode)
        elif isinstance(what, Link):
            assert path.is_symlink()


def _snapshot(case: Path) -> set[tuple[str, int, float]]:
    out = set()
    for p in case.rglob("*"):
        st = os.lstat(p)
        out.add((str(p.relative_to(case)), st.st_size if stat.S_ISREG(st.st_mode) else -1, st.st_mtime_ns))
    return out


def test_suite_is_large_and_covers_the_newer_inputs():
    assert len(CASES) >= 550
    assert sum(expect == "bad" for *_, expect in CASES) >= 450
    kinds = {cls.split("-")[0] for cls, *_ in CASES}
    assert {"toml", "plugin", "instance", "falsify", "report", "region", "verify"} <= kinds
    commands = {a for _, argv, _, _ in CASES for a in argv[:1]} | {argv[2] for _, argv, _, _ in CASES
                                                                   if argv[0] == "--plugin"}
    assert {"check", "show", "solve", "verify", "falsify", "report", "region", "list"} <= commands


def test_same_seed_same_cases():
    assert _cases() == CASES


if sys.platform != "linux":  # FIFOs, /proc and /dev/null are Linux facts
    pytestmark = pytest.mark.skip(reason="the file cases use FIFOs, /proc and /dev/null")

