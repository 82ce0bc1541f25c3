"""A confirmed exceedance that rests on an assumed hypothesis is a finding (issue 31): ``violated unless``.

The plugin ``cond_plugin.py`` claims E X <= B for normal draws X ~ N(mu, 0.01^2) under t <= G, with G an
appendix constant the sources lost (assumed met, with its reason). At mu = 1, B = 0.5 the LHS exceeds the RHS
by about 50 standard deviations of one draw: every path that scores the point must call it a violation
conditional on that hypothesis, name it, and say what the theorem would need; given G it is decided.
"""

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from bounds import plugins
from bounds.core.errors import UserInputError

PLUGIN = Path(__file__).with_name("cond_plugin.py")
HYP = "threshold t <= G"


def _scenario():
    from verify.scenarios import get

    plugins.add_files([str(PLUGIN)])
    return get("COND.T1")


def _hand_interval(trials, seed, mu=1.0, level=0.99):
    """The draws' 99% Student-t interval, computed here from the plugin's own generator."""
    x = np.random.default_rng(seed).normal(mu, 0.01, size=trials)
    half = stats.t.ppf(0.5 + level / 2, trials - 1) * x.std(ddof=1) / np.sqrt(trials)
    return x.mean() - half, x.mean() + half


def test_falsify_confirmation_is_a_conditional_violation_naming_the_hypothesis():
    from verify.search.falsify import confirm

    conf, est = confirm(_scenario(), {}, trials=64, seed=3)
    low, high = _hand_interval(64, 3)
    assert conf["ci"] == pytest.approx([low, high], rel=1e-12) and low > 0.5 == conf["rhs"]
    assert conf["verdict"] == "violated unless" and conf["unless"] == [HYP]
    # what the theorem would need for the point not to count: the hypothesis failing, with the recorded reason
    said = " ".join(conf["why"])
    assert f"'{HYP}' fails at this point" in said and "no admissible t at all" in said


@pytest.mark.parametrize("G, word", [(2.0, "violated"), (0.5, "inapplicable")])
def test_supplying_the_lost_constant_decides_the_point(G, word):
    from verify.search.falsify import confirm

    conf, est = confirm(_scenario(), {"G": G}, trials=64, seed=3)
    # t = 1 <= G holds for G = 2 (a plain violation) and fails for G = 0.5 (the theorem says nothing there)
    assert conf["verdict"] == word and conf["unless"] == [] and est.hypotheses is (G >= 1.0)


def test_assert_bound_holds_reports_the_conditional_verdict():
    from verify.testing import assert_bound_holds

    with pytest.raises(AssertionError) as info:
        assert_bound_holds(_scenario(), trials=64)
    text = str(info.value)
    assert "COND.T1: violated unless (want holds)" in text and f"'{HYP}' fails at this point" in text
    with pytest.raises(AssertionError, match=r"COND.T1: violated \(want holds\)"):
        assert_bound_holds(_scenario_with_g(2.0), trials=64)


def _scenario_with_g(G):
    import dataclasses

    sc = _scenario()
    space = tuple(dataclasses.replace(p, default=G) if p.name == "G" else p for p in sc.space)
    return dataclasses.replace(sc, space=space)


def test_falsify_finding_line_opens_with_the_conditional_violation_and_verify_instance_replays_it(convbound,
                                                                                                   tmp_path):
    inst = tmp_path / "inst.json"
    run = convbound("--plugin", str(PLUGIN), "falsify", "COND.T1", "--budget", "4", "--trials", "8",
                    "--confirm-trials", "64", "--instance-out", str(inst))
    assert run.code == 0, run.err
    line = next(x for x in run.out.splitlines() if x.startswith("finding: "))
    assert line.startswith(f"finding: violated unless {HYP} fails: conditional violation confirmed at evaluation")
    assert "no violation" not in run.out
    # the JSON record carries it; verify --instance gives the same verdict with the hypothesis named
    assert json.loads(inst.read_text())["expect"]["verdict"] == "violated unless"
    again = convbound("--plugin", str(PLUGIN), "verify", "--instance", str(inst), "--json")
    v = json.loads(again.out)[0]
    assert v["verdict"] == "violated unless" and v["unless"] == [HYP] and again.code == 0, again.err
    assert any(f"'{HYP}' fails at this point" in n for n in v["notes"])


def test_stop_at_violation_stops_at_a_conditional_violation():
    from verify.search.falsify import search

    rec = search(_scenario(), budget=16, seed=0, trials=8, confirm_trials=64, population=4, stop_at_violation=True)
    # every admissible point of the searched space (G lost) exceeds its bound: the first generation is claimed
    assert rec.stopped_by == "confirmed conditional violation" and rec.evaluations == 4
    assert rec.first_violation["evaluation"] <= 4 and rec.to_dict()["confirmation"]["unless"] == [HYP]


def test_report_findings_list_conditional_violations_with_their_conditions():
    from reports.document import alerts, summary_rows
    from reports.falsify_section import search_verdict
    from verify.search.falsify import search

    rec = search(_scenario(), budget=4, seed=0, trials=8, confirm_trials=64, population=4).to_dict()
    cert = {"id": "COND.T1", "kind": "certificate", "verdict": "violated unless", "expected": "holds",
            "unless": [HYP], "instance": {"result": "COND.T1"}}
    doc = {"verifications": [cert, {"id": "C.control", "kind": "control", "control": True, "verdict": "violated"}],
           "searches": [{"source": "test", "record": rec}]}
    found = [a.message for a in alerts(doc) if "violated unless" in a.message]
    assert len(found) == 2 and all(HYP in m for m in found)
    row = next(r for r in summary_rows(doc) if r.id == "COND.T1")
    assert row.verdict == "violated unless" and f"unless {HYP} fails" in row.detail
    assert search_verdict({**rec["confirmation"], "admissible": 4}).startswith(f"violated unless {HYP} fails")


OLD = '''
from verify.scenario import Param, Scenario
from verify.scenarios import register

def _build(point):
    raise AssertionError("never built")

SC = Scenario("HOLD3.T1", "FAST.T1", "old style", (Param("x", 0, 1, 0.5),), _build)
register(SC)

def scenarios():
    return [SC]
'''


def test_a_plugin_calling_the_old_registration_gets_one_line_with_cause_and_fix(tmp_path):
    path = tmp_path / "old_plugin.py"
    path.write_text(OLD)
    with pytest.raises(UserInputError) as info:
        plugins.add_files([str(path)])
    text = str(info.value)
    assert "\n" not in text and str(path) in text
    assert "verify.scenarios.register was removed" in text and "scenarios()" in text and "delete" in text
