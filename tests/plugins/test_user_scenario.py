"""Plugins are first-class in search (issue 18 item 2): a user's bound with its scenario
(docs/examples/fedavg_local_sgd.py) is searched by falsify, replayed from its instance file (reloaded
or refused naming the file), and its crashes are one line naming the file."""

import json

import numpy as np
import pytest
from plugin_helpers import EXAMPLES

from bounds import plugins

EXAMPLE = EXAMPLES / "fedavg_local_sgd.py"


def exact_dist_sq(point):
    """E||x_R - x*||^2 of FedAvg on the shared-Hessian quadratic, coordinate by coordinate (independent of
    the engine and of the bound): with c = (1 - eta lam)^K per coordinate,
    e_{r+1} = c e_r + (1 - c) (mean_S b - x*) + noise, so
    E e_R^2 = c^(2R) e_0^2 + (1 - c^(2R)) / (1 - c^2) [(1 - c)^2 Var_S + eta^2 (sigma^2/d) sum_k (1 - eta lam)^(2k) / m]
    with Var_S = (M - m) / (m (M - 1)) (1/M) sum_i delta_i^2 (sampling without replacement)."""
    mod = plugins.load_file(str(EXAMPLE))
    inst = mod.build(point)
    pb, v = inst.problem, inst.values
    lam, eta, K, R, m, M = pb.lam, v["eta"], v["K"], v["R"], v["m"], v["M"]
    a = 1 - eta * lam
    c = a**K
    var_s = (M - m) / (m * (M - 1)) * np.mean((pb.b - pb.x_star) ** 2, axis=0)
    noise = eta**2 * (pb.sigma**2 / pb.d) * sum(a ** (2 * k) for k in range(K)) / m
    geo = np.array([R if abs(cj) == 1 else (1 - cj ** (2 * R)) / (1 - cj**2) for cj in c])
    return float(np.sum(c ** (2 * R) * pb.x_star**2 + geo * ((1 - c) ** 2 * var_s + noise))), v


POINTS = [
    {"M": 2, "m_frac": 0.0, "K": 1, "R": 1, "eta_frac": 1.0, "d": 1, "sigma": 1.0, "zeta": 1.0},  # exact: B = 0
    {"M": 8, "m_frac": 0.3, "K": 8, "R": 400, "eta_frac": 0.01, "d": 3, "mu_frac": 0.2, "sigma": 2.0, "zeta": 3.0},
    {"M": 16, "m_frac": 1.0, "K": 4, "R": 30, "eta_frac": 0.5, "d": 4, "mu_frac": 0.01, "sigma": 0.1, "zeta": 5.0},
    {"M": 3, "m_frac": 0.0, "K": 16, "R": 400, "eta_frac": 1e-4, "d": 2, "mu_frac": 1.0, "sigma": 1e-4, "zeta": 10},
    {"M": 4, "m_frac": 0.5, "K": 2, "R": 5, "eta_frac": 1.0, "d": 1, "sigma": 10.0, "zeta": 1e-4},
]


@pytest.mark.parametrize("overrides", POINTS)
def test_the_example_bound_holds_against_an_exact_computation(overrides):
    from verify.scenarios import get

    plugins.add_files([str(EXAMPLE)])
    sc = get("USER.FEDAVG")
    point = sc.point({"draw": 3, **overrides})
    lhs, values = exact_dist_sq(point)
    import bounds

    rhs = bounds.get("USER.FEDAVG").check(values).evaluation.value
    assert lhs <= float(rhs) * (1 + 1e-9)
    assert lhs >= 0.05 * float(rhs) or overrides["K"] > 1  # tight (within 20x) where the proof loses nothing


def test_engine_agrees_with_the_exact_value_at_a_point():
    from verify.exact_score import monte_carlo
    from verify.scenario import evaluate_point
    from verify.scenarios import get

    plugins.add_files([str(EXAMPLE)])
    sc = get("USER.FEDAVG")
    point = sc.point({"M": 6, "m_frac": 0.4, "K": 3, "R": 20, "eta_frac": 0.3, "d": 3, "sigma": 1.0, "zeta": 2.0})
    exact, _ = exact_dist_sq(point)
    with monte_carlo():  # the engine itself, not the exact path the example's measure selects
        est = evaluate_point(sc, point, trials=2048, seed=5, level=0.999)
    assert not est.exact and est.trials == 2048
    assert est.ci[0] <= exact <= est.ci[1]
    assert est.hypotheses is True


