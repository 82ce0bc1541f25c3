"""Import a theorem from its LaTeX: a declared symbol table, hypotheses and a bound -> a TOML result.

**Setting**: a user pastes a theorem's conditions and bound from a paper into a small TOML document
(layout in ``docs/latex-import.md``): ``[symbols]`` (name -> meaning, domain, LaTeX spelling),
``[[hypotheses]]`` (name, latex) and ``bound`` (latex, ``LHS \\le RHS`` or the right side alone), with the
left side's measure named (``lhs``, see :mod:`bounds.latex_lhs`).
**Method**: each formula is read by :mod:`bounds.latex_parse`, which accounts for every token or refuses
with the token's column; the reading is rendered back with ``sympy.latex`` so the user sees both; the
TOML result is written and loaded back through :func:`bounds.tomlresult.result_from_toml`, and each
loaded term and hypothesis must equal the reading (else the import stops: the writer lost something).
**Refusals** (one line each, :class:`~bounds.core.errors.UserInputError`): unreadable LaTeX, an undeclared
symbol, an empty document, an unknown or contradicting left side, an equality as a hypothesis, a
hypothesis the declared domains make false, a sum in a TOML result (write the plugin skeleton instead).
"""

from __future__ import annotations

import keyword
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from bounds.core.errors import UserInputError
from bounds.latex_lhs import measure_for
from bounds.latex_parse import Reading, parse_bound, parse_relations, symbol_key
from bounds.latex_tokens import GREEK
from bounds.symbols import Domain, sym

__all__ = ["Imported", "Shown", "default_latex", "import_document", "symbol_tables"]

_TOP_KEYS = ("id", "title", "paper", "kind", "lhs", "rounds", "provenance", "symbols", "hypotheses", "bound",
             "example", "notes")
_RESERVED = {"sqrt", "log", "exp", "Min", "Max", "Abs", "floor", "ceiling", "pi", "E", "S", "Sum", "Product"}
_KIND_OF = {"<=": "upper", "<": "upper", ">=": "lower", ">": "lower", "=": "equality"}


@dataclass(frozen=True)
class Shown:
    """One formula as written and as read (``sympy.latex`` of the reading), with each token's role."""

    what: str
    written: str
    read: str
    roles: tuple[tuple[str, int, str], ...]   # (token, column, role)


@dataclass
class Imported:
    """The outcome: the TOML text (loads back), the readings shown, and notes on what was decided."""

    text: str               # the TOML result or the plugin file
    shown: list[Shown] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    terms: list[tuple[str, Any]] = field(default_factory=list)
    hypotheses: list[tuple[str, Any]] = field(default_factory=list)
    doc: dict[str, Any] = field(default_factory=dict)


def default_latex(name: str) -> str:
    """The LaTeX a symbol name stands for when none is given: ``eta_c`` -> ``\\eta_{c}``, ``q_min`` -> ``q_{\\min}``.

    >>> default_latex("sigma_G"), default_latex("L"), default_latex("p_min")
    ('\\\\sigma_{G}', 'L', 'p_{\\\\min}')
    """
    base, _, sub = name.partition("_")
    head = "\\" + base if base in GREEK else base
    if len(base) != 1 and base not in GREEK:
        raise UserInputError(f"symbol {name}: give its LaTeX (latex = '...'); a name without one must be a letter "
                             "or a Greek letter's name, with an optional _subscript (eta_c, sigma_G)")
    if not sub:
        return head
    tail = "\\" + sub if sub in GREEK or sub in ("min", "max") else sub
    return f"{head}_{{{tail}}}"


