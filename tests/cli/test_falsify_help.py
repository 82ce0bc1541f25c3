"""`falsify --optimiser list` prints every registered optimiser, from the one registry (plugins' included)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from reports.cli.main import cli


def test_optimiser_list_names_every_registered_optimiser_and_which_terms_aim():
    from verify.search.optimisers import registry

    out = CliRunner().invoke(cli, ["falsify", "FAST.T1", "--optimiser", "list", "--json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)
    assert [r["name"] for r in rows] == list(registry())
    aimed = {r["name"] for r in rows if r["aimed"]}
    # the strata searchers: stratified and the four that wrap it; random and the third-party ones draw by none
    assert aimed == {"stratified", "corners", "climb", "seeded", "rays"}


def test_an_unknown_optimiser_is_refused_naming_the_registered_ones(capsys):
    from reports.cli.main import main

    with pytest.raises(SystemExit) as stop:
        main(["falsify", "FAST.T1", "--optimiser", "cornrs", "--budget", "2"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "unknown" in err and "corners" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
