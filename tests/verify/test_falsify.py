"""Scenarios and falsify: admissibility, the winner's-curse rule, determinism, replay, bad input."""

import json
import math
import subprocess
import sys
from functools import partial

import numpy as np
import pytest

from bounds import UserInputError
from verify.scenario import Instance, Param, Scenario, evaluate_point
from verify.scenarios import get
from verify.scenarios.fast import build_t2
from verify.search.falsify import confirm, load_instance, replay, search, search_seeds


def test_param_coerce_and_point_errors():
    p = Param("K", 1, 8, 2, integer=True)
    assert p.coerce(3.0) == 3 and isinstance(p.coerce(3.0), int)
    with pytest.raises(UserInputError, match="outside its range"):
        p.coerce(9)
    assert p.coerce(9, outside=True) == 9
    with pytest.raises(UserInputError, match="integer"):
        p.coerce(2.5)
    with pytest.raises(UserInputError, match="has no parameter"):
        get("FAST.T2").point({"nope": 1})


def test_inadmissible_point_is_never_scored():
    # mu/L = 0.3 pushes the printed q-threshold above 1: no q is admissible, so q = 1 breaks it
    est = evaluate_point(get("FAST.T2@corrected"), {"mu_frac": 0.3, "het": 0.16, "M": 2, "n_frac": 0.5},
                         trials=8, seed=0)
    assert est.hypotheses is False and est.broken == ["snapshot probability threshold"]
    assert est.score is None


def test_default_point_threshold_and_q_by_hand():
    est = evaluate_point(get("FAST.T2"), {}, trials=4, seed=0)
    x = est.values
    eta = 1 / (20 * 2 * 1.0 * 2)  # the 1/(20 max(m,n) L K) cap at m = n = 2, K = 2, L = 1
    thr = 1 - (x["mu"] * 2 * eta - 16 * 4 * eta**2) / (4 * x["sigma_G"] ** 2)
    assert x["eta_c"] == pytest.approx(eta, rel=1e-12)
    assert x["q"] == pytest.approx(max(thr, 0) + 0.5 * (1 - max(thr, 0)), rel=1e-12)
    assert x["R"] == 200 and est.hypotheses is True


def test_search_seeds_are_disjoint_and_deterministic():
    seeds, conf = search_seeds(7, 500)
    assert conf not in seeds and len(set(seeds)) == 500
    assert search_seeds(7, 500) == (seeds, conf)
    assert search_seeds(8, 500)[0] != seeds


# A stub scenario whose samples are high on the search seeds and low on any other seed: a lucky first
# estimate that fresh seeds do not reproduce.
_LUCKY: set[int] = set()


def _lucky_measure(sim, hi: float, lo: float):
    base = hi if sim.seed in _LUCKY else lo
    return base * (1 + 0.01 * np.random.default_rng(sim.seed).standard_normal(sim.trials))


def _build_lucky(point):
    inst = build_t2({**get("FAST.T2").default_point(), "horizon": 1.0})
    return Instance(problem=inst.problem, algorithm=inst.algorithm, pattern=inst.pattern, rounds=2,
                    values=inst.values, measure=partial(_lucky_measure, hi=10.0, lo=1e-3))


LUCKY = Scenario("STUB.lucky", "FAST.T2@corrected", "lucky stub", (Param("u", 0.0, 1.0, 0.5),), _build_lucky)


def test_lucky_first_estimate_is_not_claimed():
    seeds, conf = search_seeds(3, 4)
    _LUCKY.clear()
    _LUCKY.update(seeds)
    import verify.scenarios as reg

    reg.registry()["STUB.lucky"] = LUCKY
    try:
        rec = search(LUCKY, budget=4, seed=3, trials=8, confirm_trials=64, optimiser="random", population=4)
    finally:
        del reg.registry()["STUB.lucky"]
    first = rec.best["estimate"]
    assert first["ci"][0] > first["rhs"]  # the search's own estimate looks like a violation
    c = rec.confirmation
    assert c["seeds"] == [conf] and conf not in seeds
    assert c["verdict"] == "holds" and c["ci"][1] < c["rhs"]  # fresh seeds: not claimed
    assert c["points_tried"] == 4 and rec.evaluations == 4


