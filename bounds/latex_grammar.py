"""The expression grammar of the LaTeX import: numbers, declared symbols and the operations theorems use.

**Setting**: one formula's tokens (:mod:`bounds.latex_tokens`) and a declared symbol table (canonical
LaTeX -> sympy symbol; vectors -> ``IndexedBase``). :mod:`bounds.latex_parse` adds relations on top.
**Method**: recursive descent; each token gets a role when consumed (``Grammar.roles``), and a token the
grammar cannot read exactly raises a one-line :class:`~bounds.core.errors.UserInputError` naming it and
its column. Ambiguous spellings are refused rather than guessed (see :mod:`bounds.latex_parse`).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from bounds import latex_tokens as lex
from bounds.latex_symbols import MAX_DEPTH, SymbolReader
from bounds.latex_tokens import Token, is_greek, label_text

__all__ = ["MAX_BITS", "MAX_DEPTH", "Grammar"]

FUNCS = {r"\log": sp.log, r"\ln": sp.log, r"\exp": sp.exp}
#: The largest exact number a power of numbers may make (bits, about 1,000 decimal digits): 10^{10^{10^{10}}}
#: would take sympy hours to build and Python refuses to print an integer over 4,300 digits.
MAX_BITS = 3_400
EXTREMA = {r"\min": sp.Min, r"\max": sp.Max}


class Grammar(SymbolReader):
    """Expressions; a subclass reads relations (:class:`bounds.latex_parse._Parser`)."""

    # --- expressions
    def expr(self) -> tuple[Any, list[tuple[str, Any, str]]]:
        self.deeper()
        try:
            return self._expr()
        finally:
            self.nest -= 1

    def _expr(self) -> tuple[Any, list[tuple[str, Any, str]]]:
        pieces: list[tuple[str, Any, str]] = []
        total: Any = sp.Integer(0)
        first = True
        self.depth += 1
        while True:
            if not first and self.continued and self.depth == 1:
                self.line_break()
            t = self.peek()
            sign = 1
            if t is not None and t.text in ("+", "-"):
                self.take("sign" if first else "operator " + t.text)
                sign = -1 if t.text == "-" else 1
            elif not first:
                break
            start = self.i
            value = sign * self.term()
            end = self.toks[self.i - 1]
            src = self.text[self.toks[start].pos:end.pos + len(end.text)]
            pieces.append((self.labels.get(start, ""), value, ("-" if sign < 0 else "") + src))
            total = total + value
            first = False
            nxt = self.peek()
            if nxt is not None and nxt.text in lex.NOT_EXACT:
                raise self.refuse(nxt, "not an exact relation or operation; the import reads = < \\le > \\ge \\in")
        self.depth -= 1
        return total, pieces

    def line_break(self) -> None:
        """``\\\\`` or ``\\quad`` between two summands of a bound (a long bound over several lines)."""
        j = self.i
        while j < len(self.toks) and self.toks[j].text in ("\\\\", r"\quad", r"\qquad"):
            j += 1
        if j > self.i and j < len(self.toks) and self.toks[j].text in ("+", "-"):
            while self.i < j:
                self.take("line break (the bound continues)")

    def starts_factor(self, t: Token | None) -> bool:
        if t is None:
            return False
        if t.kind in ("num", "letter"):
            return True
        if t.kind == "char":
            return t.text in "([{|"
        if t.text in lex.BIG_OPEN:
            nxt = self.peek(1)
            return t.text == r"\left" or (nxt is not None and nxt.text in ("(", "[", r"\{", "|", r"\|"))
        return t.text not in (set(lex.RELOPS) | lex.NOT_EXACT | lex.SEPARATORS | lex.BIG_CLOSE | {r"\text", r"\cdot", r"\times", r"\}", r"\|"})

    def term(self) -> Any:
        value = self.power()
        while True:
            t = self.peek()
            if t is None:
                break
            if t.text in (r"\cdot", r"\times"):
                self.take("operator " + t.text)
                if self.text_is("-"):
                    self.take("sign")
                    value = value * -self.power()
                else:
                    value = value * self.power()
            elif t.text == "/":
                self.take("operator /")
                value = value / self.power()
                nxt = self.peek()
                if nxt is not None and (nxt.text == "/" or (self.starts_factor(nxt) and nxt.text != "|")):
                    raise self.refuse(nxt, f"after '/' at column {t.pos + 1} this is ambiguous (1/4L: 1/(4L) or L/4?);"
                                           " write \\frac{..}{..}")
            elif t.text == "*":
                raise self.refuse(t, "a bare * prints as an asterisk, not a product; write \\cdot, or declare x^* "
                                     "as a symbol")
            elif self.starts_factor(t):
                inner = self.peek(1)
                if t.text == "{" and inner is not None and (inner.kind == "num" or inner.text in ("+", "-")):
                    raise self.refuse(t, "a braced group after a factor prints its number or sign with no operator "
                                         "(a{2} prints a2, a{-b} prints a-b); write \\cdot or parentheses")
                if t.kind == "num":
                    raise self.refuse(t, "a number after a factor is ambiguous (is 'a 2' a*2 or a subscript?); "
                                         "write the number first or use \\cdot")
                value = value * self.power()
            else:
                break
        return value

    def power(self) -> Any:
        t0 = self.peek()
        base, tail_single = self.primary()
        if self.text_is("^"):
            hat = self.take("operator ^ (power)")
            if tail_single:
                raise self.refuse(hat, "a superscript right after a one-character \\frac argument is ambiguous; "
                                       "use braces and parentheses")
            exponent = self.script(hat)
            self.bounded_power(base, exponent, hat)
            base = sp.Pow(base, exponent)
            if self.text_is("^"):
                raise self.refuse(self.peek(), "a double superscript; use braces")
        t = self.peek()
        if t is not None and t.text == "_":
            raise self.refuse(t, f"a subscript on {t0.text if t0 else 'this'} that is not part of a declared symbol "
                                 "(e.g. [x]_+ or (a)_i); declare a symbol for it")
        if t is not None and t.text in ("!", "'"):
            raise self.refuse(t, "factorials and primes are not read; declare a symbol for it")
        return base

    def bounded_power(self, base: Any, exponent: Any, hat: Token) -> None:
        """A power of two numbers is computed exactly by sympy: refuse one whose result would exceed MAX_BITS."""
        if not (isinstance(base, sp.Rational) and isinstance(exponent, sp.Rational)) or base in (0, 1, -1):
            return
        bits = int(base.p).bit_length() + int(base.q).bit_length()
        if abs(exponent) > MAX_BITS or bits * abs(exponent) > MAX_BITS:
            raise self.refuse(hat, f"this power of numbers has about {_digits(bits * abs(exponent))} digits; the "
                                   f"import computes powers of numbers up to about {MAX_BITS * 3 // 10} digits "
                                   "(state the bound with a symbol for the large constant)")

    def script(self, hat: Token) -> Any:
        t = self.peek()
        if t is None:
            raise self.refuse(hat, "a superscript with nothing after it")
        if t.text in ("*", r"\star", r"\ast", r"\top", r"\prime", r"\intercal", "T") and t.text != "T" or (
                t.text == "T" and "T" not in self.table):
            raise self.refuse(t, "a superscript that marks an optimum, transpose or prime, not a power; declare "
                                 "the whole symbol (e.g. latex = 'x^*') in the symbol table")
        if t.text == "{":
            nxt = self.peek(1)
            if nxt is not None and nxt.text == "(":
                raise self.refuse(nxt, "a superscript in parentheses (\\eta^{(t)}) is usually a label, not a power; "
                                       "declare the whole symbol")
            self.take("brace (superscript)")
            value, _ = self.expr()
            self.expect("}", "closing brace of the superscript")
            return value
        return self.single("superscript")

    def single(self, what: str) -> Any:
        """A one-token argument (``\\frac1N``, ``x^2``, ``\\sqrt2``): a digit, a letter or a Greek symbol."""
        t = self.peek()
        if t is None:
            raise self.refuse(None, f"a {what} is missing")
        if t.kind == "num":
            return sp.Integer(self.digit(f"number ({what})").text)
        if t.kind == "letter" or is_greek(t):
            return self.lookup([self.take(f"symbol ({what})")], [t])
        raise self.refuse(t, f"a {what} must be a digit, a letter, a Greek letter or a {{braced}} formula")

    def arg(self, what: str) -> tuple[Any, bool]:
        """A braced formula or a one-token argument; the flag says it was one token."""
        if self.text_is("{"):
            self.take(f"brace ({what})")
            value, _ = self.expr()
            self.expect("}", f"closing brace ({what})")
            return value, False
        return self.single(what), True

    def primary(self) -> tuple[Any, bool]:
        """A factor without its power; the flag marks a \\frac whose last argument was one token."""
        self.deeper()
        try:
            return self._primary()
        finally:
            self.nest -= 1

    def _primary(self) -> tuple[Any, bool]:
        t = self.peek()
        if t is None:
            raise self.refuse(None, "a term is missing")
        if t.kind == "num":
            self.take("number")
            return (sp.Rational(t.text) if "." in t.text else sp.Integer(t.text)), False
        if t.text in ("(", "["):
            return self.group(t.text, None, self.after_atom()), False
        if t.text in lex.BIG_OPEN:
            nxt = self.peek(1)
            if nxt is not None and nxt.text in ("(", "["):
                after = self.after_atom()
                return self.group(nxt.text, self.take("delimiter size " + t.text), after), False
            raise self.refuse(nxt or t, "a sized delimiter other than ( or [ (norms |x| and sets are not read; "
                                        "declare a symbol for a norm)")
        if t.text == "{":
            inner = self.peek(1)
            if inner is not None and (inner.kind == "letter" or is_greek(inner)) and self.text_is("}", k=2) \
                    and self.text_is("_", k=3):
                return self.atom(), False  # {p}_{k}: how sympy.latex spells an indexed symbol
            return self.brace_group(), False
        if t.text in lex.FRACS:
            self.take("fraction " + t.text)
            num, _ = self.arg("numerator")
            den, single = self.arg("denominator")
            if single and self.text_is("_"):
                raise self.refuse(self.peek(), "a subscript after a one-character \\frac denominator attaches to the "
                                               "fraction; write \\frac{1}{\\eta_c}")
            return num / den, single
        if t.text == r"\sqrt":
            return self.sqrt(), False
        if t.text in FUNCS:
            return self.function(), False
        if t.text in EXTREMA:
            return self.extremum(), False
        if t.text in (r"\sum", r"\prod"):
            return self.big_operator(), False
        if t.text == r"\underbrace":
            return self.underbrace(), False
        if t.text in ("|", r"\|", r"\lvert", r"\lVert", r"\Vert", r"\vert"):
            raise self.refuse(t, "norms and absolute values are not read: the left side is chosen with --lhs, and "
                                 "a constant such as ||x_0 - x*||^2 is declared as a symbol")
        if t.text in (r"\infty", r"\text", r"\mathrm{}", r"\mbox"):
            raise self.refuse(t, "not a finite quantity or a maths token (\\infty, \\text)")
        if t.kind == "letter" or is_greek(t) or t.text in lex.DECORATORS:
            return self.atom(), False
        if t.text in lex.MACRO_DEFINITIONS:
            raise self.refuse(t, "macro definitions are not expanded; paste the formula with each macro written out")
        if t.kind == "cmd":
            raise self.refuse(t, "this command is not one the import reads exactly; see docs/latex-import.md "
                                 "for the subset read")
        raise self.refuse(t, "a term (number, symbol, fraction, ...) was expected here")

    def after_atom(self) -> bool:
        """Whether the last token read belongs to a symbol (so a '(' next may be a function's argument)."""
        return bool(self.roles) and "symbol" in self.roles[-1][1]  # its name, scripts or braces

    def group(self, open_text: str, sizer: Token | None, after_atom: bool = False) -> Any:
        opener = self.take("opening delimiter")
        value, _ = self.expr()
        if after_atom and (isinstance(value, (sp.Symbol, sp.Indexed))):
            raise self.refuse(opener, "a symbol followed by one symbol in parentheses reads like a function "
                                      "application f(x), not a product; declare the whole as a symbol, or write "
                                      "\\cdot for a product")
        close = lex.CLOSE_OF[open_text]
        t = self.peek()
        if t is not None and t.text in lex.BIG_CLOSE:
            if sizer is None:
                raise self.refuse(t, f"a sized closing delimiter for a plain {opener.text!r} at column {opener.pos + 1}")
            self.take("delimiter size " + t.text)
        elif sizer is not None:
            raise self.refuse(t, f"{sizer.text}{open_text} at column {sizer.pos + 1} needs a sized closing delimiter")
        self.expect(close, f"closing delimiter of {opener.where()}")
        return value

    def brace_group(self) -> Any:
        start = self.take("brace (grouping)")
        (value, pieces), _ = self.expr(), self.expect("}", f"closing brace of {start.where()}")
        if len(pieces) > 1:
            raise self.refuse(start, "braces group invisibly ({a+b}c prints as a+bc); use parentheses")
        return value

    def sqrt(self) -> Any:
        self.take("square root")
        n = 2
        if self.text_is("["):
            self.take("bracket (root index)")
            t = self.peek()
            if t is None or t.kind != "num" or "." in t.text:
                raise self.refuse(t, "a root index must be a whole number")
            n = int(self.take("root index").text)
            self.expect("]", "closing bracket of the root index")
        value, _ = self.arg("radicand")
        return sp.root(value, n) if n != 2 else sp.sqrt(value)

    def function(self) -> Any:
        t = self.take("function " + self.peek().text)  # type: ignore[union-attr]
        if self.text_is("_", "^"):
            raise self.refuse(self.peek(), f"a base or power on {t.text} is not read; write (\\log x)^2 or "
                                           "\\frac{\\log x}{\\log 2}")
        nxt = self.peek()
        if nxt is not None and (nxt.text in ("(", "[", "{") or nxt.text in lex.BIG_OPEN):
            value, _ = self.primary()
            if self.text_is("^", "_"):
                raise self.refuse(self.peek(), f"a power after {t.text}(...) is ambiguous ({t.text}(x)^2: of x or "
                                               "of the logarithm?); write (\\log x)^2 or \\log(x^2)")
        else:
            value = self.power()
            after = self.peek()
            if self.starts_factor(after):
                raise self.refuse(after, f"the argument of {t.text} at column {t.pos + 1} is ambiguous without "
                                         "parentheses (\\log KR: log(K)R or log(KR)?)")
        return FUNCS[t.text](value)

    def extremum(self) -> Any:
        t = self.take("function " + self.peek().text)  # type: ignore[union-attr]
        if self.text_is("_"):
            raise self.refuse(self.peek(), f"{t.text} over an index is not read; write the list \\{t.text[1:]}\\{{a, b\\}}")
        sizer = None
        if self.text_is(*lex.BIG_OPEN):
            sizer = self.take("delimiter size " + self.peek().text)  # type: ignore[union-attr]
        o = self.peek()
        if o is None or o.text not in lex.CLOSE_OF:
            raise self.refuse(o or t, f"{t.text} needs its arguments in \\{{...\\}} or (...)")
        self.take(f"opening delimiter of {t.text}")
        args = []
        while True:
            value, _ = self.expr()
            args.append(value)
            if not self.text_is(","):
                break
            self.take(f"comma between arguments of {t.text}")
        if sizer is not None:
            c = self.peek()
            if c is None or c.text not in lex.BIG_CLOSE:
                raise self.refuse(c, f"{sizer.text} at column {sizer.pos + 1} needs a sized closing delimiter")
            self.take("delimiter size " + c.text)
        self.expect(lex.CLOSE_OF[o.text], f"closing delimiter of {t.text} at column {t.pos + 1}")
        if len(args) < 2:
            raise self.refuse(t, f"{t.text} of one argument is that argument; a paper means a list (did a comma or an "
                                 "argument get lost?): give two or more arguments")
        return EXTREMA[t.text](*args)

    def big_operator(self) -> Any:
        op = self.take("big operator " + self.peek().text)  # type: ignore[union-attr]
        if not self.text_is("_") or not self.text_is("{", k=1):
            raise self.refuse(self.peek() or op, f"{op.text} needs limits _{{k=1}}^{{N}}")
        self.take("subscript of " + op.text)
        self.take("brace (limits)")
        k = self.peek()
        if k is None or k.kind != "letter" or not self.text_is("=", k=1):
            raise self.refuse(k, f"{op.text}'s lower limit must read _{{k=1}} (an index letter, =, a start)")
        if k.text in self.indices:
            raise self.refuse(k, f"the index {k.text} of {op.text} is already the index of an enclosing sum; use "
                                 "another letter")
        if k.text in self.table:
            raise self.refuse(k, f"the index {k.text} of {op.text} is also a declared symbol; use another letter")
        self.take(f"index of {op.text}")
        self.take(f"= of {op.text}'s lower limit")
        low, _ = self.expr()
        self.expect("}", "closing brace of the lower limit")
        if not self.text_is("^"):
            raise self.refuse(self.peek() or op, f"{op.text} needs an upper limit ^{{N}}")
        self.take("superscript (upper limit)")
        high, _ = self.arg("upper limit")
        index = sp.Symbol(k.text, integer=True)
        self.indices[k.text] = index
        try:
            body = self.term()
        finally:
            del self.indices[k.text]
        cls = sp.Sum if op.text == r"\sum" else sp.Product
        return cls(body, (index, low, high))

    def underbrace(self) -> Any:
        at = self.i
        self.take("underbrace (a term's label)")
        self.expect("{", "brace (underbrace)")
        value, _ = self.expr()
        self.expect("}", "closing brace (underbrace)")
        self.expect("_", "subscript (underbrace label)")
        first = self.peek()
        self.raw("underbrace label")
        last = self.toks[self.i - 1]
        label = self.text[first.pos:last.pos + len(last.text)] if first else ""  # type: ignore[union-attr]
        self.labels[at] = label_text(label)
        return value

def _digits(bits: Any) -> str:
    return f"{float(bits) * 0.30103:,.0f}"
