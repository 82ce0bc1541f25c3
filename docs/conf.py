"""Sphinx configuration of the convbound API reference.

Why Sphinx (autodoc + napoleon) rather than MkDocs + mkdocstrings: Sphinx is already a dependency of
the test extra and installed in CI, so the reference needs no new packages; napoleon reads the
"Args:/Returns:" sections the docstrings already use; ``sphinx.ext.doctest`` is not needed because
the examples are run by pytest (tests/plugins/test_docs.py runs every docs/examples file and the
module doctests). Build: ``python -m sphinx -W -b html docs docs/_build`` (warnings are errors).
"""

import os
import sys

sys.path.insert(0, os.path.abspath(".."))

project = "convbound"
author = "convbound authors"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.viewcode"]
exclude_patterns = ["_build", "README.md", "plugins.md"]
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "none"          # signatures stay readable; types are in the Args sections
napoleon_google_docstring = True
napoleon_numpy_docstring = False
html_theme = "alabaster"
suppress_warnings = ["autodoc.import_object"]


def _plain_bars(app, what, name, obj, options, lines):
    """Docstrings write |S| for a set's size; in reST that would be a substitution, so escape the bars."""
    import re

    lines[:] = [re.sub(r"(?<![\\`])\|(\w+)\|", r"\\|\1\\|", line) for line in lines]


def setup(app):
    app.connect("autodoc-process-docstring", _plain_bars)
