"""falsify prints its finding first and the minimal counterexample after it (the shrink log came first)."""

import reports.cli.cmd_falsify as cmd
import reports.cli.shrunk as shrunk


class _Found:
    """A search record that confirmed a violation: what falsify_cmd reads of one."""

    confirmation = {"verdict": "violated"}
    best = {"point": {}}
    interrupted = False

    def to_dict(self):
        return {"confirmation": dict(self.confirmation)}


def test_the_shrink_lines_follow_the_finding(convbound, monkeypatch):
    monkeypatch.setattr(cmd, "_check_searchable", lambda sc, opts: None)
    monkeypatch.setattr(cmd, "_run_search", lambda sc, opts, scheduler, workers: _Found())
    monkeypatch.setattr(cmd, "_print_search", lambda rec: print("finding: violated at the best point"))
    calls = []

    def fake_shrink(doc, sc, rec, **kwargs):
        calls.append(kwargs["as_json"])
        print("(nothing printed while shrinking)")  # anything printed during the shrink comes before the finding
        return ["minimal counterexample (1 move): violated"]

    monkeypatch.setattr(shrunk, "shrink_into", fake_shrink)
    run = convbound("falsify", "FAST.T2@corrected", "--budget", "2", "--seed", "0")
    assert run.code == 0 and calls == [False], run.err
    lines = run.out.splitlines()
    assert lines.index("finding: violated at the best point") < lines.index("minimal counterexample (1 move): violated")


def test_json_output_has_no_shrink_lines(convbound, monkeypatch):
    monkeypatch.setattr(cmd, "_check_searchable", lambda sc, opts: None)
    monkeypatch.setattr(cmd, "_run_search", lambda sc, opts, scheduler, workers: _Found())
    monkeypatch.setattr(shrunk, "shrink_into", lambda doc, sc, rec, **kw: [] if kw["as_json"] else ["x"])
    run = convbound("falsify", "FAST.T2@corrected", "--budget", "2", "--seed", "0", "--json")
    assert run.code == 0 and run.out.lstrip().startswith("{") and "\nx\n" not in run.out
