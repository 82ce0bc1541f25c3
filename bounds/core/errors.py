"""The one exception type for a person's mistakes.

Every layer raises :class:`UserInputError` for input a user can fix (unknown ID, value outside
its domain, malformed file, incompatible settings). The CLI turns it into one line on stderr and
exit status 2; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

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


def close_matches(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Case-insensitive close matches, for 'did you mean' hints."""
    candidates = list(candidates)
    lowered = {c.lower(): c for c in candidates}
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
