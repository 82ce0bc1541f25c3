"""``convbound decide`` lists a conditional violation with its condition (issue 31), end to end: a real falsify
search of the plugin ``cond_plugin.py`` (E X <= B under t <= G, G lost; every point exceeds its bound about
50 standard deviations of one draw) and the decision read from its record."""

import json
from pathlib import Path

PLUGIN = Path(__file__).with_name("cond_plugin.py")
HYP = "threshold t <= G"


def test_decide_lists_the_conditional_violation_of_a_real_search(convbound, tmp_path):
    run = convbound("--plugin", str(PLUGIN), "falsify", "COND.T1", "--budget", "4", "--trials", "8",
                    "--confirm-trials", "64", "--json")
    assert run.code == 0, run.err
    rec = tmp_path / "search.json"
    rec.write_text(run.out)
    assert json.loads(run.out)["confirmation"]["verdict"] == "violated unless"
    table = convbound("--plugin", str(PLUGIN), "decide", "COND.T1", "--search", str(rec), "--no-live-pep")
    assert table.code == 0, table.err
    row = next(line for line in table.out.splitlines() if "COND.T1" in line)
    assert f"refuted unless {HYP} fails" in row and "consistent" not in row
    assert f"condition: the violation counts unless '{HYP}' fails at the point" in table.out
    got = json.loads(convbound("--plugin", str(PLUGIN), "decide", "COND.T1", "--search", str(rec), "--no-live-pep",
                               "--json").out)[0]
    assert got["outcome"] == f"refuted unless {HYP} fails" and got["conditions"] == [HYP]
    assert got["instance"] == json.loads(run.out)["best"]["point"]
