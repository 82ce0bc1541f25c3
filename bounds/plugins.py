"""User extensions: results, algorithms, problems and scenarios from entry points and plugin files.

**Setting**: every registry of convbound (results in :mod:`bounds.registry`; algorithms and problems in
``quadratics.registry``; check groups in ``verify.suite``) is a plain mapping filled in one order:
built-ins first, then the entry points of installed distributions (groups ``convbound.results``,
``convbound.algorithms``, ``convbound.problems``, ``convbound.scenarios``, ``convbound.optimisers``), then plugin files given
with ``convbound --plugin FILE.py`` or listed in the environment variable ``CONVBOUND_PLUGINS``
(paths separated by ``os.pathsep``).

**Plugin file**: a Python file that defines any of ``results()``, ``algorithms()``, ``problems()``,
``scenarios()``, ``optimisers()`` (``verify.search.optimisers.Entry`` objects), each returning a list; a ``.toml`` file is one result (:mod:`bounds.tomlresult`).
**Entry point**: its value is such a function (``mypkg.bounds:results``) or a module defining them.

**Statement**: an import failure, a function that raises, or a key that another source already
registered raises :class:`~bounds.core.errors.UserInputError` naming the file (or entry point) and the
clash; the CLI prints it as one line with exit status 2. A file that failed once is left out from
then on, so the built-ins (and the other plugins) keep working in the same process. Every registered object records where it came from
(:func:`origin_text`): ``"built-in"``, ``"entry point NAME (DIST)"`` or ``"file PATH"``.

This module imports nothing of ours beyond ``bounds.core.errors``, so every layer can call it.

>>> from bounds.plugins import BUILT_IN, merge
>>> table = merge("results", {"A": "built-in object"}, key=lambda obj: obj)
>>> table["A"], BUILT_IN
('built-in object', 'built-in')
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import types
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bounds.core.errors import UserInputError
from bounds.core.files import regular_file

if TYPE_CHECKING:
    from importlib import metadata

__all__ = ["BUILT_IN", "ENV_VAR", "GROUPS", "KINDS", "PluginError", "add_files", "clear_files", "contributions", "files",
           "load_file", "merge", "origin_text", "state"]

#: The origin of objects shipped with convbound.
BUILT_IN = "built-in"
#: Environment variable listing plugin files (``os.pathsep``-separated).
ENV_VAR = "CONVBOUND_PLUGINS"
#: Kinds of contribution, each the name of the function a plugin file defines.
KINDS = ("results", "algorithms", "problems", "scenarios", "optimisers")
#: Entry-point group of each kind.
GROUPS = {kind: f"convbound.{kind}" for kind in KINDS}

_ALLOWED_SUFFIXES = (".py", ".toml")
_cli_files: list[str] = []          # given with --plugin (or add_files), in order
_modules: dict[str, types.ModuleType] = {}   # resolved path -> loaded module
_origins: dict[tuple[str, str], str] = {}    # (kind, key) -> origin of the last merge
_rejected: set[str] = set()                  # files that failed once: reported, then left out
_file_origins: dict[str, str] = {}           # a plugin file's origin label -> its path (the label is made, not parsed)


def files() -> tuple[str, ...]:
    """Plugin files in load order: ``CONVBOUND_PLUGINS`` first, then ``--plugin`` files.

    >>> all(path.endswith((".py", ".toml")) for path in files())
    True
    """
    env = [p for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p.strip()]
    out: list[str] = []
    for p in env + _cli_files:
        r = str(Path(p).expanduser().resolve())
        if r not in out and r not in _rejected:
            out.append(r)
    return tuple(out)


def state() -> tuple[str, ...]:
    """A token that changes whenever the plugin set changes (registries cache on it).

    >>> isinstance(state(), tuple)
    True
    """
    return files()


def add_files(paths: Iterable[str]) -> tuple[str, ...]:
    """Add plugin files (as ``--plugin`` does) and import them now, so a broken one fails early.

    Raises ``UserInputError`` for a missing file, a suffix other than .py/.toml, or an import
    failure; the failed file is not kept. Returns the files now active.

    >>> add_files(["/no/such/plugin.py"])
    Traceback (most recent call last):
    ...
    bounds.core.errors.UserInputError: plugin file /no/such/plugin.py does not exist; give the path of a .py or .toml file
    """
    for p in paths:
        valid = "the path of a .py or .toml file"
        if not str(p).strip():  # Path("") would be ".", the working directory
            regular_file(p, "plugin file", valid)  # refuses: the path is empty
        path = Path(p).expanduser()
        # a regular file only: a FIFO would hang the import, a directory or /dev/null is no plugin
        regular_file(path, "plugin file", valid)
        if path.suffix not in _ALLOWED_SUFFIXES:
            raise UserInputError(f"plugin file {p} must end in .py (Python plugin) or .toml (a result without code)")
        resolved = str(path.resolve())
        if resolved in _cli_files:
            continue
        _cli_files.append(resolved)
        try:
            load_file(resolved)
        except BaseException:
            _cli_files.remove(resolved)
            raise
    return files()


def reject(where: str) -> None:
    """Leave the plugin file of origin ``where`` (``file /abs/path``, as :func:`contributions` names it) out from now
    on: it failed once and was reported (an entry point's origin is ignored: it cannot be left out)."""
    path = _file_origins.get(where)
    if path is not None:
        _rejected.add(path)


def clear_files() -> None:
    """Forget the ``--plugin`` files of this process and which files failed (``CONVBOUND_PLUGINS`` still applies).

    >>> clear_files()
    """
    _cli_files.clear()
    _rejected.clear()


def _module_name(path: str) -> str:
    """A deterministic module name, so workers that load the same file can unpickle its objects."""
    import hashlib  # here, not at the top: OpenSSL's bindings cost every `check` a few ms (issue 30)

    digest = hashlib.sha1(path.encode("utf-8")).hexdigest()[:10]
    stem = "".join(c if c.isalnum() else "_" for c in Path(path).stem)
    return f"convbound_plugin_{stem}_{digest}"


def load_file(path: str) -> types.ModuleType:
    """Import a plugin file once (a ``.toml`` file becomes a module whose ``results()`` returns it).

    Raises ``UserInputError`` naming the file when it fails to import.
    """
    resolved = str(Path(path).expanduser().resolve())
    if resolved in _modules:
        return _modules[resolved]
    regular_file(resolved, "plugin file", f"the path of a .py or .toml file (from --plugin or {ENV_VAR})")
    name = _module_name(resolved)
    if resolved.endswith(".toml"):
        from bounds.tomlresult import load_result

        result = load_result(resolved)
        mod = types.ModuleType(name, f"TOML result {resolved}")
        mod.results = lambda: [result]  # type: ignore[attr-defined]
    else:
        spec = importlib.util.spec_from_file_location(name, resolved)
        if spec is None or spec.loader is None:
            raise PluginError(f"plugin file {resolved} cannot be imported (not a Python source file)")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        try:
            spec.loader.exec_module(mod)
        except UserInputError as exc:
            sys.modules.pop(name, None)
            raise PluginError(f"plugin file {resolved}: {exc}") from None
        except Exception as exc:  # a user's file: any failure is theirs to fix, reported in one line
            sys.modules.pop(name, None)
            raise PluginError(f"plugin file {resolved} failed to import: {type(exc).__name__}: {exc}") from None
        except SystemExit as exc:  # exit() at import would end the command with the plugin's status
            sys.modules.pop(name, None)
            raise PluginError(f"plugin file {resolved} called exit({exc.code!r}) while being imported; a plugin "
                              "defines results()/algorithms()/problems()/scenarios() and exits nothing") from None
    _modules[resolved] = mod
    return mod


#: Text every ``entry_points.txt`` that declares one of our groups contains.
_GROUP_PREFIX = b"convbound."


def _none_declared() -> bool:
    """True when it is certain that no distribution on ``sys.path`` declares a ``convbound.*`` entry point.

    Why: ``importlib.metadata.entry_points`` imports the email package and parses every installed
    distribution's metadata, about 18 ms of CPU that every `check` and `show` paid for no plugin at
    all (issue 30). This reads only the ``entry_points.txt`` of each ``*.dist-info``/``*.egg-info``
    folder, the files ``importlib.metadata`` reads for entry points, and looks for our group prefix.
    It answers False (read the metadata properly) wherever it could miss one: a path entry that is a
    zip or egg, or a finder on ``sys.meta_path`` that finds distributions its own way.
    """
    for finder in sys.meta_path:
        if hasattr(finder, "find_distributions") and finder is not importlib.machinery.PathFinder:
            return False
    for entry in sys.path:
        root = entry or "."
        if os.path.isfile(root) or root.lower().endswith(".egg"):
            return False
        try:
            children = os.listdir(root)
        except OSError:  # importlib.metadata finds nothing where the folder cannot be listed
            continue
        for child in children:
            if not child.lower().endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(root, child, "entry_points.txt"), "rb") as fh:
                    if _GROUP_PREFIX in fh.read():
                        return False
            except OSError:  # no entry_points.txt (or an .egg-info file): no entry points there
                continue
    return True


