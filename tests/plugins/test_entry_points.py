"""Acceptance: a throwaway package with entry points for a result, an algorithm and a check is seen by
`convbound list`, `check`, `simulate`, `verify` and `report`, with its origin.

The package is made visible the way an installed distribution is: a ``*.dist-info`` folder with
``entry_points.txt`` on the path, which ``importlib.metadata`` reads exactly as it reads what
``pip install`` writes. It lives on the PYTHONPATH of subprocesses only, so the shared environment is
never modified (a real ``pip install`` would add the demo to every other test run while installed).
"""

import json
import textwrap

import pytest
from plugin_helpers import run_cli

PACKAGE = '''
import time

from bounds import Domain, Kind, Provenance, Result, SymbolInfo, Term, sym
from quadratics.registry import Key, Spec
from verify import Check, Context, certificate

T = sym("T", Domain.POSITIVE_INTEGER)


def results():
    return [Result(id="DEMO.T1", title="demo: 1/T", paper="demo", kind=Kind.UPPER, lhs="||x_T - x*||^2",
                   lhs_latex="d_T", terms=(Term("rate", 4 / T),), symbols=(SymbolInfo("T", "rounds", Domain.POSITIVE_INTEGER),),
                   provenance=Provenance("demo", "Theorem 1"), example=(("T", 8),))]


def algorithms():
    from quadratics import fedavg
    return [Spec(lambda eta: fedavg(eta=eta, K=1), {"eta": Key(float, 0.5, "step")}, "demo GD", name="demo_gd")]


def _run(ctx: Context):
    from quadratics import fedavg, heterogeneous_quadratic, uniform
    t0 = time.perf_counter()
    pb = heterogeneous_quadratic(L=1.0, mu=1.0, d=1, M=2, zeta=0.0, sigma=0.0, D0=1.0)
    sim = ctx.simulate(pb, fedavg(eta=0.5, K=1), uniform(M=2, S=2), 2, 8)
    return [certificate(ctx, check_id="DEMO.T1", title="demo certificate", key="DEMO.T1", values={"T": 8},
                        samples=sim.metrics["dist_sq"][8], instance={}, trials=2, started=t0)]


def scenarios():
    return [Check("DEMO.T1", _run, title="demo", result="DEMO.T1")]
'''


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    (root / "convbound_demo_plugin.py").write_text(PACKAGE, encoding="utf-8")
    info = root / "convbound_demo_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: convbound-demo-plugin\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(textwrap.dedent("""
        [convbound.results]
        demo = convbound_demo_plugin:results
        [convbound.algorithms]
        demo = convbound_demo_plugin:algorithms
        [convbound.scenarios]
        demo = convbound_demo_plugin
    """), encoding="utf-8")
    return root


ORIGIN = "entry point demo (convbound-demo-plugin)"


def test_list_check_show(site):
    out = run_cli(["list", "--json"], extra_path=[site])
    assert out.returncode == 0, out.stderr
    assert {r["key"]: r["origin"] for r in json.loads(out.stdout)}["DEMO.T1"] == ORIGIN
    out = run_cli(["check", "DEMO.T1", "T=8", "--json"], extra_path=[site])
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["value"] == 0.5 and json.loads(out.stdout)["origin"] == ORIGIN  # 4 / 8
    out = run_cli(["show", "DEMO.T1"], extra_path=[site])
    assert ORIGIN in " ".join(out.stdout.split())


def test_simulate_with_plugin_algorithm(site):
    out = run_cli(["simulate", "--problem", "quadratic", "--algorithm", "demo_gd", "L=1", "mu=1", "d=1", "M=2",
                   "zeta=0", "sigma=0", "S=2", "--trials", "2", "--rounds", "8", "--json", "--device", "cpu"],
                  extra_path=[site])
    assert out.returncode == 0, out.stderr
    assert abs(json.loads(out.stdout)["final"]["dist_sq"]["mean"] - 0.25**8) < 1e-12  # (1 - 0.5)^2 per round


def test_verify_and_report_show_the_check_with_origin(site, tmp_path):
    out = run_cli(["verify", "DEMO.T1", "--json", "--device", "cpu"], extra_path=[site])
    assert out.returncode == 0, out.stderr
    (rec,) = json.loads(out.stdout)
    assert rec["verdict"] == "holds" and rec["instance"]["origin"] == ORIGIN
    assert abs(rec["lhs"] - 0.25**8) < 1e-12 and rec["rhs"] == 0.5
    out = run_cli(["verify", "DEMO.T1", "--device", "cpu"], extra_path=[site])
    assert f"origin: {ORIGIN}" in " ".join(out.stdout.split())
    target = tmp_path / "rep"
    out = run_cli(["report", "--quick", "--only", "DEMO.T1", "--out", str(target), "--device", "cpu"], extra_path=[site])
    assert out.returncode == 0, out.stderr
    doc = json.loads((target / "results.json").read_text(encoding="utf-8"))
    assert [r["origin"] for r in doc["results"] if r["key"] == "DEMO.T1"] == [ORIGIN]
    assert [v["instance"]["origin"] for v in doc["verifications"] if v["id"] == "DEMO.T1"] == [ORIGIN]
    html = (target / "index.html").read_text(encoding="utf-8")
    assert f"origin {ORIGIN}" in html


def test_entry_point_clash_is_exit_2(site, tmp_path):
    dup = tmp_path / "dup.py"
    dup.write_text("from convbound_demo_plugin import results\n", encoding="utf-8")
    out = run_cli(["--plugin", str(dup), "list"], extra_path=[site])
    assert out.returncode == 2 and ORIGIN in out.stderr and str(dup) in out.stderr and "DEMO.T1" in out.stderr


def test_broken_entry_point_is_exit_2(tmp_path):
    info = tmp_path / "broken_demo-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-demo\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[convbound.results]\nbroken = no_such_module_xyz:results\n", encoding="utf-8")
    out = run_cli(["list"], extra_path=[tmp_path])
    assert out.returncode == 2 and "entry point broken (broken-demo)" in out.stderr
    assert "no_such_module_xyz" in out.stderr and "Traceback" not in out.stderr
