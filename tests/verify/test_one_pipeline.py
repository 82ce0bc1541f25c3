"""Issue 18 acceptance: one place where an instance becomes evidence.

* every check group of ``verify all`` and a plugin's scenario is scored by the one runner, whose every
  spec goes through ``verify.scenario.evaluate_point`` (counted by a wrapper);
* one (scenario, point, seed) gives one verdict and the same numbers through ``verify``, falsify's
  confirmation, ``verify --instance`` and ``assert_bound_holds``.
"""

import contextlib
import io
import json
import textwrap

import pytest

import verify.scenario
import verify.search.confirmation
import verify.search.falsify
from bounds import plugins
from verify import suite
from verify.checks import Certify, Control, Group, Sweep
from verify.scenarios import get, registry
from verify.search.falsify import INSTANCE_FORMAT, confirm
from verify.testing import assert_bound_holds
from verify.verdict import verdict_of

PLUGIN = '''
from functools import partial

from verify.scenario import Instance, Param, Scenario


def gap_at(sim, n):
    return sim.metrics["gap"][n]


def build(point):
    from quadratics import fedavg, heterogeneous_quadratic, uniform

    n = int(point["n"])
    pb = heterogeneous_quadratic(L=1.0, mu=1.0, d=1, M=2, zeta=0.0, sigma=float(point["sigma"]), D0=1.0)
    return Instance(problem=pb, algorithm=fedavg(eta=0.5, K=1), pattern=uniform(M=2, S=2), rounds=n,
                    values={"L": 1.0, "gamma": 0.5, "n": n, "D2": 1.0}, measure=partial(gap_at, n=n))


def scenarios():
    return [Scenario("ONE.S1", "DT14.T3.1", "GD as a scenario", (Param("n", 1, 20, 4, integer=True),
                                                                 Param("sigma", 0.0, 1.0, 0.1)), build)]
'''


@pytest.fixture
def counted(monkeypatch):
    """evaluate_point wrapped: records (scenario id, point, seed) of every call."""
    calls = []
    real = verify.scenario.evaluate_point

    def wrapper(scenario, point, **kw):
        calls.append((scenario.id, dict(point or {}), "exact" if kw.get("exact_lhs") else kw["seed"]))
        return real(scenario, point, **kw)

    monkeypatch.setattr(verify.scenario, "evaluate_point", wrapper)
    monkeypatch.setattr(verify.search.falsify, "evaluate_point", wrapper)  # imported there by name
    monkeypatch.setattr(verify.search.confirmation, "evaluate_point", wrapper)  # and there (confirm)
    return calls


@pytest.fixture
def plugin_files(tmp_path):
    gd = str(plugins_root() / "docs" / "examples" / "gd_drori_teboulle.py")
    path = tmp_path / "one_plugin.py"
    path.write_text(textwrap.dedent(PLUGIN))
    plugins.add_files([gd, str(path)])
    yield str(path)
    plugins.clear_files()


def plugins_root():
    from pathlib import Path

    return Path(__file__).resolve().parents[2]


def test_every_built_in_group_is_specs_over_registered_scenarios():
    groups = {gid: g for gid, g in suite.registry().items() if g.origin == "built-in"}
    assert len(groups) == 20  # the 15 check groups of `verify all` from the hand-built era + 5 of the SCAFFOLD paper/survey
    assert set(groups) == {"FAST.T1", "FAST.T1.toy1", "FAST.T2", "FAST.T2.adversarial", "FAST.C2.rate",
                           "FAST.C3.rate", "FAST.qfloor.control", "FAST.T1.drift", "F3AST.L3.4", "F3AST.LB.5",
                           "F3AST.naive.control", "F3AST.T3.5", "ASCAF.T1", "ASCAF.LS.rate", "ASCAF.UH.rate",
                           "SCAF.T1.sampling", "SCAF.T2", "SCAF.T3", "SCAF.T4", "SURV.rates"}
    scenarios = registry()
    for gid, g in groups.items():
        assert isinstance(g, Group), gid
        for spec in g.specs:
            refs = [spec.a[0], spec.b[0]] if hasattr(spec, "a") else [spec.scenario]
            assert all(r in scenarios for r in refs), (gid, refs)


@pytest.mark.xdist_group("quick_suite")
def test_every_group_and_a_plugin_scenario_is_scored_through_evaluate_point(counted, plugin_files, quick_groups,
                                                                            quick_calls):
    # the built-in groups: the session's quick run (conftest), whose evaluate_point calls were counted per group
    # as it ran (the same wrapper as ``counted``); the plugin's group runs here
    reg = suite.registry()
    assert "ONE.S1" in reg and reg["ONE.S1"].origin == f"file {plugin_files}"
    for gid in [*suite.select("all")]:
        if not isinstance(reg[gid], Group):
            continue  # the docs example's hand-built Check (a user's own procedure, kept as a contract)
        if gid in quick_groups:
            records, made = quick_groups[gid], list(quick_calls[gid])
        else:
            before = len(counted)
            records = suite.run_group(gid, quick=True, trials=16, device="cpu", seed=2)
            made = counted[before:]
        assert made, f"{gid} made no evaluate_point call"
        # every record names the seeds it ran on, and each was a seed of an evaluate_point call of the group;
        # an exact record (no simulation) came from an exact_lhs call of evaluate_point
        seeds = {s for _, _, s in made}
        for v in records:
            if "error_bound" in v.instance:
                assert "exact" in seeds and v.trials == 0, (gid, v.id)
            else:
                assert set(v.instance.get("seeds", [])) <= seeds and v.instance.get("seeds"), (gid, v.id)
    assert set(quick_groups) == {gid for gid, g in reg.items() if g.origin == "built-in"}  # every built-in group
    plugin = [c for c in counted if c[0] == "ONE.S1"]
    assert len(plugin) == 1 and plugin[0][1] == {}  # its default point (no overrides)


