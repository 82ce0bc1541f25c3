"""The one record model: every kind of saved evidence is a :class:`Record` with a schema tag.

**Setting**: a record is a (frozen) dataclass that the project writes as JSON (``--json``, ``--out``,
``results.json``) and reads back (``report --from-json``, ``report --include``, ``verify --instance``).
**Rule**: ``to_dict()`` writes ``"schema": "convbound.<kind>/<version>"`` before the record's own fields;
``from_dict(data)`` checks every field the renderers and replays use and builds the record, or raises
:class:`BadRecord` naming the first bad field (``field 'x.y' is the text 'z'; expected a number``).
A file without ``schema`` (written before 0.2.0) is read as version 1 of the kind its caller expects.
Its short ``repr`` (under 200 characters, like scipy's ``OptimizeResult``) comes from
``bounds.core.face.notebook_face``. Adding a kind is one small class: subclass :class:`Record`, set ``KIND``, write ``payload`` and
``read`` (or keep a dataclass's fields as they are: the defaults do that), decorate with :func:`register`.
**Notation**: ``kind`` is one of :data:`KINDS` (``decision`` and ``conformance`` are reserved slots whose
classes live with their commands); ``id`` names the record; ``seeds`` and ``versions`` are its provenance.

The field readers here (``get``, ``number_or_null``, ``numbers``...) and ``bounds.core.errors``'
``describe`` and ``clip`` are the one copy of the helpers every validator used. Standard library only (the ground floor imports nothing of ours but
``bounds.core``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

from bounds.core.errors import UserInputError, clip, describe

__all__ = ["KINDS", "SCHEMA_PREFIX", "BadRecord", "Record", "clip", "describe", "get", "is_number", "kind_of_tag",
           "number", "number_or_null", "numbers", "obj", "pair", "record_class", "register", "texts"]

#: Every kind of saved record (the reserved ones get their class from the helper that builds them).
KINDS = ("verification", "search", "worst-case", "audit", "comparison", "decision", "conformance", "instance")
SCHEMA_PREFIX = "convbound."
_TAG = re.compile(r"convbound\.([a-z-]+)/(\d+)")
_REGISTRY: dict[str, type[Record]] = {}
_NUM = (int, float)
_NUM_TEXT = ("inf", "-inf")  # how bounds.core.jsonable writes infinities

R = TypeVar("R", bound="Record")


class BadRecord(ValueError):
    """A field of a record is missing or of the wrong type (message: the field and what it should be)."""


class Record:
    """Base of every saved record (mix into a dataclass).

    Class attributes: ``KIND`` (one of :data:`KINDS`), ``VERSION`` (the schema version written and the
    highest read). Properties with defaults a subclass may override: ``record_id`` (field ``id``),
    ``record_seeds`` (field ``seeds`` or ``seed``), ``record_versions`` (field ``versions``).
    """

    KIND: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1

    @classmethod
    def schema_tag(cls) -> str:
        return f"{SCHEMA_PREFIX}{cls.KIND}/{cls.VERSION}"

    @property
    def record_id(self) -> str:
        return str(getattr(self, "id", ""))

    @property
    def record_seeds(self) -> tuple[int, ...]:
        seeds = getattr(self, "seeds", None)
        if isinstance(seeds, (list, tuple)):
            return tuple(int(s) for s in seeds)
        seed = getattr(self, "seed", None)
        return () if seed is None else (int(seed),)

    @property
    def record_versions(self) -> Mapping[str, str]:
        return dict(getattr(self, "versions", {}) or {})

    def payload(self) -> dict[str, Any]:
        """The record's own fields as strict JSON (default: every dataclass field)."""
        from bounds.core.jsonable import jsonable

        return jsonable({f.name: getattr(self, f.name) for f in dataclasses.fields(self)})  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, Any]:
        return {"schema": self.schema_tag(), **self.payload()}

    @classmethod
    def read(cls: type[R], data: Mapping[str, Any], where: str) -> R:
        """Check ``data`` (``BadRecord`` naming ``where.field``) and build the record (default: by field name)."""
        names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        return cls(**{k: v for k, v in data.items() if k in names})

    @classmethod
    def from_dict(cls: type[R], data: Any, where: str = "record") -> R:
        """The record saved as ``data`` (what ``to_dict`` wrote), or ``BadRecord`` naming the first bad field."""
        data = obj(data, where)
        tag = data.get("schema")
        if tag is not None:
            kind, version = kind_of_tag(tag, where)
            if kind != cls.KIND:
                raise BadRecord(f"field '{where}.schema' is {describe(tag)}; expected {cls.schema_tag()!r} "
                                f"(a {cls.KIND} record)")
            if version > cls.VERSION:
                raise BadRecord(f"field '{where}.schema' is {describe(tag)}, newer than this convbound reads "
                                f"(version {cls.VERSION}); upgrade convbound")
        try:
            return cls.read(data, where)
        except (BadRecord, UserInputError):  # already one line naming the field
            raise
        except (TypeError, ValueError, KeyError, AttributeError) as exc:  # a constructor's own refusal
            raise BadRecord(f"'{where}' is not a valid {cls.KIND} record ({type(exc).__name__}: "
                            f"{clip(str(exc), 120, quote=False)})") from None


