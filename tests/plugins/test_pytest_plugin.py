"""`python -m pytest -p convbound` in a fresh directory outside the repository, with a ten-line user test file."""

import os
import subprocess
import sys
import textwrap

from plugin_helpers import EXAMPLES, ROOT

USER_TESTS = textwrap.dedent('''
    from hypothesis import given, settings

    def test_sgd_bound_holds(assert_bound_holds):
        assert_bound_holds("PESTO.SGD", level=0.99, trials=400)

    def test_rate(assert_rate):
        assert_rate([10, 100, 1000, 10000], [1.0, 0.316, 0.1, 0.0316], exponent=-0.5, tol=0.01)

    @settings(max_examples=5, deadline=None)
    @given(values=__import__("verify.testing").testing.params_for("DT14.T3.1"))
    def test_params_are_valid(values):
        assert values["gamma"] <= 1 / values["L"]
''')


def test_pytest_plugin_in_a_fresh_directory(tmp_path):
    work = tmp_path / "user"
    work.mkdir()
    (work / "test_mine.py").write_text(USER_TESTS, encoding="utf-8")
    # the pytest11 entry point `convbound = verify.testing.pytest_plugin`, as pyproject.toml installs it
    shim = tmp_path / "shim" / "convbound_pytest_shim-0.1.dist-info"
    shim.mkdir(parents=True)
    (shim / "METADATA").write_text("Metadata-Version: 2.1\nName: convbound-pytest-shim\nVersion: 0.1\n", encoding="utf-8")
    (shim / "entry_points.txt").write_text("[pytest11]\nconvbound = verify.testing.pytest_plugin\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(shim.parent)]),
               CONVBOUND_PLUGINS=str(EXAMPLES / "sgd_pesto_one_step.py") + os.pathsep + str(EXAMPLES / "gd_drori_teboulle.py"))
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "convbound", "-q", "-p", "no:cacheprovider", "test_mine.py"],
                         cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "3 passed" in out.stdout
    # and a failing bound fails the user's test (the helper can fail)
    (work / "test_fails.py").write_text(textwrap.dedent('''
        def test_wrong_rate(assert_rate):
            assert_rate([10, 100, 1000], [1.0, 0.1, 0.01], exponent=-0.5)
    '''), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "convbound", "-q", "-p", "no:cacheprovider", "test_fails.py"],
                         cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 1 and "does not contain the exponent -0.5" in out.stdout
