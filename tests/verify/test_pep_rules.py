"""PEP coverage rules are declared beside the results (bounds); verify.pep asks them and names no paper."""

import re
from pathlib import Path

import pytest

from bounds.conventions import read_inputs
from verify.pep.setting import Setting

ROOT = Path(__file__).resolve().parents[2]
S = Setting("local_gd", L=1.0, mu=0.1, zeta=0.1, eta=0.003, K=2, R=3, M=2)


def test_fast_notation_is_read_through_the_conventions():
    common = {"L": 2.0, "Delta0": 3.0, "D0": 5.0, "zeta_G": 0.5, "tau": 4}
    # FAST's zeta is the initial gap, its kappa the initial squared distance, its K the local steps
    assert read_inputs("FAST.T1", common, ("L", "zeta", "kappa", "sigma_G", "K")) == \
        {"L": 2.0, "zeta": 3.0, "kappa": 5.0, "sigma_G": 0.5, "K": 4}


def test_each_built_in_rule_is_its_own_paper_modules_declaration():
    from importlib import import_module

    from bounds.plugins import BUILT_IN
    from bounds.registry import _index, all_results, pep_rule

    declared = {}
    for res in (r for r in all_results() if r.origin == BUILT_IN):  # another test's results are not the papers'
        module = import_module(_index()[res.key][0])
        own = getattr(module, "pep_rule", None)
        assert pep_rule(res) == (None if own is None else own(res.key)), res.key
        declared[res.key] = pep_rule(res)
    # which results speak of worst cases, by paper: FAST, F3AST, Amplified SCAFFOLD and SCAFFOLD answer for every
    # result at strongly convex settings; Democratic FL only at non-convex ones; the survey not at all
    for key, rule in declared.items():
        prefix = key.split(".")[0]
        assert (rule is not None and rule.convex is not None) == (prefix in ("FAST", "F3AST", "ASCAF", "SCAF")), key
    nonconvex = [k for k, r in declared.items() if r is not None and r.nonconvex is not None]
    assert sorted(nonconvex) == ["ASCAF.T1", "DFL.T1", "FAST.T1", "SCAF.T1@nonconvex", "SCAF.T3@nonconvex"]


def test_a_result_whose_rule_is_silent_is_not_compared_unless_its_convention_says_non_convex():
    from verify.pep.compare import rule

    cover = rule("DFL.T1", S)  # DFL declares a non-convex gradient-norm convention, no strongly convex rule
    assert cover.covers == "no" and "non-convex" in cover.reason and cover.inputs is None
    cover = rule("SURV.FEDAVG", S)  # the survey's rows declare no quantity
    assert cover.covers == "no" and cover.reason.startswith("no rule relates")
    # FAST.T2 at full participation: covered, its inputs read in FAST's notation (kappa = D0, sigma_G = zeta)
    cover = rule("FAST.T2", S)
    assert cover.covers == "yes" and cover.inputs["kappa"] == S.D0 and cover.inputs["sigma_G"] == 0.1
    assert cover.inputs["q"] == 1.0 and cover.inputs["m"] == cover.inputs["n"] == 2


