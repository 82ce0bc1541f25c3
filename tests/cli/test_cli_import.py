"""`convbound import-latex`: the docs' worked example end to end, plugin skeletons with sums, and bad input
(one line, exit 2), all in-process."""

from __future__ import annotations

import importlib.util
import inspect
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "latex-import.md"
EXAMPLE = ROOT / "docs" / "examples" / "fast_t1_latex.toml"
T1 = ["L=1", "K=5", "m=10", "n=5", "q=0.5", "sigma2=1", "sigma_G2=0.25", "zeta=1", "R=1000", "eta_c=0.005"]


def _one_line_error(run) -> str:
    assert run.code == 2, (run.code, run.out, run.err)
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.err, run.err
    return lines[0]


def test_the_docs_worked_example_runs_and_matches_the_spec_number(convbound, tmp_path):
    block = re.search(r"```toml\n(.*?)```", DOC.read_text(), re.S).group(1)
    assert block == EXAMPLE.read_text()  # the page shows the file the test runs
    src = tmp_path / "fast_t1_latex.toml"
    src.write_text(block)
    out = tmp_path / "fast_t1.toml"
    run = convbound("import-latex", str(src), "--out", str(out))
    assert run.code == 0, run.err
    assert run.out.count("every one read") == 2 and "read:    \\eta_{c} \\leq \\min" in run.out
    check = convbound("check", "--file", str(out), *T1)
    assert check.code == 0, check.err
    # spec/fast.md FAST.T1 worked example: 0.16 + 0.003 + 0.0140625 = 0.1770625
    assert "bound = 0.177063" in check.out and "all hypotheses hold" in check.out
    from bounds.tomlresult import load_result

    values = dict(kv.split("=") for kv in T1)
    total = load_result(str(out)).evaluate({k: float(v) for k, v in values.items()}).value
    assert abs(float(total) - (0.16 + 0.003 + 0.0140625)) < 1e-12


def test_stdin_json_and_tokens(convbound, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(EXAMPLE.read_text()))
    run = convbound("import-latex", "-", "--json")
    assert run.code == 0, run.err
    doc = run.json()
    bound = doc["formulas"][-1]
    roles = {t["role"].split(" (")[0] for t in bound["tokens"]}
    assert {"left side", "fraction \\frac", "underbrace"} <= roles and all(t["role"] for t in bound["tokens"])
    assert 'expr = "4*zeta/(K*R*eta_c)"' in doc["text"]
    monkeypatch.setattr("sys.stdin", io.StringIO(EXAMPLE.read_text()))
    listing = convbound("import-latex", "-", "--tokens")
    assert re.search(r"col\s+\d+\s+\\underbrace\s+underbrace", listing.out)


T2_DOC = r"""id = "FAST.T2.tex"
lhs = "final-dist-sq"
[provenance]
seed = "FAST"
locator = "Theorem 2"
[symbols]
eta_c = { meaning = "client step size" }
L = { meaning = "smoothness" }
K = { meaning = "local steps", domain = "positive_integer" }
R = { meaning = "rounds", domain = "positive_integer" }
m = { meaning = "snapshot cohort size", domain = "positive_integer" }
n = { meaning = "arbitrary cohort size", domain = "positive_integer" }
q = { meaning = "snapshot probability", domain = "probability" }
mu = { meaning = "strong convexity" }
kappa = { meaning = "||x_0 - x*||^2", domain = "nonnegative" }
sigma2 = { meaning = "noise", domain = "nonnegative", latex = '\sigma^2' }
sigma_G2 = { meaning = "dissimilarity", latex = '\sigma_G^2' }
[[hypotheses]]
name = "caps"
latex = '0<\eta_c\le\min\Bigl\{\frac1{20mLK},\frac1{20nLK}\Bigr\},\qquad q\ \ge\ 1-\frac{\mu K\eta_c-16L^2K^2\eta_c^2}{4\sigma_G^2}'
[bound]
latex = '\mathbb E\|\mathbf x_R-\mathbf x^*\|^2\le e^{-\mu KR\eta_c}\,\kappa+\frac{(1-q)}{2\mu}K\eta_c+\frac{8}{\mu}K\eta_c\sigma_G^2+\frac{2(qn+(1-q)m)}{mn\mu}\eta_c\sigma^2'
"""


def test_fast_t2_as_printed_gives_the_spec_worked_example_and_notes_the_implied_hypothesis(convbound, tmp_path):
    src = tmp_path / "t2.toml"
    src.write_text(T2_DOC)
    out = tmp_path / "t2_result.toml"
    run = convbound("import-latex", str(src), "--out", str(out))
    assert run.code == 0, run.err
    assert "note: hypothesis 'caps (1)' (0 < eta_c) holds by the declared domains; not written" in run.out
    check = convbound("check", "--file", str(out), "mu=0.1", "L=1", "K=5", "m=10", "n=10", "eta_c=0.001",
                      "sigma_G2=1e-4", "sigma2=1", "kappa=1", "R=1000", "q=0.8")
    # spec/fast.md FAST.T2 worked example: e^-0.5 + 0.005 + 4e-5 + 0.002 = 0.6135707
    assert check.code == 0 and "bound = 0.613571" in check.out and "all hypotheses hold" in check.out