def _verify_cli(*args):
    from reports.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        main(list(args))
    return done.value.code, out.getvalue()


def test_one_point_one_verdict_everywhere(tmp_path, plugin_files):
    # verify: the corrected FAST.T2 certificate of the FAST.T2 group
    (rec,) = [v for v in suite.run_suite("FAST.T2", quick=True, trials=64, device="cpu", seed=4)
              if v.id == "FAST.T2@corrected"]
    sc, point, seed = get(rec.instance["scenario"]), rec.instance["point"], rec.instance["seeds"][0]
    # falsify's confirmation at the same (scenario, point, seed)
    conf, est = confirm(sc, point, trials=rec.trials, seed=seed, device="cpu", level=rec.instance["level"])
    assert conf["verdict"] == rec.verdict == verdict_of(est)[0]
    assert (conf["lhs"], tuple(conf["ci"]), conf["rhs"]) == (rec.lhs, tuple(rec.ci), rec.rhs)
    # verify --instance (the CLI, in-process) on an instance file of that point
    path = tmp_path / "inst.json"
    path.write_text(json.dumps({"format": INSTANCE_FORMAT, "scenario": sc.id, "point": point, "trials": rec.trials,
                                "seeds": [seed], "level": rec.instance["level"], "device": "cpu",
                                "expect": {"verdict": rec.verdict}}))
    code, text = _verify_cli("verify", "--instance", str(path), "--json")
    (again,) = json.loads(text)
    assert code == 0 and again["verdict"] == rec.verdict
    assert (again["lhs"], again["ci"], again["rhs"]) == (rec.lhs, list(rec.ci), rec.rhs)
    # assert_bound_holds on the scenario object: its record's point is scored by the same call
    (fix,) = assert_bound_holds(sc, trials=64, seed=4)
    conf2, _ = confirm(sc, fix.instance["point"], trials=64, seed=fix.instance["seeds"][0], device="cpu")
    assert (conf2["verdict"], conf2["lhs"], tuple(conf2["ci"]), conf2["rhs"]) == (fix.verdict, fix.lhs, fix.ci,
                                                                                     fix.rhs)
    # a plugin's scenario: verify and assert_bound_holds run the same group, so the same seed and numbers
    code, text = _verify_cli("verify", "ONE.S1", "--json", "--trials", "8", "--device", "cpu", "--seed", "4")
    (via_verify,) = json.loads(text)
    (via_fixture,) = assert_bound_holds("ONE.S1", trials=8, seed=4)
    assert code == 0 and via_verify["instance"]["seeds"] == via_fixture.instance["seeds"]
    assert (via_verify["verdict"], via_verify["lhs"], via_verify["ci"]) == (via_fixture.verdict, via_fixture.lhs,
                                                                           list(via_fixture.ci))
    assert any("one instance" in n for n in via_fixture.notes)  # a pass says what it covered


def test_a_control_whose_hypothesis_is_not_broken_is_inapplicable_and_a_sweep_can_fail():
    # the runner's rules can fail: a control at the default point (nothing broken) is a broken control,
    # and a sweep against a wrong exponent is violated
    from verify.checks import Context, run_group

    g = Group("T", (Control("FAST.T2", {}, broken="snapshot probability threshold", id="T.c", title="c", note="n",
                            trials=(8, 8)),
                    Sweep("FAST.C3", axis="R", values=((200, 400, 800),) * 2, exponent=-3.0, tol=0.1, id="T.s",
                          title="s", trials=(16, 16)),
                    Certify("FAST.T2", id="T.cert", trials=(16, 16))))
    c, s, cert = run_group(g, Context(quick=True, seed=0))
    assert c.verdict == "inapplicable" and any("CONTROL BROKEN" in n for n in c.notes)
    assert s.verdict == "violated" and s.rhs == -3.0
    assert cert.verdict == "holds" and any("not a proof" in n for n in cert.notes)


def test_the_problem_draw_follows_the_base_seed_and_wraps_past_its_axis():
    from verify.checks import Context, _point

    sc = get("FAST.T2")
    assert _point(sc, {}, Context(seed=7)) == {"draw": 7}
    assert _point(sc, {}, Context(seed=2**40)) == {"draw": 2**40 % 1000}  # the axis is 0..999
    assert _point(sc, {"draw": 3}, Context(seed=7)) == {"draw": 3}  # a spec that pins it keeps it


def test_every_scenario_and_a_plugins_is_scored_through_evaluate_point_by_the_runner_and_falsify(counted,
                                                                                                 plugin_files):
    from verify.checks import Context, run_group
    from verify.extensions import as_scenario
    from verify.search.falsify import evaluate_points

    plugin = [as_scenario(s) for s in plugins.load_file(plugin_files).scenarios()]
    assert [s.id for s in plugin] == ["ONE.S1"]
    every = list(registry().values())
    assert len(every) >= 19  # the searchable scenarios and the check groups' fixed instances
    for sc in every + plugin:
        before = len(counted)
        (rec,) = run_group(Group(sc.id, (Certify(sc, id=sc.id, trials=(2, 2)),)), Context(quick=True, seed=1))
        assert [c[0] for c in counted[before:]] == [sc.id] and rec.instance["scenario"] == sc.id
    for sc in every:  # falsify's evaluations of the built-in registry
        before = len(counted)
        (summary,) = evaluate_points(sc.id, [{}], [5], trials=2)
        assert [c[0] for c in counted[before:]] == [sc.id] and summary["scenario"] == sc.id
