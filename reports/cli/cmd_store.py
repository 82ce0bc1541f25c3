"""`convbound store path|list|import|export|rebuild-shipped`: the evidence store (``verify.evidence``).

``path`` prints the user's store; ``list`` counts its records (and the shipped store's) by result and kind,
saying which are stale; ``import`` adds records a command wrote as JSON (or a store export); ``export`` writes
JSON Lines; ``rebuild-shipped`` writes the store shipped with the package from fresh records (run on a release
commit). Exit 2 on bad input.
"""

from __future__ import annotations

import click

from reports.cli.common import store_option


def register(cli: click.Group) -> None:
    cli.add_command(store_group)


@click.group("store")
def store_group() -> None:
    """The evidence store: where every command's records are kept and decide reads them."""


@store_group.command("path")
@store_option(help="A store path to resolve instead of the default.")
def path_cmd(store) -> None:
    """Print the user's store path (--store, else $CONVBOUND_STORE, else the per-user default) and the shipped one."""
    from verify.evidence.store import SHIPPED, user_path

    click.echo(f"user store: {user_path(store)}")
    click.echo(f"shipped store: {SHIPPED}")


@store_group.command("list")
@store_option(help="The user's store to list (default: $CONVBOUND_STORE, else the per-user default).")
@click.option("--no-shipped", is_flag=True, help="Leave the shipped store out.")
@click.option("--result", "result_key", default=None, metavar="ID", help="Only the records about this result.")
def list_cmd(store, no_shipped, result_key) -> None:
    """Records by result and kind: how many, how many stale (about an earlier formula), which stores."""
    from bounds import get
    from verify.evidence.store import fresh_ones, read_all

    key = get(result_key).key if result_key is not None else None
    counts: dict[tuple[str, str], list[int]] = {}
    records = read_all(store, shipped=not no_shipped, result_key=key)
    kept = {r.id for r in fresh_ones(records)}
    for r in records:
        row = counts.setdefault((r.result_key, r.kind), [0, 0])
        row[0] += 1
        row[1] += 0 if r.id in kept else 1
    for (k, kind), (n, stale) in sorted(counts.items()):
        click.echo(f"{k:28s} {kind:13s} {n:5d} record(s)" + (f", {stale} stale (ignored by decide)" if stale else ""))
    click.echo(f"{sum(n for n, _ in counts.values())} record(s) about {len({k for k, _ in counts})} result(s)")


@store_group.command("import")
@click.argument("sources", nargs=-1, required=True, metavar="FILE|FOLDER...")
@store_option(help="The store to add to (default: $CONVBOUND_STORE, else the per-user default).")
def import_cmd(sources, store) -> None:
    """Add the evidence in JSON records (falsify, orders, worst-case, verify --json), store exports (.jsonl),
    other stores (.sqlite) or folders of them; files that are not evidence are skipped, said."""
    from verify.evidence.store import Store, user_path
    from verify.evidence.transfer import collect

    records, skipped = collect(list(sources))
    path = user_path(store)
    with Store(path) as s:
        added = s.add(records)
    for line in skipped:
        click.echo(f"skipped {line}", err=True)
    click.echo(f"{added} new record(s) of {len(records)} read into {path}")


@store_group.command("export")
@store_option(help="The store to export (default: $CONVBOUND_STORE, else the per-user default).")
@click.option("--shipped", "with_shipped", is_flag=True, help="Export the shipped store's records too.")
def export_cmd(store, with_shipped) -> None:
    """Every record as JSON Lines on stdout (read back by 'convbound store import FILE.jsonl')."""
    from verify.evidence.store import read_all
    from verify.evidence.transfer import export_lines

    for line in export_lines(read_all(store, shipped=with_shipped)):
        click.echo(line)


@store_group.command("rebuild-shipped")
@click.argument("sources", nargs=-1, metavar="[STORE|FILE|FOLDER...]")
def rebuild_cmd(sources) -> None:
    """Rewrite the shipped store (package data) from the fresh records of SOURCES (default: the user's store):
    run on a release commit after a campaign."""
    from verify.evidence.store import SHIPPED, user_path
    from verify.evidence.transfer import rebuild_shipped

    kept, stale, skipped = rebuild_shipped(list(sources) or [str(user_path())])
    for line in skipped:
        click.echo(f"skipped {line}", err=True)
    click.echo(f"{SHIPPED}: {kept} record(s) ({stale} stale left out)")
