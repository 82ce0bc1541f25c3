"""Every encoded result, by key (``ID`` for the first variant of an ID, ``ID@variant`` for others).

Paper modules (``bounds.fast``, ``bounds.fast_repaired``, ``bounds.f3ast``, ``bounds.ascaf``, ``bounds.dfl``,
...) each define ``results() -> list[Result]`` (their names are in ``PAPER_MODULES``); the first variant listed
for an
ID is its default. Results of plugins
(entry points ``convbound.results``, ``--plugin`` files, ``CONVBOUND_PLUGINS``) follow the built-ins,
each with its ``origin`` recorded (:mod:`bounds.plugins`).

A result is built (its sympy expressions made) only when it is asked for: a paper module may
define ``builders()``, one function per result (or per group of results) in registration order,
and :mod:`bounds.catalogue` lists each module's keys with what ``convbound list`` shows and the
builder of each, so `list`, the plugins' clash check and finding what makes a key need no sympy
at all, and `check ID` builds ID's variants only. The catalogue
is generated from the modules (:func:`catalogue_source`); a test and every module build check
that it is current.

>>> from bounds.registry import get
>>> get("FAST.T1").origin
'built-in'
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from bounds import plugins
from bounds.catalogue import CATALOGUE
from bounds.core.errors import UserInputError, unknown

if TYPE_CHECKING:
    from bounds.pep_cover import PepRule
    from bounds.result import Result

__all__ = ["PAPER_MODULES", "NotAResult", "all_results", "catalogue_source", "get", "ids", "pep_rule", "register", "summaries",
           "variants"]

PAPER_MODULES = ("bounds.fast", "bounds.fast_repaired", "bounds.f3ast", "bounds.ascaf", "bounds.dfl", "bounds.scaffold", "bounds.survey")
#: Fields of a catalogue row, in order (what `convbound list` shows of a result); each row ends with the
#: index of the function in its module's ``builders()`` that makes the result.
SUMMARY_FIELDS = ("key", "id", "variant", "title", "kind", "paper", "reconstructed", "source", "status", "flags")

_building: list[bool] = []  # non-empty while plugins are merged: a plugin that calls get() sees the built-ins
_session: dict[str, Result] = {}  # results registered in this process (a notebook cell), after the plugins
SESSION_ORIGIN = "registered in this session"


@lru_cache(maxsize=1)
def _index() -> dict[str, tuple[str, int]]:
    """Built-in key -> the paper module that holds it and the index of its builder there (modules that
    are not installed left out)."""
    out: dict[str, tuple[str, int]] = {}
    for mod_name in PAPER_MODULES:
        if importlib.util.find_spec(mod_name) is None:
            continue
        for row in CATALOGUE.get(mod_name, ()):
            out[row[0]] = (mod_name, row[-1])
    return out


@cache
def _built(mod_name: str, builder: int) -> dict[str, Result]:
    """The results one builder of a paper module makes, by key (built once), checked against the catalogue.

    A module without ``builders()`` is built whole (its catalogue rows all say builder 0).
    """
    from bounds.examples import EXAMPLES
    from bounds.result import build_all

    try:
        mod = importlib.import_module(mod_name)
    except ModuleNotFoundError as exc:
        if exc.name == mod_name:
            return {}
        raise
    made = build_all([mod.builders()[builder]]) if hasattr(mod, "builders") else mod.results()
    out: dict[str, Result] = {}
    for res in made:
        key = res.key
        if not res.example and key in EXAMPLES:
            res = dataclasses.replace(res, example=tuple(EXAMPLES[key].items()))
        if key in out:
            raise RuntimeError(f"duplicate result key {key}")
        out[key] = res
    listed = [row[0] for row in CATALOGUE.get(mod_name, ()) if row[-1] == builder]
    if list(out) != listed:
        raise RuntimeError(f"bounds/catalogue.py is out of date for {mod_name} (lists {listed}, the module builds "
                           f"{list(out)}); regenerate it: python -m bounds.registry > bounds/catalogue.py")
    return out


def _builtin_rows() -> list[tuple[Any, ...]]:
    """Catalogue rows of the installed paper modules, in registration order."""
    index = _index()
    return [row for mod_name in PAPER_MODULES for row in CATALOGUE.get(mod_name, ()) if row[0] in index]


def _builtin() -> dict[str, Result]:
    """Every built-in result by key (builds every paper module)."""
    out: dict[str, Result] = {}
    for key, (mod_name, builder) in _index().items():
        if key not in out:
            out.update(_built(mod_name, builder))
    return out


def _builtin_get(key: str) -> Result:
    return _built(*_index()[key])[key]


def _plugged() -> dict[str, Result]:
    """Results of plugins by key, merged after the built-ins (a clash with a built-in key is refused)."""
    if _building:
        return {}
    _building.append(True)
    try:
        merged = _merged(plugins.state())
    finally:
        _building.pop()
    return {**merged, **_session} if _session else merged


def register(result: Result, *, replace: bool = False) -> Result:
    """Add ``result`` (built in a notebook cell or a script) to the registry of this process, so every
    function that takes a result key (``get``, ``verify``, ``falsify``, scenarios) finds it.

    A key that a built-in or plugin result already has is refused; one registered before in this
    session only with ``replace=True``. Returns the registered result (its ``origin`` set).
    """
    from bounds.result import Result

    if not isinstance(result, Result):
        raise UserInputError(f"register takes a bounds.Result; got {type(result).__name__}")
    key = result.key
    if key in _index() or key in _merged(plugins.state()):
        raise UserInputError(f"result key {key!r} is taken by a built-in or plugin result; give your result another id")
    if key in _session and not replace:
        raise UserInputError(f"result key {key!r} was registered before in this session; pass replace=True")
    _session[key] = dataclasses.replace(result, origin=SESSION_ORIGIN)
    return _session[key]


@lru_cache(maxsize=4)
def _merged(token: tuple[str, ...]) -> dict[str, Result]:
    builtin_keys = _index()
    merged = plugins.merge("results", dict.fromkeys(builtin_keys), key=_plugin_key, tag=_tag)
    return {k: v for k, v in merged.items() if k not in builtin_keys}


def _plugin_key(res: Result) -> str:
    from bounds.result import Result

    if not isinstance(res, Result):
        raise UserInputError(f"results() returned a {type(res).__name__}, not a bounds.Result")
    return res.key


def _tag(res: Result, origin: str) -> Result:
    return dataclasses.replace(res, origin=origin)


def _summary(res: Result) -> tuple[Any, ...]:
    """A catalogue row; ``source`` is the provenance (seed, locator), ``flags`` how many flags the result has."""
    source = f"{res.provenance.seed}, {res.provenance.locator}"
    return (res.key, res.id, res.variant, res.title, res.kind.value, res.paper, res.reconstructed, source,
            " ".join(s.value for s in res.status), len(res.flags))


def summaries() -> list[dict[str, Any]]:
    """What `convbound list` shows of every result (``SUMMARY_FIELDS`` plus ``origin``), in registration
    order, without building the built-in results."""
    plugged = _plugged()
    rows = [dict(zip(SUMMARY_FIELDS, row[:-1], strict=True), origin=plugins.BUILT_IN) for row in _builtin_rows()]
    rows += [dict(zip(SUMMARY_FIELDS, _summary(res), strict=True), origin=res.origin) for res in plugged.values()]
    return rows


def catalogue_source() -> str:
    """The text of bounds/catalogue.py for the paper modules as they are now (builds every one)."""
    lines = ['"""What `convbound list` shows of each built-in result, by paper module (generated; do not edit).',
             "", "Regenerate after changing a paper module: ``python -m bounds.registry > bounds/catalogue.py``",
             "(tests/bounds/test_registry_index.py fails while it is out of date).", '"""', "",
             "from __future__ import annotations", "", "from typing import Any", "",
             "# per module: (key, id, variant, title, kind, paper, reconstructed, source, status, flags, builder) of each",
             "# result, in order; flags: how many flags it carries;",
             "# builder: index in the module's builders() of the function that makes it (0 without builders())",
             "CATALOGUE: dict[str, tuple[tuple[Any, ...], ...]] = {"]
    from bounds.result import build_all

    for mod_name in PAPER_MODULES:
        mod = importlib.import_module(mod_name)
        lines.append(f"    {mod_name!r}: (")
        made = ([(i, r) for i, b in enumerate(mod.builders()) for r in build_all([b])] if hasattr(mod, "builders")
                else [(0, r) for r in mod.results()])
        lines += [f"        {(*_summary(res), i)!r}," for i, res in made]
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def all_results() -> list[Result]:
    """Every variant of every result, in registration order."""
    return [*_builtin().values(), *_plugged().values()]