class PluginError(UserInputError):
    """A plugin's failure, its message naming the plugin (its file or its entry point): raised as it is by a caller
    that would otherwise name the plugin again (a plugin's function that loads a plugin file)."""


def _entry_points(group: str) -> list[metadata.EntryPoint]:
    if _none_declared():
        return []
    from importlib import metadata

    return sorted(metadata.entry_points(group=group), key=lambda ep: (ep.dist.name if ep.dist else "", ep.name))


def _items(kind: str, source: Any, where: str) -> list[Any]:
    """The list a plugin contributes: a function returning it, a module defining it, or the list itself."""
    if isinstance(source, types.ModuleType):
        source = getattr(source, kind, None)
        if source is None:
            return []
    try:
        items = source() if callable(source) else source
        items = list(items)
    except PluginError:  # it names its plugin already (a plugin whose function loads a plugin file): as it is
        raise
    except UserInputError as exc:
        raise PluginError(f"{where}: {exc}") from None
    except Exception as exc:
        raise PluginError(f"{where}: {kind}() failed: {type(exc).__name__}: {exc}") from None
    return items


def contributions(kind: str) -> list[tuple[Any, str]]:
    """``(object, origin)`` pairs a kind receives from entry points, then from plugin files.

    >>> contributions("theorems")
    Traceback (most recent call last):
    ...
    ValueError: unknown plugin kind 'theorems'; valid: results, algorithms, problems, scenarios, optimisers
    """
    if kind not in KINDS:
        raise ValueError(f"unknown plugin kind {kind!r}; valid: {', '.join(KINDS)}")
    out: list[tuple[Any, str]] = []
    for ep in _entry_points(GROUPS[kind]):
        where = f"entry point {ep.name} ({ep.dist.name if ep.dist else 'unknown distribution'})"
        try:
            loaded = ep.load()
        except Exception as exc:
            raise PluginError(f"{where} failed to import {ep.value}: {type(exc).__name__}: {exc}") from None
        out += [(item, where) for item in _items(kind, loaded, where)]
    for path in files():
        where = f"file {path}"
        _file_origins[where] = path
        try:
            out += [(item, where) for item in _items(kind, load_file(path), f"plugin file {path}")]
        except UserInputError:
            _rejected.add(path)
            raise
    return out


