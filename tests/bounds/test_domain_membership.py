"""``Domain.contains``: every domain's membership, entry by entry, against hand-written answers."""

import numpy as np
import pytest

from bounds.symbols import Domain

X = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, np.inf, np.nan])
# what each domain admits of X, written out by hand from its name and its description
ADMITS = {
    "POSITIVE": [0, 0, 1, 1, 1, 0, 0], "NONNEGATIVE": [0, 1, 1, 1, 1, 0, 0], "REAL": [1, 1, 1, 1, 1, 0, 0],
    "PROBABILITY": [0, 1, 1, 1, 0, 0, 0], "OPEN_PROBABILITY": [0, 0, 1, 1, 0, 0, 0],
    "POSITIVE_INTEGER": [0, 0, 0, 1, 1, 0, 0], "NONNEGATIVE_INTEGER": [0, 1, 0, 1, 1, 0, 0],
    "VECTOR_POSITIVE": [0, 0, 1, 1, 1, 0, 0], "VECTOR_NONNEGATIVE": [0, 1, 1, 1, 1, 0, 0],
    "VECTOR_PROBABILITY": [0, 1, 1, 1, 0, 0, 0], "VECTOR_RATE": [0, 0, 1, 1, 0, 0, 0],
    "VECTOR_REAL": [1, 1, 1, 1, 1, 0, 0], "MATRIX_REAL": [1, 1, 1, 1, 1, 0, 0], "MATRIX_PSD": [1, 1, 1, 1, 1, 0, 0],
}


def test_every_domain_is_listed():
    assert set(ADMITS) == {d.name for d in Domain}


@pytest.mark.parametrize("name", sorted(ADMITS))
def test_membership_by_hand(name):
    got = Domain[name].contains(X)
    assert got.dtype == bool and got.tolist() == [bool(v) for v in ADMITS[name]]
    # a scalar gives the same answer as its entry
    assert [bool(Domain[name].contains(np.float64(x))) for x in X] == [bool(v) for v in ADMITS[name]]