def symbol_tables(symbols: Mapping[str, Mapping[str, Any]]) -> tuple[dict[str, Any], dict[str, Any], dict[Any, str]]:
    """(canonical LaTeX -> sympy symbol, canonical LaTeX -> IndexedBase for vectors, symbol -> LaTeX for printing)."""
    table: dict[str, Any] = {}
    vectors: dict[str, Any] = {}
    names: dict[Any, str] = {}
    for name, spec in symbols.items():
        if not name.isidentifier() or keyword.iskeyword(name) or name in _RESERVED:
            raise UserInputError(f"symbol name {name!r} cannot be used in a formula (a Python keyword, a function "
                                 f"name or not an identifier); rename it (e.g. lam for lambda)")
        for key, value in spec.items():
            if key not in ("meaning", "domain", "latex", "prefer") or not isinstance(value, str):
                raise UserInputError(f"symbol {name}: {key} = {value!r} is not allowed; a symbol has meaning, domain, "
                                     "latex and prefer, each a string")
        latex = spec.get("latex") or default_latex(name)
        key = symbol_key(latex)
        if key in table or key in vectors:
            raise UserInputError(f"symbols: {latex!r} is declared twice (again as {name})")
        domain = Domain[str(spec.get("domain", "positive")).upper()]
        if domain.is_vector:
            vectors[key] = sp.IndexedBase(name)
            names[vectors[key]] = latex
        else:
            table[key] = sym(name, domain)
            names[table[key]] = latex
    return table, vectors, names


def _render(value: Any, names: Mapping[Any, str]) -> str:
    return sp.latex(value, symbol_names={s: n for s, n in names.items() if isinstance(s, sp.Symbol)})


def _render_pieces(pieces: list[tuple[str, Any, str]], names: Mapping[Any, str]) -> str:
    """The right side in the order written, one rendered piece per written summand."""
    out = ""
    for _, value, _ in pieces:
        text = _render(value, names)
        out += text if not out else (" " + text if text.startswith("-") else " + " + text)
    return out


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, sp.core.relational.Relational):
        return type(a) is type(b) and _same_value(a.lhs, b.lhs) and _same_value(a.rhs, b.rhs)
    return bool(sp.simplify((a - b).doit()) == 0)


def _read_back(out: Imported, value: Any, rendered: str, table: Any, vectors: Any) -> None:
    """The rendering shown must itself read back to the same value; a note says where it does not."""
    from bounds.latex_parse import parse_expression

    read = parse_relations if isinstance(value, list) else parse_expression
    try:
        again = read(rendered, table, vectors).value
        same = _same_value(value, again)
    except UserInputError as exc:
        same, again = False, exc
    if not same:
        out.notes.append(f"the rendering {rendered!r} does not read back to the same value ({again}); trust the "
                         "TOML formulas, not the rendering")


def _shown(what: str, written: str, reading: Reading, read: str) -> Shown:
    return Shown(what, written.strip(), read, tuple((t.text, t.pos + 1, role) for t, role in reading.roles))


def _hypotheses(doc: Mapping[str, Any], table: Any, vectors: Any, names: Any, out: Imported) -> None:
    for i, h in enumerate(doc.get("hypotheses", [])):
        if not isinstance(h, dict) or not isinstance(h.get("latex"), str) or set(h) - {"name", "latex", "meaning"}:
            extra = sorted(set(h) - {"name", "latex", "meaning"}) if isinstance(h, dict) else []
            raise UserInputError(f"hypotheses[{i}] must be a table with name, latex (and meaning)"
                                 + (f"; it also holds {', '.join(extra)} (TOML puts a key written after "
                                    "[[hypotheses]] into that table: write top-level keys first)" if extra else ""))
        name = str(h.get("name", f"hypothesis {i + 1}"))
        try:
            reading = parse_relations(h["latex"], table, vectors)
        except UserInputError as exc:
            raise UserInputError(f"hypothesis {name!r}: {exc}") from None
        rels = reading.value
        out.shown.append(_shown(f"hypothesis {name!r}", h["latex"], reading,
                                r",\quad ".join(_render(r, names) for r in rels)))
        _read_back(out, rels, out.shown[-1].read, table, vectors)
        for j, rel in enumerate(rels):
            label = name if len(rels) == 1 else f"{name} ({j + 1})"
            if isinstance(rel, sp.Eq):
                raise UserInputError(f"hypothesis {label!r} is an equality ({rel}); convbound checks inequalities: "
                                     "substitute the definition into the bound, or state it with \\le and \\ge")
            decided = type(rel)(rel.lhs, rel.rhs)
            if decided is sp.false:
                raise UserInputError(f"hypothesis {label!r} ({rel}) is false for every value the declared domains "
                                     "allow; check the domains in [symbols]")
            if decided is sp.true:
                out.notes.append(f"hypothesis {label!r} ({rel}) holds by the declared domains; not written")
                continue
            out.hypotheses.append((label, rel))


