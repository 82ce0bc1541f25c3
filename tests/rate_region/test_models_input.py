"""Named models (paper parameters), the TOML format, and one-line errors for bad input."""

import textwrap

import numpy as np
import pytest

from bounds.core.errors import UserInputError
from rate_region.availability import Independent, MarkovChain, make_cap
from rate_region.modelfile import load_model
from rate_region.models import MODEL_NAMES, named_model, smartphone_phases
from rate_region.optimum import min_variance_rates

SPEC_F = [0.6035, 0.7, 0.7828, 0.8464, 0.8864, 0.9, 0.8864, 0.8464, 0.7828, 0.7, 0.6035, 0.5,
          0.3965, 0.3, 0.2172, 0.1536, 0.1136, 0.1, 0.1136, 0.1536, 0.2172, 0.3, 0.3965, 0.5]


def test_smartphone_phases_match_spec_table():
    np.testing.assert_allclose(smartphone_phases(), SPEC_F, atol=5e-5)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_named_models_sample_and_are_seeded(name):
    a = named_model(name, seed=5)
    b = named_model(name, seed=5)
    assert a.n_clients == (2 if name.startswith("table1") else 100)
    A = a.sample(np.random.default_rng(0), 7, 3)
    assert A.shape == (3, 7, a.n_clients) and A.dtype == bool
    np.testing.assert_array_equal(A, b.sample(np.random.default_rng(0), 7, 3))
    assert np.isfinite(min_variance_rates(a).H)


def test_paper_parameters():
    assert named_model("scarce").q.tolist() == [0.2] * 100
    home = named_model("home-devices", clients=500, seed=1)
    assert home.q.max() == 1.0 and home.cap.values == (10,)
    # lognormal(0, 0.5): log q = log T - max log T, spread ~ 0.5
    assert 0.4 < np.std(np.log(home.q)) < 0.6
    un = named_model("uneven")
    np.testing.assert_allclose(un.q * un.weights, un.weights.min())  # q proportional to 1/p, max q = 1
    assert named_model("always").q.min() == 1.0
    assert named_model("cyclic").n_groups == 4


def test_model_names_errors():
    with pytest.raises(UserInputError, match="did you mean"):
        named_model("scarse")
    with pytest.raises(UserInputError, match="exactly 2 clients"):
        named_model("table1", clients=5)


def write(tmp_path, text, name="m.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_toml_table_equals_table1(tmp_path):
    path = write(tmp_path, """
        kind = "table"
        k = 1
        weights = [0.5, 0.5]
        sets = [[1, 1], [1, 0], [0, 1], [0, 0]]
        probs = [0.3, 0.075, 0.5, 0.125]
    """)
    opt = min_variance_rates(load_model(path))
    np.testing.assert_allclose(opt.r_star, [0.375, 0.5], atol=1e-12)


def test_toml_other_kinds(tmp_path):
    m = load_model(write(tmp_path, 'kind = "independent"\nq = [0.5, 0.5, 1.0]\n[cap]\nvalues = [1, 2]\nprobs = [0.5, 0.5]\n'))
    assert isinstance(m, Independent) and m.cap.values == (1, 2)
    m = load_model(write(tmp_path, 'kind = "markov"\nk = 1\nstates = [[1, 0], [0, 1]]\ntransition = [[0.5, 0.5], [1.0, 0.0]]\n', "c.toml"))
    assert isinstance(m, MarkovChain)
    np.testing.assert_allclose(m.stationary, [2 / 3, 1 / 3])
    m = load_model(write(tmp_path, 'kind = "named"\nname = "scarce"\nclients = 12\nk = 3\n', "n.toml"))
    assert m.n_clients == 12 and m.cap.values == (3,)
    m = load_model(write(tmp_path, 'kind = "cyclic"\nk = 2\ngroups = [0, 1, 0, 1]\n', "g.toml"))
    np.testing.assert_allclose(m.marginals(), 0.5)
    m = load_model(write(tmp_path, 'kind = "periodic"\nk = 1\nq = [1.0, 0.5]\nf = [1.0, 0.5]\n', "p.toml"))
    np.testing.assert_allclose(m.marginals(), [0.75, 0.375])


@pytest.mark.parametrize(
    "text, pattern",
    [
        ('kind = "table"\nk = 1\nsets = [[1, 0], [0, 1]]\nprobs = [0.5, 0.4]\n', r"sum to 0\.9.*not 1"),
        ('kind = "independent"\nk = 1\nq = [0.5, -0.2]\n', r"negative probability"),
        ('kind = "markov"\nk = 1\nstates = [[1, 0], [0, 1]]\ntransition = [[1.0, 0.0], [0.5, 0.5]]\n', r"reducible"),
        ('kind = "markov"\nk = 1\nstates = [[1, 0], [0, 1]]\ntransition = [[0.5, 0.5], [0.5, 0.4]]\n', r"row 1"),
        ('kind = "independent"\nk = 0\nq = [0.5, 0.5]\n', r"k=0 < 1"),
        ('kind = "independent"\nk = 1\nq = [0.5, 0.5\nx = 1\n', r"line \d"),
        ('kind = "independent"\nk = 1\nq = [0.5]\nbogus = 2\n', r"unknown key 'bogus' at line 4"),
        ('kind = "table"\nk = 1\nsets = [[1, 0], [0]]\nprobs = [0.5, 0.5]\n', r"sets at line 3"),
        ('kind = "nope"\n', r"unknown model kind"),
    ],
)
def test_toml_errors_are_one_line(tmp_path, text, pattern):
    with pytest.raises(UserInputError, match=pattern) as info:
        load_model(write(tmp_path, text))
    assert "\n" not in str(info.value)


def test_never_available_weighted_client_is_an_error():
    m = Independent.build([0.5, 0.0], 1)
    with pytest.raises(UserInputError, match="client 1 is never available.*infinite"):
        min_variance_rates(m)
    # with weight 0 it is fine and gets rate 0
    opt = min_variance_rates(m, p=[1.0, 0.0])
    np.testing.assert_allclose(opt.r_star, [0.5, 0.0])


def test_cap_validation():
    with pytest.raises(UserInputError, match="< 1"):
        make_cap(0)
    with pytest.raises(UserInputError, match="not an integer"):
        make_cap(1.5)
    with pytest.raises(UserInputError, match="sum to"):
        make_cap({1: 0.5, 2: 0.6})
