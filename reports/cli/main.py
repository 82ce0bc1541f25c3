"""Entry point of the `convbound` command.

User mistakes (``UserInputError``, click usage errors) become one line on stderr and exit 2;
heavy libraries are imported inside the commands so `convbound list` stays quick.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click

import reports.cli as _cli_pkg
from bounds.errors import UserInputError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="convbound")
@click.option("--plugin", "plugin_files", multiple=True, metavar="FILE", type=click.Path(dir_okay=False),
              help="A plugin file (.py defining results()/algorithms()/problems()/scenarios(), or a .toml "
                   "result) loaded before the command; repeatable. Also: CONVBOUND_PLUGINS=FILE:FILE.")
def cli(plugin_files: tuple[str, ...]) -> None:
    """convbound: executable convergence bounds for federated learning under partial participation."""
    from bounds.plugins import add_files

    add_files(plugin_files)


def _register_all() -> None:
    for info in sorted(pkgutil.iter_modules(_cli_pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("cmd_"):
            importlib.import_module(f"reports.cli.{info.name}").register(cli)


def _fail(message: str) -> int:
    click.echo(f"convbound: error: {message}", err=True)
    return 2


def main(argv: list[str] | None = None) -> int:
    _register_all()
    try:
        rv = cli.main(args=argv, prog_name="convbound", standalone_mode=False)
    except UserInputError as exc:
        sys.exit(_fail(str(exc)))
    except click.UsageError as exc:
        # click's own usage errors (unknown option, missing argument) are one line too
        hint = f" (see 'convbound {exc.ctx.info_name} --help')" if exc.ctx and exc.ctx.parent else ""
        sys.exit(_fail(exc.format_message() + hint))
    except click.exceptions.Abort:
        sys.exit(_fail("aborted"))
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        sys.exit(_fail(exc.format_message()))
    sys.exit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":
    main()