def merge(kind: str, builtins: Mapping[str, Any], *, key: Callable[[Any], str],
          tag: Callable[[Any, str], Any] | None = None) -> dict[str, Any]:
    """Built-ins, then every contribution of ``kind``, as one mapping; a clash raises ``UserInputError``.

    Args:
        kind: one of :data:`KINDS`.
        builtins: the registry's own objects by key (origin ``built-in``).
        key: the registry key of a contributed object (e.g. ``lambda r: r.key``).
        tag: returns the object with its origin recorded (default: unchanged).

    >>> merge("problems", {"quadratic": 1}, key=str)
    {'quadratic': 1}
    """
    out = dict(builtins)
    origins = {k: BUILT_IN for k in out}
    for obj, where in contributions(kind):
        try:
            k = key(obj)
        except Exception as exc:
            raise PluginError(f"{where}: a {kind[:-1]} without a key ({type(exc).__name__}: {exc}); "
                              f"{kind}() must return objects with an id/key/name") from None
        if k in out:
            reject(where)
            raise PluginError(f"{where} defines {kind[:-1]} {k!r}, which {origins[k]} already defines; "
                              f"rename it (keys must be unique across built-ins, entry points and files)")
        out[k] = tag(obj, where) if tag else obj
        origins[k] = where
    for k, where in origins.items():
        _origins[(kind, k)] = where
    return out


def origin_text(kind: str, key: str) -> str:
    """Where the object registered under ``key`` came from (``built-in`` when never merged).

    >>> origin_text("results", "FAST.T1")
    'built-in'
    """
    return _origins.get((kind, key), BUILT_IN)
