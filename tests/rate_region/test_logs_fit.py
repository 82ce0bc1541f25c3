"""Participation logs (read/write/validate) and the availability-model fit (issue 14, acceptance 1)."""

import numpy as np
import pytest

from bounds.core.errors import UserInputError
from rate_region.audit.synthetic import independent_availability, markov_availability, periodic_availability
from rate_region.fit import fit_availability, wilson
from rate_region.logs import parse_columns, read_log, write_log


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".jsonl"])
def test_round_trip_every_format(tmp_path, suffix):
    rng = np.random.default_rng(0)
    A = rng.random((30, 7)) < 0.6
    S = A & (rng.random((30, 7)) < 0.5)
    w = np.arange(1, 8, dtype=float)
    snap = rng.random(30) < 0.3
    path = write_log(tmp_path / f"log{suffix}", A, S, weights=w, snapshot=snap, round_ids=np.arange(30) + 5)
    log = read_log(path)
    np.testing.assert_array_equal(log.available, A)
    np.testing.assert_array_equal(log.participated, S)
    np.testing.assert_array_equal(log.round_ids, np.arange(5, 35))
    np.testing.assert_array_equal(log.snapshot, snap)
    np.testing.assert_allclose(log.weights, w / 28.0)  # 1 + ... + 7 = 28
    assert log.rows == 210 and log.missing == 0


def test_renamed_columns_text_ids_and_missing_pairs(tmp_path):
    p = tmp_path / "l.csv"
    p.write_text("r,who,up,in\n0,bob,1,1\n0,amy,1,0\n1,bob,0,0\n2,amy,1,1\n")
    log = read_log(p, parse_columns("round=r,client=who,available=up,participated=in"))
    assert log.client_ids.tolist() == ["amy", "bob"]
    # rounds 0,1,2 x clients amy,bob: (1, amy) and (2, bob) are absent
    assert log.missing == 2
    np.testing.assert_array_equal(log.available, [[1, 1], [0, 0], [1, 0]])
    np.testing.assert_array_equal(log.participated, [[0, 1], [0, 0], [1, 0]])


