"""`convbound decide`: one decision per result (refuted, certified at stated settings, consistent so far,
open) from the hypotheses at its example and the evidence store's searches, orders rows, PEP worst cases and
verification checks."""

from __future__ import annotations

import click

from reports.cli.common import COUNT, echo_json, esc, id_column, out_console, seed_option, store_option, text_column

OUTCOME_STYLE = {"refuted": "bold red", "refuted unless": "red", "certified at stated settings": "green",
                 "consistent so far": "cyan", "open": "yellow"}


def register(cli: click.Group) -> None:
    cli.add_command(decide_cmd)


@click.command("decide")
@click.argument("target", default="all", metavar="[ID|all]")
@click.option("--search", "searches", multiple=True, metavar="FILE.json",
              help="A 'convbound falsify ID --json' record (repeatable); given, the evidence store's searches "
                   "are not read (its other evidence is).")
@click.option("--no-saved", is_flag=True, help="Read no evidence store (only --search, --worst-case files and what "
                                               "runs now).")
@store_option(help="The user's evidence store to read with the shipped one (default: $CONVBOUND_STORE, else the "
                   "per-user default; see 'convbound store path').")
@click.option("--search-budget", type=COUNT, default=None, metavar="N",
              help="Also run a fresh search of N points over each scenario of the result (slow; off by default).")
@seed_option(help="Seed of fresh searches (0 <= seed < 2^63).")
@click.option("--worst-case", "worst_cases", multiple=True, metavar="FILE.json",
              help="A 'convbound worst-case --json' record whose coverage rows give certified ratios (repeatable).")
@click.option("--no-live-pep", is_flag=True,
              help="Do not solve the report's cheap FAST.T2 worst case (local GD, K=2, R=3, M=2; about 2 s).")
@click.option("--json", "as_json", is_flag=True, help="Print the Decision records as JSON.")
def decide_cmd(target: str, searches: tuple[str, ...], no_saved: bool, search_budget: int | None, seed: int,
               worst_cases: tuple[str, ...], no_live_pep: bool, as_json: bool, store: str | None = None) -> None:
    """One decision per result (ID, ID@variant, or all): refuted (a confirmed violation, with its point),
    refuted unless H fails (a confirmed violation resting on hypotheses H), certified at stated settings (a
    certified PEP worst case <= the bound, settings named), consistent so far (every check passed; what
    was covered; not a proof) or open (what is missing). Evidence is read from the evidence store (the user's
    and the shipped one; fresh records only); searches are never run unless --search-budget is given."""
    from bounds import get
    from verify.decision_sources import DecideOptions, decide_results

    keys = None if target == "all" else [get(target).key]  # unknown ID: one line with close matches
    if keys is not None and searches:
        _refuse_searches_about_others(keys[0], searches)
    if search_budget:  # sized as falsify sizes its --budget, before any search starts
        from bounds.core.limits import refuse_if_too_big, search_cost

        refuse_if_too_big(search_cost(search_budget, None), "lower --search-budget", ("--search-budget", search_budget))
    options = DecideOptions(searches=tuple(searches) if searches else None,
                            search_budget=search_budget or 0, seed=seed, worst_cases=tuple(worst_cases),
                            live_pep=not no_live_pep, store=store, use_store=not no_saved)
    from reports.cli.common import progress_bar

    with progress_bar() as bar:  # a fresh search per scenario takes minutes: a spinner on a terminal only
        if search_budget:
            bar.add_task(f"decide: searching {search_budget} points per scenario, then deciding", total=None)
        decisions = decide_results(keys, options)
    if as_json:
        echo_json([d.to_dict() for d in decisions])
        return
    _print(decisions)


def _refuse_searches_about_others(key: str, searches: tuple[str, ...]) -> None:
    """A --search record about another result would be left out silently ("no search recorded"): refused."""
    from bounds.core.errors import UserInputError
    from reports.cli.common import short_text
    from verify.decision_sources import load_searches

    for path, rec in load_searches(list(searches)):  # a file that is not a search record: one line already
        if rec.result != key:
            raise UserInputError(f"--search {short_text(path)} is a search about {short_text(rec.result, 60)} "
                                 f"(scenario {short_text(rec.id, 60)}), not about {key}; give a record of "
                                 f"'convbound falsify' on a scenario of {key}, or decide {short_text(rec.result, 60)}")


def _styled(word: str, outcome: str) -> str:
    style = OUTCOME_STYLE.get(word, "")
    return f"[{style}]{esc(outcome)}[/]" if style else esc(outcome)


def _print(decisions: list) -> None:
    from rich.table import Table

    table = Table(id_column("result", [d.id for d in decisions]), text_column("decision"), text_column("why"),
                  text_column("missing"), title="One decision per result")
    for d in decisions:
        # a result read off another carries that one's decision beside its own (verify.decision.with_rests_on)
        cell = _styled(d.word, d.outcome) + "".join(f"\n{esc('rests on ' + str(r['id']) + ':')} "
                                                     f"{_styled(str(r['word']), str(r['outcome']))}" for r in d.rests_on)
        table.add_row(esc(d.id), cell, esc(d.why), esc("; ".join(d.missing)) or "-")
    con = out_console()
    con.print(table)
    if len(decisions) == 1:  # one result: what its checks covered, line by line (all results: --json)
        for line in decisions[0].covered:
            con.print(esc(f"covered: {line}"))
        for name in decisions[0].conditions:
            con.print(esc(f"condition: the violation counts unless '{name}' fails at the point"))
        for meaning in decisions[0].conditions_meaning:
            con.print(esc(f"condition: {meaning}"))
    counts: dict[str, int] = {}
    for d in decisions:
        counts[d.word] = counts.get(d.word, 0) + 1
    con.print(esc(", ".join(f"{n} {w}" for w, n in counts.items())
                  + ". 'consistent so far' is not a proof; 'certified' holds at the named settings only."))
