"""The plugin skeleton of an imported theorem: sympy code, with sums over clients as aggregates.

**Setting**: readings of :mod:`bounds.latex_import` that a TOML result cannot hold (``\\sum_{k=1}^N`` over
vector symbols such as ``p_k``).
**Method**: each distinct sum becomes a :class:`bounds.result.Aggregate` (a scalar computed by numpy over
the vectors' trailing axis, the clients), as the built-in F3AST results do; the terms use the aggregate's
symbol and the aggregate keeps the sum for display. The file is executed here in a fresh namespace (it
is our own text: the user's words in it are ``repr`` strings and the formulas ``sympy.sstr`` over
validated identifiers) and every term and hypothesis, with the sums put back, is compared with its
reading; a difference stops the import.
**Limits** (refused, one line): a sum whose lower limit is not 1 (an aggregate sums every client), a
sum whose summand holds a scalar symbol (move it outside the sum), a product over clients.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from bounds.core.errors import UserInputError
from bounds.latex_write import same_formulas

__all__ = ["plugin_skeleton"]


def _aggregates(exprs: list[Any], vectors: set[str]) -> list[tuple[str, Any, str, tuple[str, ...]]]:
    """(name, the Sum, numpy body over plain vector names, the vectors read) per distinct sum."""
    out: list[tuple[str, Any, str, tuple[str, ...]]] = []
    seen: dict[Any, str] = {}
    for e in exprs:
        if e.has(sp.Product):
            raise UserInputError("a product over clients (\\prod) cannot be evaluated yet; expand it or declare a "
                                 "symbol for it")
        for s in sorted(e.atoms(sp.Sum), key=sp.default_sort_key):
            if s in seen:
                continue
            (index, low, _high), = s.limits
            body = s.function
            if low != 1:
                raise UserInputError(f"the sum {s} starts at {low}; an imported sum runs over every client "
                                     "(k = 1..N)")
            scalars = {str(x) for x in body.free_symbols if x != index and not isinstance(x, sp.Indexed)}
            scalars -= vectors
            if scalars or any(i.indices != (index,) for i in body.atoms(sp.Indexed)):
                raise UserInputError(f"the sum {s} holds {', '.join(sorted(scalars)) or 'another index'} inside; "
                                     "move scalars outside the sum (only per-client vectors p_k may be summed)")
            used = tuple(sorted(str(i.base) for i in body.atoms(sp.Indexed)))
            plain = body.xreplace({i: sp.Symbol(f"_v_{i.base}") for i in body.atoms(sp.Indexed)})
            seen[s] = f"sum_{len(out) + 1}"
            out.append((seen[s], s, sp.sstr(plain, sympy_integers=True), used))
    return out


def plugin_skeleton(doc: dict[str, Any], imported: Any, kind: str, lhs: str, lhs_latex: str, source: str) -> str:
    """A plugin file (``results()`` returning one ``Result``); raises unless it reproduces the readings."""
    vectors = {n for n, s in doc["symbols"].items() if str(s.get("domain", "")).lower().startswith(("vector",
                                                                                                      "matrix"))}
    exprs = [e for _, e in imported.terms] + [r for _, r in imported.hypotheses]
    aggs = _aggregates(exprs, vectors)
    swap = {s: sp.Symbol(name, real=True) for name, s, _, _ in aggs}
    text = _text(doc, imported, kind, (lhs, lhs_latex, source), aggs, swap)
    space: dict[str, Any] = {}
    exec(compile(text, "<plugin skeleton>", "exec"), space)  # noqa: S102 - our generated file, see above
    result = space["results"]()[0]
    back = {sp.Symbol(a.name, real=True): a.display for a in result.aggregates}
    same_formulas([(t.name, t.expr.xreplace(back)) for t in result.terms], imported.terms, "term")
    same_formulas([(h.name, h.relation.xreplace(back)) for h in result.hypotheses], imported.hypotheses, "hypothesis")
    return text


def _code(expr: Any, swap: dict[Any, Any]) -> str:
    e = expr.xreplace(swap)
    if isinstance(e, sp.core.relational.Relational):
        name = {sp.Le: "sp.Le", sp.Lt: "sp.Lt", sp.Ge: "sp.Ge", sp.Gt: "sp.Gt"}[type(e)]
        return f"{name}({sp.sstr(e.lhs, sympy_integers=True)}, {sp.sstr(e.rhs, sympy_integers=True)})"
    return sp.sstr(e, sympy_integers=True)


def _text(doc: dict[str, Any], imported: Any, kind: str, where: tuple[str, str, str], aggs: list, swap: dict) -> str:
    lhs, lhs_latex, source = where
    prov = doc.get("provenance", {})
    lines = []
    for name, spec in doc["symbols"].items():
        dom = str(spec.get("domain", "positive")).upper()
        lines.append(f"{name} = sp.IndexedBase({name!r})" if dom.startswith(("VECTOR", "MATRIX"))
                     else f"{name} = sym({name!r}, Domain.{dom})")
    indices = sorted({str(s.limits[0][0]) for _, s, _, _ in aggs})
    lines += [f"{k} = sp.Symbol({k!r}, integer=True)" for k in indices]
    for name, s, body, used in aggs:
        plain = ", ".join(f"_v_{u}" for u in used)
        lines += ["", f"{name} = sp.Symbol({name!r}, real=True)  # {s}",
                  f"_{name}_summand = sp.lambdify(sp.symbols({plain!r}, seq=True), "
                  f"{body.replace('_v_', '_plain_v_')}, 'numpy')",
                  "", "", f"def _{name}({', '.join(used)}):",
                  f"    return np.sum(_{name}_summand({', '.join(used)}), axis=-1)  # over the clients"]
    plain_syms = sorted({f"_plain_v_{u}" for _, _, _, used in aggs for u in used})
    header = [f"{ps} = sp.Symbol({ps[len('_plain'):]!r})" for ps in plain_syms]
    infos = ",\n        ".join(
        f"SymbolInfo({n!r}, {str(s.get('meaning', ''))!r}, Domain.{str(s.get('domain', 'positive')).upper()}"
        + (f", prefer={s['prefer']!r}" if "prefer" in s else "") + ")" for n, s in doc["symbols"].items())
    terms = "".join(f"\n        Term({n!r}, {_code(e, swap)})," for n, e in imported.terms)
    hyps = "".join(f"\n        Hypothesis({n!r}, {_code(r, swap)})," for n, r in imported.hypotheses)
    aggregates = "".join(f"\n        Aggregate({name!r}, {sp.sstr(s, sympy_integers=True)}, {used!r}, _{name}, "
                         f"'sum over every client')," for name, s, _, used in aggs)
    return f'''"""{doc.get("title", "Imported theorem")} ({prov.get("locator", "")}): written by convbound import-latex from {source}.

Check every formula against the paper before trusting it. Sums run over every entry of the vectors (the
clients): give vectors of length N. Load with: convbound --plugin THIS check {doc.get("id", "IMPORTED.T1")} ...
"""

import numpy as np
import sympy as sp
from sympy import E, Max, Min, S, Sum, exp, log, pi, sqrt  # noqa: F401  (used by the formulas)

from bounds.result import Aggregate, Hypothesis, Kind, Provenance, Result, Term  # noqa: F401
from bounds.symbols import Domain, SymbolInfo, sym

{chr(10).join(header)}
{chr(10).join(lines)}


def results():
    return [Result(
        id={str(doc.get("id", "IMPORTED.T1"))!r}, title={str(doc.get("title", ""))!r},
        paper={str(doc.get("paper", prov.get("seed", "")))!r}, kind=Kind.{kind.upper()},
        lhs={lhs!r},
        lhs_latex={lhs_latex!r},
        terms=({terms}
        ),
        symbols=(
        {infos},
        ),
        hypotheses=({hyps}
        ),
        aggregates=({aggregates}
        ),
        provenance=Provenance({str(prov.get("seed", ""))!r}, {str(prov.get("locator", ""))!r}),
    )]
'''