@pytest.mark.parametrize("overrides", [
    {"M": 6, "m_frac": 0.4, "K": 3, "R": 20, "eta_frac": 0.3, "d": 3, "sigma": 1.0, "zeta": 2.0},
    {"M": 16, "m_frac": 0.2, "K": 64, "R": 10**6, "eta_frac": 1e-4, "d": 10, "mu_frac": 0.01, "sigma": 0.5, "zeta": 4.0},
])
def test_the_example_is_scored_exactly_through_its_public_measure(overrides):
    """The example's measure is verify.scenario.at_round, so evaluate_point takes the exact path by itself, at the
    top of its widened axes too (R = 10^6, d = 10, K = 64); the value matches the closed form above."""
    from verify.scenario import evaluate_point
    from verify.scenarios import get

    plugins.add_files([str(EXAMPLE)])
    sc = get("USER.FEDAVG")
    point = sc.point(overrides)
    closed, _ = exact_dist_sq(point)
    est = evaluate_point(sc, point, trials=64, seed=0)
    assert est.exact is not None and est.exact["method"] == "exact" and est.trials == 0
    assert est.lhs == pytest.approx(closed, rel=1e-9)
    assert est.ci[0] <= closed * (1 + 1e-12) and closed * (1 - 1e-12) <= est.ci[1] + 1e-15


def test_an_exact_confirmation_carries_a_monte_carlo_cross_check_or_says_why_not():
    from verify.scenarios import get
    from verify.search.confirmation import CROSS_CHECK_STEPS, confirm

    plugins.add_files([str(EXAMPLE)])
    sc = get("USER.FEDAVG")
    small = sc.point({"M": 4, "m_frac": 0.3, "K": 2, "R": 10, "eta_frac": 0.5, "d": 2, "sigma": 1.0, "zeta": 1.0})
    conf, est = confirm(sc, small, trials=1024, seed=3)
    assert conf["method"] == "exact"
    x = conf["cross_check"]
    assert x["method"] == "monte carlo" and x["trials"] == 1024 and x["agrees"] is True
    assert x["ci"][0] <= est.lhs <= x["ci"][1]
    big = sc.point({"M": 4, "m_frac": 0.3, "K": 4, "R": CROSS_CHECK_STEPS, "eta_frac": 0.5, "d": 2})
    conf, _ = confirm(sc, big, trials=1024, seed=3)
    assert "past the 20000" in conf["cross_check"]["skipped"]  # 4 x 20000 steps: not simulated


def test_plugin_scenario_is_in_the_registry_with_its_origin_and_leaves_with_it():
    from verify.scenarios import get, plugin_file, registry

    assert "USER.FEDAVG" not in registry()
    plugins.add_files([str(EXAMPLE)])
    sc = get("USER.FEDAVG")
    assert sc.origin == f"file {EXAMPLE.resolve()}" and plugin_file(sc) == str(EXAMPLE.resolve())
    assert "FAST.T1" in registry() and get("FAST.T1").origin == "built-in"
    plugins.clear_files()
    assert "USER.FEDAVG" not in registry()


def test_falsify_searches_the_plugin_scenario_and_its_instance_replays(convbound, tmp_path):
    inst = tmp_path / "inst.json"
    run = convbound("--plugin", str(EXAMPLE), "falsify", "USER.FEDAVG", "--budget", "8", "--trials", "8",
                    "--confirm-trials", "64", "--instance-out", str(inst), "--json")
    assert run.code == 0, run.err
    rec = run.json()
    assert rec["id"] == "USER.FEDAVG" and rec["evaluations"] == 8 and rec["admissible"] == 8
    data = json.loads(inst.read_text())
    assert data["plugin"]["path"] == str(EXAMPLE.resolve()) and len(data["plugin"]["sha256"]) == 64
    plugins.clear_files()
    # without --plugin: the recorded file exists unchanged, so it is reloaded and the numbers come back
    again = convbound("verify", "--instance", str(inst), "--json")
    assert again.code in (0, 1), again.err
    assert str(rec["confirmation"]["lhs"])[:10] in again.out


def test_replay_names_the_plugin_file_it_needs(convbound, tmp_path):
    user = tmp_path / "mine.py"
    user.write_text(EXAMPLE.read_text())
    inst = tmp_path / "inst.json"
    assert convbound("--plugin", str(user), "falsify", "USER.FEDAVG", "--budget", "2", "--trials", "4",
                     "--confirm-trials", "8", "--instance-out", str(inst)).code == 0
    plugins.clear_files()
    user.write_text(EXAMPLE.read_text() + "\n# edited\n")
    run = convbound("verify", "--instance", str(inst))
    assert run.code == 2 and str(user.resolve()) in run.err and "changed" in run.err
    assert len(run.err.strip().splitlines()) == 1
    user.unlink()
    plugins.clear_files()
    run = convbound("verify", "--instance", str(inst))
    assert run.code == 2 and str(user.resolve()) in run.err and "--plugin" in run.err
    assert len(run.err.strip().splitlines()) == 1