def known(key: str) -> bool:
    """Whether ``key`` is the exact key of a registered variant (built-in, plugin or this session's), without
    building every paper module: a search of the store asks it once per record."""
    return key in _index() or key in _plugged()


def _ids(plugged: dict[str, Result]) -> list[str]:
    return list(dict.fromkeys([row[1] for row in _builtin_rows()] + [r.id for r in plugged.values()]))


def ids() -> list[str]:
    """Distinct result IDs in order."""
    return _ids(_plugged())


def _variants(result_id: str, plugged: dict[str, Result]) -> list[Result]:
    keys = [row[0] for row in _builtin_rows() if row[1] == result_id]
    return [_builtin_get(k) for k in keys] + [r for r in plugged.values() if r.id == result_id]


def variants(result_id: str) -> list[Result]:
    """All variants of one ID (default first)."""
    found = _variants(result_id, _plugged())
    if not found:
        _refuse_survey_row(result_id)
        raise unknown("result ID", result_id, ids())
    return found


def get(key: str | Result) -> Result:
    """A result by ``ID`` (its default variant) or ``ID@variant``; unknown keys get close matches.

    A ``Result`` object (built in a notebook cell) is returned as it is, so every function that looks a
    result up by key also takes the object.
    """
    if not isinstance(key, str):
        from bounds.result import Result

        if isinstance(key, Result):
            return key
        raise UserInputError(f"a result is named by its key (text such as 'FAST.T1') or given as a bounds.Result; "
                             f"got {type(key).__name__}")
    plugged = _plugged()
    if key in _index():
        return _builtin_get(key)
    if key in plugged:
        return plugged[key]
    base, at, variant = key.partition("@")
    found = _variants(base, plugged)
    if found and at and not variant:
        raise UserInputError(f"{key!r} names no variant after '@'; valid: {', '.join(r.key for r in found)}")
    if found and not variant:
        return found[0]
    if found:
        raise unknown(f"variant of {base}", variant, [r.variant for r in found])
    _refuse_survey_row(key)
    keys = [row[0] for row in _builtin_rows()]
    raise unknown("result ID", key, list(dict.fromkeys(_ids(plugged) + keys + list(plugged))))


class NotAResult(UserInputError):
    """The ID of a survey row that states no rate (``bounds.survey_rows``): listed beside the results and shown,
    but there is no bound to evaluate, search or decide."""


def _refuse_survey_row(key: str) -> None:
    from bounds.survey_rows import entry

    row = entry(key)
    if row is not None:
        raise NotAResult(f"{key!r} is a survey row with no stated rate ({row.method} {row.ref}), not a result: "
                         f"there is no bound to evaluate, search or decide; see 'convbound show {key}'")


def pep_rule(res: Result) -> PepRule | None:
    """How ``res`` relates to a worst-case (PEP) setting (:mod:`bounds.pep_cover`): the rule the result carries
    (``Result.pep``), else the one its paper module declares (``pep_rule(key)`` beside ``results()``), else None."""
    if res.pep is not None:
        return res.pep
    where = _index().get(res.key) if res.origin == plugins.BUILT_IN else None
    if where is None:
        return None
    declare = getattr(importlib.import_module(where[0]), "pep_rule", None)
    return None if declare is None else declare(res.key)


if __name__ == "__main__":
    print(catalogue_source(), end="")
