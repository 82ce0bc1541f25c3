"""Entry point of the `convbound` command.

User mistakes (``UserInputError``, click usage errors) become one line on stderr and exit 2; an
interrupt (Ctrl-C) exits 130 and SIGTERM 143, after the commands' clean-up has run (temporary files
and directories are removed). Every ``cmd_*.py`` module of this package defines its commands at
module level, imports only click and light helpers there, and adds them in ``register(cli)``, which
runs when one of its commands is first looked up (a listing, such as `--help`, runs them all); the
heavy libraries (torch, cvxpy, matplotlib, scipy.stats) are imported inside the command bodies, so
`convbound --help`, `list`, `show`, `check` and `solve` never load them.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import signal
import sys
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import click

import reports.cli as _cli_pkg

# exit statuses: 2 bad input (click's convention), 128 + signal number for a signal (the shell's)
EXIT_USAGE = 2
EXIT_INTERRUPT = 128 + signal.SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM
# a word longer than this in an error message (e.g. a pasted 100,000-character argument) is shortened
_LONG_WORD = 80


class _Interrupted(BaseException):
    """Ctrl-C inside a command, carried past click (which would print a blank line and raise Abort)."""


class _Group(click.Group):
    """The command group; a KeyboardInterrupt in a command leaves as :class:`_Interrupted`.

    Why: click's ``main`` answers KeyboardInterrupt by echoing an empty line to stderr before its
    Abort, so "interrupted" came second, after a blank line (seen when SIGINT met report rendering).
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            raise _Interrupted() from exc

    # Commands are added when first looked up: `convbound check` imports the module that defines
    # `check`, not all fourteen (about 6 ms of every start, issue 30); a listing imports them all.
    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            _register_for(cmd_name)
        if cmd_name not in self.commands:
            _register_all()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        _register_all()
        return super().list_commands(ctx)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="convbound")
@click.option("--plugin", "plugin_files", multiple=True, metavar="FILE", type=click.Path(dir_okay=False),
              help="A plugin file (.py defining results()/algorithms()/problems()/scenarios(), or a .toml "
                   "result) loaded before the command; repeatable. Also: CONVBOUND_PLUGINS=FILE:FILE.")
def cli(plugin_files: tuple[str, ...]) -> None:
    """convbound: executable convergence bounds for federated learning under partial participation."""
    from bounds.plugins import add_files

    add_files(plugin_files)


_registered: set[str] = set()  # command modules whose register(cli) has run


def _command_modules() -> list[pkgutil.ModuleInfo]:
    return sorted((m for m in pkgutil.iter_modules(_cli_pkg.__path__) if m.name.startswith("cmd_")),
                  key=lambda m: m.name)


def _register(module: str) -> None:
    if module not in _registered:
        importlib.import_module(f"reports.cli.{module}").register(cli)
        _registered.add(module)


def _register_all() -> None:
    for info in _command_modules():
        _register(info.name)


def _register_for(command: str) -> None:
    """Register the command modules whose source defines ``command`` (``click.command("NAME"`` or
    ``click.group("NAME"``); a module whose source cannot be read is registered anyway. A command
    defined some other way is still found: ``get_command`` then registers every module."""
    defines = re.compile(r"""\.(?:command|group)\(\s*["']""" + re.escape(command) + """["']""")
    for info in _command_modules():
        source = Path(getattr(info.module_finder, "path", ""), f"{info.name}.py")
        try:
            text = source.read_text(encoding="utf-8")
        except OSError:
            text = None
        if text is None or defines.search(text):
            _register(info.name)


def shorten(message: str) -> str:
    """One line, with every very long word cut to its ends and its length (no argument echoed whole)."""
    def cut(match: re.Match[str]) -> str:
        word = match.group(0)
        return f"{word[:40]}...({len(word)} characters)...{word[-20:]}"

    return re.sub(r"\S{" + str(_LONG_WORD + 1) + ",}", cut, " ".join(str(message).split()))


def _fail(message: str, code: int = EXIT_USAGE) -> int:
    click.echo(f"convbound: error: {shorten(message)}", err=True)
    return code


class _Terminated(BaseException):
    """SIGTERM as an exception, so that ``finally`` and ``except BaseException`` clean-up runs."""


def _on_sigterm(signum, frame) -> None:
    raise _Terminated()


#: Library parameters whose flag is not ``--name-with-hyphens`` (see ``UserInputError.for_flag``).
PARAM_FLAGS = {"time_limit": "--time"}


