"""Light version of the Section 5 reproduction (tests/benchmarks/reproduce_ascaf_sec5.py runs 24 trials)."""

from quadratics.reproduce import ascaf_section5


def test_section5_ordering_and_paper_rounds():
    res = ascaf_section5(trials=2, rounds=5000, threads=1)
    m = res["methods"]
    grid = {k: v["f_log_grid100"]["median"] for k, v in m.items()}
    assert res["ordering_matches_paper"]
    # the paper's logged rounds (multiples of 100): 800 / 1900 / 4800 / 4800
    assert grid["amplified_scaffold"] == 800 and grid["scaffold"] == 1900
    assert grid["fedavg"] == 4800 and grid["amplified_fedavg"] == 4800 and grid["fedprox"] == 4800
