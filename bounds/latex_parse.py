"""An exact reader for the LaTeX of convergence theorems: every token read, or the formula refused.

**Setting**: hypotheses and bounds pasted from a paper (``\\eta_c\\le\\min\\{\\frac{1}{8LK}, ...\\}``), with a
declared table of symbols (canonical LaTeX spelling -> sympy symbol; see :func:`symbol_key`).
**Method**: a recursive-descent grammar for the subset theorems use: numbers, declared symbols (with
subscripts, decorations such as ``\\mathbf x`` or ``\\bar w``), ``+ - \\cdot \\times /`` and juxtaposition,
powers, ``\\frac`` (also ``\\frac1N``), ``\\sqrt``, ``\\log \\ln \\exp``, ``e^{...}``, ``\\min/\\max`` of a
list, ``\\sum``/``\\prod`` with limits, ``\\underbrace``, sized delimiters, and the relations ``< \\le \\leq >
\\ge \\geq = \\in [a,b]``. Each token gets a role as it is consumed; a token the grammar cannot read
exactly is refused with its column (:class:`~bounds.core.errors.UserInputError`), never skipped.
Readings a person could take two ways are refused too: ``1/4L``, ``a/b/c``, ``{a+b}`` (braces print no
parentheses), ``\\frac1\\eta_c``, a number after a factor, ``x^*`` of an undeclared ``x^*``, ``\\eta^{(t)}``.
**Why not sympy's parser**: measured in ``tests/benchmarks/bench_latex_parsers.py`` (docs/latex-import.md):
it drops tokens silently (``v=q-\\frac1N`` -> ``Eq(v, q)``, ``x^*`` -> ``x``, ``\\min\\{a,b\\}`` -> ``min``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from bounds.core.errors import UserInputError
from bounds.latex_grammar import MAX_BITS, Grammar
from bounds.latex_tokens import (
    BIG_OPEN,
    DECORATORS,
    MACRO_DEFINITIONS,
    NOT_EXACT,
    RELOPS,
    SEPARATORS,
    Token,
    flat,
    is_greek,
    script_key,
    tokenize,
)

__all__ = ["Reading", "parse_bound", "parse_expression", "parse_relations", "symbol_key"]

_REL = {"<": sp.Lt, "<=": sp.Le, ">": sp.Gt, ">=": sp.Ge, "=": sp.Eq}


@dataclass
class Reading:
    """What a formula was read as: the sympy value, its top-level pieces in source order, and each token's role.

    ``pieces``: ``(label, expr, latex)`` per top-level summand of an expression (label from
    ``\\underbrace{..}_{\\text{label}}``, else empty); ``roles``: ``(token, role)`` for every token.
    """

    value: Any
    pieces: list[tuple[str, Any, str]] = field(default_factory=list)
    roles: list[tuple[Token, str]] = field(default_factory=list)
    lhs_latex: str = ""
    relation: str = ""


class _Parser(Grammar):
    """Relations over :class:`Grammar` expressions."""

    def relop(self) -> str | None:
        t = self.peek()
        if t is None:
            return None
        if t.text in NOT_EXACT or (t.text == ":" and self.text_is("=", k=1)):
            raise self.refuse(t, "not an exact relation the import checks; use < \\le > \\ge = or \\in [a, b]")
        if t.text not in RELOPS:
            return None
        op = RELOPS[self.take("relation " + t.text).text]
        nxt = self.peek()
        if op in ("<", ">") and nxt is not None and nxt.text == "=" and nxt.pos == t.pos + 1:
            self.take("relation " + op + "=")
            op += "="
        return op

    def chain(self) -> list[Any]:
        first = self.peek()
        left, _ = self.expr()
        out = []
        while True:
            op = self.relop()
            if op is None:
                break
            if op == "in":
                out.extend(self.interval(left))
                continue
            right, _ = self.expr()
            out.append(_REL[op](left, right, evaluate=False))
            left = right
        if not out:
            raise self.refuse(first, "no relation here; a hypothesis compares two sides (< \\le > \\ge = \\in)")
        return out

    def interval(self, x: Any) -> list[Any]:
        sizer = self.take("delimiter size") if self.text_is(*BIG_OPEN) else None
        o = self.peek()
        if o is None or o.text not in ("[", "("):
            raise self.refuse(o, "\\in needs an interval [a, b], (a, b], [a, b) or (a, b)")
        self.take("opening of an interval")
        low, _ = self.expr()
        self.expect(",", "comma of an interval")
        high, _ = self.expr()
        if sizer is not None:
            self.take("delimiter size")
        c = self.peek()
        if c is None or c.text not in ("]", ")"):
            raise self.refuse(c, "an interval closes with ] or )")
        self.take("closing of an interval")
        lo_rel = sp.Ge if o.text == "[" else sp.Gt
        hi_rel = sp.Le if c.text == "]" else sp.Lt
        return [lo_rel(x, low, evaluate=False), hi_rel(x, high, evaluate=False)]

    def equation_number(self) -> None:
        """An equation number at the very end (``. \\quad (6)``, ``\\tag{6}``) is a label: read as one."""
        rest = [t.text for t in self.toks[self.i:]]
        n = _tag_length(rest)
        if n and n == len(rest):
            while self.peek() is not None:
                self.take("equation number")

    def finish(self, allow_period: bool = True) -> None:
        self.equation_number()
        t = self.peek()
        if t is not None and t.text in (".", ",") and allow_period and self.i == len(self.toks) - 1:
            self.take("punctuation")
            t = None
        if t is not None:
            raise self.refuse(t, "unexpected here (the formula should have ended or continued differently)")


def _tag_length(texts: list[str]) -> int:
    """How many tokens at the end of ``texts`` form an equation number: [.|,] [\\quad] (6) [.] or \\tag{6}."""
    for n in range(min(len(texts), 7), 2, -1):
        tail = texts[-n:]
        core = [w for w in tail if w not in (".", ",", r"\quad", r"\qquad")]
        if core and len(core) == 3 and core[0] == "(" and core[2] == ")" and core[1].isdigit() and tail[0] in (
                ".", ",", r"\quad", r"\qquad", "("):
            return n
        if len(core) == 4 and core[0] == r"\tag" and core[1] == "{" and core[3] == "}" and core[2].isdigit():
            return n
    return 0


def symbol_key(latex: str) -> str:
    """The canonical spelling of a declared symbol's LaTeX (``\\eta_c`` and ``\\eta_{c}`` give one key).

    >>> symbol_key(r"\\eta_c") == symbol_key(r"\\eta_{c}")
    True
    """
    p = _Parser(latex, {}, {})
    if p.peek() is None:
        raise UserInputError(f"symbol LaTeX {latex!r} is empty")
    t = p.peek()
    if not (t.kind == "letter" or is_greek(t) or t.text in DECORATORS or t.text == "{"):  # type: ignore[union-attr]
        raise UserInputError(f"symbol LaTeX {latex!r} must start with a letter, a Greek letter or a decoration "
                             "such as \\mathbf")
    if t.text == "{":  # type: ignore[union-attr]
        p.take("brace")
    key = p.atom_base()
    if t.text == "{":  # type: ignore[union-attr]
        p.expect("}", "closing brace")
    scripts: dict[str, list[Token]] = {}
    while p.text_is("_", "^") and p.peek().text not in scripts:  # type: ignore[union-attr]
        mark = p.take("script").text
        scripts[mark] = p.raw("script")
    key = script_key(key, scripts)
    if p.peek() is not None:
        raise UserInputError(f"symbol LaTeX {latex!r}: {p.peek().where()} is left over; a symbol is one letter "  # type: ignore[union-attr]
                             "or command with at most a subscript and a superscript")
    return " ".join(key)


def _run(text: str, table: Mapping[str, Any], vectors: Mapping[str, Any], how: str) -> Reading:
    if not isinstance(text, str) or not text.strip():
        raise UserInputError("the LaTeX formula is empty; paste a hypothesis or a bound")
    p = _Parser(text, table, vectors)
    p.continued = how != "relations"  # a bound may run over lines; between relations a line break separates
    if not p.toks:
        raise UserInputError("the LaTeX formula holds only comments or spacing; paste a hypothesis or a bound")
    if how == "expr":
        value, pieces = p.expr()
        p.finish()
        reading = Reading(value, pieces)
    elif how == "relations":
        rels: list[Any] = []
        while p.peek() is not None:
            if p.text_is(*SEPARATORS):
                p.take("separator between relations")
                continue
            if p.text_is(r"\text") and p.text_is("{", k=1):
                p.take("separator between relations")
                words = p.raw("separator text")
                if flat(words) != ["a", "n", "d"]:
                    raise p.refuse(words[0] if words else None, "only \\text{and} separates relations")
                continue
            if p.text_is(".") and p.i == len(p.toks) - 1:
                p.take("punctuation")
                break
            rels.extend(p.chain())
        if not rels:
            raise UserInputError("no relation in the formula; a hypothesis compares two sides")
        reading = Reading(rels)
    else:
        reading = _bound(p, text)
    _account(p)
    for value in reading.value if isinstance(reading.value, list) else [reading.value]:
        _finite(value)
    reading.roles = sorted(p.roles, key=lambda r: r[0].pos)
    return reading


def _balanced(p: _Parser, toks: list[Token]) -> None:
    """The left side is kept as written, not parsed; it must still open and close what it opens, so that a dropped
    brace or parenthesis there is refused rather than carried into the result."""
    stack: list[Token] = []
    for t in toks:
        if t.text in MACRO_DEFINITIONS:
            raise p.refuse(t, "macro definitions are not expanded; paste the formula with each macro written out")
        if t.text in _CLOSER:
            stack.append(t)
        elif t.text in _OPENER:
            if not stack or _CLOSER[stack[-1].text] != t.text:
                raise p.refuse(t, "the left side closes what it did not open (a dropped or extra delimiter)")
            stack.pop()
    if stack:
        raise p.refuse(stack[-1], "the left side does not close this delimiter")


_CLOSER = {"{": "}", "(": ")", "[": "]", r"\{": r"\}"}
_OPENER = {v: k for k, v in _CLOSER.items()}


def _finite(value: Any) -> None:
    """A reading is a finite real formula with numbers of bounded size: ``\\frac{1}{0}`` is not a bound, and
    sympy's ``zoo`` or ``I`` would otherwise pass as a value."""
    for bad, why in ((sp.zoo, "a division by zero"), (sp.nan, "an undefined value (0/0)"),
                     (sp.oo, "an infinite value"), (sp.I, "an imaginary number (a root of a negative number)")):
        if value.has(bad):
            raise UserInputError(f"the formula reads as {why}; the import reads finite real formulas")
    for number in value.atoms(sp.Rational):
        if int(number.p).bit_length() + int(number.q).bit_length() > MAX_BITS:
            raise UserInputError("the formula makes a number of more than about 1,000 digits; state the bound with "
                                 "a symbol for the large constant")


