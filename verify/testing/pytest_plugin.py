"""The ``convbound`` pytest plugin: fixtures for a user's own tests of bounds.

Registered through the ``pytest11`` entry point (``convbound = "verify.testing.pytest_plugin"``), so an
installed convbound makes the fixtures available everywhere (or load it with ``-p convbound``, or
``-p verify.testing.pytest_plugin`` from a checkout). Fixtures: ``assert_bound_holds``, ``assert_rate``,
``bound_params``, ``assert_conforms`` (the helpers of :mod:`verify.testing`). Option ``--convbound-plugin FILE`` loads
a plugin file (as ``convbound --plugin``) before the tests.

A user's test file::

    def test_my_bound(assert_bound_holds):
        assert_bound_holds("PESTO.SGD", trials=4000)  # level: bounds.core.stats.MEAN_LEVEL

    def test_rate(assert_rate):
        assert_rate([10, 100, 1000], [0.3, 0.1, 0.03], exponent=-0.5, tol=0.05)

    def test_my_fedavg(assert_conforms):
        assert_conforms(my_round, algorithm="fedavg", law="uniform")  # family-wise alpha 1e-3

>>> from verify.testing import assert_rate  # what the fixture of the same name returns
"""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["assert_bound_holds", "assert_conforms", "assert_rate", "bound_params", "pytest_addoption", "pytest_configure"]


def pytest_addoption(parser: Any) -> None:
    """Add ``--convbound-plugin FILE`` (repeatable)."""
    parser.addoption("--convbound-plugin", action="append", default=[], metavar="FILE",
                     help="convbound plugin file (.py or .toml) to load before the tests")


def pytest_configure(config: Any) -> None:
    """Load the plugin files given with ``--convbound-plugin``."""
    files = config.getoption("--convbound-plugin", default=[]) or []
    if files:
        from bounds.plugins import add_files

        add_files(files)


@pytest.fixture
def assert_bound_holds():
    """:func:`verify.testing.assert_bound_holds`: a check group's certificates hold at a level."""
    from verify.testing import assert_bound_holds as helper

    return helper


@pytest.fixture
def assert_rate():
    """:func:`verify.testing.assert_rate`: a log-log slope interval contains the predicted exponent."""
    from verify.testing import assert_rate as helper

    return helper


@pytest.fixture
def assert_conforms():
    """:func:`verify.testing.assert_conforms`: an implementation conforms to the algorithm and law it claims."""
    from verify.testing import assert_conforms as helper

    return helper


@pytest.fixture
def bound_params():
    """:func:`verify.testing.params_for`: hypothesis strategy of valid parameters of a result key."""
    from verify.testing import params_for

    return params_for
