"""Bad input to `convbound orders` and falsify's new options: one line on stderr, exit 2, no traceback (in-process)."""

import contextlib
import io

import pytest

from reports.cli.main import main


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv, words", [
    (["orders", "NOPE.T9"], "unknown scenario"),
    (["orders", ","], "give a scenario id"),
    (["orders", "FAST.T1", "--points", "2"], "at least 4 points"),
    (["orders", "FAST.T1", "--ray", "nope"], "not a scale axis"),
    (["orders", "FAST.T1", "--confirm-trials", "1"], "--confirm-trials"),
    (["orders"], "Missing argument"),
    (["falsify", "FAST.T1", "--optimiser", "random", "--terms", "noise"], "--terms aims the searchers that draw by strata"),
    (["falsify", "FAST.T1", "--optimiser", "rays", "--terms", "noise"], "--terms noise: FAST.T1 has RHS terms"),
    (["falsify", "FAST.T1", "--no-shrink=yes"], "--no-shrink"),
])
def test_bad_input_is_one_line_exit_2(argv, words):
    code, out, err = _run(argv)
    assert code == 2, (code, out, err)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert words in lines[0] and "Traceback" not in err
