"""`convbound erratum ID`: the erratum of a refuted result as Markdown, LaTeX and JSON (``--out DIR``) and as text.

The logic lives in ``verify.erratum``; a result that no search record refutes is refused in one line (exit 2).
"""

from __future__ import annotations

import click


def register(cli: click.Group) -> None:
    cli.add_command(erratum_cmd)


@click.command("erratum")
@click.argument("result_id", metavar="ID")
@click.option("--search", "searches", multiple=True, metavar="FILE.json",
              help="A 'convbound falsify ID --json' record refuting ID (repeatable); default: the saved runs.")
@click.option("--repaired-search", "repaired", multiple=True, metavar="FILE.json",
              help="A falsify record of ID@repaired that decides the repaired statement (repeatable); default: the "
                   "saved runs.")
@click.option("--out", "out", default=None, metavar="DIR",
              help="Write erratum.md, erratum.tex and erratum.json (convbound.erratum/1) into DIR.")
@click.option("--json", "as_json", is_flag=True, help="Print the erratum record as JSON.")
def erratum_cmd(result_id: str, searches: tuple[str, ...], repaired: tuple[str, ...], out: str | None,
                as_json: bool) -> None:
    """Erratum of a refuted result ID: the statement as printed with its source lines, the minimal instance, the
    exact closed forms (rationals) with the limit and the R where LHS > RHS, the missing term, the repaired
    statement ID@repaired with its decision, and the one command that reproduces it."""
    import json
    from pathlib import Path

    from bounds.core.jsonable import jsonable
    from reports.cli.common import echo_json
    from verify.erratum.document import erratum
    from verify.erratum.render import latex, markdown, text

    if out and Path(out).exists() and not Path(out).is_dir():  # refused before the work, not after
        from bounds.core.errors import UserInputError

        raise UserInputError(f"--out {out}: a file is there; give a directory (it is created if missing)")
    doc = jsonable(erratum(result_id, searches=searches or None, repaired_searches=repaired or None))
    if out:
        from bounds.core.errors import UserInputError

        d = Path(out)
        try:
            d.mkdir(parents=True, exist_ok=True)
            (d / "erratum.md").write_text(markdown(doc))
            (d / "erratum.tex").write_text(latex(doc))
            (d / "erratum.json").write_text(json.dumps(doc, indent=1) + "\n")
        except OSError as exc:
            raise UserInputError(f"--out {out}: cannot write there ({exc.strerror}); give a directory you can "
                                 f"write to") from None
    if as_json:
        echo_json(doc)
        return
    click.echo(text(doc))
    if out:
        click.echo(f"  written: {out}/erratum.md, erratum.tex, erratum.json")
