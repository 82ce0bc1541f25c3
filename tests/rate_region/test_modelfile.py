"""Availability-model files in Parquet, CSV and NPZ (issue 21 item 5): what is read, and the same r* as TOML."""

import json

import numpy as np
import polars as pl
import pytest

from bounds.core.errors import UserInputError
from rate_region.modelfile import is_model_file, load_model_file

Q = [0.2, 0.5, 0.9, 1.0, 0.35]
W = [1.0, 2.0, 3.0, 4.0, 10.0]  # data sizes: normalised to 0.05, 0.1, 0.15, 0.2, 0.5


def _write(tmp_path, fmt, cols):
    path = tmp_path / f"m.{fmt}"
    if fmt == "npz":
        np.savez(path, **{k: np.asarray(v) for k, v in cols.items()})
    elif fmt == "parquet":
        pl.DataFrame(cols).write_parquet(path)
    else:
        pl.DataFrame(cols).write_csv(path)
    return path


@pytest.mark.parametrize("fmt", ["parquet", "csv", "npz"])
def test_columns_are_read_as_written(tmp_path, fmt):
    m = load_model_file(_write(tmp_path, fmt, {"q": Q, "weight": W, "k": [2] * 5}))
    np.testing.assert_array_equal(m.q, Q)
    np.testing.assert_allclose(m.weights, [0.05, 0.1, 0.15, 0.2, 0.5], rtol=1e-15)
    assert m.cap.values == (2,) and m.n_clients == 5 and m.name == "m"
    # without weight the weights are uniform; without k the cap given by the caller (the CLI's --k) applies
    m = load_model_file(_write(tmp_path, fmt, {"q": Q}), k=3)
    np.testing.assert_allclose(m.weights, np.full(5, 0.2))
    assert m.cap.values == (3,)
    with pytest.raises(UserInputError, match="no column 'k'"):
        load_model_file(_write(tmp_path, fmt, {"q": Q}))


def test_same_rstar_as_the_same_model_in_toml(tmp_path, convbound):
    p = np.asarray(W) / np.sum(W)
    toml = tmp_path / "m.toml"
    toml.write_text(f'kind = "independent"\nk = 2\nq = {Q}\nweights = {p.tolist()}\n')
    ref = convbound("region", "--model", str(toml), "--json")
    assert ref.code == 0, ref.err
    for fmt in ("parquet", "csv", "npz"):
        res = convbound("region", "--model", str(_write(tmp_path, fmt, {"q": Q, "weight": W, "k": [2] * 5})), "--json")
        assert res.code == 0, res.err
        got, want = json.loads(res.out), json.loads(ref.out)
        np.testing.assert_allclose(got["r_star"], want["r_star"], rtol=1e-12)
        assert got["H"] == pytest.approx(want["H"], rel=1e-12)


def test_audit_model_file_must_match_the_log(tmp_path, convbound):
    from rate_region.logs import write_log

    A = np.random.default_rng(0).random((50, 5)) < np.asarray(Q)
    S = A & (np.random.default_rng(1).random((50, 5)) < 0.5)
    log = write_log(tmp_path / "log.csv", A, S)
    model = _write(tmp_path, "parquet", {"q": Q, "weight": W})  # no k: the log's largest round is the cap
    res = convbound("audit", str(log), "--model", str(model), "--json")
    assert res.code == 0 and res.err == "", res.err
    assert json.loads(res.out)["rstar"]["source"] == "given model"
    res = convbound("audit", str(log), "--model", str(_write(tmp_path, "npz", {"q": Q[:4], "k": 1})))
    assert res.code == 2 and "4 clients but the log has 5" in res.err


def test_is_model_file():
    assert all(is_model_file(s) for s in ("m.toml", "M.PARQUET", "x.pq", "a.csv", "b.npz", "dir/scarce"))
    assert not any(is_model_file(s) for s in ("scarce", "home-devices", "table1"))
