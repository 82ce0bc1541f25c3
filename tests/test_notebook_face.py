"""The notebook face (issue 18 item 7): every record type has a repr under 200 characters, an HTML
view for Jupyter, results a LaTeX view; `dir(bounds)` lists `get` and `register`.

Before: `repr(bounds.get("FAST.T1"))` was 4,690 characters and no record had `_repr_html_`.
"""

from __future__ import annotations

import numpy as np
import pytest

import bounds
from bounds.core.face import REPR_WIDTH


def _records() -> list[object]:
    from quadratics import fast_mixture
    from rate_region.audit.core import AuditRecord
    from rate_region.availability import make_cap
    from rate_region.modelfile import get_model
    from rate_region.optimum import min_variance_rates
    from rate_region.region import membership
    from verify.pep import Setting, WorstCase
    from verify.record import Verification
    from verify.scenario import Param, Scenario, evaluate_point
    from verify.search.falsify import SearchRecord

    res = bounds.get("FAST.T1")
    rep = res.check(res.example_values)
    long = "x" * 500
    ver = Verification(id="FAST.T1", title=long, verdict="holds", lhs=0.1, ci=(0.09, 0.11), rhs=0.2, ratio=0.5,
                       instance={"problem": long}, trials=64, notes=(long, long))
    scen = Scenario("GD.S", "FAST.T1", "a scenario", tuple(Param(f"axis_{i}_{long[:20]}", 0, 1, default=0.5)
                                                         for i in range(12)), _build)
    est = evaluate_point(scen, {}, trials=2, seed=0, instance=_build({}))
    search = SearchRecord(id="FAST.T2", result="FAST.T2", optimiser="optuna-tpe", seed=0, budget=10, time_limit=None,
                          trials=8, population=4, evaluations=10, admissible=7,
                          best={"point": {f"p{i}": i for i in range(50)}, "score": 0.3},
                          confirmation={"verdict": "holds", "trials": 64}, notes=[long])
    worst = WorstCase(Setting("local_gd", L=1.0, mu=0.1, zeta=0.0, eta=0.1), 0.5, 0.5, "optimal", "CLARABEL",
                      {"status": "certified"}, 0.1, coverage=tuple({"key": long} for _ in range(20)))
    audit = AuditRecord(log={"source": long, "rounds": 10, "clients": 3}, target={}, rates={}, bias={},
                        model={"kind": "independent"}, model_toml="", rstar={}, variance={},
                        checks=[{"check": long, "status": None, "reason": long}])
    model = get_model("table1")
    opt = min_variance_rates(model)
    member = membership(model, make_cap(None, model.cap), opt.r_star)
    pattern = fast_mixture(M=100, m=10, n=5, q=0.3)
    return [res, rep, rep.evaluation, *rep.conditions, ver, scen, est, search, worst, audit, opt, member, pattern]


def _build(point):
    from quadratics import fedavg, heterogeneous_quadratic, uniform
    from verify.scenario import Instance

    pb = heterogeneous_quadratic(L=1.0, mu=1.0, d=1, M=2, zeta=0.0, sigma=0.0, D0=1.0)
    values = dict(L=1, K=1, m=2, n=2, q=1.0, sigma2=0.0, sigma_G2=0.0, zeta=1, R=2, eta_c=0.1)
    return Instance(problem=pb, algorithm=fedavg(eta=0.1, K=1), pattern=uniform(M=2, S=2), rounds=2,
                    values=values, measure=lambda sim: sim.metrics["grad_sq"][1])


@pytest.fixture(scope="module")
def records():
    return _records()


def test_every_record_repr_is_short_and_names_its_type(records):
    for rec in records:
        text = repr(rec)
        assert len(text) <= REPR_WIDTH < 200, (type(rec).__name__, len(text))
        assert text.startswith(type(rec).__name__ + "("), text


