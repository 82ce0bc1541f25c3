"""PEP coverage rules live in the paper modules; compare asks them and reads conventions for the rest."""

from bounds.conventions import read_inputs
from verify.pep.setting import Setting


def test_fast_notation_is_read_through_the_conventions():
    common = {"L": 2.0, "Delta0": 3.0, "D0": 5.0, "zeta_G": 0.5, "tau": 4}
    # FAST's zeta is the initial gap, its kappa the initial squared distance, its K the local steps
    assert read_inputs("FAST.T1", common, ("L", "zeta", "kappa", "sigma_G", "K")) == \
        {"L": 2.0, "zeta": 3.0, "kappa": 5.0, "sigma_G": 0.5, "K": 4}


def test_each_built_in_key_is_answered_by_its_own_paper_module_only():
    from importlib import import_module

    from bounds.registry import all_results
    from verify.scenarios import PAPER_MODULES

    s = Setting("local_gd", L=1.0, mu=0.1, zeta=0.1, eta=0.003, K=2, R=3, M=2)
    rules = {name: import_module(name).pep_coverage for name in PAPER_MODULES}
    for res in all_results():
        answered = [name for name, rule in rules.items() if rule(res.key, s) is not None]
        prefix = res.key.split(".")[0]
        paper = {"FAST": "fast", "F3AST": "f3ast", "ASCAF": "ascaf", "SCAF": "scaffold"}.get(prefix)
        assert answered == ([f"verify.scenarios.{paper}"] if paper else []), (res.key, answered)


def test_a_result_no_paper_answers_for_is_not_compared_unless_its_convention_says_non_convex():
    from verify.pep.compare import rule

    s = Setting("local_gd", L=1.0, mu=0.1, zeta=0.1, eta=0.003, K=2, R=3, M=2)
    covers, why, inputs = rule("DFL.T1", s)  # DFL declares a non-convex gradient-norm convention
    assert covers == "no" and "non-convex" in why and inputs is None
    covers, why, _ = rule("SURV.FEDAVG", s)  # the survey's rows declare no quantity
    assert covers == "no" and why.startswith("no rule relates")
    # FAST.T2 at full participation: covered, its inputs read in FAST's notation (kappa = D0, sigma_G = zeta)
    covers, _, inputs = rule("FAST.T2", s)
    assert covers == "yes" and inputs["kappa"] == s.D0 and inputs["sigma_G"] == 0.1 and inputs["q"] == 1.0
