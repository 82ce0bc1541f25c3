"""`convbound worst-case`: the record, the printed tightness of covering results, and bad input."""

import math

import pytest

pytest.importorskip("PEPit")

ARGS = ("worst-case", "--eta", "0.003", "--K", "2", "--R", "3", "--zeta", "0.1", "--mu", "0.1")


def test_json_record_and_printed_tightness_agree(convbound):
    res = convbound(*ARGS, "--json")
    assert res.code == 0, res.err
    rec = res.json()
    assert rec["certificate"]["status"] == "certified" and rec["parameters"]["M"] == 2
    t2 = next(row for row in rec["coverage"] if row["key"] == "FAST.T2")
    bound = math.exp(-2 * 3 * 0.003 * 0.1) + 8 * 2 * 0.003 * 0.1**2 / 0.1  # FAST Thm 2, q = 1, sigma = 0
    assert abs(t2["ratio"] - rec["value"] / bound) <= 1e-9
    text = convbound(*ARGS)
    assert text.code == 0, text.err
    for key in ("FAST.T2", "FAST.T2@corrected"):
        line = next(ln for ln in text.out.splitlines() if f" {key} " in ln)
        assert f"{t2['ratio']:.4f}" in line and "hold" in line
    covering = sum(row["covers"] == "yes" for row in rec["coverage"])
    assert {"FAST.T2", "FAST.T2@corrected"} <= {row["key"] for row in rec["coverage"] if row["covers"] == "yes"}
    assert f"{covering} encoded result(s) cover or compare" in " ".join(text.out.split())
    assert f"{len(rec['coverage']) - covering} do not" in text.out


@pytest.mark.parametrize("extra,word", [
    (("--eta", "0"), "eta"), (("--eta", "0.1", "--K", "20", "--R", "5"), "too large"),
    (("--eta", "0.1", "--method", "newton"), "method"), (("--eta", "0.1", "--solver", "MOSEK"), "solver"),
    (("--eta", "0.1", "--method", "fast", "--cohort", "3"), "cohort"), (("--eta", "0.1", "--mu", "2"), "mu"),
])
def test_bad_input_is_one_line_and_exit_2(convbound, extra, word):
    res = convbound("worst-case", *extra)
    assert res.code == 2
    assert len(res.err.strip().splitlines()) == 1 and word in res.err


# Issue 22's worst-case inputs: each is one line and exit 2, or a correct answer --------------------------

@pytest.mark.parametrize("extra,word", [
    (("--eta", "1e6"), "grow"), (("--eta", "1e308"), "eta"), (("--zeta", "1e308"), "zeta"),
    (("--eta-g", "1e308"), "eta_g"), (("--zeta", "1e6"), "zeta^2"), (("--sigma", "nan"), "sigma"),
    (("--sigma", "-1"), "sigma"), (("--participation", "uniform:0"), "m=0"), (("--participation", "uniform:3"), "M=2"),
    (("--participation", "bernoulli:1.5"), "probability"), (("--participation", "snapshot:0.5"), "valid"),
    (("--participation", "bogus"), "valid"), (("--participation", "snapshot:0.5,2,sometimes:1"), "rule"),
    (("--method", "fast", "--participation", "uniform:1"), "snapshot"), (("--K", "-1", "--per-round"), "K=-1"),
    (("--sigma", "1e6", "--per-round"), "sigma^2"), (("--eta", "1e-300", "--zeta", "2", "--D0", "1e-6"), "1e-9"),
    (("--eta-g", "1e-12",), "1e-9"),
])
def test_worst_case_bad_values_are_one_line_and_exit_2(convbound, extra, word):
    res = convbound("worst-case", "--eta", "0.5", *extra)
    assert res.code == 2, (res.code, res.out[-300:], res.err)
    assert len(res.err.strip().splitlines()) == 1 and word in res.err, res.err


