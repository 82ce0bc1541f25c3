"""`convbound region`: JSON contract, Table I, bad input exits 2 with one line."""

import json

import pytest

from reports.cli.main import main


def run(capsys, *args):
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out = capsys.readouterr()
    return info.value.code, out.out, out.err


def test_table1_json(capsys):
    code, out, _ = run(capsys, "region", "--model", "table1", "--json")
    d = json.loads(out)
    assert code == 0
    assert d["r_star"] == pytest.approx([0.375, 0.5], abs=1e-12)
    assert d["H"] == pytest.approx(7 / 6, rel=1e-12)
    assert d["naive_rate"] == pytest.approx([0.225, 0.65], abs=1e-12)
    assert sorted(map(tuple, d["vertices"])) == sorted([(0, 0), (0, 0.8), (0.075, 0.8), (0.375, 0), (0.375, 0.5)])
    assert isinstance(d["method"], str)


def test_check_json(capsys):
    code, out, _ = run(capsys, "region", "--check", "1,1", "--model", "table1", "--json")
    d = json.loads(out)
    assert code == 0 and d["achievable"] is False and d["direction"] == [1.0, 1.0]
    code, out, _ = run(capsys, "region", "--check", "0.375,0.5", "--model", "table1", "--json")
    d = json.loads(out)
    assert d["achievable"] is True and d["policy"]["rows"]


def test_simulate_json(capsys):
    code, out, _ = run(capsys, "region", "--simulate", "--beta", "0.01", "--rounds", "2000", "--runs", "2",
                       "--model", "table1", "--json")
    d = json.loads(out)
    assert code == 0 and len(d["final_r"]) == 2 and len(d["distance_to_r_star"]) == 2


def test_plot_is_atomic_and_refuses_overwrite(capsys, tmp_path):
    path = tmp_path / "r.png"
    code, _, _ = run(capsys, "region", "--model", "table1", "--plot", str(path))
    assert code == 0 and path.read_bytes()[:4] == b"\x89PNG"
    code, _, err = run(capsys, "region", "--model", "table1", "--plot", str(path))
    assert code == 2 and "--force" in err
    code, _, _ = run(capsys, "region", "--model", "table1", "--plot", str(path), "--force")
    assert code == 0


@pytest.mark.parametrize(
    "args, pattern",
    [
        (["--model", "scarse"], "did you mean"),
        (["--model", "scarce", "--k", "0"], "k=0 < 1"),
        (["--check", "0.1", "--model", "table1"], "1 entries but the model has 2"),
        (["--check", "a,b", "--model", "table1"], "not a number"),
        (["--model", "table1", "--clients", "3"], "exactly 2 clients"),
        (["--simulate", "--beta", "2", "--model", "table1"], "beta"),
        (["--model", "/nonexistent/m.toml"], "does not exist"),
    ],
)
def test_bad_input_exit_2_one_line(capsys, args, pattern):
    code, _, err = run(capsys, "region", *args)
    assert code == 2
    assert pattern in err and err.count("\n") == 1 and "Traceback" not in err


def test_weights_file(capsys, tmp_path):
    w = tmp_path / "w.json"
    w.write_text("[0.9, 0.1]")
    code, out, _ = run(capsys, "region", "--model", "table1", "--weights", str(w), "--json")
    assert code == 0 and json.loads(out)["p"] == [0.9, 0.1]
    w.write_text("[0.5, 0.6]")
    code, _, err = run(capsys, "region", "--model", "table1", "--weights", str(w))
    assert code == 2 and "sum to" in err
    w.write_text("[0.5, -0.5, 1.0]")
    code, _, err = run(capsys, "region", "--model", "table1", "--weights", str(w))
    assert code == 2 and "3 entries" in err
    w.write_text("0.25 0.75\n")
    code, out, _ = run(capsys, "region", "--model", "table1", "--weights", str(w), "--json")
    assert code == 0 and json.loads(out)["p"] == [0.25, 0.75]
    w.write_text("{not: numbers}")
    code, _, err = run(capsys, "region", "--model", "table1", "--weights", str(w))
    assert code == 2 and "expected numbers" in err and len(err.strip().splitlines()) == 1


def test_never_available_client_cli(capsys, tmp_path):
    f = tmp_path / "m.toml"
    f.write_text('kind = "independent"\nk = 1\nq = [0.5, 0.0]\n')
    code, _, err = run(capsys, "region", "--model", str(f))
    assert code == 2 and "never available" in err and "infinite" in err
