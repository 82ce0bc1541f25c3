"""Conformance of an implementation to its claimed algorithm and law (verify.conformance, issue 29).

Small instances: few trials and rounds, each assertion with the smallest check that makes it.
"""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

from verify.conformance import conform
from verify.conformance import examples as ex
from verify.conformance.claims import Setting, reference_pattern
from verify.conformance.reference import exact_reference, reference_algorithm


def _cli(argv):
    from reports.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
            code = 0
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()


def test_exact_reference_matches_hand_arithmetic():
    # FedAvg, K = 1, every client every round on the shared-Hessian quadratic: the average client gradient is
    # lam (x - x*) + mean of 3 noises, so e_{r+1} = (1 - eta lam) e_r - eta xibar with Var(xibar_j) = s2 / (d 3)
    from quadratics import heterogeneous_quadratic

    pb = heterogeneous_quadratic(L=1.0, mu=0.5, d=2, M=3, zeta=1.0, sigma=0.6, D0=1.0, seed=3)
    s = Setting(law="uniform", M=3, S=3, K=1, eta=0.4, p=(1 / 3,) * 3)
    ref = exact_reference(pb, reference_algorithm("fedavg", s), reference_pattern(s), 3)
    lam, e0 = pb.lam, -pb.x_star
    a, v = 1 - 0.4 * lam, 0.4**2 * 0.6**2 / (2 * 3)
    mean, second = [e0], [e0 * e0]
    for _ in range(3):
        mean.append(a * mean[-1])
        second.append(a * a * second[-1] + v)
    assert np.allclose(ref.values[:, :2], mean, rtol=1e-12, atol=1e-14)
    assert np.allclose(ref.values[:, [2, 4]], second, rtol=1e-12, atol=1e-14)
    assert np.allclose(ref.values[:, 3], [m[0] * m[1] for m in mean], rtol=1e-12, atol=1e-14)  # no cross noise


def test_correct_function_fedavg_conforms():
    r = conform(ex.fedavg_round, algorithm="fedavg", law="uniform", trials=80, rounds=3)
    assert r.conforms, r.message
    assert r.tests == 4 * 3 * 5 and r.first is None and "covered, not proved" in r.message
    d = r.to_dict()
    assert d["kind"] == "conformance" and d["alpha"] == 1e-3 and d["correction"] == "bonferroni"
    assert {s["reference"] for s in d["scenarios"]} == {"exact"}


def test_flower_fedavg_conforms_and_a_buggy_subclass_departs():
    from flwr.common import ndarrays_to_parameters, parameters_to_ndarrays
    from flwr.server.strategy import FedAvg

    kw = lambda s: dict(fraction_fit=s.S / s.M, min_fit_clients=s.S, min_available_clients=s.M,  # noqa: E731
                        fraction_evaluate=0.0)
    # Flower's FedAvg has no server step: it departs exactly where the claimed FedAvg has eta_g != 1, and Flower's
    # FedAvgM with momentum 0 there (examples.fedavg_strategy) conforms
    plain = conform(lambda s: FedAvg(**kw(s)), algorithm="fedavg", law="uniform", form="flower", trials=40, rounds=2)
    assert not plain.conforms and {s.name for s in plain.scenarios if s.departures} == {plain.first.scenario}
    assert "server step" in plain.first.scenario and plain.likely.bug_class == "server-step"
    r = conform(ex.fedavg_strategy, algorithm="fedavg", law="uniform", form="flower", trials=40, rounds=2)
    assert r.conforms, r.message

    class ServerStepTwice(FedAvg):  # the server applies its step twice (x + 2 (avg - x))
        def configure_fit(self, server_round, parameters, client_manager):
            self.x = parameters_to_ndarrays(parameters)[0]
            return super().configure_fit(server_round, parameters, client_manager)

        def aggregate_fit(self, server_round, results, failures):
            avg, m = super().aggregate_fit(server_round, results, failures)
            return ndarrays_to_parameters([2 * parameters_to_ndarrays(avg)[0] - self.x]), m

    bad = conform(lambda s: ServerStepTwice(**kw(s)), algorithm="fedavg", law="uniform", form="flower", trials=40,
                  rounds=2)
    assert not bad.conforms and bad.first.round == 1 and abs(bad.first.z) > bad.threshold_z


