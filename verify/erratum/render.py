"""An erratum record (:func:`verify.erratum.document.erratum`) as Markdown, as a stand-alone LaTeX document, and as
terminal text. Every number is the record's; the mathematics is sympy's ``latex`` of the record's expressions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

__all__ = ["command", "latex", "markdown", "text"]


def command(doc: Mapping[str, Any], out: str = "erratum-out") -> str:
    """The one command that reproduces the erratum: the search files the user gave, if any (without them the
    erratum read the evidence store, and so does the same command)."""
    given = doc.get("given") or {}
    recs = " ".join(f"--search {r}" for r in given.get("searches") or ())
    rep = " ".join(f"--repaired-search {r}" for r in given.get("repaired_searches") or ())
    return " ".join(x for x in (f"convbound erratum {doc['result']}", recs, rep, f"--out {out}") if x)


def _tex(expr: str) -> str:
    return sp.latex(sp.sympify(expr))


def _point(p: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} = {v:.6g}" if isinstance(v, float) else f"{k} = {v}" for k, v in p.items())


def _ranges(rs: list[list[int]]) -> str:
    return ", ".join(f"{a} <= R <= {b}" for a, b in rs) or "no R of the axis"


def _short(rational: str) -> str:
    """A rational as written, or (when long: data that are not round numbers) its value to 10 digits, said so."""
    return rational if len(rational) <= 24 else f"{float(sp.Rational(rational)):.10g} (a long exact rational)"


def _lines(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(heading, body) sections shared by the Markdown and the text; the body is plain text with $...$ maths."""
    p, mi, cf, miss, rep = doc["paper"], doc["minimal_instance"], doc["closed_form"], doc["missing"], doc.get("repair")
    out = [("Statement as printed",
            f"{p.get('authors', '')}, *{p.get('title', p.get('seed'))}*, {p['locator']} (seed {p['seed']}):\n\n"
            + "\n".join(f"    {x['line']}: {x['text']}" for x in doc["source_lines"])
            + "\n\nAs encoded: $" + doc["statement"]["latex"] + "$")]
    ref = doc["refutation"]
    body = f"Confirmed {ref['verdict']} (search record {ref['record']}, seed {ref['seed']}; ratio LHS/RHS " \
           f"{ref['ratio']:.4g} at its best point)."
    for c in ref["conditions"]:
        body += f"\n\nCondition: {c}."
    if doc.get("remark_lines"):
        body += "\n\nThe paper's own remark on the admissible set:\n\n" + "\n".join(
            f"    {x['line']}: {x['text']}" for x in doc["remark_lines"])
    out.append(("Refutation", body))
    out.append(("Minimal instance", f"{_point(mi['point'])}\n\nInputs of the bound there: {_point(mi['values'])}; "
                                    f"{mi['verdict']}, ratio LHS/RHS {mi['ratio']:.6g}; shrunk {mi['shrunk']}."))
    if cf.get("derived"):
        ck = cf["check"]
        long = _long(cf)
        out.append(("Exact closed forms", f"Measure: {cf['measure']}.\n\n"
                    + ("The exact rationals run long (the data are read as their float64 values); shown to 12 "
                       "digits, exact in the JSON record.\n\n" if long else "") +
                    f"$\\mathrm{{LHS}}(R) = {_shown(cf, 'lhs_of_R_latex', long)}$\n\n$\\mathrm{{RHS}}(R) = "
                    f"{_shown(cf, 'rhs_of_R_latex', long)}$\n\n"
                    f"$\\lim_{{R\\to\\infty}} \\mathrm{{LHS}} = {_shown(cf, 'lhs_limit_latex', long)}$ "
                    f"(= {float(sp.Rational(cf['lhs_limit'])):.10g}); $\\lim_{{R\\to\\infty}} \\mathrm{{RHS}} = "
                    f"{_shown(cf, 'rhs_limit_latex', long) if long else _tex(cf['rhs_limit'])}$.\n\nLHS > RHS for {_ranges(cf['violated_for_R'])} (R axis "
                    f"{cf['R_axis'][0]}..{cf['R_axis'][1]}, integers, 50-digit arithmetic on the exact forms).\n\n"
                    + _process(cf.get("process")) +
                    f"Check: at R = {ck['R']} the closed form gives {ck['closed_form']:.15g}, the float exact path "
                    f"({ck['method']}) {ck['exact_path']}; relative difference {ck['rel_diff']:.2g} "
                    f"({'within' if ck['agrees'] else 'NOT within'} {ck['tolerance']:g}). Data read as rationals: "
                    f"{cf['data_as_rationals']['recovered']} numbers recovered, "
                    f"{cf['data_as_rationals']['kept_as_float']} kept as their float64 value."))
    else:
        out.append(("Exact closed forms", f"Not derived: {cf['why']}."))
    if miss.get("derived"):
        rays = "\n".join(f"- {r['quantity']}: exponent {r['exponent_fitted']:.6f} over {r['points']} points "
                         f"(read as {r['exponent']}; other quantities held: {r['others_held']}); exact limits "
                         f"{', '.join(_short(x) for x in r['limits'])}" for r in miss["rays"])
        out.append(("The missing term", f"{miss['statement']}.\n\nExponents of the exact limit along each ray "
                                        f"(least-squares slope in log-log):\n\n{rays}"))
    else:
        out.append(("The missing term", f"Not derived: {miss.get('why')}."))
    if rep:
        out.append(("Repaired statement", _repair_body(rep)))
    out.append(("Reproduce", f"    {command(doc)}"))
    return out


