"""Writers for an imported theorem: a TOML result that must load back unchanged, or a plugin skeleton.

**Setting**: readings made by :mod:`bounds.latex_import` (sympy expressions over the declared symbols).
**Method**: a TOML formula is ``sympy.sstr`` of the reading, which :func:`bounds.tomlresult.parse_formula`
reads; after writing, the text is loaded through :func:`bounds.tomlresult.result_from_toml` and every
term and hypothesis is compared with its reading (``simplify(a - b) == 0``); a difference stops the import.
A sum or product has no TOML spelling (formulas there have no sums): it is refused with a pointer to the
plugin skeleton, which writes sympy code (``Sum(p[k]/r[k], (k, 1, N))``) and is checked the same way
(executed in a fresh namespace and compared) by the tests.
"""

from __future__ import annotations

import json
from typing import Any

import sympy as sp

from bounds.core.errors import UserInputError

__all__ = ["plugin_skeleton", "write_toml"]


def _q(text: Any) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(str(text))


def _formula(expr: Any, where: str) -> str:
    if expr.has(sp.Sum, sp.Product, sp.Indexed):
        raise UserInputError(f"{where} holds a sum or product over clients, which a TOML result cannot hold; "
                             "write a plugin instead (convbound import-latex FILE --plugin-out FILE.py)")
    return sp.sstr(expr)