SUM_DOC = """id = "USER.SUM"
lhs = "final-dist-sq"
[provenance]
seed = "made up for a test"
locator = "Eq. 1"
[symbols]
D = { meaning = "initial squared distance" }
R = { meaning = "rounds", domain = "positive_integer" }
N = { meaning = "clients", domain = "positive_integer" }
sigma2 = { meaning = "noise", latex = '\\sigma^2' }
p = { meaning = "weights", domain = "vector_probability" }
r = { meaning = "rates", domain = "vector_rate" }
[bound]
latex = '\\mathbb E\\|x_R-x^*\\|^2\\le\\frac{D}{R}+\\frac{\\sigma^2}{R}\\sum_{k=1}^N\\frac{p_k^2}{r_k}'
"""


def test_a_sum_needs_the_plugin_skeleton_which_evaluates_by_hand_arithmetic(convbound, tmp_path):
    src = tmp_path / "sum.toml"
    src.write_text(SUM_DOC)
    refused = _one_line_error(convbound("import-latex", str(src)))
    assert "sum or product" in refused and "--plugin" in refused
    plug = tmp_path / "user_sum.py"
    run = convbound("import-latex", str(src), "--plugin", "--out", str(plug))
    assert run.code == 0, run.err
    check = convbound("--plugin", str(plug), "check", "USER.SUM", "D=2", "R=10", "sigma2=3", "N=2",
                      "p=0.5,0.5", "r=0.25,1")
    assert check.code == 0, check.err
    # D/R + sigma^2/R (0.25/0.25 + 0.25/1) = 0.2 + 0.3 * 1.25 = 0.575
    assert "bound = 0.575" in check.out


@pytest.mark.parametrize(("mutate", "needle"), [
    (lambda t: t.replace(r"\frac{1}{8LK}", r"\frac{1}{8LK\foo}"), r"'\\foo' at column"),
    (lambda t: t.replace(r"\frac{4\zeta}{KR\eta_c}", r"\frac{4\zeta}{KR\eta_d}"), r"\eta_{d} is not a declared"),
    (lambda t: t.replace(r"L^2 K^2", r"L^2 * K^2"), "'*' at column"),
    (lambda t: "", "is empty"),
    (lambda t: t.replace("[symbols]", "[symbols"), "is not a TOML document"),
    (lambda t: t.replace('lhs = "mean-grad-sq"', 'lhs = "final-dist-sq"'), "cannot be mapped to --lhs final-dist-sq"),
    (lambda t: t.replace('lhs = "mean-grad-sq"', 'lhs = "best-iterate"'), "unknown left-side measure"),
    (lambda t: t.replace(r"\eta_c \leq \min", r"\eta_c = \min"), "is an equality"),
    (lambda t: t.replace(r"\eta_c \leq \min", r"\eta_c \approx \min"), r"'\\approx' at column"),
    (lambda t: t.replace("\\leq\n", "\\leq \\mathcal O\\Bigl(\n").replace("Error}},\n", "Error}}\\Bigr),\n"),
     r"'\\mathcal' at column"),
    (lambda t: t.replace("[provenance]", "[provenance]\nfoo = 1\n[x]"), "unknown key"),
    (lambda t: t.replace('L = { meaning = "smoothness" }', 'L = { latex = 3 }'), "latex = 3 is not allowed"),
])
def test_bad_input_is_one_line_exit_2(convbound, tmp_path, mutate, needle):
    src = tmp_path / "bad.toml"
    src.write_text(mutate(EXAMPLE.read_text()))
    line = _one_line_error(convbound("import-latex", str(src)))
    assert needle in line, line


def test_missing_file_and_existing_out_are_one_line(convbound, tmp_path):
    assert "does not exist" in _one_line_error(convbound("import-latex", str(tmp_path / "none.toml")))
    out = tmp_path / "taken.toml"
    out.write_text("x")
    assert "--force" in _one_line_error(convbound("import-latex", str(EXAMPLE), "--out", str(out)))


def test_measures_name_functions_and_metrics_the_engine_has():
    from bounds.latex_lhs import MEASURES

    scenario = importlib.util.find_spec("verify.measures")  # where at_round and mean_over_rounds live
    source = Path(scenario.origin).read_text()
    import quadratics.heterogeneous as het

    metrics = inspect.getsource(het)
    for m in MEASURES.values():
        assert f"def {m.function}(" in source and f'"{m.metric}"' in metrics, m
