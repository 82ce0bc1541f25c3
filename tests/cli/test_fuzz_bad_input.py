"""A generated bad-input suite: several hundred invocations of every command, run in-process.

Each case is ``(argv, expect)``: ``bad`` must exit 2 with exactly one line on stderr, no traceback;
``ok`` must run (exit 0, or 1 where the command says "ran, but the answer is no") with no traceback.
Nothing is excused: no case is marked xfail.

The cases come from a seeded generator (``random.Random(SEED)``): same seed, same cases.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import stat
import sys
from pathlib import Path

import pytest

from reports.cli.main import main

SEED = 20261123
T1 = ["L=1", "K=5", "m=10", "n=5", "q=0.5", "sigma2=1", "sigma_G2=0.25", "zeta=1", "R=1000", "eta_c=0.005"]
E3 = ["p=0.5,0.5", "r=0.375,0.5"]
LB5 = ["p=0.5,0.5", "r=0.375,0.5", "v=1,0;0,1", "Sigma=0.234375,-0.1875;-0.1875,0.25", "eta=1"]
SIM = ["simulate", "--problem", "quadratic", "--trials", "2", "--rounds", "3", "--device", "cpu", "d=2", "M=2", "K=2"]
REGION = ["region", "--model", "table1"]
HUGE = [10**k for k in (9, 12, 18, 19, 20, 22, 23, 30)] + [99999999999999999999999]

def _cases() -> list[tuple[str, list[str], str]]:
    rng = random.Random(SEED)
    cases: list[tuple[str, list[str], str]] = []

    def add(cls: str, argv: list[str], expect: str = "bad") -> None:
        cases.append((cls, [str(a) for a in argv], expect))

    # --- valid invocations: the suite must also see that good input is not refused
    add("ok", ["list", "--json"], "ok")
    add("ok", ["show", "FAST.T1"], "ok")
    add("ok", ["show", "FAST.T2", "--json"], "ok")
    add("ok", ["check", "FAST.T1", *T1, "--json"], "ok")
    add("ok", ["check", "F3AST.E3@p2", *E3], "ok")
    add("ok", ["check", "F3AST.LB.5", *LB5, "--json"], "ok")
    add("ok", ["solve", "FAST.T1", "--for", "eta_c", *[a for a in T1 if not a.startswith("eta_c")]], "ok")
    add("ok", [*REGION, "--json"], "ok")
    add("ok", [*REGION, "--check", "0.3,0.5", "--json"], "ok")
    add("ok", ["region", "--model", "home_devices", "--clients", "5", "--json"], "ok")
    add("ok", [*SIM, "--json"], "ok")
    add("ok", [*SIM[:2], "lower_bound", *SIM[3:-3], "--algorithm", "amplified-fedavg", "--json"], "ok")

    # --- compare: a valid setting, then one broken word at a time (name, value, pattern, measure)
    setting = ["L=1", "tau=5", "S=10", "N=100", "sigma2=1", "zeta_G2=0.25", "Delta0=1", "eps=0.05", "R=1000"]
    add("ok", ["compare", *setting, "--pattern", "iid", "--json"], "ok")
    for _ in range(12):
        i = rng.randrange(len(setting))
        key = setting[i].split("=")[0]
        word = rng.choice([f"{key}=-{rng.random():.3f}", f"{key}=nan", f"{key}=", f"{key}x=1", f"{key}=1e400"])
        add("compare", ["compare", *setting[:i], word, *setting[i + 1:], "--pattern", "iid"])
    add("compare", ["compare", *setting, "--pattern", rng.choice(["IID", "uniform", ""])])
    add("compare", ["compare", *setting, "--pattern", "iid", "--measure", "loss"])

    # --- check: ragged vectors and matrices, a matrix where a vector belongs
    for _ in range(24):
        n = rng.randint(2, 4)
        rows = [",".join(f"{rng.random():.3f}" for _ in range(rng.randint(1, n))) for _ in range(n)]
        if len({r.count(",") for r in rows}) == 1:
            rows[-1] += ",0.5"
        add("ragged", ["check", "F3AST.LB.5", *[a for a in LB5 if not a.startswith("Sigma")], "Sigma=" + ";".join(rows)])
    for _ in range(12):
        add("ragged", ["check", "F3AST.E3@p2", "r=0.375,0.5", "p=" + ";".join(["0.5,0.5"] * rng.randint(2, 3))])
        add("ragged", ["check", "F3AST.E3@p2", "p=0.5,0.5", "r=0.5,0.5;0.5"])

    # --- numbers that are not numbers, non-finite targets and values
    for word in ("nan", "inf", "-inf", "NaN", "Infinity", "1e999", "abc", "", "0x10", "1,2"):
        add("target", ["solve", "FAST.T1", "--for", "R", "--target", word, *[a for a in T1 if not a.startswith("R=")]])
        add("target", [*SIM, "--target", word])
    for key in ("eta", "mu_prox", "L", "mu", "sigma", "zeta", "D0"):
        for word in ("inf", "nan", "-inf"):
            extra = ["--algorithm", "fast"] if key == "mu_prox" else []
            add("non-finite-sim", [*SIM, *extra, f"{key}={word}"])
    for key in ("eta_c", "L", "q", "sigma2"):
        for word in ("inf", "nan"):
            add("non-finite", ["check", "FAST.T1", *[a for a in T1 if not a.startswith(key + "=")], f"{key}={word}"])

    # --- seeds: negative, beyond 2^63 and 2^64, not integers
    for value in (-1, -(2**70), 2**63, 2**64, 2**64 + 1, 10**30, "1.5", "seed"):
        add("seed", [*SIM, "--seed", value])
        add("seed", [*REGION, "--simulate", "--rounds", "10", "--runs", "2", "--seed", value])
        add("seed", [*REGION, "--model-seed", value])
        add("seed", ["verify", "FAST.T1", "--quick", "--seed", value])
        add("seed", ["report", "--quick", "--out", "unused-dir", "--seed", value])
        add("seed", [*SIM, f"instance={value}"])

    # --- counts: zero, negative, absurd (refused up front with an estimate)
    for value in (0, -1, -5):
        for opt in ("--trials", "--rounds"):
            add("count", [*SIM, opt, value])
        add("count", ["verify", "FAST.T1", "--trials", value])
        add("count", [*REGION, "--clients", value])
        add("count", [*REGION, "--simulate", "--runs", value])
    for value in HUGE:
        add("absurd", [*SIM, "--trials", value])
        add("absurd", [*SIM, "--rounds", value])
    for value in [10**7, 3 * 10**7, 10**8, *HUGE]:
        add("absurd", ["region", "--model", "home-devices", "--clients", value])
        add("absurd", ["region", "--model", "scarce", "--clients", value, "--json"])
    for key in ("K", "d", "M"):
        for value in ("1e12", "1e9", "1e15", "10000000000"):
            add("absurd", [*SIM, f"{key}={value}"])

    # --- region --check outside [0, 1], --beta not finite or out of range
    for _ in range(16):
        bad = rng.choice([-0.1, -1e-9, 1.5, 2, "nan", "inf", "-inf", "x"])
        pair = [bad, 0.5] if rng.random() < 0.5 else [0.3, bad]
        add("region-check", [*REGION, "--check", ",".join(map(str, pair))])
    for beta in ("nan", "inf", "0", "-1", "2"):
        add("region-beta", [*REGION, "--simulate", "--rounds", "10", "--runs", "2", "--beta", beta])

    # --- names: unknown IDs, a trailing '@', garbage commands and options
    for word in ("FAST.T1@", "FAST.T1@@", "@", "FAST.T1@nope"):
        add("show-at" if word == "FAST.T1@" else "names", ["show", word])
    for word in ("FAST.T9", "F3AST", "nope", "", " ", "FAST.T1 ", "fast.t1x"):
        add("names", ["show", word])
        add("names", ["check", word, *T1])
    for word in ("quadratics", "lowerbound", "lower bound", "x"):
        add("names", [*SIM[:2], word, *SIM[3:]])
        add("names", [*SIM, "--algorithm", word])
        add("names", [*SIM, "--pattern", word])
    for _ in range(20):
        junk = "".join(rng.choice("abcXYZ-_=@.;,[]{}%$0129") for _ in range(rng.randint(1, 12)))
        add("junk", [rng.choice(["--" + junk, "nosuchcommand" + junk])])
        add("junk", ["check", "FAST.T1", *T1, "--" + junk.lstrip("-") + "x"])
    for argv in (["check"], ["solve", "FAST.T1"], ["region"], ["simulate"], ["verify"], ["show"],
                 ["check", "FAST.T1", "L"], ["check", "FAST.T1", "=1"], ["check", "FAST.T1", "L=1", "L=2"],
                 ["solve", "FAST.T1", *T1, "--for", "eta_c", "--mode", "sideways"]):
        add("usage", argv)

    # --- every encoded result: a symbol given a word, an unknown key, a value outside its domain
    from bounds import all_results

    words = ("one", "1..2", "--", "1e", "(1)", "1/2", "[x]", "E[w^i]", "0,,1", "true")
    # built-in results only: a plugin result registered by another test in this process (a scenario registers its
    # result when first scored) must not change the generated cases
    for res in (r for r in all_results() if r.origin == "built-in"):
        scalars = [sym.name for sym in res.symbols if not sym.domain.is_vector and "matrix" not in sym.domain.value[0]]
        if not scalars:
            continue
        name = rng.choice(scalars)
        add("check-word", ["check", res.key, f"{name}={rng.choice(words)}"])
        add("check-key", ["check", res.key, f"no_such_symbol_{rng.randint(0, 99)}=1"])
        add("solve-symbol", ["solve", res.key, "--for", "no_such_symbol", f"{name}=1"])
    # --- simulate: unknown keys, words and fractions for integer sizes
    for key, value in [("M", "2.5"), ("d", "abc"), ("K", "0.5"), ("S", "x"), ("nosuch", "1"), ("eta", "fast"),
                       ("M", "-2"), ("d", "0"), ("K", "-1"), ("P", "1.5"), ("gamma", "x"), ("dist", "cauchy")]:
        add("sim-value", [*SIM, f"{key}={value}"])
        add("sim-value", [*SIM, "--pattern", "arbitrary", f"{key}={value}"])
    for word in ("cuda:99x", "tpu", "gpu", ""):
        add("device", [*SIM, "--device", word])
        add("device", ["report", "--quick", "--out", "unused-dir", "--device", word])
    for word in ("FAST.T99", "NOPE", "fast", "F3AST.X"):
        add("verify-id", ["verify", word, "--quick"])
        add("report-only", ["report", "--quick", "--out", "unused-dir", "--only", ","])

    # --- a 100,000-character argument is not echoed back whole
    for argv in (["show", "X" * 100_000], ["check", "FAST.T1", "L=" + "9" * 100_000 + "x"],
                 [*SIM, "--problem", "p" * 100_000], [*REGION, "--check", "0." + "5" * 100_000 + "x"],
                 ["nosuch" + "z" * 100_000]):
        add("long", argv)
    # --- falsify, worst-case, audit: every numeric option out of its range, unknown names, bad seeds
    fal = ["falsify", "FAST.T1", "--budget", "2"]
    for opt, words in (("--budget", ("0", "-3", "abc", "1e3")), ("--trials", ("1", "0", "x")),
                       ("--confirm-trials", ("1", "-1")), ("--population", ("0", "-2", "2.5")),
                       ("--time", ("nan", "-1", "0", "inf")), ("--seed", ("-1", str(2**64), "1.5")),
                       ("--optimiser", ("cmaes", "", "random;")), ("--device", ("tpu", "cuda:x")),
                       ("--workers", ("0", "-1")), ("--scheduler", ("dask://x", "tcp:/", "nowhere"))):
        for word in words:
            add("falsify", [*fal, opt, word])
    for sid in ("FAST.T9", "FAST.C2@corrected", "", "F3AST.T3.5@", rng.choice(["x" * 300, "FAST.T1;"])):
        add("falsify", ["falsify", sid, "--budget", "2"])
    wc = ["worst-case", "--eta", "0.1"]
    for opt, words in (("--eta", ("0", "-0.1", "nan", "inf", "abc")), ("--L", ("0", "-1", "nan", "inf")),
                       ("--mu", ("-0.1", "nan", "2")), ("--zeta", ("-1", "nan", "inf")), ("--K", ("0", "-1", "1.5")),
                       ("--R", ("0", "-2")), ("--M", ("0", "1.5")), ("--D0", ("0", "-1", "inf")),
                       ("--eta-g", ("0", "nan")), ("--method", ("sgd", "")), ("--measure", ("loss",)),
                       ("--solver", ("MOSEK", "x")), ("--interval", ("0", "-1")), ("--cohort", ("0", "-1"))):
        for word in words:
            argv = ["worst-case", opt, word] if opt == "--eta" else [*wc, opt, word]
            add("worst-case", argv)
    au = ["audit", "/nonexistent/log.csv"]
    add("audit", au)
    for opt, words in (("--alpha", ("0", "1.5", "nan", "-0.1")), ("--level", ("0", "1", "nan", "2")),
                       ("--target", ("bogus", "uniform:", "uniform:3/0", "fast:2", "fast:x")),
                       ("--period", ("0", "-1")), ("--k", ("0", "-2")), ("--format", ("xls",)),
                       ("--objective", ("p3",)), ("--columns", ("round", "round=", "x=y"))):
        for word in words:
            add("audit", ["audit", "demo.csv", opt, word])

    return cases


CASES = _cases()


def _tmp_cases(tmp: Path) -> list[tuple[str, list[str], str]]:
    """Cases that need files: model files, output paths, --force onto non-regular files, saved documents."""
    cases: list[tuple[str, list[str], str]] = []
    rng = random.Random(SEED + 1)
    good = 'kind = "table"\nsets = [[1, 1], [1, 0], [0, 1], [0, 0]]\nprobs = [0.3, 0.075, 0.5, 0.125]\n'
    for i, cap in enumerate(['[cap]\nvalues = "12"\nprobs = [1.0]', "[cap]\nvalues = 3\nprobs = 1",
                             "[cap]\nvalues = [1, 2]\nprobs = 0.5", "[cap]\nvalues = [1.5]\nprobs = [1.0]",
                             'cap = "1"', "cap = 2", "[cap]\nvalues = [[1], [2]]\nprobs = [0.5, 0.5]",
                             "[cap]\nvalues = [true]\nprobs = [1.0]", "k = [1, 2]", 'k = "one"']):
        path = tmp / f"model{i}.toml"
        path.write_text(good + cap + "\n")
        cases.append(("model-file", ["region", "--model", str(path)], "bad"))
    for i, body in enumerate(['kind = "table"\nsets = "11"\nprobs = [1.0]', 'kind = "independent"\nq = 0.5',
                              'kind = "table"\nsets = [[1, 1], [1]]\nprobs = [0.5, 0.5]', 'kind = 3',
                              'kind = "independent"\nq = [0.5, "x"]', 'kind = "cyclic"\ngroups = "01"']):
        path = tmp / f"shape{i}.toml"
        path.write_text(body + "\n")
        cases.append(("model-file", ["region", "--model", str(path)], "bad"))
    # output paths that cannot be written: a read-only file system, a missing directory, a long name
    long_name = "n" * 300
    for where in ("/proc/convbound-out", str(tmp / "missing" / "out"), str(tmp / long_name)):
        cases.append(("out-path", [*REGION, "--plot", where + ".png"], "bad"))
        cases.append(("out-path", [*SIM, "--out", where + ".csv"], "bad"))
        cases.append(("out-path", ["report", "--from-json", str(tmp / "doc-ok.json"), "--out", where], "bad"))
    # --force replaces only regular files: never a device, a FIFO, a symbolic link or a directory
    fifo = tmp / "fifo.csv"
    os.mkfifo(fifo)
    link = tmp / "link.csv"
    link.symlink_to(tmp / "target.txt")
    (tmp / "target.txt").write_text("keep")
    (tmp / "adir.csv").mkdir()
    for path in ("/dev/full", "/dev/null", str(fifo), str(link), str(tmp / "adir.csv")):
        cases.append(("force", [*SIM, "--out", path, "--force"], "bad"))
        cases.append(("force", [*REGION, "--plot", path, "--force"], "bad"))
    # report --from-json: partial or mistyped documents
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reports"))
    from report_fixtures import fixture_doc

    (tmp / "doc-ok.json").write_text(json.dumps(fixture_doc()))
    mutations = [("results", "x"), ("results", [1]), ("verifications", {"a": 1}), ("verifications", [1]),
                 ("schema", "other/1"), ("region", [1, 2]), ("expected_controls", "FAST.T1.control"),
                 ("sampler", {"t": "x", "r": []})]
    for i, (key, value) in enumerate(mutations):
        doc = fixture_doc()
        doc[key] = value
        cases.append(("from-json", ["report", "--from-json", _dump(tmp, f"m{i}", doc), "--out", str(tmp / f"o{i}")],
                      "bad"))
    for i in range(12):
        doc = fixture_doc()
        v = doc["verifications"][rng.randrange(3)]
        field = rng.choice(["id", "verdict", "lhs", "ci", "conditions"])
        v[field] = rng.choice([{"x": 1}, [1, 2, 3], "not a verdict", True]) if field != "id" else None
        cases.append(("from-json", ["report", "--from-json", _dump(tmp, f"v{i}", doc), "--out", str(tmp / f"w{i}")],
                      "bad"))
    for i, field in enumerate(["title", "kind", "terms", "example", "sweep"]):
        doc = fixture_doc()
        doc["results"][0][field] = 7 if field != "terms" else "x"
        cases.append(("from-json", ["report", "--from-json", _dump(tmp, f"r{i}", doc), "--out", str(tmp / f"s{i}")],
                      "bad"))
    for i, text in enumerate(["[]", "3", '"x"', "null", "[1, 2]", '[{"id": "A"}]', "{}"]):
        path = tmp / f"t{i}.json"
        path.write_text(text)
        cases.append(("from-json", ["report", "--from-json", str(path), "--out", str(tmp / f"u{i}")], "bad"))
    # report --include: files that are no record, or a record cut short (refused before the suite runs)
    partial = [{"kind": "worst-case"}, {"kind": "audit", "log": []}, {"id": "FAST.T2", "optimiser": "random"},
               {"kind": "search"}, {"optimiser": "random"}]
    for i, text in enumerate(["[]", "3", "{}", "{bad", *map(json.dumps, partial)]):
        path = tmp / f"inc{i}.json"
        path.write_text(text)
        cases.append(("include", ["report", "--from-json", str(tmp / "doc-ok.json"), "--include", str(path),
                                  "--out", str(tmp / f"x{i}")], "bad"))
    return cases


def _dump(tmp: Path, name: str, doc) -> str:
    path = tmp / f"{name}.json"
    path.write_text(json.dumps(doc))
    return str(path)


def _run(argv: list[str]) -> tuple[int, str, str, BaseException | None]:
    out, err = io.StringIO(), io.StringIO()
    code, crash = 0, None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException as exc:  # a traceback: the one thing this suite exists to catch
            crash = exc
    return code, out.getvalue(), err.getvalue(), crash


def _judge(cls: str, argv: list[str], expect: str) -> None:
    code, out, err, crash = _run(argv)
    shown = " ".join(a if len(a) < 60 else a[:20] + "..." + a[-25:] for a in argv)
    assert crash is None, f"traceback ({type(crash).__name__}: {crash}) from: convbound {shown}"
    assert "Traceback" not in err
    assert len(err) < 2000, f"error message of {len(err)} characters from: convbound {shown}"
    if expect == "bad":
        assert code == 2, f"bad input accepted (exit {code}) by: convbound {shown}\n{out[:300]}{err[:300]}"
        assert len(err.strip().splitlines()) == 1, f"not one line on stderr: {err!r}"
        assert err.startswith("convbound: error: ")
    else:
        assert code in (0, 1), f"good input refused (exit {code}) by: convbound {shown}: {err}"


def _params(cases):
    out = []
    for i, (cls, argv, expect) in enumerate(cases):
        out.append(pytest.param(cls, argv, expect, id=f"{i:03d}-{cls}"))
    return out


@pytest.mark.parametrize("cls, argv, expect", _params(CASES))
def test_generated_invocation(cls, argv, expect, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # relative outputs (unused-dir) land in a temporary directory
    _judge(cls, argv, expect)


def test_generated_file_invocations(tmp_path, monkeypatch):
    """The cases that need files, in one temporary directory; every failure is listed, not just the first."""
    monkeypatch.chdir(tmp_path)
    cases = _tmp_cases(tmp_path)
    failures = []
    for cls, argv, expect in cases:
        try:
            _judge(cls, argv, expect)
        except AssertionError as exc:
            failures.append(str(exc).splitlines()[0])
    assert not failures, f"{len(failures)} of {len(cases)} file cases failed:\n" + "\n".join(failures)
    # what --force must not touch is still there, unchanged
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo.csv").st_mode)
    assert (tmp_path / "link.csv").is_symlink() and (tmp_path / "target.txt").read_text() == "keep"
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir()), "a hidden temporary file was left behind"


def test_suite_is_large_and_covers_every_command(tmp_path):
    cases = CASES + _tmp_cases(tmp_path)
    assert len(cases) >= 500
    commands = {argv[0] for _, argv, _ in cases if argv}
    assert {"list", "show", "check", "solve", "region", "simulate", "verify", "report", "falsify", "worst-case",
            "audit"} <= commands
    assert sum(expect == "bad" for *_, expect in cases) >= 450


def test_same_seed_same_cases():
    assert _cases() == CASES


if sys.platform != "linux":  # /proc, /dev/full and FIFOs are Linux facts
    pytestmark = pytest.mark.skip(reason="the file cases use /proc, /dev/full and FIFOs")