@pytest.mark.parametrize("where, body", [
    ("import", "raise RuntimeError('boom at import')\n"),
    ("build", "BOOM = True\n"),
])
def test_a_crash_inside_a_plugin_scenario_is_one_line_naming_the_file(convbound, tmp_path, where, body):
    user = tmp_path / f"crash_{where}.py"
    src = EXAMPLE.read_text().replace("def build(point, step_cap: float = STEP_CAP):\n",
                                      "def build(point, step_cap: float = STEP_CAP):\n"
                                      "    if globals().get('BOOM'):\n        raise ZeroDivisionError('boom in build')\n")
    user.write_text(src + body)
    run = convbound("--plugin", str(user), "falsify", "USER.FEDAVG", "--budget", "2", "--trials", "4",
                    "--confirm-trials", "8")
    assert run.code == 2 and "Traceback" not in run.err
    assert len(run.err.strip().splitlines()) == 1 and str(user.resolve()) in run.err and "boom" in run.err


def test_a_plugin_scenario_clashing_with_a_built_in_is_refused(tmp_path):
    from bounds.core.errors import UserInputError
    from verify.scenarios import registry

    user = tmp_path / "clash.py"
    user.write_text(EXAMPLE.read_text().replace('def scenarios():\n    return [make_scenario()]',
                                                'def scenarios():\n    return [make_scenario("FAST.T1")]'))
    plugins._cli_files.append(str(user.resolve()))  # as --plugin does, without the eager import check
    with pytest.raises(UserInputError, match="FAST.T1.*built-in"):
        registry()


PLUGIN_PROBLEM = '''
from quadratics import heterogeneous_quadratic
from quadratics.registry import Key, Spec


def scaled(L=1.0, mu=0.1, d=4, M=4, zeta=1.0, sigma=1.0, D0=1.0, instance=0, extra=2.0):
    return heterogeneous_quadratic(L=L, mu=mu, d=d, M=M, zeta=zeta * extra, sigma=sigma, D0=D0, seed=instance)


def problems():
    keys = {k: Key(float, 1.0, k) for k in ("L", "mu", "zeta", "sigma", "D0", "extra")}
    keys.update({k: Key(int, 1, k) for k in ("d", "M", "instance")})
    return [Spec(scaled, keys, "a user's quadratic", name="my-quadratic")]
'''


def test_a_scenario_family_builds_a_plugin_problem(tmp_path):
    from quadratics import heterogeneous_quadratic
    from verify.scenarios.families import strongly_convex

    user = tmp_path / "myproblem.py"
    user.write_text(PLUGIN_PROBLEM)
    plugins.add_files([str(user)])
    pb = strongly_convex("my-quadratic", {"draw": 7}, L=1.0, mu=0.25, d=3, M=5, zeta=0.5, sigma=0.1, D0=2.0)
    ref = heterogeneous_quadratic(L=1.0, mu=0.25, d=3, M=5, zeta=1.0, sigma=0.1, D0=2.0, seed=7)  # extra = 2 kept
    assert pb.constants == ref.constants and np.array_equal(pb.b, ref.b)
    with pytest.raises(ValueError, match="neither"):
        strongly_convex("no-such-problem", {"draw": 0}, L=1.0, mu=0.5, d=2, M=2, zeta=1.0, sigma=1.0, D0=1.0)


def test_a_diverging_point_is_scored_as_divergence_without_simulating_its_rounds():
    """Step 2.5/L on A = L I (d = 1): one local step multiplies the error by 1 - 2.5 = -1.5, so after R = 10^6
    rounds the second moment is far past float64's range. The exact path says so (LHS = inf, a violation of any
    finite bound) instead of falling back to a 10^6-round simulation."""
    import math

    import quadratics
    from verify.scenario import evaluate_point
    from verify.verdict import VIOLATED, decide

    plugins.add_files([str(EXAMPLE)])
    # the registered bound's scenario with its step axis reaching 2.5/L (outside the bound's own hypothesis)
    sc = plugins.load_file(str(EXAMPLE)).make_scenario("USER.FEDAVG", step_cap=2.5)
    point = sc.point({"M": 4, "m_frac": 1.0, "K": 2, "R": 10**6, "eta_frac": 1.0, "d": 1, "sigma": 1.0, "zeta": 1.0})
    def no_simulation(*args, **kwargs):
        raise AssertionError("the point was simulated (10^6 rounds) instead of scored by the exact path")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(quadratics, "simulate", no_simulation)  # evaluate_point imports it from there when it simulates
        est = evaluate_point(sc, point, trials=16, seed=0)
    assert est.exact and est.exact["method"] == "exact" and "diverges" in est.exact["measure"]
    assert math.isinf(est.lhs) and est.ci[0] == math.inf
    # the planted bound's own RHS overflows here too ((1 - eta mu)^(2KR) with |1 - eta mu| > 1); against any
    # finite bound the infinite LHS is a violation
    assert decide("upper", est.ci[0], est.ci[1], 1e300, hypotheses=True) == VIOLATED
