"""`convbound report`: run the default suite and write index.html, report.pdf and results.json."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from typing import Any

import click

from reports.cli.common import check_device, check_workers, esc, scheduler_options, seed_option


def register(cli: click.Group) -> None:
    cli.add_command(report)


@click.command("report")
@click.option("--out", "out", default="convbound-report", show_default=True, metavar="DIR",
              help="Directory to write index.html, report.pdf and results.json into.")
@click.option("--quick", is_flag=True, help="Smaller trial counts and sweeps (under 2 minutes on 2 CPU cores).")
@click.option("--device", default="auto", show_default=True, help="Device for simulations: auto, cpu, cuda.")
@click.option("--only", default=None, metavar="ID,...",
              help="Comma-separated result or check IDs to include (e.g. FAST.T1,F3AST.T3.5).")
@seed_option(help="Base seed of every simulation (0 <= seed < 2^63).")
@click.option("--force", is_flag=True, help="Replace a non-empty DIR.")
@click.option("--from-json", "from_json", default=None, metavar="FILE",
              help="Render a saved results.json instead of running the suite.")
@click.option("--include", "includes", multiple=True, metavar="FILE",
              help="Add a saved record to the report (repeatable): the JSON of 'falsify ID --json', "
                   "'worst-case --json' or 'audit --json'; each kind gets its own section.")
@click.option("--saved/--no-saved", "saved", default=True, show_default=True,
              help="Add the confirmed findings (violated, violated unless) of the evidence store's saved falsify "
                   "runs (the user's store and the one shipped with the package), within --only's IDs.")
@scheduler_options
def report(out: str, quick: bool, device: str, only: str | None, seed: int, force: bool,
           from_json: str | None, includes: tuple[str, ...] = (), scheduler: str | None = None,
           workers: int | None = None, saved: bool = True) -> None:
    """Run the default suite and write an HTML page, a PDF and results.json to DIR.

    The suite: every encoded result at its worked-example values (hypotheses, bound, terms), the
    F3AST Table I rate region and r*, a large-N r*, the F3AST sampler's r(t), a participation
    pattern, and every certificate, rate check and negative control of the verification suite.
    A violated certificate or a missing or passing negative control is flagged at the top.
    Searches, worst cases and audits saved as JSON join the report with --include (kept in
    results.json, so --from-json renders them again); the suite adds one exact worst case of its own,
    and (unless --no-saved) the saved falsify runs' confirmed findings, each noticed at the top with its
    minimal counterexample.
    \f
    The reason for the parameter count: click passes one parameter per option.
    """
    from rich.console import Console

    from bounds.core.errors import UserInputError
    from reports.build import check_target, write_report

    check_device(device)
    ids = [w.strip() for w in only.split(",") if w.strip()] if only is not None else None
    if only is not None and not ids:
        raise UserInputError("--only needs comma-separated IDs, e.g. --only FAST.T1,FAST.T2")

    announce_workers = check_workers(scheduler, workers)
    check_target(out, force)  # refuse before spending minutes on the suite
    from reports.records import add_entries
    from reports.schema import load_include, saved_findings

    for path in includes:
        _refuse_long_names(path)
    included = [load_include(path) for path in includes]  # a bad file is refused before the suite runs
    if saved and not from_json:
        included += saved_findings(ids)

    announce_workers()
    console = Console(stderr=True)
    t0 = time.perf_counter()
    with console.status("starting", spinner="dots") as status:
        progress = StepLog(console.print, status.update, t0)

        if from_json:
            doc = _load(from_json)
        else:
            from reports.suite import collect

            try:
                doc = collect(quick=quick, device=device, only=ids, seed=seed, progress=progress,
                              argv=["convbound"] + sys.argv[1:], scheduler=scheduler, workers=workers)
            except KeyboardInterrupt:  # the executor has cancelled its tasks and closed its cluster
                console.print("interrupted: nothing written")
                raise SystemExit(130) from None
        add_entries(doc, included)
        if any(key in ("searches", "worst_cases") for key, _ in included):  # new evidence: decide again
            from reports.decision_section import refresh_decisions

            progress("one decision per result, with the included records")
            refresh_decisions(doc)
        if from_json:
            _render_saved(doc, from_json, out, force, progress)
        else:
            write_report(doc, out, force=force, progress=progress)
        progress("finished")

    from reports.document import alerts

    bad = [a for a in alerts(doc) if a.level == "alert"]
    for a in bad:
        console.print(f"[bold red]ALERT[/bold red] {esc(a.message)}")
    console.print(esc(f"wrote {out}/index.html, {out}/report.pdf, {out}/results.json "
                      f"in {time.perf_counter() - t0:.1f}s"))


#: Progress messages that report an event inside a step (a check group finishing), not the start of a step.
_EVENT = re.compile(r"^verify( \d+/\d+:|: \d+ check groups)")


class StepLog:
    """Progress lines: each step printed when the next starts, with its own duration; events as they come.

    Why the split: the verification step reports each check group as it completes; counting those as steps
    made the step's line "... done done" and gave it only the time since the last group (a 35 s step shown
    as 6.2 s). Events now print with the elapsed time only and never restart the step's clock, so the step
    durations add up to the run's time.
    """

    def __init__(self, echo: Callable[[str], Any], show: Callable[[str], Any], t0: float,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.echo, self.show, self.t0, self.clock = echo, show, t0, clock
        self.step: str | None = None
        self.started = t0

    def __call__(self, message: str) -> None:
        now = self.clock()
        if _EVENT.match(message):
            self.echo(f"[dim]{now - self.t0:6.1f}s[/dim]   {esc(message)}")
            self.show(f"{self.step or ''} ({message})")
            return
        if self.step is not None:
            self.echo(f"[dim]{now - self.t0:6.1f}s[/dim] {esc(self.step)} [green]done[/green] "
                      f"[dim]({now - self.started:.1f}s)[/dim]")
        self.step, self.started = message, now
        self.show(message)


def _render_saved(doc: dict, path: str, out: str, force: bool, progress) -> None:
    """Render a saved document; a field the checks let through but the renderer cannot use is bad input.

    Why: ``reports.schema`` checks the fields the renderers index, but a hand-edited document can
    still hold, say, a list where a template expects text; that is the file's fault, so it gets one
    line naming the error, not a template traceback.
    """
    from bounds.core.errors import UserInputError
    from reports.build import write_report

    try:
        write_report(doc, out, force=force, progress=progress)
    except UserInputError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise UserInputError(f"{path}: a field could not be rendered ({type(exc).__name__}: {exc}); "
                             "give a results.json written by 'convbound report'") from None


def _load(path: str) -> dict:
    """A saved results.json, or the output of ``verify --json``, checked field by field (one line if bad)."""
    from bounds.core.files import read_json
    from reports.schema import as_report_document

    # a regular file only (never a FIFO)
    data = read_json(path, "--from-json", "a results.json written by 'convbound report'", limit=512 * 2**20,
                     not_json="is not a JSON file")
    doc = as_report_document(data, path)
    if not any(doc.get(k) for k in _RECORD_KEYS):
        from bounds.core.errors import UserInputError

        raise UserInputError(f"{path} holds no records (no results, checks, searches, worst cases, audits or "
                             "comparisons): nothing to report; give a results.json written by 'convbound report'")
    return doc


#: The parts of a report document that hold records; a document with none of them would render an empty report.
_RECORD_KEYS = ("results", "verifications", "searches", "worst_cases", "audits", "comparisons", "region",
                "large_n", "sampler", "participation")


#: The longest id, result key, scenario or title an included record may carry: every one is drawn in a figure's
#: title and a table cell, and a 200,000-character id kept matplotlib laying out its title for minutes.
MAX_NAME = 200


def _refuse_long_names(path: str) -> None:
    """An --include record whose naming fields exceed MAX_NAME characters is refused in one line, before any
    rendering (the file's other checks stay with reports.schema.load_include)."""
    from bounds.core.errors import UserInputError
    from bounds.core.files import read_json
    from reports.cli.common import short_text
    from reports.schema import VALID

    data = read_json(path, "--include", VALID)
    records = data if isinstance(data, list) else [data]
    for record in records:
        if not isinstance(record, dict):
            continue
        for key in ("id", "result", "scenario", "title"):
            value = record.get(key)
            if isinstance(value, str) and len(value) > MAX_NAME:
                raise UserInputError(f"--include {short_text(path)}: its {key} has {len(value):,} characters; a "
                                     f"record's {key} has at most {MAX_NAME} (is the file a convbound record?)")
