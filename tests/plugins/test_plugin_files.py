"""`--plugin FILE.py` and CONVBOUND_PLUGINS: results, problems, algorithms and checks with their origin."""

import textwrap

from plugin_helpers import EXAMPLES

from bounds import get, plugins

GD = str(EXAMPLES / "gd_drori_teboulle.py")


def _write(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return str(path)


def test_plugin_result_listed_with_origin_and_checked(convbound):
    run = convbound("--plugin", GD, "list", "--json")
    assert run.code == 0, run.err
    rows = {r["key"]: r for r in run.json()}
    assert rows["DT14.T3.1"]["origin"] == f"file {GD}"
    assert rows["FAST.T1"]["origin"] == "built-in"
    # L D2 / (4 n L gamma + 2) at L=2, gamma=0.25, n=3, D2=5: 10 / (6 + 2)
    run = convbound("--plugin", GD, "check", "DT14.T3.1", "L=2", "gamma=0.25", "n=3", "D2=5", "--json")
    assert run.code == 0, run.err
    assert abs(run.json()["value"] - 1.25) < 1e-12 and run.json()["holds"] is True
    assert run.json()["origin"] == f"file {GD}"
    run = convbound("--plugin", GD, "show", "DT14.T3.1")
    assert f"origin: file {GD}" in run.out.replace("\n", "")


def test_env_var_loads_plugin_files(convbound, monkeypatch, tmp_path):
    monkeypatch.setenv(plugins.ENV_VAR, GD)
    assert get("DT14.T3.1").origin == f"file {GD}"
    run = convbound("solve", "DT14.T3.1", "L=2", "n=3", "D2=5", "--for", "gamma", "--mode", "max", "--json")
    assert run.code == 0, run.err
    assert abs(run.json()["value"] - 0.5) < 1e-9  # the cap gamma <= 1/L


def test_clash_with_a_built_in_is_one_line_exit_2_and_built_ins_keep_working(convbound, tmp_path):
    bad = _write(tmp_path, "clash.py", """
        import dataclasses
        from bounds import get

        def results():
            return [dataclasses.replace(get("FAST.T1"), title="mine")]
    """)
    run = convbound("--plugin", bad, "list")
    assert run.code == 2
    assert run.err.count("\n") == 1 and bad in run.err and "'FAST.T1'" in run.err and "built-in" in run.err
    assert "Traceback" not in run.err
    assert convbound("list", "--json").code == 0
    assert get("FAST.T1").title != "mine"


def test_clash_between_two_files_names_both(convbound, tmp_path):
    copy = _write(tmp_path, "copy.py", open(GD, encoding="utf-8").read())
    run = convbound("--plugin", GD, "--plugin", copy, "list")
    assert run.code == 2 and GD in run.err and copy in run.err and "DT14.T3.1" in run.err


def test_import_failure_names_the_file(convbound, tmp_path):
    broken = _write(tmp_path, "broken.py", "import no_such_module_for_convbound\n")
    run = convbound("--plugin", broken, "list")
    assert run.code == 2 and broken in run.err and "no_such_module_for_convbound" in run.err
    assert "Traceback" not in run.err
    assert convbound("list").code == 0
    run = convbound("--plugin", str(tmp_path / "missing.py"), "list")
    assert run.code == 2 and "does not exist" in run.err


def test_plugin_algorithm_and_problem_reach_simulate(convbound, tmp_path):
    plug = _write(tmp_path, "algo.py", """
        from quadratics import fedavg, heterogeneous_quadratic
        from quadratics.registry import Key, Spec

        def algorithms():
            return [Spec(lambda eta: fedavg(eta=eta, K=1), {"eta": Key(float, 0.5, "step")}, "plain GD step",
                         name="gd1")]

        def problems():
            return [Spec(lambda L: heterogeneous_quadratic(L=L, mu=L, d=1, M=2, zeta=0.0, sigma=0.0),
                         {"L": Key(float, 1.0, "curvature")}, "1-D quadratic", name="line")]
    """)
    run = convbound("--plugin", plug, "simulate", "--problem", "line", "--algorithm", "gd1", "--pattern", "uniform",
                    "S=2", "eta=0.5", "L=1", "--trials", "2", "--rounds", "3", "--json", "--device", "cpu")
    assert run.code == 0, run.err
    # x_{r+1} - x* = (1 - eta L)(x_r - x*): dist_sq after 3 rounds = 0.5^6 * D0 (D0 = 1)
    assert abs(run.json()["final"]["dist_sq"]["mean"] - 0.5**6) < 1e-9
    from quadratics.registry import algorithms, help_text

    assert algorithms()["gd1"].origin == f"file {plug}"
    assert f"[file {plug}]" in help_text()


def test_wrong_object_or_failing_function_is_named(convbound, tmp_path):
    wrong = _write(tmp_path, "wrong.py", "def results():\n    return ['not a result']\n")
    run = convbound("--plugin", wrong, "list")
    assert run.code == 2 and wrong in run.err and "not a bounds.Result" in run.err
    failing = _write(tmp_path, "failing.py", "def scenarios():\n    raise KeyError('oops')\n")
    run = convbound("--plugin", failing, "verify", "FAST.T1")
    assert run.code == 2 and failing in run.err and "scenarios() failed: KeyError" in run.err
    run = convbound("--plugin", _write(tmp_path, "x.txt", ""), "list")
    assert run.code == 2 and "must end in .py" in run.err


def test_a_scenario_object_joins_verify_at_its_default_point(convbound, tmp_path):
    plug = _write(tmp_path, "scen.py", """
        from types import SimpleNamespace

        class Scenario:
            id, result, title = "DT14.S1", "DT14.T3.1", "GD scenario"

            def default_point(self):
                return {"n": 4}

            def build(self, point):
                from quadratics import fedavg, heterogeneous_quadratic, uniform
                pb = heterogeneous_quadratic(L=1.0, mu=1.0, d=1, M=2, zeta=0.0, sigma=0.0, D0=1.0)
                return SimpleNamespace(problem=pb, algorithm=fedavg(eta=0.5, K=1), pattern=uniform(M=2, S=2),
                                       rounds=point["n"], values={"L": 1, "gamma": 0.5, "n": point["n"], "D2": 1},
                                       measure=lambda sim: sim.metrics["gap"][point["n"]], assumed={})

        def scenarios():
            return [Scenario()]
    """)
    run = convbound("--plugin", GD, "--plugin", plug, "verify", "DT14.S1", "--json", "--trials", "2", "--device", "cpu")
    assert run.code == 0, run.err
    (rec,) = run.json()
    # f(x_4) - f* = (1/2) (1/2)^8 on x^2/2 with step 1/2; RHS L D2 / (4 n L gamma + 2) = 1 / 10
    assert rec["lhs"] == 0.5 * 0.5**8 and abs(rec["rhs"] - 0.1) < 1e-12
    assert rec["verdict"] == "holds" and rec["instance"]["origin"] == f"file {plug}"


def test_a_task_carries_the_plugin_files_and_its_worker_loads_them():
    from verify.runtime.executor import Task, call
    from verify.suite import group_tasks

    plugins.add_files([GD])
    task = group_tasks(["FAST.T1"], quick=True, trials=None, device="cpu", seed=0)[0]
    assert task.plugins == (GD,)
    plugins.clear_files()  # a fresh worker: nothing loaded until the task says so
    probe = Task("bounds.registry:get", {"key": "DT14.T3.1"}, key="probe", plugins=task.plugins)
    assert call(probe).origin == f"file {GD}"


def test_a_plugin_failure_names_its_plugin_once(convbound, tmp_path):
    """A plugin's function that raises a user error is prefixed with its file; one that loads a broken plugin file
    passes that file's own message on (a ``plugins.PluginError``), not named twice."""
    broken = _write(tmp_path, "broken.py", "import no_such_module_for_convbound\n")
    refusing = _write(tmp_path, "refusing.py", """\
        from bounds.core.errors import UserInputError
        def results():
            raise UserInputError("no results today")
        """)
    run = convbound("--plugin", refusing, "list")
    assert run.code == 2 and f"plugin file {refusing}: no results today" in run.err
    loading = _write(tmp_path, "loading.py", f"""\
        from bounds import plugins
        def results():
            return plugins.load_file({broken!r}).results()
        """)
    run = convbound("--plugin", loading, "list")
    assert run.code == 2 and f"plugin file {broken} failed to import" in run.err
    assert loading not in run.err and run.err.count("plugin file") == 1, run.err


def test_a_rejected_origin_leaves_its_file_out_and_an_entry_points_is_ignored():
    from pathlib import Path

    plugins.add_files([GD])
    try:
        path = str(Path(GD).resolve())
        assert path in plugins.files()
        plugins.contributions("results")  # names the file's origin "file <path>"
        plugins.reject("entry point gd (some-dist)")  # an entry point cannot be left out
        plugins.reject(f"file {path}x")  # a label no contribution made: nothing
        assert path in plugins.files()
        plugins.reject(f"file {path}")
        assert path not in plugins.files()
    finally:
        plugins.clear_files()
