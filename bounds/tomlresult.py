"""Results without Python: a TOML file of symbols, hypotheses and terms as formula strings.

**Setting**: a user who wants to check a bound of their own writes it as data, never as code.
**Method**: each formula is parsed by :func:`bounds.formula.parse_formula` (re-exported here): Python's
:mod:`ast` parses it (parsing executes nothing) and the tree is walked against a whitelist; the sympy expression is built node by node from that walk. Nothing
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

from collections.abc import Iterable, Mapping
from typing import Any

import sympy as sp

from bounds.core.errors import UserInputError, clip
from bounds.formula import _CONSTANTS, _FLOAT_MAX, FUNCTIONS, MAX_DEPTH, MAX_EXPONENT, MAX_LENGTH, parse_formula
from bounds.result import Hypothesis, Kind, Provenance, Result, Status, Term
from bounds.symbols import Domain, SymbolInfo, sym

__all__ = ["FUNCTIONS", "MAX_DEPTH", "MAX_EXPONENT", "MAX_FILE_BYTES", "MAX_LENGTH", "load_result", "parse_formula", "result_from_toml"]

#: Largest result file read (bytes): a result is a few kilobytes.
MAX_FILE_BYTES = 2**20


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
    rid = _name(_need(doc, "id", str, where), "id", where)
    variant = _name(_typed(doc, "variant", str, where, "published"), "variant", where)
    infos = _symbol_infos(_need(doc, "symbols", dict, where), where)
    table = {s.name: sym(s.name, s.domain) for s in infos}
    terms = _terms(_need(doc, "terms", list, where), table, where)
    hyps = _hypotheses(_typed(doc, "hypotheses", list, where, []), table, where)
    prov = _need(doc, "provenance", dict, where)
    at = f"{where} [provenance]"
    _only(prov, ("seed", "locator", "equation", "spec"), at)
    kind, status = _kind_and_status(doc, where)
    example = _example(_typed(doc, "example", dict, where, {}), infos, where)
    rate = tuple((str(k), _exponent(v, f"{where}: rate {k}")) for k, v in _typed(doc, "rate", dict, where, {}).items())
    lhs = _typed(doc, "lhs", str, where, "")
    return Result(
        id=rid, title=_typed(doc, "title", str, where, ""), paper=_typed(doc, "paper", str, where, ""),
        kind=kind, lhs=lhs, lhs_latex=_typed(doc, "lhs_latex", str, where, lhs),
        terms=terms, symbols=tuple(infos), hypotheses=hyps,
        provenance=Provenance(_text(prov, "seed", at), _text(prov, "locator", at),
                              _typed(prov, "equation", str, at, ""), _typed(prov, "spec", str, at, "")),
        variant=variant, status=status, flags=_strings(doc, "flags", where, ()),
        reconstructed=_typed(doc, "reconstructed", bool, where, False), rate=rate,
        notes=_typed(doc, "notes", str, where, ""), example=tuple(example.items()),
    )


def _name(value: str, key: str, where: str) -> str:
    """An id or a variant: 1 to 200 characters, no spaces and no '@' (the separator of ``id@variant``)."""
    if not value.strip() or len(value) > 200 or any(c.isspace() or c == "@" for c in value):
        raise UserInputError(f"{where}: {key} {clip(value)} must be 1 to 200 characters without spaces or '@'")
    return value


def _symbol_infos(syms: Mapping[str, Any], where: str) -> list[SymbolInfo]:
    """The ``[symbols]`` table: one :class:`~bounds.symbols.SymbolInfo` per declared symbol, in file order."""
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
    return infos


def _terms(term_list: list[Any], table: Mapping[str, sp.Symbol], where: str) -> tuple[Term, ...]:
    """The ``[[terms]]``: each a name and a formula over the declared symbols (at least one)."""
    if not term_list:
        raise UserInputError(f"{where}: terms is empty; give at least one [[terms]] with name and expr")
    terms = []
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
    return tuple(terms)


def _hypotheses(hyp_list: list[Any], table: Mapping[str, sp.Symbol], where: str) -> tuple[Hypothesis, ...]:
    """The ``[[hypotheses]]``: each a name and one comparison over the declared symbols."""
    hyps = []
    for i, h in enumerate(hyp_list):
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
    return tuple(hyps)


def _kind_and_status(doc: Mapping[str, Any], where: str) -> tuple[Kind, tuple[Status, ...]]:
    """``kind`` (required) and ``status`` (default ``PUBLISHED``), each checked against its enum."""
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
    return kind, status


def _example(example: dict[str, Any], infos: list[SymbolInfo], where: str) -> dict[str, Any]:
    """The ``[example]`` values: declared symbols only, each finite and inside its symbol's domain."""
    names = [s.name for s in infos]
    for k, v in example.items():
        if k not in names:
            raise UserInputError(f"{where}: example {clip(k)} is not a declared symbol; declared: {', '.join(names)}")
        _finite_number(v, f"{where}: example {k}")
        try:
            next(s for s in infos if s.name == k).validate(v)
        except UserInputError as exc:
            raise UserInputError(f"{where}: example {exc}") from None
    return example


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