def test_mu_equal_to_L_is_legal_and_gives_the_quadratic_value(convbound):
    """mu = L: the class is the quadratics L/2||x - a||^2; one GD step of size eta contracts by (1 - eta L)^2."""
    res = convbound("worst-case", "--eta", "0.5", "--mu", "1", "--M", "1", "--json")
    assert res.code == 0, res.err
    rec = res.json()
    assert rec["certificate"]["status"] == "certified" and abs(rec["value"] - 0.25) <= 1e-6


def test_a_huge_client_count_with_full_participation_is_solved_with_two_clients(convbound):
    res = convbound("worst-case", "--eta", "0.5", "--M", str(2**63), "--json")
    assert res.code == 0, res.err
    rec = res.json()
    assert abs(rec["value"] - max(1 - 0.5 * 0.1, 1 - 0.5) ** 2) <= 1e-6 and f"here M={2**63}" in rec["symmetry"]


@pytest.mark.parametrize("extra", [
    ("--R", str(10**22)), ("--R", str(10**30)), ("--K", "10", "--R", "10", "--max-seconds", "nan"),
    ("--K", "10", "--R", "10", "--max-seconds", "inf"), ("--K", "10", "--R", "10"),
    ("--method", "fast", "--R", str(10**9)), ("--K", "100000", "--R", "100000"),
    ("--participation", "bernoulli:0.5", "--M", str(10**6)), ("--participation", "uniform:3", "--M", "6", "--R", "40"),
    ("--max-seconds", "0"), ("--max-seconds", "-1"),
])
def test_oversized_worst_cases_are_refused_fast_with_the_estimate(convbound, extra):
    """Refused before anything is built: under 500 MB of Python allocations (the sizes would need far more)."""
    import time
    import tracemalloc

    tracemalloc.start()
    t0 = time.perf_counter()
    res = convbound("worst-case", "--eta", "0.5", *extra)
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert res.code == 2, (res.out[-300:], res.err)
    assert len(res.err.strip().splitlines()) == 1
    assert ("estimated" in res.err and "would fit" in res.err) or "max-seconds" in res.err, res.err
    assert peak < 500e6, (seconds, peak)


def test_max_seconds_also_bounds_memory():
    """A size within the time limit by the estimate is still refused when its memory estimate exceeds the cap."""
    from bounds.core.errors import UserInputError
    from verify.pep import Setting, check_size, estimate

    s = Setting("local_gd", L=1.0, mu=0.1, zeta=0.5, eta=0.1, K=5, R=5)
    size = estimate(s)
    check_size(s, max_seconds=size.seconds * 2, max_gb=size.gb * 2)
    with pytest.raises(UserInputError, match="memory"):
        check_size(s, max_seconds=size.seconds * 2, max_gb=size.gb / 2)


def test_random_participation_on_the_command_line(convbound):
    """Uniform 1 of 2 with mu = L: the hand-solved value (1-c)^2 D0 + c^2 zeta^2 / L^2, c = 1 - (1 - eta L)^K."""
    res = convbound("worst-case", "--eta", "0.2", "--K", "2", "--mu", "1", "--zeta", "0.5",
                    "--participation", "uniform:1", "--json")
    assert res.code == 0, res.err
    rec = res.json()
    c = 1 - 0.8**2
    assert abs(rec["value"] - ((1 - c) ** 2 + c**2 * 0.25)) <= 1e-6
    assert rec["parameters"]["participation"] == "uniform:1" and "no reduction" in rec["symmetry"]


def test_relaxed_flag_gives_a_certified_upper_bound(convbound):
    exact = convbound("worst-case", "--eta", "0.3", "--K", "2", "--R", "2", "--zeta", "0.5", "--participation",
                      "uniform:1", "--json").json()
    res = convbound("worst-case", "--eta", "0.3", "--K", "2", "--R", "2", "--zeta", "0.5", "--participation",
                    "uniform:1", "--relaxed", "--json")
    assert res.code == 0, res.err
    rec = res.json()
    assert rec["exactness"] == "upper bound" and rec["certificate"]["status"] == "certified"
    assert rec["value"] >= exact["primal_value"] - 1e-8
    bad = convbound("worst-case", "--eta", "0.3", "--method", "scaffold", "--relaxed")
    assert bad.code == 2 and "control variates" in bad.err
