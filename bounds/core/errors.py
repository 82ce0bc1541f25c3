"""The one exception type for a person's mistakes.

Every layer raises :class:`UserInputError` for input a user can fix (unknown ID, value outside
its domain, malformed file, incompatible settings). The CLI turns it into one line on stderr and
exit status 2; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any

WORD_WIDTH = 60  # longest piece of a user's text echoed back in a message


class UserInputError(ValueError):
    """A mistake in what the user asked for; the message says what is wrong and what is valid.

    ``param``: the library parameter at fault, when the message names it as ``param=value ...``; a
    command line that exposes it as a flag shows the message with the flag instead (:meth:`for_flag`),
    so a library caller reads ``trials=1 must be ...`` and a CLI user ``--trials 1 must be ...``.
    """

    def __init__(self, message: str = "", *, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param

    def __reduce__(self) -> tuple:
        # keep ``param`` across processes (an executor's worker raises, the CLI prints)
        return (type(self), (str(self),), {"param": self.param})

    def for_flag(self, flags: dict[str, str] | None = None) -> str:
        """The message with ``param=`` written as its command-line flag (``flags`` maps exceptions to
        the rule ``--name-with-hyphens``); unchanged without a ``param``."""
        text = str(self)
        if not self.param or not text.startswith(self.param + "="):
            return text
        flag = (flags or {}).get(self.param, "--" + self.param.replace("_", "-"))
        return f"{flag} {text[len(self.param) + 1:]}"


class End(StrEnum):
    """Why a point stops being admissible: the kind of end an axis declares (``verify.scenario.Param.end``) and the
    reason a refused point carries (:class:`PointRefused`). A search reads these, never the words of a message."""

    DOMAIN = "domain"          # a symbol's domain (bounds refuses the value)
    HYPOTHESIS = "hypothesis"  # a hypothesis of the theorem stops there
    STAND_IN = "stand-in"      # the theorem puts no end here: a finite stand-in for infinity
    COST = "cost"              # what a point may cost (a simulation's size), not the theorem
    SIZE = "size"              # memory a build would hold (refused before allocating)


class PointRefused(UserInputError):
    """A point of a search space that is refused, with its declared reason ``why`` (an :class:`End`).

    A search catches this type (and only this type) as "not a point to score": any other exception from a built-in
    builder is a bug and propagates. The subclasses fix ``why``; raise them where the refusal is decided.
    """

    why: End = End.DOMAIN

    def __init__(self, message: str = "", *, why: End | None = None, param: str | None = None) -> None:
        super().__init__(message, param=param)
        if why is not None:
            self.why = End(why)

    def __reduce__(self) -> tuple:
        return (type(self), (str(self),), {"param": self.param, "why": self.why})


class OutsideDomain(PointRefused):
    """A value outside a symbol's declared domain (``bounds.symbols.SymbolInfo.validate``)."""

    why = End.DOMAIN


class SizeRefused(PointRefused):
    """A builder refuses an instance for its size (memory it would hold), not for its values: a search counts such a
    point as cut by cost (``verify.search.falsify``), as it does a simulation over its budget."""

    why = End.SIZE


def close_matches(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Case-insensitive close matches, for 'did you mean' hints."""
    candidates = list(candidates)
    lowered = {c.lower(): c for c in candidates}
    import difflib  # here: only a mistake needs close matches (start-up, issue 30)

    hits = difflib.get_close_matches(word.lower(), list(lowered), n=n, cutoff=0.5)
    return [lowered[h] for h in hits]


def unknown(kind: str, word: str, candidates: Iterable[str]) -> UserInputError:
    """An error for an unknown name, with close matches or the full list of valid names."""
    candidates = sorted(candidates)
    hits = close_matches(word, candidates)
    if hits:
        hint = "did you mean " + " or ".join(repr(h) for h in hits) + "?"
    else:
        shown = ", ".join(candidates[:12]) + (", ..." if len(candidates) > 12 else "")
        hint = f"valid: {shown}"
    shown_word = word if len(word) <= WORD_WIDTH else word[:WORD_WIDTH] + "..."
    return UserInputError(f"unknown {kind} {shown_word!r}; {hint}")


def describe(x: Any) -> str:
    """What a JSON value is, in words, with the value when it is short (for refusals): ``the text 'x'``,
    ``the number 3``, ``a list of 2``, ``an object``, ``null``."""
    if x is None:
        return "null"
    if isinstance(x, bool):
        return f"the boolean {str(x).lower()}"
    if isinstance(x, str):
        shown = x if len(x) <= 40 else x[:37] + "..."
        return f"the text {shown!r}"
    if isinstance(x, int) and x.bit_length() > 100:
        return clip(x)
    if isinstance(x, (int, float)):
        return f"the number {clip(x, 40, quote=False)}"
    if isinstance(x, list):
        return f"a list of {len(x)}"
    if isinstance(x, Mapping):
        return "an object"
    return type(x).__name__


def clip(value: Any, width: int = 60, *, quote: bool = True) -> str:
    """``repr(value)`` (or ``str`` with ``quote=False``) cut to ``width`` characters; a huge integer by its size."""
    if value is None:
        return "(null)"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 100:
        return f"an integer of about {int(value.bit_length() * 0.30103)} digits"  # str() refuses 4,300 digits
    text = repr(value) if quote else str(value)
    return text if len(text) <= width else f"{text[:max(width - 32, 8)]}...{text[-12:]} ({len(text)} characters)"
