"""An erratum of a refuted result: the statement as printed, the minimal instance, the exact closed forms, the
missing term, the repaired statement and its decision, as one JSON-able record.

**Setting**: a result with a confirmed violation (or conditional violation) in a falsify search record
(``convbound falsify ID --json``; the repository's saved runs unless files are given).
**Quantity**: :func:`erratum` joins :mod:`verify.erratum.closed` (exact LHS(R), RHS(R), limit, R where LHS > RHS)
at the record's shrunk point, :mod:`verify.erratum.missing` (the order the RHS lacks, the repair's constant) and
the decision of the repaired variant ``ID@repaired`` from the search records about it (for a printed form with no
``ID@repaired`` whose specification gives ``ID@corrected``: that correction, its added term and its decision).
**Statement**: a result no record refutes gets :class:`bounds.core.errors.UserInputError` (one line); a step
outside its setting is said with its reason, never guessed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import sympy as sp

from bounds.core.errors import UserInputError

__all__ = ["SCHEMA", "erratum", "refutations"]

SCHEMA = "convbound.erratum/1"
#: where a repair taken from the specification's corrected variant comes from (not derived by convbound)
CORRECTION = "the specification's corrected reading of the result (not derived by convbound)"
_TOP = {"probability": 1}  # a domain's top end, by Domain.value[0]: a '>=' condition at it fails only past it


def refutations(key: str, paths: Sequence[str] | None) -> list[tuple[str, dict[str, Any]]]:
    """(source, record) of every falsify record about ``key`` whose confirmation is a violation (conditional or
    not): the files ``paths``, else the fresh search records of the evidence store (the user's and the shipped
    one; ``$CONVBOUND_STORE`` chooses the user's), whose bodies are the records as falsify wrote them."""
    if paths:
        found = []
        for f in (Path(p) for p in paths):
            try:
                data = json.loads(f.read_text())
            except (OSError, ValueError) as exc:
                raise UserInputError(f"--search {f}: not readable as JSON ({exc}); give a record written by "
                                     f"'convbound falsify ID --json'") from None
            if isinstance(data, dict) and data.get("result") == key:
                _check(data, str(f))
                found.append((str(f), data))
    else:
        from verify.evidence.store import SEARCH, fresh_ones, read_all

        found = [(f"stored {r.id}", dict(r.body)) for r in fresh_ones(read_all(result_key=key, kind=SEARCH))]
    return [(src, data) for src, data in found if _violation(data)]


def _violation(data: Mapping[str, Any]) -> bool:
    verdict = str((data.get("confirmation") or {}).get("verdict", ""))
    return verdict == "violated" or verdict.startswith("violated unless")


def _check(data: Mapping[str, Any], where: str) -> None:
    """A falsify record's fields the erratum reads (one line naming the first that is missing)."""
    from bounds.core.record import BadRecord
    from verify.scenarios import registry
    from verify.search.saved import check_search

    try:
        check_search(data, "record")
    except BadRecord as exc:
        raise UserInputError(f"--search {where}: {exc}; give a record written by 'convbound falsify ID --json'") \
            from None
    if data.get("id") not in registry():
        raise UserInputError(f"--search {where}: scenario {data.get('id')!r} is not registered here; give a record "
                             f"of a registered scenario (see 'convbound falsify --help')")


def _minimal_ratio(rec: Mapping[str, Any]) -> float:
    c = (rec.get("shrunk") or {}).get("confirmation") or rec.get("confirmation") or {}
    return float(c.get("ratio") or 0.0)


def _minimal_point(rec: Mapping[str, Any]) -> dict[str, Any]:
    return dict((rec.get("shrunk") or {}).get("shrunk") or rec["best"]["point"])


def _relative(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return path


def _registered(key: str) -> bool:
    import bounds

    try:
        bounds.get(key)
    except UserInputError:
        return False
    return True


def _condition_words(res: Any, c: Mapping[str, Any], values: Mapping[str, Any]) -> str:
    """How an assumed condition could fail: where it is 'x >= threshold' with x at the top of its domain, it can
    fail only with a threshold above that top, which leaves no admissible x at all."""
    hyp = next((h for h in res.hypotheses if h.name == c.get("name")), None)
    rel = getattr(hyp, "relation", None)
    if isinstance(rel, sp.GreaterThan) and isinstance(rel.lhs, sp.Symbol):
        name = rel.lhs.name
        info = res.symbol_map.get(name)
        top = _TOP.get(info.domain.value[0]) if info is not None else None
        if top is not None and values.get(name) is not None and float(values[name]) == top:
            return (f"the condition '{c['name']}' can only fail by leaving no admissible {name} at all: the instance "
                    f"has {name} = {top}, the top of {name}'s domain, so the condition fails only if its threshold "
                    f"exceeds {top}")
    return f"the refutation stands unless '{c.get('name')}' fails at this instance ({c.get('assumed') or 'undecided'})"


def _decision(key: str, searches: Sequence[str] | None) -> dict[str, Any]:
    """The decision of ``key`` from the search records about it (given files, else the saved runs); no PEP worst case
    is solved here (``convbound decide`` weighs those too)."""
    import bounds
    from verify.decision_sources import decide_with, load_searches, stored_evidence

    if searches:
        recs = load_searches(list(searches))
    else:
        stored = stored_evidence(keys=[key]).get(key)
        recs = list(stored.searches) if stored is not None else []
    d = decide_with([bounds.get(key)], recs, [])[0]
    return {"id": key, "evidence": "search records only (convbound decide also weighs PEP worst cases)",
            "outcome": d.outcome, "why": d.why, "covered": list(d.covered), "missing": list(d.missing),
            "searches": [s["source"] for s in d.searches],
            "largest_ratio": max((s["ratio"] for s in d.searches if s.get("ratio") is not None), default=None)}


def erratum(key: str, *, searches: Sequence[str] | None = None,
            repaired_searches: Sequence[str] | None = None) -> dict[str, Any]:
    """The erratum record of ``key`` (module docstring)."""
    import bounds
    from verify.erratum.closed import exact_form
    from verify.erratum.missing import missing_order
    from verify.erratum.sources import SOURCES
    from verify.scenarios import registry

    res = bounds.get(key)
    found = refutations(key, searches)
    if not found:
        raise UserInputError(f"{key} is not refuted by any search record here (a confirmed 'violated' or 'violated "
                             f"unless'); an erratum needs one: run 'convbound falsify {key} --out FILE' and pass "
                             f"--search FILE, or name a refuted result")
    source, rec = max(found, key=lambda t: _minimal_ratio(t[1]))  # the most violated minimal instance
    sc = registry()[rec["id"]]
    if not rec.get("shrunk"):  # a record written without its minimal instance: shrink it now (seconds, seed 0)
        from verify.search.shrink import shrink

        rec = {**rec, "shrunk": {**shrink(sc, rec["best"]["point"], closed_form=False).to_dict(), "now": True}}
    shrunk = rec["shrunk"]
    point = _minimal_point(rec)
    inst = sc.build(sc.point(point))
    conf = rec["confirmation"]
    conds = [c for c in conf.get("conditions", []) if c.get("assumed") and c.get("holds") is None]
    src = SOURCES.get(res.id)
    doc: dict[str, Any] = {
        "schema": SCHEMA, "result": key, "title": res.title,
        # the files the user gave (none: the evidence store was read, and the same command reads it again)
        "given": {"searches": [_relative(p) for p in searches or ()],
                  "repaired_searches": [_relative(p) for p in repaired_searches or ()]},
        "paper": {"title": src.title, "authors": src.authors, "seed": src.seed, "locator": src.locator}
        if src else {"seed": res.provenance.seed, "locator": res.provenance.locator},
        "source_lines": [{"line": n, "text": t} for n, t in (src.lines.items() if src else ())],
        "remark_lines": [{"line": n, "text": t} for n, t in (src.remark.items() if src else ())],
        "statement": {"text": res.text(), "latex": res.latex()},
        "refutation": {"record": _relative(source), "records": [_relative(f) for f, _ in found], "verdict": conf.get("verdict"), "ratio": conf.get("ratio"),
                       "original_point": rec["best"]["point"], "seed": rec.get("seed"),
                       "conditions": [_condition_words(res, c, inst.values) for c in conds]},
        "minimal_instance": {"point": point, "shrunk": "now, seed 0 (the record has none)" if shrunk.get("now") else
                             "by the search", "moves": shrunk.get("moves", []),
                             "values": dict(inst.values), "describe": inst.describe,
                             "verdict": (shrunk.get("confirmation") or conf).get("verdict"),
                             "ratio": (shrunk.get("confirmation") or conf).get("ratio")},
        "versions": rec.get("versions", {}),
    }
    form = exact_form(sc, point)
    doc["closed_form"] = {"derived": False, "why": form} if isinstance(form, str) else \
        {"derived": True, **form.to_dict()}
    repaired_key = f"{res.id}@repaired"
    corrected = f"{res.id}@corrected"
    if not _registered(repaired_key) and res.key != corrected and _registered(corrected):
        # a printed form whose specification gives the correction: the correction is the repaired statement
        doc["missing"] = {"derived": False, "why": f"the repair is the specification's correction {corrected}"}
        doc["repair"] = _repair_measured(res, corrected, sc, point, repaired_searches, provenance=CORRECTION,
                                         constant_why="nothing fitted: the correction's own symbols at the instance")
        return doc
    if isinstance(form, str) or not _registered(repaired_key):
        doc["missing"] = {"derived": False, "why": form if isinstance(form, str) else
                          f"no repaired variant {repaired_key} is registered"}
        if _registered(repaired_key):  # repaired by hand (its docstring says how): its term, floor and decision
            doc["repair"] = _repair_measured(res, repaired_key, sc, point, repaired_searches)
        return doc
    miss = missing_order(sc, point)
    others = [exact_form(sc, _minimal_point(r)) for f, r in found if f != source]  # every confirmed instance
    forms = [form, *(f for f in others if not isinstance(f, str)), *miss.pop("forms", [])]
    doc["missing"] = miss
    if miss.get("derived") and miss.get("missing"):
        doc["repair"] = _repair(res, repaired_key, miss, forms, form, repaired_searches)
    return doc


def _repair_measured(res: Any, repaired_key: str, sc: Any, point: Mapping[str, Any],
                     repaired_searches: Sequence[str] | None, *, provenance: str = "",
                     constant_why: str = "") -> dict[str, Any]:
    """A repaired variant where no exact closed form exists: its term against the LHS the exact path measures at
    the minimal instance (per-trial exact or Monte Carlo: the estimate's method and interval are kept).
    ``provenance`` (default: derived by convbound) and ``constant_why`` say where the repair comes from."""
    import bounds
    from bounds.result import DERIVED
    from verify.scenario import evaluate_point

    rep = bounds.get(repaired_key)
    added = sp.simplify(rep.rhs - res.rhs)
    est = evaluate_point(sc, point, trials=256, seed=0)
    term = float(added.subs({x: est.values[x.name] for x in added.free_symbols}))
    return {"key": repaired_key, "provenance": provenance or DERIVED, "added_term": str(added),
            "added_term_latex": sp.latex(added), "shape": str(added),
            "constant": {"derived": False, "why": constant_why or "no exact closed form at this instance; the "
                                                                  "constant is the hand bound's (see the repaired "
                                                                  "result's docstring)"},
            "statement": {"text": rep.text(), "latex": rep.latex()},
            "floor": {"lhs": est.lhs, "lhs_interval": list(est.ci), "method": est.exact.get("method", "monte carlo"),
                      "trials": 256, "seed": 0, "added_term": term, "ratio": term / est.lhs if est.lhs else None},
            "decision": _decision(repaired_key, repaired_searches)}


def _repair(res: Any, repaired_key: str, miss: Mapping[str, Any], forms: Sequence[Any], form: Any,
            repaired_searches: Sequence[str] | None) -> dict[str, Any]:
    """The repaired statement: its term, the constant over the instances, the floor factor, its decision."""
    import bounds
    from bounds.result import DERIVED
    from verify.erratum.missing import repair_constant, shape_expr

    rep = bounds.get(repaired_key)
    shape = shape_expr(miss["rays"], rep)
    const = repair_constant(forms, shape, repaired_key, res.key)
    added = sp.simplify(rep.rhs - res.rhs)
    at = {x: (form.values[x.name] if x.name in form.values else sp.Integer(int(form.point[x.name])))
          for x in added.free_symbols}
    term_value = added.subs(at)
    return {"key": repaired_key, "provenance": DERIVED, "added_term": str(added), "added_term_latex": sp.latex(added),
            "shape": str(shape), "constant": const,
            "statement": {"text": rep.text(), "latex": rep.latex()},
            "floor": {"lhs_limit": str(form.lhs_limit), "added_term": str(term_value),
                      "ratio": float(term_value / form.lhs_limit) if form.lhs_limit else None},
            "decision": _decision(repaired_key, repaired_searches)}