def _bound(p: _Parser, text: str) -> Reading:
    depth, split = 0, None
    for j, t in enumerate(p.toks):
        if t.text in ("{", "(", "[", r"\{", r"\left"):
            depth += 1
        elif t.text in ("}", ")", "]", r"\}", r"\right"):
            depth -= 1
        elif depth == 0 and (t.text in RELOPS or t.text in NOT_EXACT):
            split = j
            break
    relation, lhs = "", ""
    if split is not None:
        for t in p.toks[:split]:
            p.roles.append((t, "left side (kept as written, not parsed; the measure is chosen with --lhs)"))
        last = p.toks[split - 1] if split else None
        lhs = text[p.toks[0].pos:last.pos + len(last.text)].strip() if last else ""
        if not lhs:
            raise p.refuse(p.toks[split], "a relation with no left side")
        _balanced(p, p.toks[:split])
        p.i = split
        relation = p.relop() or ""
        if relation == "in":
            raise p.refuse(p.toks[split], "a bound states <=, >= or =, not \\in")
    value, pieces = p.expr()
    if p.relop() is not None:
        raise p.refuse(p.toks[p.i - 1], "a second relation in the bound; put conditions in the hypotheses")
    p.finish()
    return Reading(value, pieces, lhs_latex=lhs, relation=relation)


