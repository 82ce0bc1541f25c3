"""`show`, `check` and `decide` agree on a result's decision, name the paper, and carry what a result rests on."""

from __future__ import annotations

T1 = ["L=1", "K=5", "m=10", "n=5", "q=0.5", "sigma2=1", "sigma_G2=0.25", "zeta=1", "R=1000", "eta_c=0.005"]


def _flat(text: str) -> str:
    return " ".join(text.split())


def _decided(convbound, key: str) -> dict:
    run = convbound("decide", key, "--no-live-pep", "--json")
    assert run.code == 0, run.err
    (d,) = run.json()
    return d


def test_show_leads_with_the_decision_names_the_paper_and_points_to_the_erratum(convbound):
    t1 = _decided(convbound, "FAST.T1")
    assert t1["outcome"].startswith("refuted unless")
    out = _flat(convbound("show", "FAST.T1").out)
    assert out.index(f"decision: {t1['outcome']}") < out.index("paper: ")  # the decision first
    for needle in ("Zhe Li", "Haibo Yang", "FAST: A Lightweight Mechanism Unleashing Arbitrary Client Participation",
                   "Theorem 1", "convbound erratum FAST.T1",
                   "at q = 1 it can fail only with a threshold above 1, which would leave the theorem no admissible q"):
        assert needle in out, needle
    # the searches are listed as evidence: one that held at its own best point says so beside the refutation
    assert "best point holds, ratio" in out and "(at its own best point; the result is refuted at another" in out
    as_json = convbound("show", "FAST.T1", "--json").json()
    assert as_json["decision"]["outcome"] == t1["outcome"] and as_json["provenance"]["paper"]["authors"].startswith("Zhe Li")
    # the seed file is named as the transcription read, not as the source
    assert "source: 000_" not in out and "seed text: 000_cd604f43d63aca60.txt" in out


def test_show_of_a_corollary_carries_the_theorem_it_rests_on(convbound):
    t1 = _decided(convbound, "FAST.T1")
    for key in ("FAST.C1", "FAST.C2@printed"):
        out = _flat(convbound("show", key).out)
        assert f"rests on FAST.T1: {t1['outcome']} (see 'convbound erratum FAST.T1')" in out, key
        assert f"decision: {_decided(convbound, key)['outcome']} " in out
        assert "erratum: convbound erratum " + key not in out  # its own decision is not a refutation


def test_show_of_a_result_no_search_refutes_has_no_erratum(convbound):
    d = _decided(convbound, "F3AST.L3.4@eq6")
    assert not d["outcome"].startswith("refuted")
    out = _flat(convbound("show", "F3AST.L3.4@eq6").out)
    assert f"decision: {d['outcome']} " in out and "erratum" not in out
    assert "Ribero" in out and "IEEE Journal of Selected Topics in Signal Processing" in out


def test_check_prints_the_decision_first_and_carries_it_in_json(convbound):
    t1 = _decided(convbound, "FAST.T1")
    run = convbound("check", "FAST.T1", *T1, "--json")
    assert run.code == 0
    d = run.json()["decision"]
    assert d["outcome"] == t1["outcome"] and d["erratum"] == "convbound erratum FAST.T1"
    assert d["minimal_instance"] == t1["minimal_instance"] and d["conditions_meaning"] == t1["conditions_meaning"]
    text = _flat(convbound("check", "FAST.T1", *T1).out)
    assert text.index("decision: refuted unless") < text.index("at these values (one instance") < text.index("bound =")
    c1 = convbound("check", "FAST.C1", "m=10", "n=5", "q=0.5", "K=5", "R=1000", "L=1", "--json").json()["decision"]
    assert [(r["id"], r["outcome"]) for r in c1["rests_on"]] == [("FAST.T1", t1["outcome"])]


def test_decide_carries_the_decision_a_result_rests_on(convbound):
    t1 = _decided(convbound, "FAST.T1")
    c2 = _decided(convbound, "FAST.C2@corrected")
    assert [(r["id"], r["outcome"]) for r in c2["rests_on"]] == [("FAST.T1", t1["outcome"])]
    out = _flat(convbound("decide", "FAST.C2@corrected", "--no-live-pep").out)
    assert "rests on FAST.T1: refuted unless" in out
