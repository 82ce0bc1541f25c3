"""The client-drift check group: a heterogeneity effect on distinct Hessians, none on a shared one."""

from verify.suite import run_suite, select


def test_drift_effect_is_measured_and_certified():
    out = {v.id: v for v in run_suite("FAST.T1.drift", quick=True, trials=16, device="cpu")}
    assert set(out) == {"FAST.T1.drift@zeta0", "FAST.T1.drift", "FAST.T1.drift.effect",
                        "FAST.T1.drift.effect.control:shared-hessian", "FAST.T1.drift.control:step-cap@zeta0",
                        "FAST.T1.drift.control:step-cap"}
    # every holding certificate has a control that fails (the report's rule: nothing unchecked)
    for cid in ("FAST.T1.drift.control:step-cap@zeta0", "FAST.T1.drift.control:step-cap"):
        assert out[cid].control and out[cid].verdict == "violated" and out[cid].instance["point"]["eta_frac"] == 300
    assert all(v.ok for v in out.values()), {k: v.verdict for k, v in out.items()}
    z0, z = out["FAST.T1.drift@zeta0"], out["FAST.T1.drift"]
    assert z.ci[0] > z0.ci[1]  # the acceptance: intervals apart, heterogeneity visible in the LHS
    eff = out["FAST.T1.drift.effect"]
    assert eff.instance["b"]["lhs"][1] > eff.instance["a"]["lhs"][2]  # the effect: zeta = 4 above zeta = 0
    ctl = out["FAST.T1.drift.effect.control:shared-hessian"]
    assert ctl.instance["b"]["point"]["mix"] == 0.0 and ctl.instance["a"]["point"]["zeta"] == 0.0
    lo, hi = ctl.instance["b"]["lhs"][1:], ctl.instance["a"]["lhs"][1:]
    assert lo[0] <= hi[1] and hi[0] <= lo[1]  # shared Hessian at the same zeta: no measurable drift
    # the control breaks "client Hessians differ": the same rule must find no effect, its interval holds 0
    assert ctl.control and ctl.expected == "violated" and ctl.verdict == "violated"
    assert ctl.ci[0] <= 0.0 <= ctl.ci[1] or lo[0] <= hi[1]
    assert "FAST.T1.drift" in select("FAST")
