"""Names moved by the stage-three layout keep working for one release, with a DeprecationWarning.

docs/plugins.md and docs/api.rst are a contract with users' plugins and tests: each old import path
must still give the very object that now lives under the new path.
"""

import importlib
import sys
import warnings

import pytest

MOVED = [
    ("bounds.errors", "bounds.core.errors", "UserInputError"),
    ("bounds.jsonable", "bounds.core.jsonable", "strict_json"),
    ("verify.executor", "verify.runtime.executor", "run_tasks"),
    ("verify.strategies", "verify.testing.strategies", "params_for"),
    ("verify.pytest_plugin", "verify.testing.pytest_plugin", "assert_bound_holds"),
    ("verify.audit", "rate_region.audit", "audit"),
    ("verify.audit.synthetic", "rate_region.audit.synthetic", "biased_uniform"),
    ("verify.audit.core", "rate_region.audit.core", "parse_target"),
]


@pytest.mark.parametrize(("old", "new", "name"), MOVED)
def test_old_name_warns_and_is_the_same_object(old, new, name):
    for mod in [m for m in sys.modules if m == old or m.startswith(old + ".")]:
        del sys.modules[mod]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old_mod = importlib.import_module(old)
    assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message) for w in caught), \
        [str(w.message) for w in caught]
    assert getattr(old_mod, name) is getattr(importlib.import_module(new), name)