def write_toml(doc: dict[str, Any], imported: Any, kind: str, lhs: str, lhs_latex: str, source: str) -> str:
    """The TOML result of an import; raises unless it loads back to the same terms and hypotheses."""
    from bounds.tomlresult import result_from_toml

    prov = doc.get("provenance", {})
    if not isinstance(prov, dict) or not str(prov.get("seed", "")).strip() or not str(prov.get("locator", "")).strip():
        raise UserInputError("[provenance] needs seed and locator (where the theorem comes from: paper or file, "
                             "and e.g. 'Theorem 1')")
    lines = [f"# written by convbound import-latex from {source}; check every formula against the paper",
             f"id = {_q(doc.get('id', 'IMPORTED.T1'))}", f"title = {_q(doc.get('title', ''))}",
             f"paper = {_q(doc.get('paper', prov.get('seed')))}", f"kind = {_q(kind)}",
             f"lhs = {_q(lhs)}", f"lhs_latex = {_q(lhs_latex)}"]
    if doc.get("notes"):
        lines.append(f"notes = {_q(doc['notes'])}")
    lines.append("[provenance]")
    lines += [f"{k} = {_q(v)}" for k, v in prov.items()]
    lines.append("[symbols]")
    for name, spec in doc["symbols"].items():
        parts = [f"meaning = {_q(spec.get('meaning', ''))}", f"domain = {_q(spec.get('domain', 'positive'))}"]
        if "prefer" in spec:
            parts.append(f"prefer = {_q(spec['prefer'])}")
        lines.append(f"{name} = {{ {', '.join(parts)} }}")
    for name, expr in imported.terms:
        lines += ["[[terms]]", f"name = {_q(name)}", f"expr = {_q(_formula(expr, f'term {name!r}'))}"]
    for name, rel in imported.hypotheses:
        lines += ["[[hypotheses]]", f"name = {_q(name)}", f"relation = {_q(_formula(rel, f'hypothesis {name!r}'))}"]
    if doc.get("example"):
        lines.append("[example]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in doc["example"].items()]
    text = "\n".join(lines) + "\n"
    loaded = result_from_toml(text, source=source)
    _same([(t.name, t.expr) for t in loaded.terms], imported.terms, "term")
    _same([(h.name, h.relation) for h in loaded.hypotheses], imported.hypotheses, "hypothesis")
    return text


def _same(loaded: list[tuple[str, Any]], read: list[tuple[str, Any]], what: str) -> None:
    """Each loaded formula equals its reading; a writer that changed one is a bug, said as one."""
    if [n for n, _ in loaded] != [n for n, _ in read]:
        raise RuntimeError(f"the TOML writer changed the {what} names: {loaded} vs {read}")
    for (name, a), (_, b) in zip(loaded, read, strict=True):
        if isinstance(a, sp.core.relational.Relational):
            ok = type(a) is type(b) and sp.simplify(a.lhs - b.lhs) == 0 and sp.simplify(a.rhs - b.rhs) == 0
        else:
            ok = sp.simplify((a - b).doit()) == 0
        if not ok:
            raise RuntimeError(f"the TOML writer changed {what} {name!r}: read {b}, loaded {a}")


def plugin_skeleton(doc: dict[str, Any], imported: Any, kind: str, lhs: str, lhs_latex: str, source: str) -> str:
    """A plugin file (``results()`` returning one ``Result``) with the readings as sympy code; sums allowed.

    The file is executed here in a fresh namespace (it is our own text: the user's words in it are
    ``repr`` strings, the formulas ``sympy.sstr`` over validated identifiers) and its result compared
    with the readings, as the TOML is.
    """
    text = _skeleton_text(doc, imported, kind, lhs, lhs_latex, source)
    space: dict[str, Any] = {}
    exec(compile(text, "<plugin skeleton>", "exec"), space)  # noqa: S102 - our generated file, see above
    result = space["results"]()[0]
    _same([(t.name, t.expr) for t in result.terms], imported.terms, "term")
    _same([(h.name, h.relation) for h in result.hypotheses], imported.hypotheses, "hypothesis")
    return text


def _skeleton_text(doc: dict[str, Any], imported: Any, kind: str, lhs: str, lhs_latex: str, source: str) -> str:
    prov = doc.get("provenance", {})
    syms = []
    for name, spec in doc["symbols"].items():
        dom = str(spec.get("domain", "positive")).upper()
        if dom.startswith(("VECTOR", "MATRIX")):
            syms.append(f"{name} = sp.IndexedBase({name!r})")
        else:
            syms.append(f"{name} = sym({name!r}, Domain.{dom})")
    exprs = [e for _, e in imported.terms] + [r for _, r in imported.hypotheses]
    indices = sorted({str(s) for e in exprs for s in e.atoms(sp.Symbol) if s.is_integer and str(s) not in doc["symbols"]})
    syms += [f"{k} = sp.Symbol({k!r}, integer=True)" for k in indices]
    infos = ",\n        ".join(
        f"SymbolInfo({n!r}, {str(s.get('meaning', ''))!r}, Domain.{str(s.get('domain', 'positive')).upper()}"
        + (f", prefer={s['prefer']!r}" if "prefer" in s else "") + ")" for n, s in doc["symbols"].items())
    terms = ",\n        ".join(f"Term({n!r}, {sp.sstr(e, sympy_integers=True)})" for n, e in imported.terms)
    hyps = ",\n        ".join(f"Hypothesis({n!r}, {_relation_code(r)})" for n, r in imported.hypotheses)
    return f'''"""{doc.get("title", "Imported theorem")} ({prov.get("locator", "")}): written by convbound import-latex from {source}.

Check every formula against the paper before trusting it. Load with: convbound --plugin THIS check {doc.get("id", "IMPORTED.T1")} ...
"""

import sympy as sp
from sympy import E, Max, Min, Product, S, Sum, exp, log, pi, sqrt  # noqa: F401  (used by the formulas)

from bounds.result import Hypothesis, Kind, Provenance, Result, Term
from bounds.symbols import Domain, SymbolInfo, sym

{chr(10).join(syms)}


def results():
    return [Result(
        id={str(doc.get("id", "IMPORTED.T1"))!r}, title={str(doc.get("title", ""))!r}, paper={str(doc.get("paper", prov.get("seed", "")))!r},
        kind=Kind.{kind.upper()}, lhs={lhs!r},
        lhs_latex={lhs_latex!r},
        terms=(
        {terms},
        ),
        symbols=(
        {infos},
        ),
        hypotheses=(
        {hyps}{"," if hyps else ""}
        ),
        provenance=Provenance({str(prov.get("seed", ""))!r}, {str(prov.get("locator", ""))!r}),
    )]
'''


def _relation_code(rel: Any) -> str:
    name = {sp.Le: "sp.Le", sp.Lt: "sp.Lt", sp.Ge: "sp.Ge", sp.Gt: "sp.Gt"}[type(rel)]
    return f"{name}({sp.sstr(rel.lhs, sympy_integers=True)}, {sp.sstr(rel.rhs, sympy_integers=True)})"
