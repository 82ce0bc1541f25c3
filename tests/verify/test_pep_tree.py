"""The tree PEP (verify.pep.tree): interpolation along root-to-leaf paths, one PSD cone per path clique.

Checked against the dense PEP (verify.pep.solve, cvxpy over one Gram matrix: another code path): equal at R = 1
and 2 (at R = 1 no pair is dropped), an upper bound at R = 3 (measured above the dense value where steps are
large), below the per-round bound, its certificate refused when perturbed; the R = 5 comparison is read from
the benchmark record (tests/benchmarks/bench_pep_tree_r5.py), as the R = 4 test reads its own.
"""

import json
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("clarabel")

from bounds.core.errors import UserInputError  # noqa: E402
from verify.pep import Law, Setting, solve  # noqa: E402
from verify.pep.tree import build_tree, recheck_tree, solve_tree, solve_tree_sdp  # noqa: E402

ONE_OF_TWO = dict(method="local_gd", L=1.0, mu=0.1, zeta=0.1, M=2, law=Law("uniform", m=1))
RECORD = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "pep_tree_r5.json"
R4_RECORD = RECORD.with_name("pep_lyapunov_r4.json")


def test_kept_pairs_by_hand_and_equal_to_the_dense_pep_at_r_1_and_2():
    """K = 1, R = 2 under 1 of 2: nodes (), (0,), (1,); each client has x* and 3 points, 4 * 3 = 12 ordered pairs;
    the two children lie on different paths, so their 2 ordered pairs go: 10 kept per client, 20 in all."""
    s = Setting(eta=0.8, K=1, R=2, **ONE_OF_TWO)
    size = build_tree(s).size()
    assert (size["inequalities"], size["inequalities_dense"], size["branch_nodes"]) == (20, 24, 3)
    for R in (1, 2):
        tree, dense = solve_tree(replace(s, R=R)), solve(replace(s, R=R), with_coverage=False)
        assert tree["certificate"]["status"] == "certified" and dense.certificate["status"] == "certified"
        assert tree["bound"] == pytest.approx(dense.value, abs=1e-7)


def test_an_upper_bound_on_the_dense_worst_case_and_below_the_per_round_bound():
    """R = 3 with large steps: the dense value 0.62577 (cross-branch pairs kept) lies below the tree's 0.62620
    (measured): dropping constraints can only raise the value, and here it does; the per-round bound, whose
    one-round certificate every kept path satisfies, lies above both."""
    from verify.pep.lyapunov import certificate, horizon_bound

    s = Setting(eta=0.8, K=1, R=3, **ONE_OF_TWO)
    tree, dense = solve_tree(s), solve(s, with_coverage=False)
    assert tree["certificate"]["status"] == "certified"
    assert tree["bound"] >= dense.primal_value
    assert tree["primal"] - dense.value > 1e-4  # a relaxation here, not the exact worst case
    assert horizon_bound(certificate(replace(s, R=1)), 1.0, 3) >= tree["bound"]


def test_a_perturbed_certificate_is_refused():
    s = Setting(eta=0.8, K=1, R=2, **ONE_OF_TWO)
    t = build_tree(s)
    sol = solve_tree_sdp(t)
    assert recheck_tree(t, sol)["ok"]
    short = replace(sol, beta=sol.beta * 0.9)  # a smaller multiplier on ||x_0 - x*||^2 <= D0: S loses PSD-ness
    rc = recheck_tree(t, short)
    assert not rc["ok"] and "not positive definite" in rc["reason"]


def test_an_oversized_tree_is_refused_up_front_with_its_estimate():
    """R = 12 under 1 of 2: 4,095 nodes, d = 2 + 10 * 4,095 = 40,952 Gram rows: refused before anything is built."""
    with pytest.raises(UserInputError, match=r"too large: 4\.1e\+04 Gram rows, estimated .* s of CPU") as err:
        solve_tree(Setting(eta=0.001, K=5, R=12, **ONE_OF_TWO))
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("change", [dict(law=Law("full")), dict(method="scaffold"), dict(sigma=0.1), dict(mu=1.0),
                                    dict(measure="gap")])
def test_settings_outside_the_route_are_one_line(change):
    with pytest.raises(UserInputError, match="the tree route supports") as err:
        solve_tree(Setting(**{**ONE_OF_TWO, "eta": 0.1, "K": 1, "R": 2, **change}))
    assert "\n" not in str(err.value)


def test_r_5_record_the_per_round_bound_lies_above_the_finite_worst_case():
    """R = 5 under 1 of 2 (31 nodes, 310 gradient evaluations): the dense PEP is estimated at hours and ~58 GB,
    the tree route's measured run is recorded. Today's per-round certificate must give the recorded bound, and
    it must lie above the tree's proved upper bound (so above the finite worst case: a proof at R = 5); at R = 4
    the tree agrees with the dense record to its trace-weight slack."""
    from verify.pep.lyapunov import certificate, horizon_bound

    rec = json.loads(RECORD.read_text(encoding="utf-8"))
    plain = {k: v for k, v in ONE_OF_TWO.items() if k != "law"}
    assert rec["setting"] == {**plain, "eta": 0.001, "K": 5, "R": 1, "law": {"kind": "uniform", "m": 1}}
    rows = {row["R"]: row for row in rec["rows"]}
    s = Setting(eta=0.001, K=5, R=1, **ONE_OF_TWO)
    lines = certificate(s)
    r5 = rows[5]
    size = r5["tree"]["size"]
    assert (size["branch_nodes"], size["gram_rows"]) == (31, 1 + 1 + 2 * 5 * 31)
    assert r5["peak_gb"] < 24 and r5["tree"]["certificate"]["status"] == "certified"
    bound = horizon_bound(lines, 1.0, 5)
    assert bound == pytest.approx(r5["horizon_bound"], rel=1e-9)
    assert bound >= r5["tree"]["bound"] >= r5["tree"]["primal"]
    dense = json.loads(R4_RECORD.read_text(encoding="utf-8"))["finite"]
    r4 = rows[4]["tree"]
    assert r4["primal"] == pytest.approx(dense["primal_value"], abs=2e-8)
    assert dense["primal_value"] - 2e-8 <= r4["bound"] <= dense["value"]