def _account(p: _Parser) -> None:
    """Every character of every token has a role; a token without is refused by name (a guard: the grammar
    should never leave one, and this check does not trust it)."""
    covered = {c for t, _ in p.roles for c in range(t.pos, t.pos + len(t.text))}
    for t in tokenize(p.text):
        if any(c not in covered for c in range(t.pos, t.pos + len(t.text))):
            raise UserInputError(f"cannot read {t.where()}: the import did not account for it")


def parse_expression(text: str, table: Mapping[str, Any], vectors: Mapping[str, Any] | None = None) -> Reading:
    """An expression (a bound's right side): ``Reading.value`` is its sympy value."""
    return _run(text, table, vectors or {}, "expr")


def parse_relations(text: str, table: Mapping[str, Any], vectors: Mapping[str, Any] | None = None) -> Reading:
    """Hypotheses: one or more relations (chains ``0<a\\le b`` and ``q\\in[0,1]`` give two each), separated by
    ``,`` ``;`` ``\\quad`` ``\\qquad`` ``\\\\`` or ``\\text{and}``; ``Reading.value`` is the list of relations."""
    return _run(text, table, vectors or {}, "relations")


def parse_bound(text: str, table: Mapping[str, Any], vectors: Mapping[str, Any] | None = None) -> Reading:
    """A bound ``LHS \\le RHS`` (LHS kept as text, not parsed) or a bare right side."""
    return _run(text, table, vectors or {}, "bound")
