"""Strict JSON of result dicts: what each awkward value becomes."""

import json
import math

import numpy as np

from reports.jsonable import jsonable


def test_non_finite_numpy_and_nested_values():
    obj = {"a": math.nan, "b": math.inf, "c": -math.inf, 1: np.array([[1.5, 2.0]]), "d": (np.float64(0.25), np.int64(3)),
           "e": np.bool_(True)}
    out = jsonable(obj)
    assert out == {"a": None, "b": "inf", "c": "-inf", "1": [[1.5, 2.0]], "d": [0.25, 3], "e": True}
    json.dumps(out, allow_nan=False)  # raises if anything non-strict is left
