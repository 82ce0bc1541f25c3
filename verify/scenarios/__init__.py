"""Built-in scenarios (one module per paper) and the scenario registry.

**Registry**: a plain mapping id -> :class:`verify.scenario.Scenario`, filled with the built-ins first,
then the :class:`Scenario` objects that plugins contribute (``scenarios()`` of a ``--plugin`` file or
of an entry point in group ``convbound.scenarios``; ``bounds.plugins``), each tagged with its origin
(``file /abs/path`` or ``entry point NAME (DIST)``). The other
items a plugin's ``scenarios()`` returns (``verify.Check`` objects) are check groups only
(``verify.extensions``); every Scenario is also a check group, scored at its default point.
The plugin part is rebuilt whenever the plugin set changes (``bounds.plugins.state()``), so a
``--plugin`` file given after the first lookup, or a worker that loads a task's plugin files, sees it.
A scenario id that a built-in (or another plugin) already defines is refused, naming both sources.
``register`` (the pre-0.2 way for a plugin to add scenarios) is gone: ``scenarios()`` is the one way, and a
plugin that still calls it is told so in one line (:func:`__getattr__`).
Each built-in scenario's default point is the instance that ``verify`` ships, so its check keeps its
id and numbers.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from verify.scenario import Scenario

__all__ = ["get", "of_result", "plugin_file", "registry"]

REGISTER_REMOVED = ("verify.scenarios.register was removed in convbound 0.2.0: a plugin's scenarios() list is how "
                    "verify and falsify find its scenarios, and a scenario registered there as well clashes with "
                    "itself; delete the register(...) call and return the scenario from scenarios()")

_REGISTRY: dict[str, Scenario] = {}
# the paper modules, in suite order (verify.suite reads this too)
PAPER_MODULES = ("verify.scenarios.fast", "verify.scenarios.f3ast", "verify.scenarios.ascaf", "verify.scenarios.scaffold")
# scenarios without check groups: the declared settings (verify.scenarios.declared), F3AST's printed Lemma III.4
# (hand-built) and Theorem III.7's burn-in (an exact enumeration, searched)
EXTRA_MODULES = ("verify.scenarios.settings", "verify.scenarios.f3ast_printed", "verify.scenarios.f3ast_burnin")
_PLUGIN_STATE: list[Any] = [None]   # the bounds.plugins.state() the plugin scenarios were merged at


def _builtins() -> None:
    from importlib import import_module

    for name in PAPER_MODULES:
        for sc in import_module(name).SCENARIOS:
            _REGISTRY.setdefault(sc.id, sc)
    for name in EXTRA_MODULES:
        for sc in import_module(name).SCENARIOS:
            _REGISTRY.setdefault(sc.id, sc)


def _from_plugin(sc: Scenario) -> bool:
    return sc.origin.startswith(("file ", "entry point "))


def _merge_plugins() -> None:
    """Drop the plugin scenarios merged before, then merge the current plugin set's."""
    from bounds import plugins
    from bounds.core.errors import UserInputError

    for key in [k for k, sc in _REGISTRY.items() if _from_plugin(sc)]:
        del _REGISTRY[key]
    _PLUGIN_STATE[0] = plugins.state()
    for item, where in plugins.contributions("scenarios"):
        if not isinstance(item, Scenario):
            continue  # a Check: a check group only (verify.extensions)
        if item.id in _REGISTRY:
            plugins.reject(where)
            if _REGISTRY[item.id].origin == where:
                raise UserInputError(f"{where} defines scenario {item.id!r} twice (its scenarios() returns two with "
                                     "this id); return it once")
            raise UserInputError(f"{where} defines scenario {item.id!r}, which {_REGISTRY[item.id].origin} already "
                                 "defines; rename it (scenario ids must be unique)")
        _REGISTRY[item.id] = dataclasses.replace(item, origin=where)


def registry() -> dict[str, Scenario]:
    """Scenario id -> Scenario (built-ins, then plugin scenarios)."""
    from bounds import plugins

    if not _REGISTRY or not any(s.origin == "built-in" for s in _REGISTRY.values()):
        _builtins()
    if _PLUGIN_STATE[0] != plugins.state():
        _merge_plugins()
    return _REGISTRY


def of_result(key: str) -> list[Scenario]:
    """The scenarios of the registered result ``key``: a scenario may name its result by id (``SURV.GENFEDAVG``),
    which stands for the result's default variant (``SURV.GENFEDAVG@text``), so each is resolved by the registry."""
    import bounds

    return [sc for sc in registry().values() if bounds.get(sc.result).key == key]


def __getattr__(name: str) -> Any:
    """``register``, removed: one line naming the cause and the fix (a plugin file that imports it fails to load
    with it); other names are missing as usual."""
    if name == "register":
        from bounds.core.errors import UserInputError

        raise UserInputError(REGISTER_REMOVED)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def plugin_file(scenario: Scenario) -> str | None:
    """The plugin file a scenario came from (``None`` for built-ins, entry points and code)."""
    return scenario.origin[len("file "):] if scenario.origin.startswith("file ") else None


def get(scenario_id: str) -> Scenario:
    """The scenario of ``scenario_id``; an unknown id -> UserInputError naming the valid ones."""
    from bounds.core.errors import unknown

    reg = registry()
    if scenario_id not in reg:
        raise unknown("scenario", scenario_id, reg)
    return reg[scenario_id]
