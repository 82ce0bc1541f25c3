"""Built-in scenarios (one module per paper) and the scenario registry.

**Registry**: a plain mapping id -> :class:`verify.scenario.Scenario`, filled with the built-ins first;
plugins (``bounds.plugins``) add theirs with :func:`register`. Each built-in scenario's default point
is the instance that ``verify`` ships, so its check keeps its id and numbers.
"""

from __future__ import annotations

from verify.scenario import Scenario

__all__ = ["get", "register", "registry"]

_REGISTRY: dict[str, Scenario] = {}
_MODULES = ("verify.scenarios.fast", "verify.scenarios.f3ast", "verify.scenarios.ascaf", "verify.scenarios.scaffold")


def _builtins() -> None:
    from importlib import import_module

    for name in _MODULES:
        for sc in import_module(name).SCENARIOS:
            _REGISTRY.setdefault(sc.id, sc)


def registry() -> dict[str, Scenario]:
    """Scenario id -> Scenario (built-ins first, then registered plugins)."""
    if not _REGISTRY or not any(s.origin == "built-in" for s in _REGISTRY.values()):
        _builtins()
    return _REGISTRY


def register(scenario: Scenario) -> None:
    """Add a plugin's scenario; an id that exists already is refused (one line, exit 2)."""
    from bounds.core.errors import UserInputError

    reg = registry()
    if scenario.id in reg:
        raise UserInputError(f"scenario {scenario.id!r} from {scenario.origin} clashes with one from "
                             f"{reg[scenario.id].origin}")
    reg[scenario.id] = scenario


def get(scenario_id: str) -> Scenario:
    """The scenario of ``scenario_id``; an unknown id -> UserInputError naming the valid ones."""
    from bounds.core.errors import unknown

    reg = registry()
    if scenario_id not in reg:
        raise unknown("scenario", scenario_id, reg)
    return reg[scenario_id]