def test_duplicate_pair_names_the_second_row(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("round,client,available,participated\n0,1,1,0\n0,2,1,0\n0,1,1,1\n")
    with pytest.raises(UserInputError, match=r"row 3, column 'client'"):
        read_log(p)


def test_bad_columns_spec():
    with pytest.raises(UserInputError):
        parse_columns("round")
    with pytest.raises(UserInputError, match="unknown log column role"):
        parse_columns("rond=r")


def test_wilson_matches_scipy():
    from scipy.stats import binomtest

    for s, n in [(5, 20), (0, 30), (97, 100)]:
        ci = binomtest(s, n).proportion_ci(confidence_level=0.95, method="wilson")
        lo, hi = wilson(s, n, 0.95)
        assert abs(lo - ci.low) < 1e-9 and abs(hi - ci.high) < 1e-9


# Acceptance 1a: the class is recovered on 3 classes x 4 seeds (12 of 12 logs), N = 40, T = 1500.
@pytest.mark.parametrize("seed", range(4))
def test_recovers_model_class(seed):
    rng = np.random.default_rng(100 + seed)
    N, T = 40, 1500
    a = rng.uniform(0.2, 0.9, N)
    p01, p10 = rng.uniform(0.05, 0.3, N), rng.uniform(0.05, 0.3, N)
    f = 0.4 * np.sin(2 * np.pi * np.arange(24) / 24) + 0.5
    truth = {
        "independent": independent_availability(a, T, seed),
        "markov": markov_availability(p01, p10, T, seed),
        "periodic": periodic_availability(a, f, T, seed),
    }
    for kind, A in truth.items():
        fit = fit_availability(A, k=4)
        assert fit.kind == kind, (kind, [c.to_dict() for c in fit.candidates])
        if kind == "periodic":
            assert fit.params["period"] == 24
        # the chosen class is not rejected by its goodness-of-fit statistic
        assert fit.gof["p_value"] > 1e-3, fit.gof


def test_goodness_of_fit_rejects_a_wrong_class():
    # an independent model forced onto Markov data: the Pearson statistic over (client, previous state) cells
    # must reject it; we compute the fit of the independent class by hand through expect = q
    rng = np.random.default_rng(3)
    A = markov_availability(rng.uniform(0.05, 0.1, 30), rng.uniform(0.05, 0.1, 30), 1000, 3)
    from rate_region.fit import _gof

    q = A.mean(0)
    out = _gof(A, lambda prev: np.broadcast_to(q, prev.shape), 30, np.arange(1000), 1)
    assert out["p_value"] < 1e-10


# Acceptance 1b: coverage of the 95% intervals for a_k, over 200 clients x 10 seeds = 2000 intervals per class.
# Binomial sd of the coverage at 2000 intervals is sqrt(0.95 * 0.05 / 2000) = 0.0049; we demand >= 0.935 (3 sd).
@pytest.mark.parametrize("kind", ["independent", "markov", "periodic"])
def test_availability_intervals_cover_truth(kind):
    hits = []
    for seed in range(10):
        rng = np.random.default_rng(seed)
        N, T = 200, 1000
        if kind == "independent":
            truth = rng.uniform(0.1, 0.9, N)
            A = independent_availability(truth, T, seed)
        elif kind == "markov":
            p01, p10 = rng.uniform(0.05, 0.4, N), rng.uniform(0.05, 0.4, N)
            truth = p01 / (p01 + p10)
            A = markov_availability(p01, p10, T, seed)
        else:  # 1000 rounds = 41 whole days of 24 phases and 16 rounds: truth is the mean over those rounds
            q, f = rng.uniform(0.2, 1.0, N), 0.4 * np.sin(2 * np.pi * np.arange(24) / 24) + 0.5
            truth = f[np.arange(T) % 24].mean() * q
            A = periodic_availability(q, f, T, seed)
        fit = fit_availability(A, k=5)
        assert fit.kind == kind and fit.level == 0.95
        hits.append((fit.low <= truth) & (truth <= fit.high))
    coverage = float(np.mean(hits))
    assert coverage >= 0.935, coverage
    assert coverage <= (0.995 if kind == "periodic" else 0.99), coverage  # not vacuous either


def test_written_model_file_is_the_fitted_model(tmp_path):
    from rate_region.tomlfile import load_model

    rng = np.random.default_rng(1)
    A = periodic_availability(rng.uniform(0.3, 0.9, 12), 0.3 + 0.6 * (np.arange(12) % 6) / 5, 2400, 1)
    fit = fit_availability(A, k=3)
    path = tmp_path / "m.toml"
    path.write_text(fit.to_toml())
    m = load_model(path)
    assert type(m).__name__ == "Periodic" and m.cap.values == (3,)
    np.testing.assert_allclose(m.f, fit.params["f"], rtol=1e-8)
    np.testing.assert_allclose(m.marginals(), A.mean(0), atol=0.03)


def test_periodic_phase_sums_same_on_both_paths():
    # consecutive rounds use a reshaped view, gapped rounds a bincount; a gap of 60 = 10 periods of 6 keeps phases
    from rate_region.fit import _periodic

    A = np.random.default_rng(0).random((100, 5)) < 0.4
    rid = np.arange(100) + 5
    gapped = np.where(rid >= 55, rid + 60, rid)
    c, m = A.mean(0), A.mean()
    fast, slow = _periodic(A, rid, 6, c, m), _periodic(A, gapped, 6, c, m)
    np.testing.assert_allclose(fast[2], slow[2])
    assert fast[3] == pytest.approx(slow[3])
    # and against a direct count for phase 0 (rounds 6, 12, ..., i.e. rows 1, 7, ...)
    g0 = A[1::6].mean()
    np.testing.assert_allclose(fast[2][0], np.clip(g0 * c / m, 0, 1))