def main(argv: list[str] | None = None) -> int:
    """The program (``argv`` None: the console script, ``python -m``) or a caller's run of it (``argv`` given)."""
    if argv is None:  # the program's own process: a caller's process (and environment) is left as it is
        one_blas_thread(os.environ)
    try:
        return _main(argv)
    except SystemExit as exc:
        if argv is None and exc.code == EXIT_INTERRUPT:
            _leave_interrupted()
        raise


#: variables through which a user (or a scheduler) chooses numpy's BLAS threads; OpenBLAS reads them in this order
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def one_blas_thread(environ: MutableMapping[str, str]) -> None:
    """numpy's BLAS runs one thread in the program unless the user chose a number (``BLAS_THREAD_VARIABLES``).

    Why: this tool's numpy products are small (the exact path's per-coordinate 3 x 3 recursions, O(M d)
    assemblies and gemv; its large products go to torch, ``quadratics.exact.moments._mm``), and OpenBLAS's
    threads spin waiting for them: ``orders FAST.T1 --no-term-bases`` used 108 s of CPU with OpenBLAS's default
    threads and 80 s with one, in the same wall time (72 s and 69 s) and with the same output, on 2 cores;
    ``report --quick``, ``verify all --quick`` and ``falsify`` took the same wall time either way. Set before
    numpy is first imported (OpenBLAS reads it when it loads), and inherited by the program's own children
    (Dask's local workers, a plugin run in its own process). torch's threads are left to torch: its
    simulations are large batched products."""
    if not any(name in environ for name in BLAS_THREAD_VARIABLES):
        environ["OPENBLAS_NUM_THREADS"] = "1"


def _leave_interrupted() -> None:
    """End the program with 130 after an interrupt it has answered, clean-up done.

    Why not ``sys.exit(130)`` alone: CPython remembers an interrupt that passed through code it ran for a C
    extension as "unhandled" even after our handler caught it, and then ends the process by re-raising SIGINT
    at exit: status -2 instead of 130 (seen in about one interrupted campaign in four on a loaded machine, after
    the "interrupted" line had been printed). So the exit handlers (``atexit``, ``weakref.finalize``: temporary
    files) and the flushing of stdout and stderr run here, and the process leaves with 130 itself.
    """
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more to say
            pass
    os._exit(EXIT_INTERRUPT)


def _main(argv: list[str] | None) -> int:
    from bounds.core.errors import UserInputError  # bounds/__init__ is lazy: this loads no sympy

    previous = None
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread (e.g. called from a worker): keep the default
        previous = None
    try:
        rv = cli.main(args=argv, prog_name="convbound", standalone_mode=False)
    except UserInputError as exc:
        sys.exit(_fail(exc.for_flag(PARAM_FLAGS)))  # a library's "trials=1 ..." as the flag "--trials 1 ..."
    except click.UsageError as exc:
        # click's own usage errors (unknown option, missing argument) are one line too
        hint = f" (see 'convbound {exc.ctx.info_name} --help')" if exc.ctx and exc.ctx.parent else ""
        sys.exit(_fail(exc.format_message() + hint))
    except click.exceptions.Abort as exc:
        # click turns Ctrl-C into Abort; the shell's convention for an interrupt is 130, not bad input
        if isinstance(exc.__cause__, KeyboardInterrupt):
            sys.exit(_fail("interrupted", EXIT_INTERRUPT))
        sys.exit(_fail("aborted", 1))
    except (KeyboardInterrupt, _Interrupted):
        sys.exit(_fail("interrupted", EXIT_INTERRUPT))
    except _Terminated:
        sys.exit(_fail("terminated (SIGTERM); temporary files removed", EXIT_TERMINATED))
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        sys.exit(_fail(exc.format_message()))
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        if argv is None:  # the program itself (console script, python -m), not a caller whose process lives on
            _no_collection_at_exit()
    sys.exit(rv if isinstance(rv, int) else 0)


def _no_collection_at_exit() -> None:
    """Leave the objects still alive when the command ends to the operating system, not to the collector.

    Why: at exit the interpreter runs full garbage collections over every object left, and sympy alone
    leaves enough that they cost about a quarter of ``python -c "import sympy"`` (80-120 ms of its 350-390 ms
    at load 8-10, tests/benchmarks/bench_startup.py), for memory the process returns anyway. Frozen objects
    are skipped. What is then not done: finalizers of objects in reference cycles (Python does not promise
    them at exit either); ``atexit`` handlers, ``weakref.finalize`` (temporary directories) and the flushing
    of stdout and stderr still run, and every file a command writes is closed before it returns.
    """
    import gc

    gc.freeze()


if __name__ == "__main__":
    main()