LONG = 400  # characters of an exact form past which the erratum shows its 12-digit form (exact in the JSON)


def _long(cf: Mapping[str, Any]) -> bool:
    return any(len(str(cf.get(k) or "")) > LONG for k in ("lhs_of_R", "rhs_of_R", "lhs_limit"))


def _shown(cf: Mapping[str, Any], key: str, long: bool) -> str:
    """The exact form, or its 12-digit one where the exact forms run long (``key`` ends in _latex)."""
    if long:
        return str(cf.get(key.replace("_latex", "_approx_latex")) or cf.get(key.replace("_latex", "_approx")))
    return str(cf[key])


def _process(pr: Mapping[str, Any] | None) -> str:
    """A per-trial law's closed form: which process it is exact for, beside the mean over the trials."""
    if not pr:
        return ""
    probs = ", ".join(f"{v:.6g}" for v in pr["participation_probability"])
    return (f"Participation: {pr['why_per_trial']}. The closed forms are those of {pr['conditioned_on']} (clients' "
            f"per-round participation probabilities {probs}); that trial's exact value at the instance is "
            f"{pr['trial_value']:.10g}, the mean over the {pr['trials']} trials {pr['mean_over_trials']:.10g}.\n\n")


def _repair_body(rep: Mapping[str, Any]) -> str:
    c, d, f = rep["constant"], rep["decision"], rep["floor"]
    body = (f"{rep['key']} ({rep['provenance']}): the printed right-hand side plus ${rep['added_term_latex']}$.\n\n$"
            + rep["statement"]["latex"] + "$\n\n")
    if c.get("derived", True):
        body += (f"Constant: the instances need c >= {c['c_needed']:.6g} (largest of sup_R (LHS - RHS) / "
                 f"(${_tex(rep['shape'])}$) over {len(c['instances'])} instances); registered c = "
                 f"{c['c_registered']} (margin {c['margin']:.4g}). On the minimal instance the added term is "
                 f"{f['added_term']} against the LHS floor {f['lhs_limit']} (ratio {f['ratio']:.4g}).")
    else:
        body += (f"Constant: {c['why']}. On the minimal instance the added term is {f['added_term']:.6g} against "
                 f"the LHS {f['lhs']:.6g} ({f['method']}, {f['trials']} trials, seed {f['seed']}, interval "
                 f"[{f['lhs_interval'][0]:.6g}, {f['lhs_interval'][1]:.6g}]; ratio {f['ratio']:.4g}).")
    return body + (f"\n\nDecision of {rep['key']} ({d['evidence']}): **{d['outcome']}**: {d['why']}"
                   + (f" (searches: {', '.join(d['searches'])})" if d["searches"] else ""))


