"""The catalogue that lets `list`, `show ID` and `check ID` skip building every paper module.

bounds/catalogue.py is generated from the paper modules; these tests fail while it is stale, check
that what it says equals the built results, that asking for one key builds only its module, and
that plugins are still clash-checked against every built-in key (built or not).
"""

import dataclasses
import subprocess
import sys
import textwrap
from pathlib import Path

import sympy as sp

from bounds import all_results, get, plugins, variants
from bounds.registry import catalogue_source, summaries

ROOT = Path(__file__).resolve().parents[2]


def test_catalogue_file_is_current():
    text = (ROOT / "bounds" / "catalogue.py").read_text(encoding="utf-8")
    assert text == catalogue_source(), "stale: run python -m bounds.registry > bounds/catalogue.py"


def test_summaries_equal_the_built_results():
    built = [{"key": r.key, "id": r.id, "variant": r.variant, "title": r.title, "kind": r.kind.value,
              "paper": r.paper, "reconstructed": r.reconstructed,
              "source": f"{r.provenance.seed}, {r.provenance.locator}", "status": " ".join(s.value for s in r.status),
              "flags": len(r.flags), "origin": r.origin} for r in all_results()]
    assert summaries() == built
    assert len(built) >= 40


def test_variants_come_from_the_built_module_in_order():
    assert [r.key for r in variants("FAST.T2")] == ["FAST.T2", "FAST.T2@corrected", "FAST.T2@repaired"]
    assert get("FAST.C2").key == "FAST.C2@corrected"  # the first variant listed is the default


def test_written_out_d_equals_what_simplify_gives():
    from bounds.fast import D_mix, _d_mix_simplified, m, n

    for mm, nn in ((m, n), (m, m)):
        expected = sp.simplify(D_mix.subs({m: mm, n: nn}, simultaneous=True))
        assert sp.srepr(_d_mix_simplified(mm, nn)) == sp.srepr(expected)
    assert _d_mix_simplified(m, m) == m  # D = mq + m(1-q) = m


def test_ascaf_prescribed_step_is_already_simplified():
    prescribed = [(r.key, e) for r in all_results() if r.id.startswith("ASCAF.P.")
                  for _, e in r.prescribed]
    assert prescribed
    for key, expr in prescribed:
        assert sp.srepr(sp.simplify(expr)) == sp.srepr(expr), key


def _fresh(code: str, *env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", **dict(e.split("=", 1) for e in env)})


def test_one_key_builds_only_its_module_and_list_needs_no_sympy():
    run = _fresh("""
        import sys
        from bounds.registry import PAPER_MODULES, get, summaries
        rows = summaries()
        print("sympy" in sys.modules, len(rows))
        import bounds.fast
        def boom(*args, **kwargs):
            raise RuntimeError("built")
        bounds.fast.corollary1 = boom  # FAST.T1 must not build the other FAST results
        get("FAST.T1")
        print(sorted(m for m in PAPER_MODULES if m in sys.modules))
        try:
            get("FAST.C1")
        except RuntimeError as exc:
            print(exc)
    """)
    assert run.returncode == 0, run.stderr
    # the built-ins only: this worker's registry may also hold results that other tests' plugins added
    builtins = [r for r in all_results() if r.origin == plugins.BUILT_IN]
    assert run.stdout.split("\n")[:3] == [f"False {len(builtins)}", "['bounds.fast']", "built"]


def test_plugin_clashing_with_an_unbuilt_module_is_refused(tmp_path):
    plugin = tmp_path / "clash.py"
    plugin.write_text(textwrap.dedent("""
        import dataclasses
        from bounds import get

        def results():
            return [dataclasses.replace(get("FAST.T1"), id="DFL.T1", title="mine")]
    """), encoding="utf-8")
    argv = ["--plugin", str(plugin), "check", "FAST.T1", "L=1"]
    run = subprocess.run([sys.executable, "-m", "reports.cli.main", *argv], capture_output=True, text=True,
                         cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 2, run.stderr
    assert "'DFL.T1'" in run.stderr and "built-in" in run.stderr and "Traceback" not in run.stderr


def _code(fn) -> tuple:
    import linecache

    return tuple(linecache.getlines(fn.__code__.co_filename)), fn.__code__.co_names


def test_compiling_with_the_numpy_module_gives_the_same_functions_as_the_name():
    from bounds.evaluate import _compiled

    exprs = [e for r in all_results() for e in (*(t.expr for t in r.terms), r.rhs,
             *(side for h in r.hypotheses for side in (h.relation.lhs, h.relation.rhs)),
             *(e for _, e in r.prescribed))]
    assert len(exprs) > 200
    for expr in exprs:
        expr = sp.sympify(expr)
        syms = sorted(expr.free_symbols, key=lambda s: s.name)
        by_name = sp.lambdify(syms, expr, modules="numpy")
        _, ours = _compiled(dataclasses.replace(all_results()[0]), expr)  # a copy: a fresh cache
        assert _code(ours) == _code(by_name), expr
        assert all(ours.__globals__.get(n) is by_name.__globals__.get(n) for n in ours.__code__.co_names), expr


def test_known_answers_as_the_whole_registry_does():
    """registry.known(key) (no paper module built) says yes exactly for the keys all_results() holds."""
    from bounds.registry import all_results, known

    keys = {r.key for r in all_results()}
    assert keys and all(known(k) for k in keys)
    for k in ("FAST.T1@nope", "NOPE.T1", "fast.t1", ""):
        assert known(k) is (k in keys) is False
