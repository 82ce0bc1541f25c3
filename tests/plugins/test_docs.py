"""The user guide and API reference build with warnings as errors; its examples and module doctests run."""

import doctest
import importlib
import json
import runpy
import types

import pytest
from plugin_helpers import EXAMPLES, ROOT

from bounds import plugins
from verify import Context

DOCTESTED = ["bounds", "quadratics", "verify", "bounds.plugins", "bounds.tomlresult", "bounds.formula", "bounds.registry", "quadratics.registry", "verify.extensions",
             "verify.testing", "verify.testing.pytest_plugin"]


@pytest.mark.docs
@pytest.mark.filterwarnings("ignore:The mapping interface for autodoc options")
@pytest.mark.filterwarnings("ignore:.*is deprecated. Check CHANGES for Sphinx API")
def test_sphinx_builds_without_warnings(tmp_path):
    from sphinx.cmd.build import build_main

    assert build_main(["-W", "-q", "-b", "html", str(ROOT / "docs"), str(tmp_path / "html")]) == 0
    page = (tmp_path / "html" / "examples.html").read_text(encoding="utf-8")
    assert "DT14.T3.1" in page and "PESTO.SGD" in page
    api = (tmp_path / "html" / "api.html").read_text(encoding="utf-8")
    assert "assert_bound_holds" in api and "parse_formula" in api
    # the user guide's pages, the reference pages in Markdown and the generated benchmark pages
    for page in ("quickstart", "checking", "breaking", "deciding", "your-code", "your-theorem", "reports"):
        assert (tmp_path / "html" / "guide" / f"{page}.html").is_file(), page
    assert "snapshot probability q" in (tmp_path / "html" / "guide" / "deciding.html").read_text(encoding="utf-8")
    for page in ("plugins", "conformance", "audit", "latex-import", "benchmarks/index"):
        assert (tmp_path / "html" / f"{page}.html").is_file(), page
    record = json.loads((ROOT / "tests/benchmarks/results/readme_commands.json").read_text(encoding="utf-8"))
    bench = (tmp_path / "html" / "benchmarks" / "readme_commands.html").read_text(encoding="utf-8")
    assert all(f"{row['cpu_s']:.4g}" in bench for row in record["rows"])


def test_optional_reference_pages_join_the_index_when_present(tmp_path):
    """conf.py fills the index's placeholder with the optional pages that exist, and only those."""
    conf = runpy.run_path(str(ROOT / "docs" / "conf.py"))
    (tmp_path / "erratum.md").write_text("# Erratum\n", encoding="utf-8")
    (tmp_path / "testing.rst").write_text("Testing\n=======\n", encoding="utf-8")
    app = types.SimpleNamespace(srcdir=str(tmp_path))
    index = (ROOT / "docs" / "index.rst").read_text(encoding="utf-8")
    assert conf["OPTIONAL_MARKER"] in index
    source = [index]
    conf["_optional_pages"](app, "index", source)
    assert "   erratum\n   testing\n" in source[0] and "campaign" not in source[0]
    assert conf["OPTIONAL_MARKER"] not in source[0]
    other = ["   optional-reference-pages\n"]
    conf["_optional_pages"](app, "guide/quickstart", other)  # only the index is touched
    assert other == ["   optional-reference-pages\n"]


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
