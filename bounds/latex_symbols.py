"""The token stream and the symbols of the LaTeX import: position, roles, nesting, and declared names.

**Setting**: one formula's tokens (:mod:`bounds.latex_tokens`) and a declared symbol table (canonical LaTeX
-> sympy symbol; vectors -> ``IndexedBase``). :class:`SymbolReader` moves through the tokens, gives each a role
as it is consumed, bounds the nesting of recursive rules, and reads a symbol as its longest declared spelling;
:class:`bounds.latex_grammar.Grammar` builds expressions on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

from bounds import latex_tokens as lex
from bounds.core.errors import UserInputError
from bounds.latex_tokens import Token, flat, script_key, tokenize

__all__ = ["MAX_DEPTH", "SymbolReader"]

#: Nesting of the grammar's recursive rules (a parenthesis, a fraction's argument or a braced power enters two:
#: an expression and a factor), so a formula 10,000 levels deep is refused in one line rather than exhausting
#: Python's stack (about 5 frames a level); 50 parentheses deep is more than any statement of the papers.
MAX_DEPTH = 100


class SymbolReader:
    """A formula's token stream with roles, nesting bounds and declared symbols."""

    def __init__(self, text: str, table: Mapping[str, Any], vectors: Mapping[str, Any]):
        self.text, self.table, self.vectors = text, table, vectors
        all_toks = tokenize(text)
        self.roles: list[tuple[Token, str]] = []
        self.toks: list[Token] = []
        for t in all_toks:
            if t.kind == "comment":
                self.roles.append((t, "comment"))
            elif t.text in lex.LAYOUT:
                self.roles.append((t, "layout (spacing or alignment)"))
            else:
                self.toks.append(t)
        self.i = 0
        self.indices: dict[str, Any] = {}   # summation indices in scope
        self.labels: dict[int, str] = {}    # token index of an \underbrace -> its label
        self.depth = 0                      # nesting of expressions: line breaks continue only the top one
        self.nest = 0                       # nesting of every recursive rule (MAX_DEPTH)
        self.continued = False              # a bound may break lines (\\ or \quad before + or -)

    # --- token stream
    def peek(self, k: int = 0) -> Token | None:
        return self.toks[self.i + k] if self.i + k < len(self.toks) else None

    def text_is(self, *texts: str, k: int = 0) -> bool:
        t = self.peek(k)
        return t is not None and t.text in texts

    def take(self, role: str) -> Token:
        t = self.peek()
        if t is None:
            raise UserInputError(f"the formula ends where {role} was expected")
        self.roles.append((t, role))
        self.i += 1
        return t

    def expect(self, text: str, role: str) -> Token:
        t = self.peek()
        if t is None or t.text != text:
            got = t.where() if t else "the end of the formula"
            raise UserInputError(f"expected {text!r} ({role}) but found {got}")
        return self.take(role)

    def refuse(self, t: Token | None, why: str) -> UserInputError:
        if t is None:
            return UserInputError(f"the formula ends too early: {why}")
        return UserInputError(f"cannot read {t.where()}: {why}")

    def digit(self, role: str) -> Token:
        """One digit (LaTeX reads ``\\frac12`` and ``x^23`` one character at a time)."""
        t = self.peek()
        assert t is not None and t.kind == "num"
        if "." in t.text and len(t.text) > 1:
            raise self.refuse(t, "a decimal number as a one-character argument; put it in braces")
        if len(t.text) == 1:
            return self.take(role)
        self.roles.append((Token("num", t.text[0], t.pos), role))
        self.toks[self.i] = Token("num", t.text[1:], t.pos + 1)
        return Token("num", t.text[0], t.pos)

    def deeper(self) -> None:
        """Enter one level of a recursive rule (the caller leaves with ``self.nest -= 1``)."""
        self.nest += 1
        if self.nest > MAX_DEPTH:
            t = self.peek()
            raise UserInputError(f"the formula nests more than {MAX_DEPTH // 2} parentheses, fractions or powers inside "
                                 f"each other{' (at ' + t.where() + ')' if t else ''}; the import reads no deeper")

    # --- symbols
    def raw(self, role: str) -> list[Token]:
        """A braced token run (balanced) or one token, unread: subscripts and labels."""
        self.deeper()
        try:
            return self._raw(role)
        finally:
            self.nest -= 1

    def _raw(self, role: str) -> list[Token]:
        t = self.peek()
        if t is None:
            raise self.refuse(None, f"a {role} is missing")
        if t.text != "{":
            if t.kind == "num":
                return [self.digit(role)]
            tok = self.take(role)
            if tok.text in lex.DECORATORS:
                return [tok, Token("char", "{", tok.pos), *self.raw(role), Token("char", "}", tok.pos)]
            if tok.kind == "char" and tok.text != "*":  # x^*: a star is a name's superscript
                raise self.refuse(tok, f"a {role} must be a letter, digit, command or braced group")
            return [tok]
        depth, out = 0, list[Token]()
        while True:
            nxt = self.peek()
            if nxt is None:
                raise self.refuse(t, f"an unclosed brace in a {role}")
            self.take(role)
            depth += {"{": 1, "}": -1}.get(nxt.text, 0)
            if depth == 0:
                return out
            if not (depth == 1 and nxt.text == "{" and not out):  # the opening brace itself
                out.append(nxt)

    def atom_base(self) -> list[str]:
        t = self.take("symbol")
        if t.text == "{":
            self.deeper()
            try:
                inner = self.atom_base()
            finally:
                self.nest -= 1
            self.expect("}", "closing brace of a symbol")
            return inner
        if t.text in lex.DECORATORS:
            return [t.text, "{", *flat(self.raw("symbol")), "}"]
        return [t.text]

    def atom(self) -> Any:
        """A symbol: its base, then scripts as written (one _ and one ^, either order); the name is the longest
        declared spelling. A subscript is never dropped: undeclared, it is refused; a superscript that is not
        part of a declared name is left for :meth:`power` (``\\sigma_G^2``)."""
        start = self.i
        base = self.atom_base()
        states: list[tuple[int, int, list[Token], dict[str, list[Token]]]] = [
            (self.i, len(self.roles), list(self.toks), {})]
        scripts: dict[str, list[Token]] = {}
        while self.text_is("_", "^") and self.peek().text not in scripts:  # type: ignore[union-attr]
            mark = self.peek().text  # type: ignore[union-attr]
            try:
                self.take(("subscript" if mark == "_" else "superscript") + " of a symbol")
                scripts[mark] = self.raw("script of a symbol")
            except UserInputError:
                break  # a script the name cannot hold: power() reads it or refuses it
            states.append((self.i, len(self.roles), list(self.toks), dict(scripts)))
        for i, nroles, toks, sc in reversed(states):
            key = " ".join(script_key(base, sc))
            if key in self.table:
                self.i, self.roles, self.toks = i, self.roles[:nroles], toks
                return self.table[key]
        self.i, nroles, self.toks, _ = states[0]
        self.roles = self.roles[:nroles]
        sub: list[Token] = []
        if self.text_is("_"):
            self.take("subscript of a symbol")
            sub = self.raw("subscript of a symbol")
        return self.lookup(self.toks[start:self.i], script_key(base, {"_": sub} if sub else {}), sub=sub)

    def lookup(self, toks: list[Token], key: list[str] | list[Token], sub: list[Token] | None = None) -> Any:
        words = [k.text if isinstance(k, Token) else k for k in key]
        name = " ".join(words)
        if name in self.table:
            return self.table[name]
        if name in self.indices:  # a summation index used as a number (\sum_{k=1}^N k p_k)
            return self.indices[name]
        if sub and len(sub) == 1 and sub[0].text in self.indices and " ".join(words[:-4]) in self.vectors:
            return self.vectors[" ".join(words[:-4])][self.indices[sub[0].text]]
        first = toks[0]
        if name == "e" and self.text_is("^"):
            return sp.E
        if name == r"\pi":
            return sp.pi
        if name in lex.ORDER or (words and words[0] in lex.ORDER):
            raise self.refuse(first, "order notation (O, Theta, Omega) hides constants; give the explicit bound")
        if self.text_is("^") and self.text_is("*", r"\star", r"\ast", k=1):
            raise self.refuse(self.peek(1), f"{name}^* marks an optimum, not a power; declare it as a symbol "
                                            f"(latex = '{name}^*')")
        hint = ", ".join(k.replace(" ", "") for k in sorted(self.table)[:12]) or "none"
        name = name.replace(" ", "")
        raise self.refuse(first, f"{name} is not a declared symbol (declared: {hint}); add it to [symbols]")