def markdown(doc: Mapping[str, Any]) -> str:
    head = f"# Erratum: {doc['result']} ({doc['title']})\n"
    return head + "".join(f"\n## {h}\n\n{b}\n" for h, b in _lines(doc))


def text(doc: Mapping[str, Any]) -> str:
    """Terminal text: the Markdown's sections, with each LaTeX formula replaced by sympy's plain form."""
    cf = doc["closed_form"]
    lines = [f"erratum {doc['result']}: {doc['title']}"]
    lines.append("  refutation: " + "; ".join([str(doc["refutation"]["verdict"]), *doc["refutation"]["conditions"]]))
    lines.append(f"  minimal instance: {_point(doc['minimal_instance']['point'])}")
    if cf.get("derived"):
        long = _long(cf)
        lines += [f"  LHS(R) = {cf['lhs_of_R_approx' if long else 'lhs_of_R']}",
                  f"  RHS(R) = {cf['rhs_of_R_approx' if long else 'rhs_of_R']}"
                  + ("  (12 digits; the exact rationals are in the JSON record)" if long else ""),
                  f"  LHS -> {cf['lhs_limit_approx' if long else 'lhs_limit']} as R -> oo (RHS -> "
                  f"{cf['rhs_limit_approx' if long else 'rhs_limit']}); LHS > RHS for "
                  f"{_ranges(cf['violated_for_R'])}; float exact path ({cf['check']['method']}) "
                  f"{'agrees' if cf['check']['agrees'] else 'DISAGREES'} to {cf['check']['rel_diff']:.2g}"]
        if cf.get("process"):
            lines.append(f"  closed forms of {cf['process']['conditioned_on']}")
    else:
        lines.append(f"  closed form: not derived ({cf['why']})")
    if doc["missing"].get("derived"):
        lines.append(f"  missing: {doc['missing']['statement']}")
    rep = doc.get("repair")
    if rep:
        c = rep["constant"]
        need = f"needed c >= {c['c_needed']:.4g}, registered {c['c_registered']}" if c.get("derived", True) else \
            f"constant: {c['why']}"
        lines += [f"  repaired ({rep['key']}, {rep['provenance']}): RHS + {rep['added_term']}; {need}; added term / "
                  f"LHS on the minimal "
                  f"instance {rep['floor']['ratio']:.4g}", f"  decision of {rep['key']}: {rep['decision']['outcome']}"]
    lines.append(f"  reproduce: {command(doc)}")
    return "\n".join(lines)


_ESC = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
        "^": r"\textasciicircum{}", "\\": r"\textbackslash{}", "<": r"\textless{}", ">": r"\textgreater{}"}


def _esc(s: str) -> str:
    return "".join(_ESC.get(ch, ch) for ch in s)


def _para(body: str) -> str:
    """Plain text with $...$ maths -> LaTeX: text escaped, maths kept, quoted source lines verbatim-like."""
    out = []
    for block in body.split("\n\n"):
        if block.startswith("    "):  # quoted lines: the seed's own LaTeX source, shown as written
            out.append("\\begin{quote}\\small\\ttfamily\n" + "\\\\\n".join(_esc(x.strip()) for x in block.split("\n"))
                       + "\n\\end{quote}")
            continue
        parts = block.split("$")
        out.append("".join(_esc(p.replace("**", "")) if i % 2 == 0 else f"${p}$" for i, p in enumerate(parts)))
    return "\n\n".join(out)


def latex(doc: Mapping[str, Any]) -> str:
    """A stand-alone LaTeX document (article, amsmath, amssymb)."""
    body = "".join(f"\\section*{{{_esc(h)}}}\n{_para(b)}\n\n" for h, b in _lines(doc))
    return ("\\documentclass{article}\n\\usepackage{amsmath,amssymb}\n\\usepackage[margin=2cm]{geometry}\n"
            "\\allowdisplaybreaks\n\\begin{document}\n"
            f"\\title{{Erratum: {_esc(doc['result'])}}}\n\\date{{}}\n\\maketitle\n\\sloppy\n{body}\\end{{document}}\n")
