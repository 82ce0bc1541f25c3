"""Module names removed in 0.2.0, and the one hook that says where each went.

**Setting**: 0.1 moved some modules (stage three's layout) and kept their old names one release as
shims that warned; 0.2.0 removed the shims (``CHANGELOG.md``).
**Quantity**: ``MOVED``, old module name -> where its contents live now; the one table of removed names.
**Statement**: once :func:`install` has run (``bounds`` and ``verify`` call it on import), importing an
old name, or a submodule of one, raises ``ModuleNotFoundError`` whose message names the new place, e.g.
``verify.executor moved to verify.runtime.executor in 0.2.0``. The finder sits first on
``sys.meta_path``, so a stale ``__pycache__`` folder left where a removed package was cannot make the old
name import as an empty namespace package. Every other name is passed on untouched (``None``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

REMOVED_IN = "0.2.0"  # the release that removed 0.1's shims (not the current version)
SEARCH_MOVED_IN = "0.3.0"  # the release that gathered the search into verify.search
SEARCH_MODULES = ("climb", "closed_form", "confirmation", "corners", "cost", "covering", "falsify", "optimisers",
                  "orders", "ray_bases", "ray_seed", "rays", "saved", "search_options", "search_record", "shrink")

# old module -> new module (a prefix: ``verify.audit.core`` -> ``rate_region.audit.core``), or a sentence
# where the contents did not move as one module
MOVED: dict[str, str] = {
    "bounds.errors": "bounds.core.errors",
    "bounds.jsonable": "bounds.core.jsonable",
    "verify.executor": "verify.runtime.executor",
    "verify.strategies": "verify.testing.strategies",
    "verify.pytest_plugin": "verify.testing.pytest_plugin",
    "verify.audit": "rate_region.audit",
    "verify.certificates": "verify (Context, certificate; check groups: verify.checks and each paper's "
                           "verify.scenarios.<paper>.CHECKS)",
}
# the release in which each name moved, where it is not REMOVED_IN
MOVED_IN: dict[str, str] = {}
for _name in SEARCH_MODULES:
    MOVED[f"verify.{_name}"] = f"verify.search.{_name}"
    MOVED_IN[f"verify.{_name}"] = SEARCH_MOVED_IN


def _old_name(name: str) -> str | None:
    for old in MOVED:
        if name == old or name.startswith(old + "."):
            return old
    return None


def new_place(name: str) -> str | None:
    """Where the removed module ``name`` went (``None`` if ``name`` was not removed)."""
    old = _old_name(name)
    if old is None:
        return None
    new = MOVED[old]
    if name == old:
        return new
    return new if " " in new else new + name[len(old):]  # a sentence names no submodule


class _Moved:
    """Refuses the removed names with a message naming the new place; passes every other name on.

    A meta path finder needs only ``find_spec``; not subclassing ``importlib.abc.MetaPathFinder`` spares
    every command importing ``importlib.abc`` (start-up, issue 30).
    """

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        new = new_place(fullname)
        if new is None:
            return None
        old = _old_name(fullname)
        release = MOVED_IN.get(old, REMOVED_IN) if old is not None else REMOVED_IN
        # no ``name=``: ``from verify import executor`` swallows a ModuleNotFoundError whose name is the
        # submodule's and says only "cannot import name"; without it the message below reaches the user
        raise ModuleNotFoundError(f"{fullname} moved to {new} in {release}; import it from there "
                                  "(the old name was removed)")


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once per process)."""
    if not any(isinstance(f, _Moved) for f in sys.meta_path):
        sys.meta_path.insert(0, _Moved())
