"""A check group scores a point once: specs that share a stream and a point read the same estimate."""

import verify.scenario as scenario_mod
from verify.checks import Certify, Context, Group, run_group


def _counting(monkeypatch):
    calls: list[tuple] = []
    real = scenario_mod.evaluate_point

    def counted(sc, point, *args, **kwargs):
        calls.append((sc.id, kwargs.get("seed"), kwargs.get("trials")))
        return real(sc, point, *args, **kwargs)

    monkeypatch.setattr(scenario_mod, "evaluate_point", counted)
    return calls


def test_specs_on_one_stream_score_the_point_once(monkeypatch):
    calls = _counting(monkeypatch)
    same = [Certify("F3AST.LB.5", id=f"lb5-{i}", trials=(256, 256), stream="shared") for i in range(2)]
    other = Certify("F3AST.LB.5", id="lb5-own", trials=(256, 256))  # its own seed: scored again
    records = run_group(Group("MEMO.TEST", (*same, other)), Context(quick=True, seed=0))
    assert len(calls) == 2
    assert calls[0][1] != calls[1][1]  # the shared stream's seed and the third spec's own
    a, b, c = records
    assert (a.lhs, a.ci, a.seed) == (b.lhs, b.ci, b.seed) and a.instance["seeds"] == b.instance["seeds"]
    assert c.instance["seeds"] != a.instance["seeds"] and c.lhs != a.lhs


def test_the_cache_lives_for_one_group(monkeypatch):
    calls = _counting(monkeypatch)
    group = Group("MEMO.TEST", (Certify("F3AST.LB.5", id="lb5", trials=(256, 256), stream="shared"),))
    first = run_group(group, Context(quick=True, seed=0))
    second = run_group(group, Context(quick=True, seed=0))
    assert len(calls) == 2 and first[0].lhs == second[0].lhs  # same seed, same numbers, scored each run
