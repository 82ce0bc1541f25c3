"""Sphinx configuration of the convbound user guide and API reference.

Why Sphinx (autodoc + napoleon) rather than MkDocs + mkdocstrings: Sphinx is already a dependency of
the test extra and installed in CI; napoleon reads the "Args:/Returns:" sections the docstrings already
use; MyST (``myst-parser``, in the test extra) reads the guide's Markdown pages, which also read well on
GitHub. ``sphinx.ext.doctest`` is not needed because pytest runs the examples: the guide's command and
Python blocks (tests/userdocs/test_guide.py), every docs/examples file and the module doctests
(tests/plugins/test_docs.py). Build: ``python -m sphinx -W -b html docs docs/_build`` (warnings are errors).
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.abspath(".."))

project = "convbound"
author = "convbound authors"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.viewcode", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "README.md", "examples/**"]
myst_heading_anchors = 3
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


#: Reference pages that join the index's toctree when they exist (written beside this guide, not by it).
OPTIONAL_PAGES = ("campaign", "erratum", "testing")
#: The index's placeholder line for them.
OPTIONAL_MARKER = "   optional-reference-pages\n"


def _optional_pages(app, docname, source):
    """Fill the index's placeholder with the optional pages present, so that a page added later is in the
    toctree (a page in no toctree is a warning, and so an error under -W) and a missing one is not named."""
    if docname != "index":
        return
    here = Path(app.srcdir)
    present = [p for p in OPTIONAL_PAGES if (here / f"{p}.md").is_file() or (here / f"{p}.rst").is_file()]
    source[0] = source[0].replace(OPTIONAL_MARKER, "".join(f"   {p}\n" for p in present))


def setup(app):
    app.connect("autodoc-process-docstring", _plain_bars)
    app.connect("source-read", _optional_pages)
