"""The ``climb`` optimiser (verify/search/climb.py): its gradient against independent finite differences, the
differentiable recursion against hand arithmetic, a planted error found, bad input refused (issue 27 item 5)."""

import contextlib
import io
import math

import numpy as np
import pytest
import torch
from plugin_helpers import EXAMPLES, fedavg_hand_lhs

from bounds import plugins

EXAMPLE = EXAMPLES / "fedavg_local_sgd.py"
# the smallest instance with every continuous axis alive: 2 clients (1 drawn), 2 local steps, 3 rounds, d = 2
SMALL = {"M": 2, "m_frac": 0.0, "K": 2, "R": 3, "eta_frac": 0.4, "d": 2, "mu_frac": 0.3, "sigma": 0.7, "zeta": 0.9,
         "draw": 3}


def _scenario():
    from verify.scenarios import get

    plugins.add_files([str(EXAMPLE)])
    return get("USER.FEDAVG")


def _hand_log_ratio(sc, point):
    import bounds

    full = sc.point(point)
    values = sc.build(full).values
    return math.log(fedavg_hand_lhs(full) / float(bounds.get("USER.FEDAVG").check(values).evaluation.value))


def test_gradient_matches_a_finite_difference_of_the_hand_computed_ratio():
    from verify.search.climb import continuous_axes, log_ratio_gradient

    sc = _scenario()
    g = log_ratio_gradient(sc, SMALL)
    assert not isinstance(g, str), g
    assert g.value == pytest.approx(_hand_log_ratio(sc, SMALL), abs=1e-12)
    checked = 0
    for p in continuous_axes(sc.space):
        if p.name == "m_frac":  # at its low end, and m is constant there: asserted below
            continue
        t = math.log(SMALL[p.name]) if p.log else SMALL[p.name]
        h = 1e-4 * ((math.log(p.high) - math.log(p.low)) if p.log else p.high - p.low)
        at = lambda tt, p=p: {**SMALL, p.name: math.exp(tt) if p.log else tt}  # noqa: E731
        # fourth-order central difference of the hand formula: truncation ~h^4, rounding ~1e-16 / h
        fd = (-_hand_log_ratio(sc, at(t + 2 * h)) + 8 * _hand_log_ratio(sc, at(t + h)) - 8 * _hand_log_ratio(sc, at(t - h))
              + _hand_log_ratio(sc, at(t - 2 * h))) / (12 * h)
        assert g.grad[p.name] == pytest.approx(fd, rel=1e-6, abs=1e-9), p.name
        checked += abs(fd) > 1e-3
    assert checked >= 4  # step, curvature, noise and heterogeneity all move the ratio here
    assert g.grad["m_frac"] == 0.0  # m = 1 + round(m_frac (M - 1)) is constant near m_frac = 0


def test_differentiable_recursion_matches_hand_arithmetic_and_its_derivative():
    """Scalar FedAvg, 1 client, no noise: E e_R^2 = (1 - eta L)^(2 K R) e_0^2, and d/d(eta) of it by hand."""
    from quadratics import fedavg, heterogeneous_quadratic, uniform
    from quadratics.exact.differentiable import declared_inputs, moment_lhs

    pb = heterogeneous_quadratic(L=2.0, mu=2.0, d=1, M=1, zeta=0.0, sigma=0.0, D0=1.0)
    eta, K, R = 0.1, 3, 7
    inp = declared_inputs(pb, fedavg(eta=eta, K=K), uniform(M=1, S=1), (np.eye(1), np.zeros(1), 0.0))
    assert not isinstance(inp, str)
    value = moment_lhs(inp.requires_grad_(), R, 1, "final")
    assert float(value.detach()) == pytest.approx(0.8 ** (2 * K * R), rel=1e-13)
    # B_0 = (1 - eta L)^K is the round's only coefficient: d value / d B_0 = 2 R B_0^(2R - 1) e_0^2
    B = inp.maps[next(iter(inp.maps))][0]
    (grad,) = torch.autograd.grad(value, [B])
    assert float(grad[0, 0, 0]) == pytest.approx(2 * R * 0.8 ** (K * (2 * R - 1)), rel=1e-12)


def test_climb_is_deterministic_and_labels_its_proposals(monkeypatch):
    import verify.search.climb
    from verify.search.optimisers import make_optimiser

    monkeypatch.setattr(verify.search.climb, "WARMUP", 6)  # the smallest warm-up that gives every stratum a point
    sc = _scenario()

    def run():
        opt = make_optimiser("climb", sc, seed=4, population=6, budget=18)
        asked = []
        for _ in range(3):
            props = opt.ask(6)
            pts = [p.point for p in props]
            asked.append((pts, [p.stratum for p in props]))
            opt.tell(pts, [-abs(math.log(p["eta_frac"])) - abs(math.log(p["sigma"])) for p in pts])
        return asked

    first, second = run(), run()
    assert first == second
    labels = [s for _, strata in first for s in strata]
    assert not any(s.kind == "climb" for s in labels[:6])
    assert any(s.kind == "climb" for s in labels[6:])
    assert all(str(s) == f"climb {s.step:.6g}" for s in labels if s.kind == "climb")  # the record's label


def _run(argv):
    from reports.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv, words", [
    (["falsify", "FAST.T1", "--optimiser", "climbb"], "climb"),
    (["falsify", "FAST.T1", "--optimiser", "climb", "--terms", "noise"], "has RHS terms"),  # FAST.T1 has no 'noise'
    (["falsify", "FAST.T1", "--optimiser", "climb", "--budget", "0"], "budget"),
])
def test_bad_input_to_climb_is_one_line_exit_2(argv, words):
    code, out, err = _run(argv)
    assert code == 2, (code, out, err)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in err, err


def test_fidelity_shares_say_which_points_the_gradient_proposed():
    from verify.search.cost import fidelity_shares

    trace = [{"fidelity": "exact", "proposer": s} for s in ("default", "term", "climb", "climb")]
    trace.append({"fidelity": "simulated", "proposer": "random"})
    shares = fidelity_shares(trace)
    assert shares["climbed"] == pytest.approx(2 / 5) and shares["exact"] == pytest.approx(4 / 5)
    assert "fallback" in shares["climbed_rule"]
    assert "climbed" not in fidelity_shares(trace[:2])  # other optimisers' records are unchanged


def test_climb_finds_a_planted_error_by_a_gradient_step(monkeypatch):
    """PLANT.no-sampling (the client-sampling term dropped) from seed 0: the violation is found at a point the
    gradient proposed and confirmed by falsify's usual path (a shorter warm-up keeps the test small)."""
    import verify.search.climb
    from verify.scenarios import get
    from verify.search.falsify import search
    from verify.verdict import VIOLATED

    monkeypatch.setattr(verify.search.climb, "WARMUP", 8)
    plugins.add_files([str(EXAMPLES.parents[1] / "tests" / "benchmarks" / "planted" / "planted.py")])
    rec = search(get("PLANT.no-sampling"), budget=16, seed=0, trials=16, confirm_trials=256, optimiser="climb",
                 population=8, stop_at_violation=True)
    assert rec.confirmation["verdict"] == VIOLATED
    at = rec.first_violation["evaluation"]
    assert at > 8 and rec.trace[at - 1]["proposer"] == "climb"
    assert 0 < rec.fidelity["climbed"] < 1 and rec.fidelity["exact"] == 1.0
