"""A formula string as a sympy expression, built by a whitelist walk of its syntax tree (nothing is evaluated).

**Setting**: a result written as data (a TOML file, :mod:`bounds.tomlresult`; a LaTeX import,
:mod:`bounds.latex_import`) gives its terms and hypotheses as formula strings, never as code.
**Method**: each formula is parsed by Python's :mod:`ast` (parsing executes nothing) and the tree is
walked against a whitelist; the sympy expression is built node by node from that walk. Nothing
is ever evaluated by ``eval``/``sympify``. Allowed: numbers, the declared symbols, ``+ - * / **``,
unary minus, parentheses, the functions in :data:`FUNCTIONS`, the constants ``pi`` and ``E``, and
(in hypotheses only) one comparison ``<= < >= >``. Anything else is refused with a
:class:`~bounds.core.errors.UserInputError` that says what is allowed.
**Limits** (checked before anything is built, each refusal one line naming the limit): at most
:data:`MAX_LENGTH` characters, nested at most :data:`MAX_DEPTH` deep, numeric exponents up to
:data:`MAX_EXPONENT`; every part a finite real number.

>>> parse_formula("D**2 / (2*eta*T)", ["D", "eta", "T"])
D**2/(2*T*eta)
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable, Mapping
from typing import Any

import sympy as sp

from bounds.core.errors import UserInputError, clip

__all__ = ["FUNCTIONS", "MAX_DEPTH", "MAX_EXPONENT", "MAX_LENGTH", "parse_formula"]

#: Functions a formula may call, by name.
FUNCTIONS: dict[str, Any] = {"sqrt": sp.sqrt, "log": sp.log, "exp": sp.exp, "Min": sp.Min, "Max": sp.Max,
                             "Abs": sp.Abs, "floor": sp.floor, "ceiling": sp.ceiling}
_CONSTANTS = {"pi": sp.pi, "E": sp.E}
#: Largest absolute numeric exponent (``9**9**9`` would otherwise take sympy forever).
MAX_EXPONENT = 64
#: Longest formula accepted, in characters.
MAX_LENGTH = 2000
#: Deepest nesting accepted (parentheses, calls, chained unary signs, operators): checked on the text
#: before parsing and on the tree before it is walked, so that no formula reaches Python's recursion limit
#: (1,500 chained minus signs did) or makes sympy work for seconds on a tower of nested calls.
MAX_DEPTH = 40
# numbers a formula may hold: what float64 can carry (a 2,000-digit literal overflowed in evaluation)
_FLOAT_MAX = 1.7976931348623157e308
_LOG10_FLOAT_MAX = math.log10(_FLOAT_MAX)


def _log10_abs(num: Any) -> float:
    """log10 of a sympy number's absolute value, from bit lengths for rationals (no huge float or string)."""
    if isinstance(num, sp.Rational):
        def lg(n: int) -> float:
            n = abs(n)
            shift = max(n.bit_length() - 64, 0)  # keep 64 significant bits: exact enough for a range check
            return math.log10(n >> shift) + shift * math.log10(2)
        return lg(int(num.p)) - lg(int(num.q))
    return math.log10(abs(float(num)))

