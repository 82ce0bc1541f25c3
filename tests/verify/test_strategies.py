"""Every parameter set the strategies generate passes the bounds checks of its result."""

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import bounds
from bounds import UserInputError
from verify.testing.strategies import params_for

KEYS = [r.key for r in bounds.all_results()]


@pytest.mark.parametrize("key", KEYS)
def test_generated_sets_pass_bounds_checks(key):
    seen = []

    @settings(max_examples=8, database=None, phases=[Phase.explicit, Phase.generate], deadline=None, suppress_health_check=list(HealthCheck))
    @given(params_for(key))
    def run(values):
        report = bounds.get(key).check(values)
        assert report.holds is not False, report.to_dict()["conditions"]
        # None is allowed only for hypotheses that need an unrecovered constant, and for conditions no
        # number can decide (participation, availability), which say so
        for cond in report.conditions:
            if cond.holds is None:
                assert cond.reason.startswith("unverified") or (
                    cond.open == "condition" and cond.reason.startswith("condition, not checked")), cond.reason
        seen.append(values)

    run()
    assert seen


def test_fast_t1_with_q_one_only_leaves_the_g_condition_unverified():
    @settings(max_examples=10, deadline=None, database=None, phases=[Phase.explicit, Phase.generate])
    @given(params_for("FAST.T1", q=st.just(1.0)))
    def run(values):
        conds = bounds.get("FAST.T1").check(values).conditions
        # step caps hold; the q-threshold needs G1..G3; who participates is not an input (unverified)
        assert [c.holds for c in conds] == [True, True, None, None]
        assert conds[-1].name == "participation (snapshot)"
        assert values["q"] == 1.0

    run()


def test_fast_t2_threshold_is_met_not_just_unchecked():
    @settings(max_examples=10, deadline=None, database=None, phases=[Phase.explicit, Phase.generate])
    @given(params_for("FAST.T2"))
    def run(values):
        mu, K, eta, L, sG2 = values["mu"], values["K"], values["eta_c"], values["L"], values["sigma_G"] ** 2
        # independent arithmetic of the printed threshold
        if sG2 > 0:
            assert values["q"] >= 1 - (mu * K * eta - 16 * L**2 * K**2 * eta**2) / (4 * sG2) - 1e-12
        else:
            assert mu * K * eta - 16 * L**2 * K**2 * eta**2 >= 0 or values["q"] == 1.0
        assert eta <= 1 / (20 * max(values["m"], values["n"]) * L * K) * (1 + 1e-12)
        assert mu <= L

    run()


def test_unknown_key_and_symbol():
    with pytest.raises(UserInputError):
        params_for("FAST.T9")
    with pytest.raises(UserInputError):
        params_for("FAST.T1", etta=st.just(1.0))