def import_document(text: str, *, lhs: str | None = None, source: str = "<input>", fmt: str = "toml") -> Imported:
    """Read a LaTeX import document (TOML with LaTeX strings) into a TOML result that loads back.

    Args:
        text: the document (layout in ``docs/latex-import.md``).
        lhs: the left side's measure (:data:`bounds.latex_lhs.MEASURES`); overrides the document's ``lhs``.
        source: the file name, for messages.
        fmt: ``toml`` (a result file for ``convbound check --file``) or ``plugin`` (a ``.py`` skeleton).
    """
    if not text.strip():
        raise UserInputError(f"{source} is empty; give a document with [symbols], [[hypotheses]] and bound "
                             "(see docs/latex-import.md)")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserInputError(f"{source} is not a TOML document ({exc}); LaTeX goes in literal strings '...'") from None
    for key in doc:
        if key not in _TOP_KEYS:
            from bounds.core.errors import unknown

            raise unknown("key", key, _TOP_KEYS)
    symbols = doc.get("symbols")
    if not isinstance(symbols, dict) or not symbols:
        raise UserInputError(f"{source}: [symbols] is missing or empty; declare every symbol (name = {{ meaning, "
                             "domain, latex }})")
    for name, spec in symbols.items():
        if not isinstance(spec, dict):
            raise UserInputError(f"symbol {name}: must be a table {{ meaning = ..., domain = ..., latex = '...' }}")
    bound = doc.get("bound")
    if not isinstance(bound, dict) or not isinstance(bound.get("latex"), str) or set(bound) != {"latex"}:
        raise UserInputError(f"{source}: [bound] must be a table with one key, latex = '... \\le ...' (the bound's "
                             "LaTeX)")
    try:
        table, vectors, names = symbol_tables(symbols)
    except KeyError as exc:
        raise UserInputError(f"symbols: domain {exc} is unknown; valid: "
                             f"{', '.join(d.name.lower() for d in Domain)}") from None
    out = Imported(text="", doc=doc)
    _hypotheses(doc, table, vectors, names, out)
    try:
        reading = parse_bound(bound["latex"], table, vectors)
    except UserInputError as exc:
        raise UserInputError(f"bound: {exc}") from None
    out.shown.append(_shown("bound", bound["latex"], reading, _render_pieces(reading.pieces, names)))
    _read_back(out, reading.value, out.shown[-1].read, table, vectors)
    kind = str(doc.get("kind", "")) or _KIND_OF.get(reading.relation, "")
    if not kind:
        raise UserInputError("bound: no relation (\\le, \\ge, =) and no kind given; write 'LHS \\le RHS' or kind")
    if reading.relation and _KIND_OF[reading.relation] != kind:
        raise UserInputError(f"bound: kind {kind!r} contradicts the relation {reading.relation} of the bound")
    measure_name = lhs or doc.get("lhs")
    if not measure_name:
        raise UserInputError("no left side chosen: give --lhs (or lhs = ...) naming a measure: "
                             "final-dist-sq, final-gap, final-grad-sq, mean-grad-sq, mean-gap, mean-dist-sq")
    measure = measure_for(str(measure_name), reading.lhs_latex)
    rounds = str(doc.get("rounds", "R" if "R" in symbols else "T" if "T" in symbols else ""))
    if rounds not in symbols or not str(symbols[rounds].get("domain", "")).endswith("integer"):
        raise UserInputError(f"rounds = {rounds!r} must name a declared symbol with an integer domain (the round "
                             "count the measure reads)")
    for j, (label, value, _) in enumerate(reading.pieces):
        out.terms.append((label or f"term{j + 1}", value))
    from bounds.latex_plugin import plugin_skeleton
    from bounds.latex_write import write_toml

    write = {"toml": write_toml, "plugin": plugin_skeleton}[fmt]
    out.text = write(doc, out, kind, measure.describe(rounds), reading.lhs_latex or measure.latex.format(R=rounds),
                     source)
    return out
