"""Tokens of a LaTeX formula, each with its position, for an import that accounts for every one.

**Setting**: a theorem's hypotheses and bound pasted from a paper, in the LaTeX subset convergence
theorems use (:mod:`bounds.latex_parse` reads it).
**Quantity**: a list of :class:`Token` (kind, text, column) that covers the input: every character is in
a token, in whitespace, or in a ``%`` comment (kept as a token, so it is accounted for).
**Notation**: ``cmd`` is a control word (``\\frac``) or control symbol (``\\,``, ``\\{``); ``letter`` is one
letter (LaTeX reads ``KR`` as K times R); ``num`` is a run of digits with at most one decimal point.

>>> [(t.kind, t.text) for t in tokenize(r"\\frac1N + x_{r}")]
[('cmd', '\\\\frac'), ('num', '1'), ('letter', 'N'), ('char', '+'), ('letter', 'x'), ('char', '_'), ('char', '{'), ('letter', 'r'), ('char', '}')]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bounds.core.errors import UserInputError

__all__ = ["BIG_CLOSE", "BIG_OPEN", "CLOSE_OF", "DECORATORS", "FRACS", "GREEK", "LAYOUT", "MACRO_DEFINITIONS",
           "MAX_DIGITS", "MAX_FORMULA", "NOT_EXACT", "ORDER", "RELOPS", "SEPARATORS", "Token", "canonical", "flat",
           "is_greek", "label_text", "script_key", "tokenize"]

#: Limits on one formula, so that a pasted formula is refused in one line before it can exhaust the
#: parser's stack, Python's integer-to-text limit (4,300 digits) or the time of an evaluation.
MAX_FORMULA = 20_000   # characters (the longest statement of tests/bounds/latex_cases.py has about 450)
MAX_DIGITS = 100       # digits of one number as written

#: Greek letters and letter-like control words that name a symbol (``\\eta`` -> ``eta``).
GREEK = frozenset(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi varpi "
    "rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma "
    "Upsilon Phi Psi Omega ell".split())
#: Control words and symbols that only space or align the formula; they carry no maths.
LAYOUT = frozenset({"\\,", "\\;", "\\:", "\\!", "\\ ", "~", "&", "\\displaystyle", "\\textstyle", "\\limits",
                    "\\nonumber", "\\notag"})
#: The vocabulary the grammar (bounds.latex_grammar) gives a meaning to.
DECORATORS = frozenset(r"\mathbf \boldsymbol \bm \mathrm \mathit \mathsf \mathcal \mathbb \bar \hat \tilde \overline "
                       r"\widehat \widetilde \vec \dot \check \breve \operatorname".split())
FRACS = frozenset({r"\frac", r"\dfrac", r"\tfrac"})
BIG_OPEN = frozenset(r"\bigl \Bigl \biggl \Biggl \big \Big \bigg \Bigg \left".split())
BIG_CLOSE = frozenset(r"\bigr \Bigr \biggr \Biggr \big \Big \bigg \Bigg \right".split())
RELOPS = {"<": "<", ">": ">", "=": "=", r"\lt": "<", r"\gt": ">", r"\le": "<=", r"\leq": "<=", r"\leqslant": "<=",
          r"\ge": ">=", r"\geq": ">=", r"\geqslant": ">=", r"\in": "in"}
NOT_EXACT = frozenset(r"\ll \gg \approx \sim \simeq \lesssim \gtrsim \ne \neq \equiv \propto \asymp \cong \coloneqq "
                      r"\pm \mp".split())
SEPARATORS = frozenset({",", ";", r"\quad", r"\qquad", "\\\\"})
ORDER = frozenset({"O", r"\mathcal { O }", r"\Theta", r"\Omega", r"\tilde { \mathcal { O } }"})
CLOSE_OF = {"(": ")", "[": "]", r"\{": r"\}"}
#: Macro definitions: the import does not expand macros, so a formula that defines one is refused by name.
MACRO_DEFINITIONS = frozenset(r"\newcommand \renewcommand \providecommand \def \edef \gdef \xdef \let "
                              r"\DeclareMathOperator \newenvironment".split())
_CHARS = set("+-*/^_()[]{}<>=,;.!'|:")


@dataclass(frozen=True, slots=True)
class Token:
    """One token: ``kind`` in num, letter, cmd, char, comment; ``pos`` the 0-based column of its first character."""

    kind: str
    text: str
    pos: int

    def where(self) -> str:
        return f"{self.text!r} at column {self.pos + 1}"


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text``; a character LaTeX maths does not use is refused with its column."""
    out: list[Token] = []
    i, n = 0, len(text)
    if n > MAX_FORMULA:
        raise UserInputError(f"the formula has {n:,} characters; the import reads formulas of at most "
                             f"{MAX_FORMULA:,} (split a long bound into hypotheses and terms)")
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == "%":  # a comment runs to the end of the line
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(Token("comment", text[i:j], i))
            i = j
        elif c == "\\":
            j = i + 1
            while j < n and text[j].isalpha() and text[j].isascii():
                j += 1
            if j == i + 1 and j < n and text[j].isspace():  # backslash-newline or -tab: a control space
                out.append(Token("cmd", "\\ ", i))
                i = j + 1
                continue
            if j == i + 1:  # a control symbol: backslash and one character
                if j >= n:
                    raise UserInputError(f"a lone backslash at column {i + 1} ends the formula; write a command "
                                         "such as \\frac or remove it")
                j += 1
            out.append(Token("cmd", text[i:j], i))
            i = j
        elif c.isdigit() and c.isascii():
            j = i
            while j < n and text[j].isdigit():
                j += 1
            if j + 1 < n and text[j] == "." and text[j + 1].isdigit():
                j += 1
                while j < n and text[j].isdigit():
                    j += 1
            if j - i > MAX_DIGITS:
                raise UserInputError(f"cannot read the number at column {i + 1}: it has {j - i:,} characters; the "
                                     f"import reads numbers of at most {MAX_DIGITS} digits (write a power, 10^{{k}})")
            out.append(Token("num", text[i:j], i))
            i = j
        elif c.isalpha() and c.isascii():
            out.append(Token("letter", c, i))
            i += 1
        elif c in _CHARS or c == "~" or c == "&":
            out.append(Token("char", c, i))
            i += 1
        else:
            raise UserInputError(f"cannot read {c!r} at column {i + 1}: not a character of LaTeX maths this import "
                                 "reads (letters, digits, + - / ^ _ ( ) [ ] {{ }} < > = , and commands)")
    return out


def canonical(tokens: list[Token]) -> str:
    """One spelling for a token run, so ``\\eta_c`` and ``\\eta_{c}`` (written braces-in by the caller) compare equal."""
    return " ".join(t.text for t in tokens if t.kind != "comment" and t.text not in LAYOUT)


def is_greek(t: Token | None) -> bool:
    """``\\eta``, ``\\Gamma``, ``\\ell``: a control word that names a symbol."""
    return t is not None and t.kind == "cmd" and t.text[1:] in GREEK


def script_key(base: list[str], scripts: Mapping[str, list[Token]]) -> list[str]:
    """A symbol's canonical words: base, then _{..}, then ^{..} (LaTeX prints x^i_r and x_r^i alike)."""
    out = list(base)
    for mark in ("_", "^"):
        if mark in scripts:
            out += [mark, "{", *flat(scripts[mark]), "}"]
    return out


def flat(tokens: list[Token]) -> list[str]:
    return canonical(tokens).split() if tokens else []


def label_text(label: str) -> str:
    out = label.strip()
    for wrapper in (r"\text", r"\mathrm", r"\textrm", r"\mbox"):
        out = out.replace(wrapper, "")
    return " ".join(out.replace("{", " ").replace("}", " ").split())