def test_every_record_has_an_html_view(records):
    for rec in records:
        if type(rec).__name__ == "Pattern":
            continue  # a pattern is an engine part, not a record
        page = rec._repr_html_()
        assert page.startswith("<div><b>" + type(rec).__name__ + "</b>") and page.endswith("</div>")
        assert "<script" not in page  # user text is escaped


def test_every_result_repr_is_short_and_latex_is_the_conclusion():
    for res in bounds.all_results():
        assert len(repr(res)) < 200, res.key
    res = bounds.get("FAST.T1")
    assert res._repr_latex_() == f"$${res.latex()}$$"
    assert "participation (snapshot)" in res._repr_html_()


def test_a_search_without_a_violation_never_says_holds(records):
    search = next(r for r in records if type(r).__name__ == "SearchRecord")
    assert "holds" not in repr(search) and "no violation among 7 admissible points searched (not a proof)" in repr(search)


def test_bounds_lists_its_lazy_names():
    names = dir(bounds)
    assert {"get", "register", "Result", "all_results"} <= set(names)


def test_register_a_result_built_in_a_cell(monkeypatch):
    import dataclasses

    from bounds.core.errors import UserInputError

    monkeypatch.setattr("bounds.registry._session", {})  # registered for this test only
    mine = dataclasses.replace(bounds.get("FAST.T1"), id="MY.T1")
    got = bounds.register(mine)
    assert bounds.get("MY.T1") is got and got.origin == "registered in this session"
    with pytest.raises(UserInputError, match="registered before"):
        bounds.register(mine)
    with pytest.raises(UserInputError, match="taken by a built-in"):
        bounds.register(bounds.get("FAST.T2"))
    assert bounds.get(mine) is mine  # an object is its own key


def test_library_errors_name_the_parameter_and_the_cli_the_flag(convbound):
    import verify
    from bounds.core.errors import UserInputError

    with pytest.raises(UserInputError, match=r"^trials=1 must be an integer >= 2"):
        verify.run_suite(["FAST.T1"], trials=1)
    code, _, err = convbound("verify", "FAST.T1", "--trials", "1")
    assert code == 2 and "--trials 1 must be an integer >= 2" in err and "trials=1" not in err, err
    code, _, err = convbound("solve", "FAST.T1", "--for", "R", "--target", "-1", *(
        f"{k}={v}" for k, v in dict(L=1, K=5, m=10, n=5, q=0.5, sigma2=1, sigma_G2=0.25, zeta=1, eta_c=0.005).items()))
    assert code == 2 and "--target -1.0 must be a positive finite number" in err, err


def test_values_in_a_repr_are_rounded():
    from bounds.core.face import short

    assert short(np.float64(1 / 3)) == "0.3333" and short(None) == "None" and short(12345678.0) == "1.235e+07"


def test_certificate_takes_a_result_built_in_a_cell():
    # FAST.T1 edited in a cell (one step-size hypothesis, no condition): samples 0.01 against its RHS 0.177
    import dataclasses

    import verify
    from bounds.core.errors import UserInputError

    base = bounds.get("FAST.T1")
    mine = dataclasses.replace(base, id="MY.CELL", participation=(), hypotheses=base.hypotheses[:1])
    rec = verify.certificate(verify.Context(), check_id="MY.CELL", title="cell", key=mine,
                             values=mine.example_values, samples=np.full(8, 0.01), instance={}, trials=8)
    rhs = float(mine.evaluate(mine.example_values).value)
    assert rec.rhs == pytest.approx(rhs) and rec.verdict == "holds" and rec.instance["result"] == "MY.CELL"
    with pytest.raises(UserInputError, match="got int"):
        bounds.get(3)


def test_a_parameter_error_keeps_its_parameter_across_processes():
    import pickle

    from bounds.core.errors import UserInputError

    err = pickle.loads(pickle.dumps(UserInputError("time_limit=0 must be positive", param="time_limit")))
    assert err.param == "time_limit" and err.for_flag({"time_limit": "--time"}) == "--time 0 must be positive"
    assert UserInputError("q=2 is outside [0, 1]").for_flag() == "q=2 is outside [0, 1]"  # no param: as written
