"""A user's code under conformance: time limits per round and per import, exits and any exception as one line
with exit 2, async rounds refused, counts refused before any work (verify.conformance.limits, issue 41)."""

from __future__ import annotations

import contextlib
import io

import pytest

from verify.conformance import conform
from verify.conformance import examples as ex
from verify.conformance.limits import MAX_ROUNDS, TimeUp, time_limit

BODIES = {
    "exits": "def impl(x, cohort, K, rng, state):\n    import sys\n    sys.exit(3)\n",
    "base": "def impl(x, cohort, K, rng, state):\n    raise BaseException('deep')\n",
    "interrupt": "def impl(x, cohort, K, rng, state):\n    raise KeyboardInterrupt\n",
    "sleeps": "import time\ndef impl(x, cohort, K, rng, state):\n    time.sleep(30)\n    return x\n",
    "swallows": ("import time\ndef impl(x, cohort, K, rng, state):\n    try:\n        time.sleep(30)\n"
                 "    except Exception:\n        return x\n    return x\n"),
    "async": "async def impl(x, cohort, K, rng, state):\n    return x\n",
    "awaitable": ("class Impl:\n    async def __call__(self, x, cohort, K, rng, state):\n        return x\nimpl = Impl()\n"),
    "bad_str": ("class E(Exception):\n    def __str__(self):\n        raise SystemExit(4)\n"
                "def impl(x, cohort, K, rng, state):\n    raise E()\n"),
    "import_sleeps": "import time\ntime.sleep(30)\ndef impl(x, cohort, K, rng, state):\n    return x\n",
    "import_exits": "import sys\nsys.exit(5)\n",
    "import_base": "raise BaseException('at import')\n",
}


def _cli(argv):
    from reports.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
            code = 0
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("case, words", [
    ("exits", "called exit (3)"), ("base", "raised BaseException: deep"), ("interrupt", "raised KeyboardInterrupt"),
    ("sleeps", "ran past the time limit of 0.2 s"), ("swallows", "ran past the time limit of 0.2 s"),
    ("async", "is an async def"), ("awaitable", "is an async def"), ("bad_str", "its message could not be read"),
    ("import_sleeps", "importing"), ("import_exits", "called exit (5)"), ("import_base", "raised BaseException"),
])
def test_a_users_code_fails_in_one_line_exit_2(tmp_path, case, words):
    f = tmp_path / f"{case}.py"
    f.write_text(BODIES[case])
    code, out, err = _cli(["conform", f"{f}:impl", "--algorithm", "fedavg", "--law", "uniform", "--trials", "20",
                           "--rounds", "1", "--round-seconds", "0.2", "--import-seconds", "0.2"])
    assert code == 2, (case, code, out, err)
    assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    if case == "import_sleeps":
        assert "ran past the time limit of 0.2 s" in err


@pytest.mark.parametrize("args, named", [
    (["--rounds", str(10**9)], "--rounds"), (["--rounds", str(MAX_ROUNDS + 1)], "--rounds"),
    (["--trials", str(10**9)], "--trials"), (["--rounds", "0"], "--rounds"), (["--trials", "19"], "--trials"),
    # fits the count limits, not the memory: 2 x 8 bytes x 1001 rounds x 900,000 trials x 7 values = 101 GB
    (["--trials", "900000", "--rounds", "1000"], "GiB"),
    (["--round-seconds", "0"], "--round-seconds"), (["--import-seconds", "-1"], "--import-seconds")])
def test_counts_are_refused_before_the_module_is_imported(tmp_path, args, named):
    marker = tmp_path / "imported"
    f = tmp_path / "impl.py"
    f.write_text(f"open({str(marker)!r}, 'w').close()\ndef impl(x, cohort, K, rng, state):\n    return x\n")
    code, out, err = _cli(["conform", f"{f}:impl", "--algorithm", "fedavg", "--law", "uniform", *args])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert named in err  # the message names what to change
    assert not marker.exists()  # refused before any of the user's code ran


def test_the_time_limit_restores_the_callers_timer_and_fires_inside_the_body():
    import signal
    import time

    with pytest.raises(TimeUp):
        with time_limit(0.05):
            time.sleep(5)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, signal.default_int_handler, None) or callable(
        signal.getsignal(signal.SIGALRM))


def test_flower_strategy_that_exits_is_one_line():
    from bounds.core.errors import UserInputError

    def make(setting):
        raise SystemExit(7)

    with pytest.raises(UserInputError, match=r"make_strategy\(setting\) called exit \(7\)"):
        conform(make, algorithm="fedavg", law="uniform", form="flower", trials=20, rounds=1)


def test_a_correct_round_runs_under_the_limit():
    r = conform(ex.fedavg_round, algorithm="fedavg", law="cyclic", trials=20, rounds=1, round_seconds=5)
    assert r.status in ("conforms", "departs") and len(r.scenarios) == 3


BAD_VALUES = {  # one bad value per option, generated by kind: unknown names, out-of-range counts and limits
    "--algorithm": ["fedsgd", "", "FEDAVG", "x" * 10_000],
    "--law": ["poisson", "", "uniform ", "u" * 10_000],
    "--form": ["jax", "", "Function"],
    "--trials": ["0", "-1", "19", str(10**9), str(2**63)],
    "--rounds": ["0", "-5", "1001", str(10**9), str(2**63)],
    "--alpha": ["0", "0.5", "-1", "nan", "inf"],
    "--round-seconds": ["0", "-1", "nan", "inf", "1e9"],
    "--import-seconds": ["0", "-1", "nan", "inf", "1e9"],
}
BAD_SPECS = ["nofile.py:f", "impl", ":", "impl.py:", "os:nope", "os:path", "os:getcwd", "math:sqrt",
             "no_such_module_xyz:f", "x" * 5000 + ".py:f"]


def _generated_bad_invocations(spec_ok: str) -> list[list[str]]:
    base = {"--algorithm": "fedavg", "--law": "uniform", "--form": "function", "--trials": "20", "--rounds": "1"}
    cases = []
    for flag, values in BAD_VALUES.items():
        for v in values:
            args = dict(base) | {flag: v}
            cases.append(["conform", spec_ok, *[t for kv in args.items() for t in kv]])
    cases += [["conform", spec, *[t for kv in base.items() for t in kv]] for spec in BAD_SPECS]
    return cases


def test_generated_bad_invocations_are_one_line_exit_2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "impl.py").write_text("def impl(x, cohort, K, rng, state):\n    return x\n")
    cases = _generated_bad_invocations("impl.py:impl")
    assert len(cases) >= 45
    bad = []
    for argv in cases:
        code, out, err = _cli(argv)
        if code != 2 or len(err.strip().splitlines()) != 1 or "Traceback" in err or len(err) > 400:
            bad.append((argv[1][:40], argv[2:], code, err[:200]))
    assert bad == []
