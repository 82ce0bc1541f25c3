"""The API reference builds with warnings as errors; its examples and module doctests run."""

import doctest
import importlib

import pytest
from plugin_helpers import EXAMPLES, ROOT

from bounds import plugins
from verify import Context

DOCTESTED = ["bounds", "quadratics", "verify", "bounds.plugins", "bounds.tomlresult", "bounds.formula", "bounds.registry", "quadratics.registry", "verify.extensions",
             "verify.testing", "verify.testing.pytest_plugin"]


@pytest.mark.docs
@pytest.mark.filterwarnings("ignore:The mapping interface for autodoc options")
def test_sphinx_builds_without_warnings(tmp_path):
    from sphinx.cmd.build import build_main

    assert build_main(["-W", "-q", "-b", "html", str(ROOT / "docs"), str(tmp_path / "html")]) == 0
    page = (tmp_path / "html" / "examples.html").read_text(encoding="utf-8")
    assert "DT14.T3.1" in page and "PESTO.SGD" in page
    api = (tmp_path / "html" / "api.html").read_text(encoding="utf-8")
    assert "assert_bound_holds" in api and "parse_formula" in api


@pytest.mark.parametrize("name", DOCTESTED)
def test_module_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.py")), ids=lambda p: p.name)
def test_every_example_checks_and_certifies(path):
    plugins.add_files([str(path)])
    mod = plugins.load_file(str(path))
    results = mod.results()
    assert results and all(r.example for r in results)
    for res in results:
        assert res.check(res.example_values).holds is True
    from verify.extensions import plugin_checks
    from verify.scenario import Scenario

    items = mod.scenarios()
    # a certificate example stays short; one with a searchable Scenario also carries its proof and space
    assert len(path.read_text(encoding="utf-8").splitlines()) < (150 if any(isinstance(i, Scenario) for i in items)
                                                                  else 60)
    checks = plugin_checks({})
    for item in items:
        records = checks[item.id](Context(trials=200, seed=0, device="cpu"))
        assert records and all(v.ok for v in records), [(v.id, v.verdict) for v in records]
