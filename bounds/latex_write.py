"""Writers for an imported theorem: a TOML result that must load back unchanged, or a plugin skeleton.

**Setting**: readings made by :mod:`bounds.latex_import` (sympy expressions over the declared symbols).
**Method**: a TOML formula is ``sympy.sstr`` of the reading, which :func:`bounds.tomlresult.parse_formula`
reads; after writing, the text is loaded through :func:`bounds.tomlresult.result_from_toml` and every
term and hypothesis is compared with its reading (``simplify(a - b) == 0``); a difference stops the import.
A sum or product has no TOML spelling (formulas there have no sums): it is refused with a pointer to the
plugin skeleton (:mod:`bounds.latex_plugin`).
"""

from __future__ import annotations

import json
from typing import Any

import sympy as sp

from bounds.core.errors import UserInputError

__all__ = ["same_formulas", "write_toml"]


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
    same_formulas([(t.name, t.expr) for t in loaded.terms], imported.terms, "term")
    same_formulas([(h.name, h.relation) for h in loaded.hypotheses], imported.hypotheses, "hypothesis")
    return text


def same_formulas(loaded: list[tuple[str, Any]], read: list[tuple[str, Any]], what: str) -> None:
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
