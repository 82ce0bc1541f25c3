"""Every encoded result, by key (``ID`` for the first variant of an ID, ``ID@variant`` for others).

Paper modules (``bounds.fast``, ``bounds.f3ast``, ``bounds.ascaf``, ``bounds.dfl``) each define
``results() -> list[Result]`` (their names are in ``PAPER_MODULES``); the first variant listed for an
ID is its default. Results of plugins
(entry points ``convbound.results``, ``--plugin`` files, ``CONVBOUND_PLUGINS``) follow the built-ins,
each with its ``origin`` recorded (:mod:`bounds.plugins`).

>>> from bounds.registry import get
>>> get("FAST.T1").origin
'built-in'
"""

from __future__ import annotations

import dataclasses
import importlib
from functools import lru_cache

from bounds import plugins
from bounds.errors import UserInputError, unknown
from bounds.examples import EXAMPLES
from bounds.result import Result

__all__ = ["PAPER_MODULES", "all_results", "get", "ids", "variants"]

PAPER_MODULES = ("bounds.fast", "bounds.f3ast", "bounds.ascaf", "bounds.dfl")


_building: list[bool] = []  # non-empty while plugins are merged: a plugin that calls get() sees the built-ins


def _registry() -> dict[str, Result]:
    if _building:
        return _builtin()
    _building.append(True)
    try:
        return _merged(plugins.state())
    finally:
        _building.pop()


@lru_cache(maxsize=4)
def _merged(token: tuple[str, ...]) -> dict[str, Result]:
    return plugins.merge("results", _builtin(), key=_plugin_key, tag=_tag)


def _plugin_key(res: Result) -> str:
    if not isinstance(res, Result):
        raise UserInputError(f"results() returned a {type(res).__name__}, not a bounds.Result")
    return res.key


def _tag(res: Result, origin: str) -> Result:
    return dataclasses.replace(res, origin=origin)


@lru_cache(maxsize=1)
def _builtin() -> dict[str, Result]:
    out: dict[str, Result] = {}
    for mod_name in PAPER_MODULES:
        try:
            mod = importlib.import_module(mod_name)
        except ModuleNotFoundError as exc:
            if exc.name == mod_name:
                continue
            raise
        for res in mod.results():
            key = res.key
            if not res.example and key in EXAMPLES:
                res = dataclasses.replace(res, example=tuple(EXAMPLES[key].items()))
            if key in out:
                raise RuntimeError(f"duplicate result key {key}")
            out[key] = res
    return out


def all_results() -> list[Result]:
    """Every variant of every result, in registration order."""
    return list(_registry().values())


def ids() -> list[str]:
    """Distinct result IDs in order."""
    return list(dict.fromkeys(r.id for r in all_results()))


def variants(result_id: str) -> list[Result]:
    """All variants of one ID (default first)."""
    found = [r for r in all_results() if r.id == result_id]
    if not found:
        raise unknown("result ID", result_id, ids())
    return found


def get(key: str) -> Result:
    """A result by ``ID`` (its default variant) or ``ID@variant``; unknown keys get close matches."""
    reg = _registry()
    if key in reg:
        return reg[key]
    base, at, variant = key.partition("@")
    found = [r for r in reg.values() if r.id == base]
    if found and at and not variant:
        raise UserInputError(f"{key!r} names no variant after '@'; valid: {', '.join(r.key for r in found)}")
    if found and not variant:
        return found[0]
    if found:
        raise unknown(f"variant of {base}", variant, [r.variant for r in found])
    raise unknown("result ID", key, list(dict.fromkeys([r.id for r in reg.values()] + list(reg))))
