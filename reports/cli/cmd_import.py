"""`convbound import-latex FILE|-`: a theorem's LaTeX (hypotheses and bound) -> a TOML result or plugin skeleton."""

from __future__ import annotations

import sys

import click

from reports.cli.common import atomic_write_text, check_output_path, echo_json

#: The largest document read, from a file or standard input (a theorem's document is a few kilobytes).
DOCUMENT_LIMIT = 2**20


def _read_stdin() -> str:
    """Standard input up to DOCUMENT_LIMIT characters: `import-latex - < /dev/zero` is refused, not read forever."""
    from bounds.core.errors import UserInputError

    text = sys.stdin.read(DOCUMENT_LIMIT + 1)
    if len(text) > DOCUMENT_LIMIT:
        raise UserInputError(f"standard input holds more than {DOCUMENT_LIMIT:,} characters; a LaTeX import "
                             "document is a small TOML file (docs/latex-import.md)")
    return text


def register(cli: click.Group) -> None:
    cli.add_command(import_latex_cmd)


@click.command("import-latex")
@click.argument("source", metavar="FILE|-")
@click.option("--lhs", default=None, metavar="MEASURE",
              help="What the left side measures: final-dist-sq, final-gap, final-grad-sq, mean-grad-sq, mean-gap, "
                   "mean-dist-sq (overrides the document's lhs).")
@click.option("--out", "out", default=None, metavar="PATH", help="Write the TOML result (or plugin) here.")
@click.option("--plugin", "plugin", is_flag=True, help="Write a plugin skeleton (.py) instead of a TOML result "
                                                       "(needed for sums over clients).")
@click.option("--force", is_flag=True, help="Overwrite --out if it exists.")
@click.option("--tokens", is_flag=True, help="Also list every token with its column and the role it was read in.")
@click.option("--json", "as_json", is_flag=True, help="Print the readings and the written text as JSON.")
def import_latex_cmd(source: str, lhs: str | None, out: str | None, plugin: bool, force: bool, tokens: bool,
                     as_json: bool) -> None:
    """Read a theorem's LaTeX exactly (every token, or a one-line refusal naming it) and write a result.

    The document is TOML with the LaTeX in literal strings: [symbols], [[hypotheses]] (name, latex) and
    [bound] latex = 'LHS \\le RHS'; the left side is chosen with --lhs, never parsed. Each formula is
    shown as written and as read (sympy.latex). See docs/latex-import.md.
    """
    from bounds.core.errors import UserInputError
    from bounds.latex_import import import_document

    if lhs is not None and not lhs.strip():
        raise UserInputError("--lhs is empty; name a measure: final-dist-sq, final-gap, final-grad-sq, mean-grad-sq, "
                             "mean-gap, mean-dist-sq (or leave --lhs out to use the document's lhs)")
    if source == "-":
        text, name = _read_stdin(), "<stdin>"
    else:
        from bounds.core.files import read_text

        text, name = read_text(source, "LaTeX import document", "a .toml document (docs/latex-import.md)",
                               limit=DOCUMENT_LIMIT), source
    if out is not None:
        check_output_path(out, force=force)
    try:
        imported = import_document(text, lhs=lhs, source=name, fmt="plugin" if plugin else "toml")
    except UserInputError as exc:
        msg = str(exc)
        raise UserInputError(msg if msg.startswith(name) else f"{name}: {msg}") from None
    if as_json:
        echo_json({"source": name, "format": "plugin" if plugin else "toml", "text": imported.text,
                   "notes": imported.notes,
                   "formulas": [{"what": s.what, "written": s.written, "read": s.read,
                                 "tokens": [{"token": t, "column": c, "role": r} for t, c, r in s.roles]}
                                for s in imported.shown]})
    else:
        for shown in imported.shown:
            counts: dict[str, int] = {}
            for _, _, role in shown.roles:
                counts[role.split(" (")[0]] = counts.get(role.split(" (")[0], 0) + 1
            click.echo(f"{shown.what}:")
            click.echo(f"  written: {' '.join(shown.written.split())}")
            click.echo(f"  read:    {shown.read}")
            click.echo(f"  tokens:  {len(shown.roles)}, every one read "
                       f"({sum(v for k, v in counts.items() if k.startswith('left side'))} in the left side, "
                       f"kept as written; {counts.get('layout', 0)} spacing)")
            if tokens:
                for tok, col, role in shown.roles:
                    click.echo(f"    col {col:>4}  {tok!s:<14} {role}")
        for note in imported.notes:
            click.echo(f"note: {note}")
    if out is not None:
        atomic_write_text(out, imported.text, force=force)
        if not as_json:
            click.echo(f"wrote {out} ({'plugin skeleton' if plugin else 'TOML result'}; "
                       + ("load it with convbound --plugin " if plugin else "check it with convbound check --file ")
                       + f"{out} ...)")
    elif not as_json:
        click.echo("")
        click.echo(imported.text, nl=False)