def register(cls: type[R]) -> type[R]:
    """Class decorator: ``cls`` reads and writes records of ``cls.KIND`` (one class per kind)."""
    if cls.KIND not in KINDS:
        raise ValueError(f"record kind {cls.KIND!r} is not one of {', '.join(KINDS)}")
    _REGISTRY[cls.KIND] = cls
    return cls


def record_class(kind: str) -> type[Record] | None:
    """The class registered for ``kind`` (None until the module holding it is imported)."""
    return _REGISTRY.get(kind)


def kind_of_tag(tag: Any, where: str = "record") -> tuple[str, int]:
    """``("search", 1)`` for ``"convbound.search/1"``; ``BadRecord`` for anything else."""
    m = _TAG.fullmatch(tag) if isinstance(tag, str) else None
    if m is None or m.group(1) not in KINDS:
        raise BadRecord(f"field '{where}.schema' is {describe(tag)}; expected 'convbound.KIND/N' with KIND one of "
                        f"{', '.join(KINDS)}")
    return m.group(1), int(m.group(2))


# Field readers (one copy for every record and document) ---------------------------------------------

_WANT = {str: "text", list: "a list", Mapping: "an object", int: "an integer", _NUM: "a number", bool: "true or false",
         dict: "an object"}


def is_number(x: Any) -> bool:
    """A JSON number (not a boolean), or an infinity as strict JSON writes it."""
    return (isinstance(x, _NUM) and not isinstance(x, bool)) or x in _NUM_TEXT


def number(x: Any) -> Any:
    """A read number: ``"inf"``/``"-inf"`` back to floats, everything else as it is."""
    return float(x) if x in _NUM_TEXT else x


def _at(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name  # "" is the top level of a document


def get(data: Mapping[str, Any], name: str, kind: Any, where: str, *, optional: bool = False) -> Any:
    """``data[name]`` of type ``kind`` (``_NUM``-like tuples allowed; a boolean is no number); None when
    ``optional`` and absent or null, else ``BadRecord``."""
    if name not in data or data[name] is None:
        if optional:
            return None
        raise BadRecord(f"field '{_at(where, name)}' is missing")
    value = data[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise BadRecord(f"field '{_at(where, name)}' is {describe(value)}; expected {_WANT.get(kind, str(kind))}")
    return value


def obj(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise BadRecord(f"field '{where}' is {describe(value)}; expected an object")
    return value


def number_or_null(data: Mapping[str, Any], name: str, where: str, *, required: bool = False) -> Any:
    if required and name not in data:
        raise BadRecord(f"field '{_at(where, name)}' is missing")
    x = data.get(name)
    if x is not None and not is_number(x):
        raise BadRecord(f"field '{_at(where, name)}' is {describe(x)}; expected a number or null")
    return number(x)


def pair(data: Mapping[str, Any], name: str, where: str) -> Any:
    x = data.get(name)
    if x is None:
        return None
    if not isinstance(x, list) or len(x) != 2:
        raise BadRecord(f"field '{_at(where, name)}' is {describe(x)}; expected [low, high]")
    numbers(x, _at(where, name))
    return x


def numbers(values: Any, where: str) -> list[Any]:
    if not isinstance(values, list):
        raise BadRecord(f"field '{where}' is {describe(values)}; expected a list of numbers")
    for i, x in enumerate(values):
        if x is not None and not is_number(x):
            raise BadRecord(f"field '{where}[{i}]' is {describe(x)}; expected a number or null")
    return values


def texts(data: Mapping[str, Any], name: str, where: str) -> list[str]:
    values = data.get(name)
    if values is not None and not isinstance(values, list):
        raise BadRecord(f"field '{_at(where, name)}' is {describe(values)}; expected a list of text")
    for i, x in enumerate(values or []):
        if not isinstance(x, str):
            raise BadRecord(f"field '{where}.{name}[{i}]' is {describe(x)}; expected text")
    return list(values or [])
