"""Results without Python: a TOML file of symbols, hypotheses and terms as formula strings.

**Setting**: a user who wants to check a bound of their own writes it as data, never as code.
**Method**: each formula is parsed by Python's :mod:`ast` (parsing executes nothing) and the tree is
walked against a whitelist; the sympy expression is built node by node from that walk. Nothing
is ever evaluated by ``eval``/``sympify``. Allowed: numbers, the declared symbols, ``+ - * / **``,
unary minus, parentheses, the functions in :data:`FUNCTIONS`, the constants ``pi`` and ``E``, and
(in hypotheses only) one comparison ``<= < >= >``. Anything else (a call outside the whitelist such as
``__import__`` or ``eval``, attribute access, subscripts, lambdas, strings, undeclared names) is
refused with a :class:`~bounds.core.errors.UserInputError` that says what is allowed.
**Limits** (checked before anything is built, each refusal one line naming the limit): a formula of at
most :data:`MAX_LENGTH` characters, nested at most :data:`MAX_DEPTH` deep (parentheses, calls, chained
signs; a long sum or product is not deep), numeric exponents up to :data:`MAX_EXPONENT`; every part a
finite real number (``1/0``, ``log(0)``, ``sqrt(-1)``, ``1e999`` or a number beyond float64 are refused
with the term's name); every key of the layout below of its documented type, unknown keys refused (a
typo is not ignored); ``example`` values finite and inside their symbols' domains; a file of at most
:data:`MAX_FILE_BYTES`, read only if it is a regular file. The aim: a result that loads never raises
later in ``check``, ``show`` or ``solve``; ``tests/cli/test_fuzz_newer.py`` searches for one that does
(mutated files, generated formulas, extreme values): a search that finds none, not a proof.

File layout (``convbound check --file mybound.toml L=1 ...``)::

    id = "MY.T1"
    title = "SGD on an L-smooth convex function"
    paper = "A. Author 2024"
    kind = "upper"                      # upper | lower | equality | order | threshold
    lhs = "f(x_T) - f*"
    status = ["PUBLISHED"]              # bounds.Status values
    [provenance]
    seed = "arXiv:0000.00000"
    locator = "Theorem 1"
    equation = "(3)"
    [symbols]
    L = { meaning = "smoothness", domain = "positive" }
    T = { meaning = "iterations", domain = "positive_integer" }
    eta = { meaning = "step size", domain = "positive", prefer = "max" }
    D = { meaning = "||x_0 - x*||", domain = "positive" }
    [[terms]]
    name = "optimisation"
    expr = "D**2 / (2*eta*T)"
    [[hypotheses]]
    name = "step size"
    relation = "eta <= 1/L"
    [example]
    L = 1
    T = 100
    eta = 0.5
    D = 1

>>> from bounds.tomlresult import parse_formula
>>> parse_formula("D**2 / (2*eta*T)", ["D", "eta", "T"])
D**2/(2*T*eta)
>>> parse_formula("__import__('os')", ["D"])
Traceback (most recent call last):
...
bounds.core.errors.UserInputError: formula "__import__('os')": a call to __import__ is not allowed; allowed: numbers, the declared symbols (D), + - * / **, unary -, parentheses, the functions Abs, Max, Min, ceiling, exp, floor, log, sqrt and the constants pi, E
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable, Mapping
from typing import Any

import sympy as sp

from bounds.core.errors import UserInputError, clip
from bounds.result import Hypothesis, Kind, Provenance, Result, Status, Term
from bounds.symbols import Domain, SymbolInfo, sym

__all__ = ["FUNCTIONS", "MAX_DEPTH", "MAX_EXPONENT", "MAX_FILE_BYTES", "MAX_LENGTH", "load_result", "parse_formula", "result_from_toml"]

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
#: Largest result file read (bytes): a result is a few kilobytes.
MAX_FILE_BYTES = 2**20
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


def _domain(name: str, text: str) -> Domain:
    try:
        return Domain[str(text).strip().upper()]
    except KeyError:
        valid = ", ".join(d.name.lower() for d in Domain)
        raise UserInputError(f"symbol {name}: domain {text!r} is unknown; valid: {valid}") from None


def _need(doc: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in doc:
        raise UserInputError(f"{where}: missing {key!r}")
    return _typed(doc, key, kind, where)


def _text(doc: Mapping[str, Any], key: str, where: str) -> str:
    """A required string that says something (an empty provenance is no provenance)."""
    value = _need(doc, key, str, where)
    if not value.strip():
        raise UserInputError(f"{where}: {key!r} is empty; say where the result comes from")
    return value


def _typed(doc: Mapping[str, Any], key: str, kind: type, where: str, default: Any = None) -> Any:
    """``doc[key]`` when it is a ``kind`` (``default`` when absent); else one line naming the key and its type."""
    if key not in doc:
        return default
    value = doc[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = {str: "a string", bool: "true or false", dict: "a table", list: "a list", int: "an integer"}
        raise UserInputError(f"{where}: {key!r} must be {names.get(kind, kind.__name__)}, not "
                             f"{_type_name(value)} {clip(value)}")
    return value


def _type_name(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", dict: "a table",
            list: "a list"}.get(type(value), f"a {type(value).__name__}")


def _only(doc: Mapping[str, Any], keys: Iterable[str], where: str) -> None:
    """Refuse keys outside the documented layout (a typo such as ``domian`` was silently ignored)."""
    from bounds.core.errors import unknown

    keys = list(keys)
    for key in doc:
        if key not in keys:
            err = unknown("key", str(key), keys)
            raise UserInputError(f"{where}: {err}")


def _strings(doc: Mapping[str, Any], key: str, where: str, default: Iterable[str]) -> tuple[str, ...]:
    """A string or a list of strings (``status = "FLAG"`` or ``status = ["FLAG", "INFERRED"]``)."""
    value = doc.get(key, list(default))
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UserInputError(f"{where}: {key!r} must be a string or a list of strings, not {_type_name(value)} "
                             f"{clip(value)}")
    return tuple(value)


def _finite_number(value: Any, what: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not abs(value) <= _FLOAT_MAX:
        raise UserInputError(f"{what} must be a finite number, not {_type_name(value)} {clip(value)}")
    return value


def _exponent(value: Any, what: str) -> sp.Rational:
    """A rate exponent: a number or a fraction written as text ("-1/2")."""
    from fractions import Fraction

    if isinstance(value, str) and len(value) <= 40:
        try:
            frac = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            pass
        else:
            return sp.Rational(frac.numerator, frac.denominator)
    elif not isinstance(value, str):
        return sp.Rational(repr(_finite_number(value, what)))
    raise UserInputError(f"{what} must be a number or a fraction such as \"-1/2\", not {clip(value)}")


_TOP = ("id", "title", "paper", "kind", "lhs", "lhs_latex", "status", "flags", "reconstructed", "rate", "notes",
        "example", "variant", "provenance", "symbols", "terms", "hypotheses")
_SYMBOL_KEYS = ("meaning", "domain", "prefer", "unrecovered")
#: what ``solve`` may do by default for a symbol (``target`` needs --target, so it is no default)
_PREFER = ("min", "max", "argmin")


def result_from_toml(text: str, source: str = "<toml>") -> Result:
    """A :class:`~bounds.result.Result` from TOML text (see the module docstring for the layout).

    Every key is checked for its type and every formula for depth, length and a finite real value
    before the result is built: a file that loads never raises later in ``check``, ``show`` or ``solve``.

    >>> res = result_from_toml('''
    ... id = "DEMO"
    ... title = "demo"
    ... kind = "upper"
    ... lhs = "gap"
    ... [provenance]
    ... seed = "none"
    ... locator = "Theorem 0"
    ... [symbols]
    ... T = { meaning = "iterations", domain = "positive_integer" }
    ... [[terms]]
    ... name = "rate"
    ... expr = "1/T"
    ... ''')
    >>> float(res.evaluate({"T": 4}).value)
    0.25
    """
    from bounds.core.files import parse_toml

    doc = parse_toml(text, source)
    where = source
    _only(doc, _TOP, where)
    rid = _need(doc, "id", str, where)
    if not rid.strip() or len(rid) > 200 or any(c.isspace() or c == "@" for c in rid):
        raise UserInputError(f"{where}: id {clip(rid)} must be 1 to 200 characters without spaces or '@'")
    variant = _typed(doc, "variant", str, where, "published")
    if not variant.strip() or len(variant) > 200 or any(c.isspace() or c == "@" for c in variant):
        raise UserInputError(f"{where}: variant {clip(variant)} must be 1 to 200 characters without spaces or '@'")
    syms = _need(doc, "symbols", dict, where)
    if not syms:
        raise UserInputError(f"{where}: [symbols] is empty; declare every symbol the terms use")
    infos: list[SymbolInfo] = []
    for name, spec in syms.items():
        if not name.isidentifier() or name in FUNCTIONS or name in _CONSTANTS or name.startswith("_"):
            raise UserInputError(f"{where}: symbol name {clip(name)} must be an identifier that is not a "
                                 "function or constant")
        at = f"{where} [symbols] {name}"
        if isinstance(spec, str):
            spec = {"meaning": spec}
        if not isinstance(spec, dict):
            raise UserInputError(f"{at}: must be a table such as {{ meaning = \"...\", domain = \"positive\" }}, "
                                 f"not {_type_name(spec)} {clip(spec)}")
        _only(spec, _SYMBOL_KEYS, at)
        dom = _domain(name, _typed(spec, "domain", str, at, "positive"))
        if dom.is_vector:
            raise UserInputError(f"{where}: symbol {name}: vector domains need a Python plugin (aggregates)")
        prefer = _typed(spec, "prefer", str, at, "min")
        if prefer not in _PREFER:
            raise UserInputError(f"{at}: prefer {clip(prefer)} is unknown; valid: {', '.join(_PREFER)}")
        infos.append(SymbolInfo(name, _typed(spec, "meaning", str, at, ""), dom,
                                unrecovered=_typed(spec, "unrecovered", bool, at, False), prefer=prefer))
    table = {s.name: sym(s.name, s.domain) for s in infos}
    terms = []
    term_list = _need(doc, "terms", list, where)
    if not term_list:
        raise UserInputError(f"{where}: terms is empty; give at least one [[terms]] with name and expr")
    for i, t in enumerate(term_list):
        at = f"{where} terms[{i}]"
        if not isinstance(t, dict):
            raise UserInputError(f"{at} must be a table with name and expr")
        _only(t, ("name", "expr", "meaning"), at)
        name = _typed(t, "name", str, at, f"term{i + 1}")
        formula = _need(t, "expr", str, at)
        try:
            expr = parse_formula(formula, table)
        except UserInputError as exc:
            raise UserInputError(f"{where} term {name!r}: {exc}") from None
        terms.append(Term(name, expr, _typed(t, "meaning", str, at, "")))
    hyps = []
    for i, h in enumerate(_typed(doc, "hypotheses", list, where, [])):
        at = f"{where} hypotheses[{i}]"
        if not isinstance(h, dict):
            raise UserInputError(f"{at} must be a table with name and relation")
        _only(h, ("name", "relation", "meaning"), at)
        name = _typed(h, "name", str, at, f"hypothesis {i + 1}")
        formula = _need(h, "relation", str, at)
        try:
            rel = parse_formula(formula, table, relation=True)
        except UserInputError as exc:
            raise UserInputError(f"{where} hypothesis {name!r}: {exc}") from None
        hyps.append(Hypothesis(name, rel, _typed(h, "meaning", str, at, "")))
    prov = _need(doc, "provenance", dict, where)
    at = f"{where} [provenance]"
    _only(prov, ("seed", "locator", "equation", "spec"), at)
    kind_text = _need(doc, "kind", str, where).lower()
    try:
        kind = Kind(kind_text)
    except ValueError:
        raise UserInputError(f"{where}: kind {clip(kind_text)} is unknown; valid: "
                             f"{', '.join(k.value for k in Kind)}") from None
    try:
        status = tuple(Status(s) for s in _strings(doc, "status", where, ["PUBLISHED"]))
    except ValueError:
        raise UserInputError(f"{where}: status must be among {', '.join(s.value for s in Status)}") from None
    example = _typed(doc, "example", dict, where, {})
    for k, v in example.items():
        if k not in table:
            raise UserInputError(f"{where}: example {clip(k)} is not a declared symbol; declared: {', '.join(table)}")
        _finite_number(v, f"{where}: example {k}")
        try:
            next(s for s in infos if s.name == k).validate(v)
        except UserInputError as exc:
            raise UserInputError(f"{where}: example {exc}") from None
    rate = tuple((str(k), _exponent(v, f"{where}: rate {k}")) for k, v in _typed(doc, "rate", dict, where, {}).items())
    lhs = _typed(doc, "lhs", str, where, "")
    return Result(
        id=rid, title=_typed(doc, "title", str, where, ""), paper=_typed(doc, "paper", str, where, ""),
        kind=kind, lhs=lhs, lhs_latex=_typed(doc, "lhs_latex", str, where, lhs),
        terms=tuple(terms), symbols=tuple(infos), hypotheses=tuple(hyps),
        provenance=Provenance(_text(prov, "seed", at), _text(prov, "locator", at),
                              _typed(prov, "equation", str, at, ""), _typed(prov, "spec", str, at, "")),
        variant=variant, status=status, flags=_strings(doc, "flags", where, ()),
        reconstructed=_typed(doc, "reconstructed", bool, where, False), rate=rate,
        notes=_typed(doc, "notes", str, where, ""), example=tuple(example.items()),
    )


def load_result(path: str) -> Result:
    """The result of a TOML file; every problem is a ``UserInputError`` naming the file.

    Only a regular file is read (a FIFO, a directory or a device is refused at once), of at most
    :data:`MAX_FILE_BYTES`.

    >>> load_result("/no/such.toml")
    Traceback (most recent call last):
    ...
    bounds.core.errors.UserInputError: result file /no/such.toml does not exist; give a .toml result file
    """
    from bounds.core.files import read_text

    text = read_text(path, "result file", "a .toml result file", limit=MAX_FILE_BYTES)
    try:
        return result_from_toml(text, source=str(path))
    except UserInputError as exc:
        msg = str(exc)
        raise UserInputError(msg if msg.startswith(str(path)) else f"{path}: {msg}") from None
