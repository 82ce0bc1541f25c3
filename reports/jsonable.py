"""Strict-JSON copies of results: the converter lives in ``bounds.core.jsonable`` (the lowest layer, so
``verify`` records use it too); this module keeps the name the reports and the CLI import."""

from bounds.core.jsonable import jsonable, strict_json

__all__ = ["jsonable", "strict_json"]
