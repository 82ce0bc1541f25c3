"""Results without Python: a TOML file of symbols, hypotheses and terms as formula strings.

**Setting**: a user who wants to check a bound of their own writes it as data, never as code.
**Method**: each formula is parsed by Python's :mod:`ast` (parsing executes nothing) and the tree is
walked against a whitelist; the sympy expression is built node by node from that walk. Nothing
is ever evaluated by ``eval``/``sympify``. Allowed: numbers, the declared symbols, ``+ - * / **``,
unary minus, parentheses, the functions in :data:`FUNCTIONS`, the constants ``pi`` and ``E``, and
(in hypotheses only) one comparison ``<= < >= >``. Anything else (a call outside the whitelist such as
``__import__`` or ``eval``, attribute access, subscripts, lambdas, strings, undeclared names) is
refused with a :class:`~bounds.core.errors.UserInputError` that says what is allowed.

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
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import sympy as sp

from bounds.core.errors import UserInputError
from bounds.result import Hypothesis, Kind, Provenance, Result, Status, Term
from bounds.symbols import Domain, SymbolInfo, sym

__all__ = ["FUNCTIONS", "MAX_EXPONENT", "MAX_LENGTH", "load_result", "parse_formula", "result_from_toml"]

#: Functions a formula may call, by name.
FUNCTIONS: dict[str, Any] = {"sqrt": sp.sqrt, "log": sp.log, "exp": sp.exp, "Min": sp.Min, "Max": sp.Max,
                             "Abs": sp.Abs, "floor": sp.floor, "ceiling": sp.ceiling}
_CONSTANTS = {"pi": sp.pi, "E": sp.E}
#: Largest absolute numeric exponent (``9**9**9`` would otherwise take sympy forever).
MAX_EXPONENT = 64
#: Longest formula accepted, in characters.
MAX_LENGTH = 2000

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
            f"formula {self.text!r}: {what} is not allowed; allowed: numbers, the declared symbols ({names}), "
            f"+ - * / **, unary -, parentheses{comp}, the functions {', '.join(sorted(FUNCTIONS))} "
            f"and the constants pi, E")

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
                raise self.refuse(f"the constant {node.value!r}")
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
        if isinstance(node, ast.BinOp):
            left, right = self.walk(node.left), self.walk(node.right)
            if isinstance(node.op, ast.Pow):
                if getattr(right, "is_Number", False) and abs(float(right)) > MAX_EXPONENT:
                    raise self.refuse(f"an exponent above {MAX_EXPONENT} in absolute value")
                return sp.Pow(left, right)
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
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise UserInputError(f"formula {text!r} is not a formula ({exc.msg}); write e.g. 2*L/(eta*T)") from None
    walker = _Walker(text, table, relation)
    out = walker.walk(tree)
    if relation and not isinstance(out, sp.core.relational.Relational):
        raise walker.refuse("a hypothesis without a comparison") from None
    return out


def _domain(name: str, text: str) -> Domain:
    try:
        return Domain[str(text).strip().upper()]
    except KeyError:
        valid = ", ".join(d.name.lower() for d in Domain)
        raise UserInputError(f"symbol {name}: domain {text!r} is unknown; valid: {valid}") from None


def _need(doc: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in doc:
        raise UserInputError(f"{where}: missing {key!r}")
    if not isinstance(doc[key], kind):
        raise UserInputError(f"{where}: {key!r} must be a {kind.__name__}")
    return doc[key]


def result_from_toml(text: str, source: str = "<toml>") -> Result:
    """A :class:`~bounds.result.Result` from TOML text (see the module docstring for the layout).

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
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserInputError(f"{source} is not valid TOML: {exc}") from None
    where = source
    syms = _need(doc, "symbols", dict, where)
    infos: list[SymbolInfo] = []
    for name, spec in syms.items():
        if not name.isidentifier() or name in FUNCTIONS or name in _CONSTANTS or name.startswith("_"):
            raise UserInputError(f"{where}: symbol name {name!r} must be an identifier that is not a function or constant")
        spec = spec if isinstance(spec, dict) else {"meaning": str(spec)}
        dom = _domain(name, spec.get("domain", "positive"))
        if dom.is_vector:
            raise UserInputError(f"{where}: symbol {name}: vector domains need a Python plugin (aggregates)")
        infos.append(SymbolInfo(name, str(spec.get("meaning", "")), dom, unrecovered=bool(spec.get("unrecovered", False)),
                                prefer=str(spec.get("prefer", "min"))))
    table = {s.name: sym(s.name, s.domain) for s in infos}
    terms = []
    for i, t in enumerate(_need(doc, "terms", list, where)):
        if not isinstance(t, dict):
            raise UserInputError(f"{where}: terms[{i}] must be a table with name and expr")
        terms.append(Term(str(t.get("name", f"term{i + 1}")), parse_formula(_need(t, "expr", str, f"{where} terms[{i}]"), table),
                          str(t.get("meaning", ""))))
    hyps = []
    for i, h in enumerate(doc.get("hypotheses", [])):
        if not isinstance(h, dict):
            raise UserInputError(f"{where}: hypotheses[{i}] must be a table with name and relation")
        rel = parse_formula(_need(h, "relation", str, f"{where} hypotheses[{i}]"), table, relation=True)
        hyps.append(Hypothesis(str(h.get("name", f"hypothesis {i + 1}")), rel, str(h.get("meaning", ""))))
    prov = _need(doc, "provenance", dict, where)
    kind_text = str(_need(doc, "kind", str, where)).lower()
    try:
        kind = Kind(kind_text)
    except ValueError:
        raise UserInputError(f"{where}: kind {kind_text!r} is unknown; valid: {', '.join(k.value for k in Kind)}") from None
    try:
        status = tuple(Status(str(s)) for s in doc.get("status", ["PUBLISHED"]))
    except ValueError:
        raise UserInputError(f"{where}: status must be among {', '.join(s.value for s in Status)}") from None
    example = doc.get("example", {})
    for k, v in example.items():
        if k not in table or isinstance(v, bool) or not isinstance(v, (int, float)):
            raise UserInputError(f"{where}: example {k}={v!r} must give a number for a declared symbol")
    rate = tuple((str(k), sp.Rational(str(v))) for k, v in doc.get("rate", {}).items())
    return Result(
        id=str(_need(doc, "id", str, where)), title=str(doc.get("title", "")), paper=str(doc.get("paper", "")),
        kind=kind, lhs=str(doc.get("lhs", "")), lhs_latex=str(doc.get("lhs_latex", doc.get("lhs", ""))),
        terms=tuple(terms), symbols=tuple(infos), hypotheses=tuple(hyps),
        provenance=Provenance(str(_need(prov, "seed", str, f"{where} [provenance]")),
                              str(_need(prov, "locator", str, f"{where} [provenance]")),
                              str(prov.get("equation", "")), str(prov.get("spec", ""))),
        variant=str(doc.get("variant", "published")), status=status, flags=tuple(doc.get("flags", ())),
        reconstructed=bool(doc.get("reconstructed", False)), rate=rate, notes=str(doc.get("notes", "")),
        example=tuple(example.items()),
    )


def load_result(path: str) -> Result:
    """The result of a TOML file; every problem is a ``UserInputError`` naming the file.

    >>> load_result("/no/such.toml")
    Traceback (most recent call last):
    ...
    bounds.core.errors.UserInputError: /no/such.toml does not exist; give a .toml result file
    """
    p = Path(path)
    if not p.is_file():
        raise UserInputError(f"{path} does not exist; give a .toml result file")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserInputError(f"{path} cannot be read: {exc}") from None
    try:
        return result_from_toml(text, source=str(path))
    except UserInputError as exc:
        msg = str(exc)
        raise UserInputError(msg if msg.startswith(str(path)) else f"{path}: {msg}") from None
