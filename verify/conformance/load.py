"""Find a user's implementation from ``FILE.py:NAME`` or ``package.module:NAME`` (the CLI's argument)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from bounds.core.errors import UserInputError

from .limits import IMPORT_SECONDS, describe_failure, time_limit


def load_implementation(spec: str, seconds: float = IMPORT_SECONDS) -> Any:
    """The object ``NAME`` of ``FILE.py`` or of an importable module, imported under a limit of ``seconds``;
    UserInputError (one line) otherwise, whatever the module does at import (raise, exit, sleep)."""
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name:
        raise UserInputError(f"implementation {spec[:80]!r}: expected FILE.py:NAME or package.module:NAME")
    mod_name = ""
    try:
        if where.endswith(".py"):
            path = Path(where)
            if not path.is_file():
                raise UserInputError(f"implementation file {where[:80]} does not exist")
            mod_name = f"_convbound_conform_{abs(hash(str(path.resolve())))}"
            loader = importlib.util.spec_from_file_location(mod_name, path)
            assert loader is not None and loader.loader is not None  # (a .py path always has a loader)
            module = importlib.util.module_from_spec(loader)
            sys.modules[mod_name] = module
            with time_limit(seconds):
                loader.loader.exec_module(module)
        else:
            with time_limit(seconds):
                module = importlib.import_module(where)
    except UserInputError:
        raise
    except BaseException as e:  # noqa: BLE001 (a user's module: any failure, exits included, is one line)
        sys.modules.pop(mod_name, None)
        raise UserInputError(describe_failure(f"importing {where[:80]}", e)) from None
    if not hasattr(module, name):
        public = sorted(k for k in vars(module) if not k.startswith("_") and callable(getattr(module, k)))
        raise UserInputError(f"{where[:80]} has no {name!r}; its callables: {', '.join(public[:12]) or 'none'}")
    return getattr(module, name)
