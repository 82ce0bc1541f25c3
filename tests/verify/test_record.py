"""The Verification record round-trips through strict JSON."""

import json

import pytest

from verify.record import Verification


def test_round_trip_and_strict_json():
    v = Verification("FAST.T2", "t", "holds", lhs=0.5, ci=(0.4, 0.6), rhs=1.0, ratio=0.5,
                     instance={"L": 1.0}, conditions=({"name": "cap", "holds": True},),
                     series={"x": [1, 2]}, notes=("n",), trials=64, seed=3, variant="published")
    d = v.to_dict()
    text = json.dumps(d, allow_nan=False)
    back = Verification.from_dict(json.loads(text))
    assert back == v
    assert d["ok"] is True
    for key in ("id", "title", "verdict", "expected", "lhs", "ci", "rhs", "ratio", "instance", "control", "kind",
                "trials", "seed", "variant", "conditions", "series", "notes", "versions", "device", "elapsed_s"):
        assert key in d


def test_non_finite_follow_the_one_converter():
    # bounds.core.jsonable: NaN -> null ("not computed"), infinities kept as "inf"/"-inf" (an unbounded interval)
    d = Verification("x", "t", "unverified", lhs=1.0, ci=(float("-inf"), float("inf")), ratio=float("nan")).to_dict()
    assert d["ci"] == ["-inf", "inf"] and d["ratio"] is None
    json.dumps(d, allow_nan=False)


def test_control_ok_means_violated():
    assert Verification("x", "t", "violated", expected="violated", control=True, kind="control").ok
    assert not Verification("x", "t", "holds", expected="violated", control=True, kind="control").ok


def test_bad_verdict_rejected():
    with pytest.raises(ValueError):
        Verification("x", "t", "maybe")


def test_infinite_interval_round_trips():
    v = Verification("x", "t", "inconclusive", lhs=1.0, ci=(float("-inf"), float("inf")), rhs=2.0, trials=1)
    back = Verification.from_dict(json.loads(json.dumps(v.to_dict(), allow_nan=False)))
    assert back.ci == (float("-inf"), float("inf")) and back.lhs == 1.0
