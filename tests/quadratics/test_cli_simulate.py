"""`convbound simulate`: JSON/CSV output and one-line errors with exit status 2."""

import json
import subprocess
import sys

import pytest

from reports.cli.main import main


def run(args, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["simulate", *args])
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def test_json_summary(capsys):
    code, out, _ = run(["--problem", "lower-bound", "--pattern", "cyclic", "--algorithm", "scaffold", "eta=1e-4",
                        "--trials", "3", "--rounds", "300", "--json", "--target", "1.2"], capsys)
    assert code == 0
    d = json.loads(out)
    assert {"final", "rounds_to", "diverged", "steps_per_second"} <= set(d)
    assert d["rounds_to"]["metric"] == "f_log" and "round_true_f" in d["rounds_to"]
    assert d["final"]["f_log"]["trials"] == 3 and d["diverged"]["count"] == 0


def test_csv_written_atomically_and_not_overwritten(tmp_path, capsys):
    path = tmp_path / "run.csv"
    args = ["--problem", "quadratic", "S=2", "--trials", "2", "--rounds", "5", "--out", str(path)]
    assert run(args, capsys)[0] == 0
    lines = path.read_text().splitlines()
    assert lines[0].split(",")[0] == "round" and len(lines) == 7
    code, _, err = run(args, capsys)
    assert code == 2 and "--force" in err
    assert run(args + ["--force"], capsys)[0] == 0


@pytest.mark.parametrize("args,needle", [
    (["--problem", "lower-bound", "--pattern", "cyclic", "S=2"], "larger than a group"),
    (["--problem", "lower-bound", "--pattern", "cyclic", "P=481"], "multiple of the number of groups"),
    (["--problem", "lower-bound", "mu=0.5"], "lamb <= mu <= H/16"),
    (["--problem", "quadratic", "--pattern", "fast", "q=1.5", "m=2", "n=2"], "[0, 1]"),
    (["--problem", "quadratic", "--pattern", "fast", "q=-1", "m=2", "n=2"], "[0, 1]"),
    (["--problem", "quadratic", "bogus=1"], "unknown key 'bogus'"),
    (["--problem", "quadratic", "S=2.5"], "integer"),
    (["--problem", "cubic"], "unknown problem"),
    (["--problem", "quadratic", "--algorithm", "fedsgd"], "unknown algorithm"),
])
def test_bad_input_one_line_exit_2(args, needle, capsys):
    code, out, err = run(args + ["--rounds", "2", "--trials", "1"], capsys)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_cuda_absent_exit_2(capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("GPU present")
    code, _, err = run(["--problem", "quadratic", "--device", "cuda", "--rounds", "1"], capsys)
    assert code == 2 and "cuda" in err


def test_help_lists_keys():
    res = subprocess.run([sys.executable, "-m", "reports.cli.main", "simulate", "--help"], capture_output=True, text=True)
    assert res.returncode == 0
    for word in ("lamb=1.0", "groups=2", "mu_prox=", "gamma=1.5", "nonconvex:", "availability:"):
        assert word in res.stdout


def test_table_header_prints_the_level_used(capsys):
    # the interval is computed at bounds.core.stats.MEAN_LEVEL (0.99); the header said "95% CI" for it
    code, out, _ = run(["--problem", "quadratic", "S=2", "d=2", "M=2", "--trials", "3", "--rounds", "2"], capsys)
    assert code == 0 and "99% CI" in out and "95%" not in out
    code, out, _ = run(["--problem", "quadratic", "S=2", "d=2", "M=2", "--trials", "3", "--rounds", "2", "--json"],
                       capsys)
    assert {f["level"] for f in json.loads(out)["final"].values()} == {0.99}


def test_exact_mode_matches_gradient_descent_by_hand(capsys):
    # one client, no noise, no heterogeneity: K = 2 local steps of GD on (1/2)(x - x*)^2 with eta = 0.1 per round,
    # so x_r - x* = 0.9^(2r) (x0 - x*) and ||x_R - x*||^2 = 0.9^(4R) D0 (D0 = 1): no trial, no sampling error
    code, out, err = run(["--problem", "quadratic", "L=1", "mu=1", "d=1", "M=1", "zeta=0", "sigma=0", "D0=1",
                          "eta=0.1", "K=2", "S=1", "--rounds", "5", "--exact", "--json"], capsys)
    assert code == 0, err
    d = json.loads(out)
    by_hand = 0.9 ** 20
    mean = sum(0.9 ** (4 * r) for r in range(1, 6)) / 5
    assert abs(d["final"]["dist_sq"] - by_hand) <= d["final_err"]["dist_sq"] + 1e-16
    assert abs(d["mean"]["dist_sq"] - mean) <= d["mean_err"]["dist_sq"] + 1e-16
    assert d["final"]["gap"] == pytest.approx(by_hand / 2, rel=1e-12)
    assert d["final_err"]["dist_sq"] < 1e-12 and d["method"].startswith("exact")


def test_exact_mode_says_which_declaration_is_missing(capsys):
    code, out, err = run(["--problem", "logistic", "--rounds", "3", "--exact"], capsys)
    assert code == 2 and out == "" and "declares no" in err and err.count("\n") == 1
    code, _, err = run(["--problem", "quadratic", "--rounds", "3", "--exact", "--target", "0.1"], capsys)
    assert code == 2 and "--exact" in err
