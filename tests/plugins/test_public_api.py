"""Every public module declares __all__, and every public name in it has a docstring of its own."""

import importlib
import inspect

import pytest

PUBLIC = ["bounds", "bounds.plugins", "bounds.registry", "bounds.tomlresult", "bounds.formula", "quadratics", "quadratics.registry",
          "verify", "verify.conformance", "verify.extensions", "verify.testing", "verify.testing.pytest_plugin"]


def _own_doc(obj, name):
    doc = inspect.getdoc(obj) or ""
    if inspect.isclass(obj) and doc.startswith(f"{obj.__name__}("):
        return ""  # the signature dataclasses write when the class has no docstring
    return doc.strip()


def _comment_above(mod, name):
    lines = inspect.getsource(mod).splitlines()
    hits = [i for i, line in enumerate(lines) if line.startswith(f"{name} =") or line.startswith(f"{name}: ")]
    return lines[hits[0] - 1] if hits and hits[0] > 0 else ""


@pytest.mark.parametrize("module", PUBLIC)
def test_public_names_have_docstrings(module):
    mod = importlib.import_module(module)
    assert (mod.__doc__ or "").strip(), f"{module} has no module docstring"
    assert isinstance(getattr(mod, "__all__", None), list), f"{module} has no __all__"
    missing = []
    for name in mod.__all__:
        obj = getattr(mod, name)
        if inspect.isroutine(obj) or inspect.isclass(obj) or hasattr(obj, "__wrapped__"):
            if not _own_doc(obj, name):
                missing.append(name)
        elif name not in (mod.__doc__ or "") and "#: " not in _comment_above(mod, name):
            missing.append(name)  # data: named in the module docstring or documented by a #: comment
    assert missing == [], f"{module}: no docstring for {missing}"
