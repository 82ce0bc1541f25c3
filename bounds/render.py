"""LaTeX and plain-text renderings of a result, and its JSON description."""

from __future__ import annotations

from typing import Any

import sympy as sp

from bounds.statement import Kind, Statement

_REL = {Kind.UPPER: (r"\le", "<="), Kind.LOWER: (r"\ge", ">="), Kind.EQUALITY: ("=", "="),
        Kind.ORDER: (r"= \mathcal{O}", "= O"), Kind.THRESHOLD: (r"\ge", ">=")}


def latex(result: Statement) -> str:
    """The conclusion as one LaTeX formula, terms in order (underbraced by name when named)."""
    rel, _ = _REL[result.kind]
    parts = []
    for t in result.terms:
        body = sp.latex(t.expr)
        parts.append(rf"\underbrace{{{body}}}_{{\text{{{t.name}}}}}" if len(result.terms) > 1 else body)
    rhs = " + ".join(parts)
    if result.kind is Kind.ORDER:
        rhs = rf"\left({rhs}\right)"
    return f"{result.lhs_latex} {rel} {rhs}"


def hypothesis_latex(result: Statement) -> list[str]:
    return [sp.latex(h.relation) for h in result.hypotheses]


def text(result: Statement) -> str:
    """Plain-text statement: conclusion, terms, hypotheses."""
    _, rel = _REL[result.kind]
    lines = [f"{result.key}: {result.title}", f"  {result.lhs}", f"  LHS {rel} " + " + ".join(f"[{t.name}]" for t in result.terms)]
    for t in result.terms:
        lines.append(f"    {t.name}: {sp.sstr(t.expr)}")
    if result.hypotheses:
        lines.append("  hypotheses:")
        lines += [f"    {h.name}: {sp.sstr(h.relation)}" + _needs_text(result, h) for h in result.hypotheses]
    if result.unencoded:
        lines.append("  conditions (no number decides them; check reports 'holds given conditions' when all else holds):")
        lines += [f"    {u.name}: {u.statement}" for u in result.unencoded]
    return "\n".join(lines)


def _needs_text(result: Statement, hyp: Any) -> str:
    """`` [needs G1, G2: not in the sources]`` for a hypothesis that needs unrecovered constants."""
    unrec = sorted(n for n in result.required_for(hyp) if result.symbol_map[n].unrecovered)
    return f"  [needs {', '.join(unrec)}: constants the sources do not give]" if unrec else ""


def result_to_dict(result: Statement) -> dict[str, Any]:
    return {
        "id": result.id,
        "key": result.key,
        "variant": result.variant,
        "title": result.title,
        "paper": result.paper,
        "kind": result.kind.value,
        "lhs": result.lhs,
        "lhs_latex": result.lhs_latex,
        "terms": [{"name": t.name, "expr": sp.sstr(t.expr), "latex": sp.latex(t.expr), "meaning": t.meaning}
                  for t in result.terms],
        "conclusion_latex": latex(result),
        "hypotheses": [{"name": h.name, "relation": sp.sstr(h.relation), "latex": sp.latex(h.relation),
                        "meaning": h.meaning,
                        "needs": sorted(n for n in result.required_for(h) if result.symbol_map[n].unrecovered)}
                       for h in result.hypotheses],
        "symbols": [{"name": s.name, "meaning": s.meaning, "domain": s.domain.describe,
                     "unrecovered": s.unrecovered} for s in result.symbols],
        "aggregates": [{"name": a.name, "definition": sp.sstr(a.display), "latex": sp.latex(a.display),
                        "inputs": list(a.inputs), "meaning": a.meaning} for a in result.aggregates],
        "participation": [{"kind": p.kind, "params": list(p.params), "statement": p.statement, "name": p.name,
                           "needs": p.needs} for p in result.participation],
        "assumptions": [{"name": a.name, "statement": a.statement, "needs": a.needs} for a in result.assumptions],
        "provenance": result.provenance.to_dict(),
        "status": [s.value for s in result.status],
        "flags": list(result.flags),
        "reconstructed": result.reconstructed,
        "rate": {k: str(v) for k, v in result.rate},
        "prescribed": {k: sp.sstr(v) for k, v in result.prescribed},
        "notes": result.notes,
        "example": {k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in result.example},
        "origin": result.origin,
    }