def test_search_is_deterministic_and_replays(tmp_path):
    sc = get("FAST.T2@corrected")
    kw = dict(budget=8, seed=1, trials=8, confirm_trials=32, optimiser="optuna-cmaes", population=4)
    a, b = search(sc, **kw), search(sc, **kw)
    assert a.best["point"] == b.best["point"] and a.confirmation["lhs"] == b.confirmation["lhs"]
    assert [t["ratio"] for t in a.trace] == [t["ratio"] for t in b.trace]
    assert a.default["point"] == sc.default_point()  # the search starts at the shipped instance
    path = tmp_path / "inst.json"
    path.write_text(json.dumps(a.instance_file()))
    v = replay(str(path))
    c = a.confirmation
    assert (v.lhs, list(v.ci), v.rhs, v.verdict) == (c["lhs"], c["ci"], c["rhs"], c["verdict"])


def test_interrupt_keeps_best_so_far():
    def stop(done, total, best):
        if done >= 4:
            raise KeyboardInterrupt

    rec = search(get("FAST.T2"), budget=16, seed=0, trials=8, optimiser="random", population=4, progress=stop)
    assert rec.interrupted and rec.evaluations == 4 and rec.best["point"]
    assert rec.confirmation["status"] == "interrupted before confirmation" and "verdict" not in rec.confirmation


def test_confirmation_rule_claims_a_real_violation():
    from verify.scenarios.fast import T2_ADVERSARIAL

    sc = get("FAST.T2@corrected")
    conf, est = confirm(sc, {**T2_ADVERSARIAL, "sigma": 1e-4, "acp_a": 0.05}, trials=256, seed=11)
    assert est.hypotheses is True
    assert conf["verdict"] == "violated" and conf["ci"][0] > conf["rhs"]