_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: a / b}
_COMPARE = {ast.LtE: sp.Le, ast.Lt: sp.Lt, ast.GtE: sp.Ge, ast.Gt: sp.Gt}
_NODE_NAMES = {ast.Attribute: "attribute access", ast.Subscript: "a subscript", ast.Lambda: "a lambda",
               ast.ListComp: "a comprehension", ast.GeneratorExp: "a comprehension", ast.DictComp: "a comprehension",
               ast.SetComp: "a comprehension", ast.NamedExpr: "an assignment", ast.IfExp: "a conditional",
               ast.BoolOp: "and/or", ast.List: "a list", ast.Tuple: "a tuple", ast.Dict: "a dict",
               ast.Set: "a set", ast.JoinedStr: "a string", ast.Starred: "a starred argument",
               ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield", ast.Slice: "a slice"}


class _Walker:
    def __init__(self, text: str, symbols: Mapping[str, sp.Symbol], relation: bool):
        self.text, self.symbols, self.relation = text, symbols, relation

    def refuse(self, what: str) -> UserInputError:
        names = ", ".join(self.symbols) or "none declared"
        comp = ", one comparison <= < >= >" if self.relation else ""
        return UserInputError(
            f"formula {clip(self.text)}: {what} is not allowed; allowed: numbers, the declared symbols ({names}), "
            f"+ - * / **, unary -, parentheses{comp}, the functions {', '.join(sorted(FUNCTIONS))} "
            f"and the constants pi, E")

    def in_range(self, value: Any) -> Any:
        """``value`` unless it is a number beyond float64's range (checked after each operation, so that
        no intermediate grows: 10**300 * 10**300 is refused before it is raised to a power)."""
        if getattr(value, "is_Number", False) and value != 0 and abs(_log10_abs(value)) > _LOG10_FLOAT_MAX:
            raise UserInputError(f"formula {clip(self.text)} holds a number of about 10^{_log10_abs(value):.0f}, "
                                 "beyond float64's range (about 1.8e308); every part must be a finite real number")
        return value

    def walk(self, node: ast.AST, top: bool = False) -> Any:
        if isinstance(node, ast.Expression):
            return self.walk(node.body, top=True)
        if isinstance(node, ast.Compare):
            if not (self.relation and top):
                raise self.refuse("a comparison outside a hypothesis" if not self.relation else "a nested comparison")
            if len(node.ops) != 1 or type(node.ops[0]) not in _COMPARE:
                raise self.refuse("a chained comparison or ==, !=, in, is")
            return _COMPARE[type(node.ops[0])](self.walk(node.left), self.walk(node.comparators[0]))
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise self.refuse(f"the constant {clip(node.value)}")
            if not abs(node.value) <= _FLOAT_MAX:  # 1e999 reads as inf; 10**400 written out in digits
                raise self.refuse(f"the number {clip(node.value)} (beyond float64's range, about 1.8e308)")
            return sp.Integer(node.value) if isinstance(node.value, int) else sp.Rational(repr(node.value))
        if isinstance(node, ast.Name):
            if node.id in self.symbols:
                return self.symbols[node.id]
            if node.id in _CONSTANTS:
                return _CONSTANTS[node.id]
            raise self.refuse(f"the undeclared name {node.id!r}")
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                return -self.walk(node.operand)
            if isinstance(node.op, ast.UAdd):
                return self.walk(node.operand)
            raise self.refuse(f"the operator {type(node.op).__name__}")
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            # a + b - c * d ... is a left-deep chain as long as the formula: fold it in a loop, not by
            # recursion (a 2,000-character sum would otherwise reach Python's recursion limit)
            chain = []
            while isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
                chain.append(node)
                node = node.left
            acc = self.walk(node)
            for link in reversed(chain):
                acc = self.in_range(_BINOPS[type(link.op)](acc, self.walk(link.right)))
            return acc
        if isinstance(node, ast.BinOp):
            left, right = self.walk(node.left), self.walk(node.right)
            if isinstance(node.op, ast.Pow):
                if getattr(right, "is_Number", False) and abs(float(right)) > MAX_EXPONENT:
                    raise self.refuse(f"an exponent above {MAX_EXPONENT} in absolute value")
                if getattr(left, "is_Number", False) and getattr(right, "is_Number", False) and left != 0:
                    # estimated before sympy computes it: ((10**64)**64)**64 is an integer of 262,145 digits
                    # (a tower of five took minutes), and no such number fits a float64 anyway
                    magnitude = float(right) * _log10_abs(left)
                    if abs(magnitude) > _LOG10_FLOAT_MAX:
                        raise UserInputError(f"formula {clip(self.text)} holds a power of about 10^{magnitude:.0f}, "
                                             "beyond float64's range (about 1.8e308); every part must be a "
                                             "finite real number")
                return self.in_range(sp.Pow(left, right))
            if type(node.op) in _BINOPS:
                return _BINOPS[type(node.op)](left, right)
            raise self.refuse(f"the operator {type(node.op).__name__}")
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else None
            if name not in FUNCTIONS:
                what = f"a call to {name}" if name else "a call of anything but a whitelisted function name"
                raise self.refuse(what)
            if node.keywords or any(isinstance(a, ast.Starred) for a in node.args) or not node.args:
                raise self.refuse(f"a call to {name} with keywords, starred or no arguments")
            return FUNCTIONS[name](*(self.walk(a) for a in node.args))
        raise self.refuse(_NODE_NAMES.get(type(node), f"the construct {type(node).__name__}"))


def parse_formula(text: str, symbols: Iterable[str] | Mapping[str, sp.Symbol], *, relation: bool = False):
    """A sympy expression (or relation, when ``relation``) from a formula string, executing nothing.

    Args:
        text: e.g. ``"2*L*D**2/(eta*T) + sqrt(sigma2/T)"`` or, with ``relation=True``, ``"eta <= 1/(4*L)"``.
        symbols: the declared symbol names, or a mapping name -> sympy Symbol (with assumptions).
        relation: accept one comparison at the top (hypotheses).

    >>> parse_formula("eta <= 1/(4*L)", ["eta", "L"], relation=True)
    eta <= 1/(4*L)
    """
    if not isinstance(text, str) or not text.strip():
        raise UserInputError(f"formula {text!r} must be a non-empty string")
    if len(text) > MAX_LENGTH:
        raise UserInputError(f"formula of {len(text)} characters is longer than {MAX_LENGTH}")
    table = dict(symbols) if isinstance(symbols, Mapping) else {n: sp.Symbol(n, real=True) for n in symbols}
    _check_text_depth(text)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise UserInputError(f"formula {clip(text)} is not a formula ({exc.msg}); write e.g. 2*L/(eta*T)") from None
    except (ValueError, RecursionError, MemoryError) as exc:  # a NUL character; nesting the parser refuses
        raise UserInputError(f"formula {clip(text)} is not a formula ({type(exc).__name__}); "
                             "write e.g. 2*L/(eta*T)") from None
    _check_tree_depth(tree, text)
    walker = _Walker(text, table, relation)
    try:
        out = walker.walk(tree)
    except UserInputError:
        raise
    except (TypeError, ValueError, ArithmeticError) as exc:
        # sympy refuses what has no real value, e.g. a comparison with zoo (L <= 1/0) or Max(sqrt(-1), 1)
        raise UserInputError(f"formula {clip(text)} has no real value ({exc}); every part of a formula "
                             "must be a finite real number for real inputs") from None
    if relation and not isinstance(out, sp.core.relational.Relational):
        raise walker.refuse("a hypothesis without a comparison") from None
    _check_finite_real(out, text)
    return out


def _check_text_depth(text: str) -> None:
    """Refuse, before parsing, parentheses nested or unary signs chained beyond :data:`MAX_DEPTH`."""
    depth = deepest = run = longest = 0
    for ch in text:
        if ch in "([":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")]":
            depth -= 1
        if ch in "+-":
            run += 1
            longest = max(longest, run)
        elif not ch.isspace():
            run = 0
    if deepest > MAX_DEPTH:
        raise UserInputError(f"formula {clip(text)} nests parentheses {deepest} deep; at most {MAX_DEPTH} "
                             "(bounds.tomlresult.MAX_DEPTH)")
    if longest > MAX_DEPTH:
        raise UserInputError(f"formula {clip(text)} chains {longest} signs (+ or -) in a row; at most {MAX_DEPTH} "
                             "(bounds.tomlresult.MAX_DEPTH)")


def _check_tree_depth(tree: ast.AST, text: str) -> None:
    """Refuse a parsed formula nested deeper than 2 x :data:`MAX_DEPTH` (e.g. ``a**a**a...``), without recursion.

    Levels are expression nodes; a chain of + - * / continues its level (sympy flattens sums and
    products, and the walker folds them in a loop), so a long sum is not deep.
    """
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > 2 * MAX_DEPTH:
            raise UserInputError(f"formula {clip(text)} is nested more than {2 * MAX_DEPTH} levels deep "
                                 f"(2 x bounds.tomlresult.MAX_DEPTH); split it into terms")
        chain_left = node.left if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS else None
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.expr):
                continue
            same = child is chain_left and isinstance(child, ast.BinOp) and type(child.op) in _BINOPS
            stack.append((child, depth if same else depth + 1))


def _check_finite_real(expr: Any, text: str) -> None:
    """Refuse an expression that is not a finite real for real inputs: zoo (1/0, log(0)), oo, nan, complex
    (sqrt(-1), (-1)**0.5), or a number float64 cannot hold (10**60 * 10**60 * ...)."""
    bad = {sp.zoo: "zoo, a division by zero or log(0)", sp.nan: "nan, an undefined value",
           sp.oo: "infinity", sp.I: "an imaginary number (e.g. sqrt(-1) or (-1)**0.5)"}
    for atom, why in bad.items():
        if expr.has(atom) or (atom is sp.oo and expr.has(-sp.oo)):
            raise UserInputError(f"formula {clip(text)} holds {why}; every part must be a finite real number")
    for num in expr.atoms(sp.Number):
        parts = (int(num.p), int(num.q)) if isinstance(num, sp.Rational) else (float(num),)
        if any(not abs(x) <= _FLOAT_MAX for x in parts):
            raise UserInputError(f"formula {clip(text)} holds a number beyond float64's range (about 1.8e308) "
                                 f"after simplification: about 10^{_log10_abs(num):.0f}")
