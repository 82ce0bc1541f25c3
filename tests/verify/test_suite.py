"""End-to-end: quick certificates, controls that must fail, the CLI contract (exit codes, JSON)."""

import json
import math

import pytest

from bounds import UserInputError
from verify.record import Verification
from verify.suite import all_ok, run_suite, select


@pytest.fixture(scope="module")
def fast_t2():
    return run_suite("FAST.T2", quick=True, trials=64, device="cpu", seed=0)


def test_fast_t2_certificates_hold_and_hypothesis_controls_fail(fast_t2):
    by_id = {v.id: v for v in fast_t2}
    for key in ("FAST.T2", "FAST.T2@corrected"):
        cert = by_id[key]
        assert cert.verdict == "holds" and cert.ci[1] <= cert.rhs
        assert all(c["holds"] is True for c in cert.conditions)
    for key in ("FAST.T2.control:q-threshold", "FAST.T2.control:q-threshold@corrected"):
        ctl = by_id[key]
        assert ctl.control and ctl.expected == "violated"
        assert ctl.verdict == "violated" and ctl.ci[0] > ctl.rhs
        # the control breaks the named hypothesis: q = 0 below the printed threshold (hand arithmetic)
        x = ctl.instance["result_inputs"]
        thr = 1 - (x["mu"] * x["K"] * x["eta_c"] - 16 * x["L"] ** 2 * x["K"] ** 2 * x["eta_c"] ** 2) / (
            4 * x["sigma_G"] ** 2)
        assert x["q"] == 0.0 < thr
        assert [c["name"] for c in ctl.conditions if c["holds"] is False] == ["snapshot probability threshold"]
        # its RHS is the theorem's own RHS at the control's inputs, not a divided one
        rhs = (math.exp(-x["mu"] * x["K"] * x["R"] * x["eta_c"]) * x["kappa"]
               + 8 / x["mu"] * x["K"] * x["eta_c"] * x["sigma_G"] ** 2
               + 2 / (x["n"] * x["mu"]) * x["eta_c"] * x["sigma"] ** 2
               + (1 - x["q"]) / (2 * x["mu"]) * x["K"] * x["eta_c"] * (x["sigma_G"] ** 2 if "@" in key else 1))
        assert ctl.rhs == pytest.approx(rhs, rel=1e-9)
    assert all_ok(fast_t2)


def test_fast_t2_rhs_matches_hand_arithmetic(fast_t2):
    cert = next(v for v in fast_t2 if v.id == "FAST.T2")
    x = cert.instance["result_inputs"]
    mu, L, K, m, n, q, R, eta = (x[k] for k in ("mu", "L", "K", "m", "n", "q", "R", "eta_c"))
    import math

    rhs = (math.exp(-mu * K * R * eta) * x["kappa"] + (1 - q) / (2 * mu) * K * eta
           + 8 / mu * K * eta * x["sigma_G"] ** 2 + 2 * (q * n + (1 - q) * m) / (m * n * mu) * eta * x["sigma"] ** 2)
    assert cert.rhs == pytest.approx(rhs, rel=1e-12)


def test_same_seed_same_numbers(fast_t2):
    again = run_suite("FAST.T2", quick=True, trials=64, device="cpu", seed=0)
    assert [v.lhs for v in again] == [v.lhs for v in fast_t2]


def test_f3ast_lemma_b5_identity_and_naive_bias():
    res = {v.id: v for v in run_suite(["F3AST.LB.5", "F3AST.naive.control"], quick=True, trials=4000)}
    assert res["F3AST.LB.5"].verdict == "holds"
    assert res["F3AST.LB.5.control:other-law"].verdict == "violated"
    assert res["F3AST.naive.naive-average"].verdict == "violated"
    assert res["F3AST.naive.f3ast-weights"].verdict == "holds"


def test_fast_t2_finding_published_holds_corrected_violated():
    res = {v.id: v for v in run_suite("FAST.T2.adversarial", quick=True, trials=128, seed=1)}
    pub, cor = res["FAST.T2.adversarial"], res["FAST.T2.adversarial@corrected"]
    assert all(c["holds"] is True for c in cor.conditions)  # every printed hypothesis holds (q = 0 admitted)
    assert pub.verdict == "holds" and cor.verdict == "violated"
    assert any(n.startswith("FINDING") for n in cor.notes)


def test_records_round_trip_through_json(fast_t2):
    text = json.dumps([v.to_dict() for v in fast_t2], allow_nan=False)
    back = [Verification.from_dict(d) for d in json.loads(text)]
    assert [b.verdict for b in back] == [v.verdict for v in fast_t2]


def test_select_by_prefix_and_unknown():
    assert set(select("FAST")) >= {"FAST.T1", "FAST.T2"}
    with pytest.raises(UserInputError, match="did you mean"):
        select("FAST.T3")
    with pytest.raises(UserInputError):
        run_suite("FAST.T2", trials=1)


@pytest.mark.xdist_group("quick_suite")
def test_quick_suite_acceptance(quick_suite):
    results = list(quick_suite)  # run_suite("all", quick=True, device="cpu", seed=0), shared (conftest)
    certs = [v for v in results if not v.control]
    controls = [v for v in results if v.control]
    # the only violated certificate is the documented finding on the corrected variant of FAST Theorem 2
    assert [v.id for v in certs if v.verdict == "violated"] == ["FAST.T2.adversarial@corrected"]
    assert all(v.verdict != "violated" for v in certs if v.variant == "published")
    assert controls and all(v.verdict == "violated" for v in controls), [(v.id, v.verdict) for v in controls]
    # every control outside a hypothesis names it; none divides the RHS
    named = [v for v in controls if "broken_hypothesis" in v.instance or any("broken" in n for n in v.notes)]
    assert len(named) >= 8
    assert not any("divided" in n for v in controls for n in v.notes)
    from verify.suite import control_ids

    assert sorted(control_ids(quick=True)) == sorted(v.id for v in controls)
    assert all(v.ok for v in results), [(v.id, v.verdict, v.expected) for v in results if not v.ok]
    assert [v.id for v in results if v.verdict == "pending"] == []


def test_cli_json_and_exit_codes(convbound):
    # the command in this process (a subprocess is not the point): a traceback would fail the test as an exception
    ok = convbound("verify", "F3AST.LB.5", "--quick", "--trials", "2000", "--json")
    assert ok.code == 0, ok.err
    data = ok.json()
    assert {d["id"] for d in data} == {"F3AST.LB.5", "F3AST.LB.5.control:other-law", "F3AST.LB.5.exact",
                                       "F3AST.LB.5.exact.control:other-law"}
    for d in data:
        for key in ("id", "verdict", "lhs", "ci", "rhs", "ratio", "instance", "control"):
            assert key in d
    bad = convbound("verify", "NOPE")
    assert bad.code == 2 and "unknown check id" in bad.err and "Traceback" not in bad.err
    bad_trials = convbound("verify", "FAST.T2", "--trials", "1")
    assert bad_trials.code == 2 and "Traceback" not in bad_trials.err