def test_load_instance_rejects_malformed(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(UserInputError, match="not JSON"):
        load_instance(str(bad))
    bad.write_text(json.dumps({"format": "convbound-instance/1", "scenario": "FAST.T2"}))
    with pytest.raises(UserInputError, match="needs keys"):
        load_instance(str(bad))


def _cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "reports.cli.main", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("args, words", [
    (["falsify", "FAST.T9"], "unknown scenario"),
    (["falsify", "FAST.C2@corrected"], "is a result, not a scenario id; its scenarios: FAST.C2"),
    (["falsify", "SURV.FEDEF"], "has no scenario"),
    (["falsify", "SURV.SAFARI"], "'SURV.SAFARI' is a survey row with no stated rate (SAFARI / SA-FL [7]), not a result"),
    (["orders", "SURV.MIFA"], "is a survey row with no stated rate (MIFA [11])"),
    (["decide", "SURV.FEDCM"], "is a survey row with no stated rate"),
    (["check", "SURV.FEDCM"], "is a survey row with no stated rate"),
    (["falsify", "FAST.T2", "--budget", "0"], "--budget 0"),
    (["verify", "--instance", "/nonexistent/x.json"], "does not exist"),
    (["falsify", "FAST.T1", "--population", "0"], "--population"),
    (["falsify", "FAST.T1", "--seed", "99999999999999999999999"], "seed"),
    (["falsify", "FAST.T1", "--seed", "-1"], "seed"),
    (["falsify", "FAST.T1", "--workers", "0"], "--workers"),
    (["falsify", "FAST.T1", "--scheduler", "dask://x"], "--scheduler"),
    (["falsify", "FAST.T1", "--out", "/nonexistent-dir/r.json"], "does not exist"),
])
def test_cli_bad_input_is_one_line_exit_2(convbound, args, words):
    # in this process: a traceback would be an exception out of main, failing the test
    out = convbound(*args)
    assert out.code == 2 and words in out.err and "Traceback" not in out.err
    assert len(out.err.strip().splitlines()) == 1


def test_cli_falsify_writes_record_instance_and_trace(convbound, tmp_path):
    inst, trace = tmp_path / "i.json", tmp_path / "t.png"
    out = convbound("falsify", "FAST.T2", "--budget", "4", "--trials", "8", "--confirm-trials", "16", "--optimiser",
                    "random", "--population", "2", "--json", "--instance-out", str(inst), "--trace", str(trace))
    assert out.code == 0, out.err
    doc = out.json()
    for key in ("id", "evaluations", "best", "confirmation", "versions"):
        assert key in doc
    assert {"verdict", "lhs", "ci", "rhs", "trials", "seeds"} <= set(doc["confirmation"])
    assert doc["evaluations"] == 4 and trace.read_bytes()[:4] == b"\x89PNG"
    again = convbound("verify", "--instance", str(inst), "--json")
    assert again.code == 0, again.err
    v = again.json()[0]
    assert v["lhs"] == doc["confirmation"]["lhs"] and v["ci"] == doc["confirmation"]["ci"]
    assert math.isfinite(v["rhs"]) and v["rhs"] == doc["confirmation"]["rhs"]


def test_order_result_gives_a_constant_lower_bound_never_a_violation():
    conf, est = confirm(get("ASCAF.T1"), {"R": 40}, trials=16, seed=2)
    assert est.kind == "order" and conf["verdict"] == "unverified"
    assert conf["constant_lower_bound"] == pytest.approx(conf["ci"][0] / conf["rhs"], rel=1e-12)
    # the lost constants are named as assumptions, with the condition they put on the bound
    assert set(conf["assumed"]) == {c["name"] for c in est.conditions if c.get("assumed")}
    x = est.values
    # regularized participation: p_min = 1, I = 1, P = 2, L = 1 -> both caps are 1/120
    assert x["eta"] == pytest.approx(1 / 120, rel=1e-12) and x["gamma"] == pytest.approx(1.0, rel=1e-12)


def test_time_limit_stops_the_search():
    rec = search(get("FAST.T2"), budget=50, time_limit=1e-9, seed=0, trials=4, optimiser="random")
    assert rec.stopped_by == "time" and rec.evaluations == 0
    assert rec.confirmation["status"] == "no admissible point" and "verdict" not in rec.confirmation
    with pytest.raises(UserInputError, match="^time_limit=0 must be"):
        search(get("FAST.T2"), budget=5, time_limit=0, seed=0)


def test_cli_refuses_to_overwrite_before_searching(convbound, tmp_path):
    out_file = tmp_path / "r.json"
    out_file.write_text("keep", encoding="utf-8")
    out = convbound("falsify", "FAST.T1", "--budget", "2", "--out", str(out_file))
    assert out.code == 2 and "--force" in out.err and out_file.read_text(encoding="utf-8") == "keep"


def test_search_on_a_local_cluster_gives_the_in_process_record(convbound):
    pytest.importorskip("distributed")
    # ASCAF.T1: a Monte Carlo estimate at every point (its seeds matter) for a third of FAST.T1's set-up and points
    args = ("falsify", "ASCAF.T1", "--budget", "4", "--population", "2", "--trials", "8", "--confirm-trials", "16",
            "--json")
    here, there = convbound(*args), _cli(*args, "--workers", "2")  # the cluster's side in a process of its own
    assert here.code == 0 and there.returncode == 0, here.err + there.stderr
    a, b = here.json(), json.loads(there.stdout)
    a.pop("elapsed_s"), b.pop("elapsed_s")
    assert a == b  # seeds travel with the points: the scheduler changes nothing


def test_search_space_draws_from_the_searched_families_and_problems_widens_it():
    from verify.search.search_options import search_space

    sc = get("FAST.T2@corrected")
    wide = next(p for p in sc.space if p.name == "problem")
    assert set(wide.choices) == {"quadratic", "quadratic-diagonal", "quadratic-rotated", "logistic"}
    assert next(p for p in search_space(sc).space if p.name == "problem").choices == ("quadratic",)
    assert next(p for p in search_space(sc, "all").space if p.name == "problem").choices == wide.choices
    assert next(p for p in search_space(sc, "logistic, quadratic").space
                if p.name == "problem").choices == ("logistic", "quadratic")
    with pytest.raises(UserInputError, match="admits"):
        search_space(sc, "quadratic,nonconvex")  # FAST.T2 needs strong convexity
    # FAST.T1 has no default cut: every smooth family is searched
    t1 = next(p for p in search_space(get("FAST.T1")).space if p.name == "problem")
    assert "nonconvex" in t1.choices and "logistic" in t1.choices


@pytest.mark.parametrize("optimiser", ["random", "stratified"])
def test_problems_that_exclude_the_default_family_are_the_only_ones_drawn(optimiser):
    # FAST.T1's default point is 'nonconvex'; --problems quadratic once left the axis with one value
    # fixed at that excluded default, so every point was drawn from the family the user had left out
    from verify.search.optimisers import make_optimiser
    from verify.search.search_options import search_space

    space = search_space(get("FAST.T1"), "quadratic")
    points = [p.point for p in make_optimiser(optimiser, space, seed=0, population=8, budget=16, terms=None).ask(8)]
    assert [p["problem"] for p in points] == ["quadratic"] * 8


def test_a_narrowed_search_says_so_in_its_record():
    rec = search(get("FAST.T2"), budget=2, trials=4, confirm_trials=4, population=2, seed=3)
    doc = rec.to_dict()
    assert any(n.startswith("axis problem searched over quadratic; not searched:") for n in doc["notes"])
    assert next(p for p in doc["space"] if p["name"] == "problem")["choices"] == ["quadratic"]
    assert all(t.get("problem", "quadratic") == "quadratic" for t in doc["trace"])


def test_random_search_puts_each_axis_at_its_ends_a_third_of_the_time():
    from verify.search.optimisers import EDGE, make_optimiser

    sc = get("FAST.T2@corrected")
    opt = make_optimiser("random", sc, seed=5, population=8, budget=3000)
    pts = [p.point for p in opt.ask(3001)][1:]  # the first point is the default
    n = len(pts)
    sd = math.sqrt((EDGE / 2) * (1 - EDGE / 2) / n)  # binomial sd of one end's frequency: 0.0068 here
    for p in sc.space:
        if p.choices is not None or p.low == p.high:
            continue
        vals = np.array([pt[p.name] for pt in pts], float)
        for end in (p.low, p.high):
            freq = float(np.mean(vals == end))
            if p.integer:  # interior draws also round onto an end: at least EDGE / 2
                assert freq > EDGE / 2 - 4 * sd, (p.name, end, freq)
            else:
                assert abs(freq - EDGE / 2) < 4 * sd, (p.name, end, freq)
        assert ((vals >= p.low) & (vals <= p.high)).all()


def test_elapsed_time_counts_the_optimisers_set_up(monkeypatch):
    # corners builds a 512-corner pool before its first point (about 80 s on FAST.T1): search time, reported.
    # The search's clock is replaced by one that only the optimiser's set-up moves (by 1,000 s), so the record's
    # time is that set-up's, whatever the machine's load
    import types

    import verify.search.falsify as falsify
    import verify.search.optimisers as optimisers
    import verify.search.search_options as search_options

    now = [0.0]
    clock = types.SimpleNamespace(perf_counter=lambda: now[0])
    for module in (falsify, search_options):  # where the search starts its clock and where it reads it
        monkeypatch.setattr(module, "time", clock)
    real = optimisers.make_optimiser

    def slow(*args, **kwargs):
        now[0] += 1000.0
        return real(*args, **kwargs)

    monkeypatch.setattr(optimisers, "make_optimiser", slow)
    rec = search(get("FAST.T2"), budget=2, trials=4, confirm_trials=4, population=2, seed=3)
    assert rec.elapsed_s == 1000.0


def test_a_ratio_inside_its_rounding_bound_does_not_lead_the_search():
    """An exactly scored point whose floating-point bound exceeds its LHS (FAST.T2@corrected at R = 1.2e7,
    K = 1000, seed 0's corner: LHS 4.5e-9, bound 3.6e-6, RHS 1.3e-13, LHS/RHS 34,104) stands at ratio 0, so the
    search neither climbs it nor keeps it as its best; a point whose bound is small keeps its ratio, less the bound."""
    import math

    from verify.search.falsify import _objective, _standing

    noise = {"score": 34104.0, "lhs": 4.534e-9, "rhs": 1.3295e-13, "exact": {"fp_error": 3.564e-6}}
    assert _standing(noise) == 0.0
    assert _objective(noise, floor=-5.0) == math.log(1e-12)
    sound = {"score": 1.5, "lhs": 1.5, "rhs": 1.0, "exact": {"fp_error": 1e-12}}
    assert _standing(sound) == (1.5 - 1e-12) / 1.0
    monte_carlo = {"score": 1.5, "lhs": 1.5, "rhs": 1.0}  # no bound: the estimate, which the confirmation settles
    assert _standing(monte_carlo) == 1.5