def _names_in_sources(names, folder):
    found = {}
    for path in sorted(folder.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        hits = sorted(n for n in names if re.search(rf"(?<![\w.]){re.escape(n)}(?![\w])", text))
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    return found


def test_no_module_of_verify_pep_names_a_result():
    from bounds.registry import all_results

    names = {r.key for r in all_results()} | {r.id for r in all_results()}
    assert _names_in_sources(names, ROOT / "verify" / "pep") == {}
    # the same search finds the keys where the rules live, or the assertion above proves nothing
    assert "FAST.T2" in _names_in_sources(names, ROOT / "bounds").get("bounds/fast_pep.py", [])


PLUGIN = '''
from bounds import Kind, Provenance, Result, SymbolInfo, Term, sym
from bounds.pep_cover import Cover, PepRule
from bounds.statement import ParticipationAssumption

L, D0 = sym("L"), sym("D0")


def at(s):
    if s.measure != "dist_sq":
        return Cover("no", "mine measures the squared distance")
    return Cover("yes", "my class contains the PEP's", {"L": s.L, "D0": s.D0},
                 {"snapshot": (True, "my law is a snapshot law")})


def results():
    common = dict(paper="mine", lhs="E||x_R - x*||^2", lhs_latex="E", terms=(Term("all", 2 * L * D0),),
                  symbols=(SymbolInfo("L", "smoothness"), SymbolInfo("D0", "initial distance")),
                  provenance=Provenance("mine", "Thm 1"))
    return [Result(id="MY.PEP", title="declares a rule", kind=Kind.UPPER,
                   participation=(ParticipationAssumption("snapshot", (), "snapshot rounds"),),
                   pep=PepRule(convex=at, nonconvex=Cover("order", "an order reading", {"L": 1.0, "D0": 4.0})),
                   **common),
            Result(id="MY.SILENT", title="declares none", kind=Kind.UPPER, **common)]
'''


def test_a_plugin_result_that_declares_a_rule_is_covered(tmp_path, monkeypatch):
    from bounds import plugins
    from bounds.pep_cover import NO_RULE
    from verify.pep.compare import coverage
    from verify.pep.nonconvex import NCSetting
    from verify.pep.nonconvex_cover import coverage_nc

    path = tmp_path / "mine.py"
    path.write_text(PLUGIN, encoding="utf-8")
    plugins.add_files([str(path)])
    try:
        s = Setting("local_gd", L=2.0, mu=0.1, zeta=0.1, eta=0.1, D0=3.0)
        rows = {r["key"]: r for r in coverage(s, 0.6)}
        mine = rows["MY.PEP"]
        # bound 2 L D0 = 12 at the rule's inputs, ratio 0.6 / 12; the snapshot assumption decided as declared
        assert mine["covers"] == "yes" and mine["bound"] == pytest.approx(12.0) and mine["ratio"] == pytest.approx(0.05)
        assert mine["hypotheses"] == {"participation (snapshot)": True} and mine["hypotheses_hold"] is True
        assert rows["MY.SILENT"]["covers"] == "no" and rows["MY.SILENT"]["reason"] == NO_RULE
        gap = {r["key"]: r for r in coverage(Setting("local_gd", L=2.0, mu=0.1, zeta=0.1, eta=0.1, measure="gap"), 1)}
        assert gap["MY.PEP"]["covers"] == "no" and "bound" not in gap["MY.PEP"]
        # the non-convex rows: only results whose rule speaks of that class, the order reading 2 * 1 * 4 = 8
        nc = {r["key"]: r for r in coverage_nc(NCSetting("local_gd", eta=0.1, measure="avg_grad_sq"), 2.0, True)}
        assert nc["MY.PEP"]["covers"] == "order" and nc["MY.PEP"]["bound"] == pytest.approx(8.0)
        assert nc["MY.PEP"]["ratio"] == pytest.approx(0.25) and "MY.SILENT" not in nc
    finally:
        plugins.clear_files()


def test_a_built_in_row_follows_its_paper_modules_declaration(monkeypatch):
    from verify.pep.compare import coverage

    before = {r["key"]: r["covers"] for r in coverage(S, 1.0)}
    assert before["FAST.T2"] == before["FAST.T2@repaired"] == "yes"
    monkeypatch.setattr("bounds.fast.pep_rule", lambda key: None)  # FAST's module declares nothing now
    after = {r["key"]: r for r in coverage(S, 1.0)}
    assert after["FAST.T2"]["covers"] == "no" and "bound" not in after["FAST.T2"]
    assert after["FAST.T2@repaired"]["covers"] == "yes"  # declared by bounds.fast_repaired, untouched
