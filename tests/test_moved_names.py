"""Names that 0.1 kept as deprecation shims are gone in 0.2.0, and each fails saying where it went.

docs/plugins.md ("Upgrading a plugin to 0.2.0") and CHANGELOG.md promise users' plugins and tests this:
the old import path raises ``ModuleNotFoundError`` naming the new one, and the new one gives the object.
"""

import importlib
import subprocess
import sys

import pytest

# old import, the new place its error names, and (new module, object) that lives there now
CERT = "verify (Context, certificate"
REMOVED = [
    ("bounds.errors", "bounds.core.errors", ("bounds.core.errors", "UserInputError")),
    ("bounds.jsonable", "bounds.core.jsonable", ("bounds.core.jsonable", "strict_json")),
    ("verify.executor", "verify.runtime.executor", ("verify.runtime.executor", "run_tasks")),
    ("verify.strategies", "verify.testing.strategies", ("verify.testing.strategies", "params_for")),
    ("verify.pytest_plugin", "verify.testing.pytest_plugin", ("verify.testing.pytest_plugin", "assert_bound_holds")),
    ("verify.audit", "rate_region.audit", ("rate_region.audit", "audit")),
    # a removed package's submodule: the package's own import fails first, naming the package's new place
    ("verify.audit.synthetic", "rate_region.audit", ("rate_region.audit.synthetic", "biased_uniform")),
    ("verify.audit.core", "rate_region.audit", ("rate_region.audit.core", "parse_target")),
    ("verify.audit.checks", "rate_region.audit", ("rate_region.audit.checks", None)),
    ("verify.audit.demo", "rate_region.audit", ("rate_region.audit.demo", "main")),
    ("verify.certificates", CERT, ("verify", "certificate")),
    ("verify.certificates.common", CERT, ("verify", "Context")),
]


@pytest.mark.parametrize(("old", "new", "lives"), REMOVED)
def test_removed_name_fails_naming_its_new_place(old, new, lives):
    with pytest.raises(ModuleNotFoundError) as err:
        importlib.import_module(old)
    assert f"moved to {new}" in str(err.value) and "in 0.2.0" in str(err.value), str(err.value)
    module, name = lives
    target = importlib.import_module(module)
    assert name is None or hasattr(target, name), (module, name)


@pytest.mark.parametrize(("old", "name"), [("verify.falsify", "search"), ("verify.orders", "order_table"),
                                           ("verify.shrink", "shrink"), ("verify.corners", None)])
def test_search_modules_moved_into_the_search_package(old, name):
    new = "verify.search." + old.split(".")[-1]
    with pytest.raises(ModuleNotFoundError, match=rf"{old} moved to {new} in 0\.3\.0"):
        importlib.import_module(old)
    assert name is None or hasattr(importlib.import_module(new), name)


def test_from_import_of_a_removed_name_also_names_the_new_place():
    with pytest.raises(ImportError, match=r"verify\.executor moved to verify\.runtime\.executor in 0\.2\.0"):
        from verify import executor  # noqa: F401


def test_the_certificate_helpers_live_on_verify():
    import verify
    from verify.checks import Context
    from verify.extensions import certificate

    assert verify.Context is Context and verify.certificate is certificate


def test_a_fresh_interpreter_refuses_an_old_name_first_thing():
    """``python -c 'import verify.executor'`` (nothing imported before it) gets the message, exit 1."""
    proc = subprocess.run([sys.executable, "-c", "import verify.executor"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1].startswith(
        "ModuleNotFoundError: verify.executor moved to verify.runtime.executor in 0.2.0"), proc.stderr
