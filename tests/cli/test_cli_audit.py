"""`convbound audit` in-process: output, model file for `region`, and malformed logs (issue 14, acceptance 5)."""

import json

import numpy as np
import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rate_region.audit.synthetic import biased_uniform, independent_availability
from rate_region.logs import write_log


def _biased_log(path):
    A = independent_availability(np.linspace(0.5, 0.95, 12), 800, 0)
    S = biased_uniform(A, 3, np.array([0, 1]), 0.2, 1)
    return write_log(path, A, S)


def test_audit_text_json_model_and_html(convbound, tmp_path):
    log = _biased_log(tmp_path / "log.parquet")
    model = tmp_path / "fit.toml"
    page = tmp_path / "audit.html"
    res = convbound("audit", str(log), "--target", "uniform:3/12", "--write-model", str(model), "--html", str(page))
    assert res.code == 0, res.err
    assert "biased clients (BH, FDR 0.05)" in res.out and "participation hypotheses" in res.out
    region = convbound("region", "--model", str(model), "--json")
    assert region.code == 0, region.err
    assert len(region.json()["r_star"]) == 12
    assert "<section id=\"audit\">" in page.read_text() and "data:image/png;base64," in page.read_text()
    res = convbound("audit", str(log), "--target", "uniform:3/12", "--json", "--period", "50")
    d = json.loads(res.out)
    assert {0, 1} <= set(d["bias"]["under_served"])
    assert d["inputs"]["period"] == 50 and d["model_toml"].startswith("# fitted by convbound audit")


def test_audit_bad_options_exit_2(convbound, tmp_path):
    log = _biased_log(tmp_path / "log.csv")
    for argv in (["--target", "uniform:3"], ["--target", "best"], ["--period", "0"], ["--columns", "round"]):
        res = convbound("audit", str(log), *argv)
        assert res.code == 2 and res.err.count("\n") == 1, (argv, res.err)
    res = convbound("audit", str(tmp_path / "none.csv"))
    assert res.code == 2 and "does not exist" in res.err


# Malformed logs: a valid 6 x 4 log with one defect at a drawn row, written as CSV or JSON lines (Parquet columns
# are typed, so mixed types cannot occur there; it gets the other three defects).
DEFECTS = ("missing_column", "unavailable_participant", "negative_round", "mixed_types")


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])  # capsys is re-read per call
@given(defect=st.sampled_from(DEFECTS), row=st.integers(0, 23), fmt=st.sampled_from(["csv", "jsonl", "parquet"]),
       column=st.sampled_from(["round", "client", "available", "participated"]))
def test_malformed_log_one_line_naming_row_and_column(convbound, tmp_path_factory, defect, row, fmt, column):
    if fmt == "parquet" and defect == "mixed_types":
        fmt = "csv"
    T, N = 6, 4
    cols = {"round": np.repeat(np.arange(T), N), "client": np.tile(np.arange(N), T),
            "available": np.ones(T * N, np.int64), "participated": np.tile([1, 0, 0, 0], T)}
    expect_row = row + 1
    if defect == "missing_column":
        del cols[column]
        expect_row = None
    elif defect == "unavailable_participant":
        cols["available"][row] = 0
        cols["participated"][row] = 1
        column = "participated"
    elif defect == "negative_round":
        cols["round"] = cols["round"].copy()
        cols["round"][row] = -1 - row
        column = "round"
    else:
        cols = {k: v.astype(str).astype(object) for k, v in cols.items()}
        cols[column][row] = "oops"
    path = tmp_path_factory.mktemp("bad") / f"log.{fmt}"
    df = pl.DataFrame(cols)
    {"csv": df.write_csv, "jsonl": df.write_ndjson, "parquet": df.write_parquet}[fmt](path)
    if defect == "mixed_types" and fmt == "jsonl":
        # JSON lines keep numbers as numbers except the one bad value: a genuinely mixed column
        lines = [json.loads(x) for x in path.read_text().splitlines()]
        lines = [{k: (v if v == "oops" else int(v)) for k, v in d.items()} for d in lines]
        path.write_text("\n".join(json.dumps(d) for d in lines) + "\n")
    res = convbound("audit", str(path))
    assert res.code == 2, (defect, res.out, res.err)
    assert res.err.count("\n") == 1 and "Traceback" not in res.err
    assert f"'{column}'" in res.err, res.err
    if expect_row is not None:
        assert f"row {expect_row}," in res.err, res.err


def test_demonstration_biased_log_is_caught(convbound, tmp_path):
    # docs/audit.md: the planted bug (clients 95-99 drawn with weight x0.3) is found, and only those are under-served
    from rate_region.audit.demo import biased_log

    res = convbound("audit", str(biased_log(tmp_path)), "--target", "uniform:10/100", "--json")
    d = json.loads(res.out)
    assert d["bias"]["under_served"] == [95, 96, 97, 98, 99]
    assert d["variance"]["ratio"] > 1.05
