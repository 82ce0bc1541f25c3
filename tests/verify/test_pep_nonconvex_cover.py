"""Non-convex tightness rows (verify.pep.nonconvex_cover / _sweep), the report's rows, and the CLI branch."""

import pytest

pytest.importorskip("clarabel")

from verify.pep.nonconvex import NCSetting  # noqa: E402
from verify.pep.nonconvex_bracket import instance_lower_bound  # noqa: E402
from verify.pep.nonconvex_core import solve_nc  # noqa: E402
from verify.pep.nonconvex_cover import coverage_nc  # noqa: E402
from verify.pep.nonconvex_sweep import fit_exponent, report_record_nc  # noqa: E402

FAST = NCSetting("local_gd", L=1.0, zeta=0.3, eta=0.05, K=2, R=1, M=2, measure="avg_grad_sq", hetero="rounds")


def test_fast_t1_ratio_uses_the_hand_evaluated_bound_and_is_proved_below_one():
    w = solve_nc(FAST)
    row = next(r for r in coverage_nc(FAST, w.value, w.certified) if r["key"] == "FAST.T1")
    # q = 1, m = n = 2, sigma = 0: 4 Delta / (K R eta) + 60 L^2 K^2 eta^2 sigma_G^2 = 40 + 60 * 4 * 0.0025 * 0.09
    assert row["bound"] == pytest.approx(40.054, rel=1e-12)
    assert row["ratio"] == pytest.approx(w.value / 40.054) and row["ratio"] <= 1
    assert w.certified and row["verdict"].startswith("proved")


def test_a_bound_below_the_proved_instance_is_reported_violated():
    from verify.pep.nonconvex_cover import _verdict

    lb = instance_lower_bound(FAST)["value"]  # 1 / (1 * 2 * 0.05 + 1/2) = 5/3
    assert lb == pytest.approx(5 / 3)
    assert _verdict(lb / 1.0 * 2, 1.0, True, lb).startswith("violated")
    assert _verdict(2.0, 1.0, True, None).startswith("finding to confirm")
    assert _verdict(2.0, 1.0, False, lb).startswith("not certified")


def test_gradient_results_are_not_order_results_where_a_setting_applies():
    s = NCSetting("scaffold", zeta=0.3, eta=0.05, K=2, R=2, measure="avg_grad_sq0", hetero="rounds")
    rows = {r["key"]: r for r in coverage_nc(s, 1.0, True)}
    assert rows["SCAF.T3@nonconvex"]["covers"] == "order" and rows["ASCAF.T1"]["covers"] == "order"
    # ASCAF.T1 at P = 1, gamma = 1, sigma = 0: Delta / (gamma eta R I) = 1 / (0.05 * 2 * 2) = 5
    assert rows["ASCAF.T1"]["bound"] == pytest.approx(5.0)
    # SCAF.T3@nonconvex with sigma = 0, S = N: R = F beta (N/S)^(2/3) / eps, so eps = 1 / R = 0.5
    assert rows["SCAF.T3@nonconvex"]["bound"] == pytest.approx(0.5, rel=1e-9)
    assert rows["FAST.T1"]["covers"] == "no"
    from verify.pep.compare import reason_not_covered
    from verify.pep.setting import Setting

    why = reason_not_covered("ASCAF.T1", Setting("local_gd", 1.0, 0.1, 0.0, 0.1))
    assert "order result" not in why and "nonconvex" in why


def test_fit_exponent_recovers_a_power_law():
    assert fit_exponent([1, 2, 4, 8], [3 / r**0.5 for r in (1, 2, 4, 8)]) == pytest.approx(-0.5)


def test_report_row_renders_with_its_sweep_and_passes_the_record_check():
    from reports.schema import check_entry
    from reports.worstcase_section import worstcase_section

    rec = report_record_nc(FAST, horizons=(1, 2)).to_dict()
    check_entry("worst_cases", {"source": "test", "record": rec}, "worst_cases[0]")
    html = worstcase_section([rec])
    assert "FAST.T1" in html and "tightness against the horizon" in html and "non-convex" in html


def test_cli_nonconvex_json_and_bad_input(convbound):
    res = convbound("worst-case", "--nonconvex", "--measure", "avg_grad_sq", "--eta", "0.05", "--zeta", "0.3",
                    "--K", "1", "--R", "1", "--json")
    assert res.code == 0, res.err
    rec = res.json()
    assert rec["certified"] and rec["class"] == "L-smooth (non-convex)"
    assert any(c["key"] == "FAST.T1" and c["covers"] == "yes" for c in rec["coverage"])
    bad = convbound("worst-case", "--nonconvex", "--eta", "0.1")  # default measure dist_sq
    assert bad.code == 2 and "min_grad_sq" in bad.err and "Traceback" not in bad.err
    big = convbound("worst-case", "--nonconvex", "--measure", "min_grad_sq", "--eta", "0.1", "--K", "50", "--R",
                    "50", "--max-seconds", "5")
    assert big.code == 2 and "too large" in big.err