def test_an_unseen_mutant_is_caught():
    # not among the benchmark's mutants: an off-by-one local loop (K - 1 steps) in SCAFFOLD under Bernoulli
    def scaffold_short(x, cohort, K, rng, state):
        s = cohort.setting
        ci = state.setdefault("ci", np.zeros((cohort.M, x.size)))
        c, deltas, new = ci.mean(0), [], {}
        for cl in cohort:
            y, gsum = x.copy(), np.zeros_like(x)
            for _ in range(1, K):
                g = cl.grad(y)
                gsum += g
                y = y - s.eta * (g + c - ci[cl.id])
            deltas.append(y - x)
            new[cl.id] = gsum / K
        for i, v in new.items():
            ci[i] = v
        return x + np.mean(deltas, axis=0) if deltas else x

    r = conform(scaffold_short, algorithm="scaffold", law="bernoulli", trials=60, rounds=3)
    assert not r.conforms
    assert r.first.round == 1 and r.first.quantity.startswith(("mean", "second"))


def test_torch_step_conforms():
    r = conform(ex.fedavg_step, algorithm="fedavg", law="bernoulli", form="torch", trials=200, rounds=3)
    assert r.conforms, r.message


def test_same_seed_same_record():
    a = conform(ex.fedavg_round, algorithm="fedprox", law="cyclic", trials=30, rounds=2, seed=5)
    b = conform(ex.fedavg_round, algorithm="fedprox", law="cyclic", trials=30, rounds=2, seed=5)
    assert [s.max_abs_z for s in a.scenarios] == [s.max_abs_z for s in b.scenarios]


def test_bad_input_is_one_line_exit_2(tmp_path):
    f = tmp_path / "impl.py"
    f.write_text(
        "def wrong(x, cohort):\n    return x\n\n"
        "from flwr.server.strategy import FedAvg\n\n"
        "class Raises(FedAvg):\n"
        "    def aggregate_fit(self, server_round, results, failures):\n"
        "        raise RuntimeError('lost the results')\n\n"
        "def raising(setting):\n    return Raises(min_available_clients=setting.M)\n\n"
        "def fine(x, cohort, K, rng, state):\n    return x\n")
    cases = [
        ([f"{f}:wrong", "--algorithm", "fedavg", "--law", "uniform"], "does not take the function form's arguments"),
        ([f"{f}:raising", "--algorithm", "fedavg", "--law", "uniform", "--form", "flower", "--trials", "20"],
         "aggregate_fit raised RuntimeError: lost the results"),
        ([f"{f}:fine", "--algorithm", "fedsgd", "--law", "uniform"], "unknown claimed algorithm 'fedsgd'"),
        ([f"{f}:fine", "--algorithm", "fast", "--law", "uniform"], "fast is defined under the fast-snapshot law"),
        ([f"{f}:fine", "--algorithm", "fedavg", "--law", "uniform", "--form", "jax"], "unknown implementation form"),
    ]
    for argv, words in cases:
        code, out, err = _cli(["conform", *argv])
        assert code == 2, (argv, out, err)
        assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


def test_cli_departs_exit_1_and_record(tmp_path):
    f = tmp_path / "impl.py"
    f.write_text("def frozen(x, cohort, K, rng, state):\n    return x\n")  # never moves: departs at round 1
    out_json = tmp_path / "rec.json"
    code, out, err = _cli(["conform", f"{f}:frozen", "--algorithm", "fedavg", "--law", "uniform", "--trials", "20",
                           "--rounds", "1", "--out", str(out_json)])
    assert code == 1 and out.startswith("departs:") and "round 1" in out, (out, err)
    import json

    rec = json.loads(out_json.read_text())
    assert rec["kind"] == "conformance" and rec["status"] == "departs" and rec["first"]["round"] == 1


@pytest.mark.parametrize("fixture", ["assert_conforms"])
def test_pytest_plugin_offers_assert_conforms(fixture, request):
    helper = request.getfixturevalue(fixture)
    with pytest.raises(AssertionError, match="departs"):
        helper(lambda x, cohort, K, rng, state: x, algorithm="fedavg", law="uniform", trials=20)
