"""The README speaks to a user who has only this repository: its commands run, its quoted outputs are printed,
its set-up commands are the ones CI runs, and it carries no development log."""

import json
import os
import re
import shlex
import shutil
import sys
import time
from pathlib import Path

import pytest
from doc_blocks import ROOT, json_contains, quoted_output_matches, run_shell, usage_blocks

README = (ROOT / "README.md").read_text(encoding="utf-8")
INSTALL = 'pip install "torch==2.13.0" -e . && convbound report --quick'
TEST = ('bash .ci/browser-deps && pip install "torch==2.13.0" -e ".[test,flower]" && ruff check . && '
        "python -m pytest -n auto")


def test_readme_is_short():
    assert len(README.splitlines()) <= 300


def test_setup_commands_are_the_two_and_ci_runs_the_test_command():
    blocks = re.findall(r"```bash\n(.*?)\n```", README, re.S)
    assert blocks[:2] == [INSTALL, TEST]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert TEST in ci


def test_readme_points_to_nothing_outside_the_repository():
    assert "../shared" not in README
    assert not re.search(r"\bshared/(spec|seeds)\b", README)


def test_links_point_to_files_of_the_clone():
    links = re.findall(r"\]\(((?!https?:)[^)#]+)", README)
    assert len(links) >= 8
    missing = [link for link in links if not (ROOT / link).is_file()]
    assert not missing, missing
    # paths named in code spans: files of the clone too (a moved file leaves no stale name behind)
    named = re.findall(r"`((?:tests|docs|verify|bounds|reports|quadratics|rate_region)/[\w/.@-]+\.(?:py|md|json|toml))",
                       README)
    assert len(named) >= 3
    assert not [n for n in named if not (ROOT / n).is_file()], named


# --- the usage blocks ----------------------------------------------------------------------------------

#: Commands not run even by the whole run below, each with why.
SKIPPED: dict[str, str] = {}
#: The set-up blocks install packages (pip, apt); their ``convbound report --quick`` is the tour's
#: ``report --quick --force``, which is run there.
SETUP = ("pip install", "bash .ci/browser-deps")
#: What a clone holds that the blocks read (plugins, example models and theorems).
CLONED = ("docs/examples",)


def test_the_tour_has_its_five_steps_and_the_findings_their_commands():
    cmds = [c for _, c, _ in usage_blocks(README)]
    verbs = {shlex.split(c)[1] if not c.startswith("convbound --plugin") else shlex.split(c)[3] for c in cmds}
    assert {"check", "falsify", "decide", "conform", "import-latex", "report"} <= verbs
    assert "falsify FAST.T1 --problems quadratic" in " ".join(cmds)
    assert any(c.startswith("convbound falsify FAST.T2@corrected") for c in cmds)
    assert any(c.startswith("convbound decide all") for c in cmds)


def test_report_outputs_and_includes_do_not_collide():
    """Each report writes its own directory, and each file a command reads is shipped or written earlier."""
    cmds = [shlex.split(c, comments=True) for _, c, _ in usage_blocks(README) if not any(s in c for s in SETUP)]
    outs = [a[a.index("--out") + 1] if "--out" in a else "convbound-report" for a in cmds
            if a[:2] == ["convbound", "report"]]
    assert len(outs) == len(set(outs)) >= 2
    written: set[str] = set()
    for a in cmds:
        for i, tok in enumerate(a):
            if tok in ("--include", "--search", "--instance", "--from-json", "--plugin", "--file", "--worst-case"):
                assert a[i + 1] in written or (ROOT / a[i + 1]).is_file(), a[i + 1]
            if tok in (">", "--out", "--instance-out") and i + 1 < len(a):
                written.add(a[i + 1])
        if a[:2] == ["convbound", "report"]:
            out = a[a.index("--out") + 1] if "--out" in a else "convbound-report"
            written.add(f"{out}/results.json")
        if a[:2] == ["convbound", "conform"]:
            assert (ROOT / a[2].split(":")[0]).is_file(), a[2]


def test_quoted_output_check_can_fail():
    """The matcher that the runs use: an excerpt passes; a changed number, key, order or missing line fails."""
    printed = json.dumps({"id": "X", "value": 0.17706250000000001, "terms": {"a": 0.16},
                          "conditions": [{"name": "c1", "holds": True}, {"name": "c2", "holds": None}]}, indent=2)
    assert quoted_output_matches(['{ "id": "X", "value": 0.1770625, "conditions": [ {"name": "c2", ...} ], ... }'],
                                 printed) is None
    assert quoted_output_matches(['{ "id": "X", "value": 0.177064 }'], printed)  # 0.1770625 is not 0.177064
    assert quoted_output_matches(['{ "id": "X", "terms": {"b": 0.16} }'], printed)
    assert quoted_output_matches(['{ "conditions": [ {"name": "c2"}, {"name": "c1"} ] }'], printed)
    assert quoted_output_matches(['{ "conditions": [ {"holds": false} ] }'], printed)
    listed = json.dumps([{"id": "A", "outcome": "refuted"}, {"id": "B", "outcome": "open"}])
    assert quoted_output_matches(['[ { "id": "B", "outcome": "open", ... } ]'], listed) is None
    assert quoted_output_matches(['[ { "id": "B", "outcome": "refuted" } ]'], listed)
    assert not json_contains([{"id": "B"}, {"id": "A"}], json.loads(listed))  # order kept
    text = "R = 875  (smallest R); bound there = 0.1999196\n  origin: file /x/docs/a.py\nmore"
    assert quoted_output_matches(["R = 875 (smallest R); bound ...", "origin: file .../docs/a.py"], text) is None
    assert quoted_output_matches(["R = 876 ..."], text)
    assert quoted_output_matches(["origin: file .../docs/a.py", "R = 875 ..."], text)  # order kept


def test_quoted_outputs_are_printed(convbound, monkeypatch):
    """Every command whose output the README quotes prints it (in-process: fast, so in every run)."""
    from bounds import plugins

    quoted = [(n, c, q) for n, c, q in usage_blocks(README) if q]
    assert len(quoted) >= 5
    monkeypatch.chdir(ROOT)  # the README's paths are the clone's
    try:
        for lineno, cmd, lines in quoted:
            argv = shlex.split(cmd, comments=True)
            assert argv[0] == "convbound" and ">" not in argv and "--out" not in argv, cmd
            run = convbound(*argv[1:])
            assert run.code == 0, (lineno, cmd, run.err)
            assert (wrong := quoted_output_matches(lines, run.out)) is None, (lineno, wrong)
    finally:
        plugins.clear_files()  # the --plugin runs register a result; later tests start without it


#: Wall-clock limit of one command: generous, because the shared machine can run 10-30x slower than a quiet one.
BLOCK_TIMEOUT_S = 3600


def run_usage_blocks(workdir: Path, log=None) -> tuple[list[str], list[str]]:
    """Run every usage command in order in workdir (a fresh directory): (failures, one timing line each)."""
    for sub in CLONED:
        shutil.copytree(ROOT / sub, workdir / sub)
    failed, timings = [], []
    for lineno, cmd, quoted in usage_blocks(README):
        if any(s in cmd for s in SETUP) or any(s in cmd for s in SKIPPED):
            continue
        t0 = time.perf_counter()
        code, stdout, stderr, cpu = run_shell(cmd, workdir, BLOCK_TIMEOUT_S)
        timings.append(f"{time.perf_counter() - t0:7.1f} s wall {cpu:7.1f} s CPU  exit {code}  line {lineno}: {cmd[:80]}")
        if log is not None:
            print(timings[-1], file=log, flush=True)
        if code:
            failed.append(f"README line {lineno}: exit {code}: {cmd}\n{stderr[-600:]}{stdout[-600:] if code == 1 else ''}")
        elif quoted and (wrong := quoted_output_matches(quoted, stdout)):
            failed.append(f"README line {lineno}: {cmd}\n{wrong}")
    return failed, timings


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("CONVBOUND_README_RUN") != "1",
                    reason="runs every README command (minutes): set CONVBOUND_README_RUN=1")
def test_usage_blocks_run_in_order_in_a_fresh_directory(tmp_path):
    failed, timings = run_usage_blocks(tmp_path, log=sys.__stderr__)
    assert not failed, "\n\n".join(failed) + "\n\ntimings:\n" + "\n".join(timings)


# --- what the README must not carry ----------------------------------------------------------------------

#: Development provenance that user documentation must not carry: issue or item numbers, commit hashes,
#: dates, load averages, and test counts that go stale.
PROVENANCE = re.compile(r"\b(issues?|items?)\s+#?\d+|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b"
                        r"|\b20\d\d-\d\d-\d\d\b|\bload( average)?\s*(of\s*)?\d|\b\d[\d,]{3,} tests\b", re.IGNORECASE)


def user_documents() -> list[Path]:
    """The README and every page of docs/ (the benchmark pages included; the examples are code)."""
    return [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*") if p.suffix in (".md", ".rst")
                                        and "_build" not in p.parts)]


def test_no_development_provenance_in_user_documents():
    hits = [f"{p.relative_to(ROOT)}:{n}: {m.group(0)!r}" for p in user_documents()
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            for m in PROVENANCE.finditer(line)]
    assert not hits, "\n".join(hits)


def test_the_provenance_check_can_fail():
    for bad in ("see issue 27", "item 6 of it", "on a1edb9a", "2026-11-27", "load 3.2", "load average 17",
                "3,811 tests"):
        assert PROVENANCE.search(bad), bad
    for good in ("FAST.T1", "0.1770625", "R = 875", "sigma_G2=0.25", "decide all", "reload", "over 60 tests"):
        assert not PROVENANCE.search(good), good


def test_readme_claims_what_decide_says():
    """The findings section names the outcomes that decide gives for the two FAST theorems."""
    from verify.decision_sources import DecideOptions, decide_results

    got = {d.id: d.outcome for d in decide_results(["FAST.T1", "FAST.T2@corrected", "F3AST.T3.7@printed"],
                                                   DecideOptions(live_pep=False))}
    assert got["F3AST.T3.7@printed"] == "refuted" and "F3AST Theorem III.7's burn-in as printed is refuted" in README
    assert got["FAST.T2@corrected"] == "refuted" and "FAST Theorem 2, corrected form, is refuted" in README
    assert got["FAST.T1"].startswith("refuted unless snapshot probability q >= q_min(G1,G2,G3)")
    assert "FAST Theorem 1 is refuted unless its snapshot threshold q_min(G1, G2, G3) is above 1" in README
    assert "every optimiser stops at ratio" not in README


def test_readme_certified_setting_is_what_decide_solves():
    """FAST.T2 is certified at the setting the README names (decide's live worst case)."""
    from verify.decision_sources import DecideOptions, decide_results

    (d,) = decide_results(["FAST.T2"], DecideOptions())
    assert d.outcome == "certified at stated settings"
    assert "local_gd K=2 R=3 M=2" in d.why
    assert "is at most the bound for\n  local GD with K = 2, R = 3, M = 2" in README


def test_readme_costs_are_the_records():
    """Each CPU time the README quotes for a command is the benchmark record's, to its printed digits; a command
    the benchmark stopped at its CPU limit is quoted as more than that, never as a measurement."""
    record = json.loads((ROOT / "tests/benchmarks/results/readme_commands.json").read_text(encoding="utf-8"))
    rows = {r["command"]: r for r in record["rows"]}
    quoted = re.findall(r"^\| `convbound ([^`]+)` \| ([^|]+) \| ([^|]+) \|", README, re.M)
    assert len(quoted) >= 4
    for command, cpu, target in quoted:
        row = rows[command]
        printed = f"{row['cpu_s']:.1f} s" if row["finished"] else f"more than {row['cpu_s']:.0f} s (stopped)"
        assert cpu.strip() == printed, (command, cpu, row)
        assert target.strip() == ("-" if row["target_cpu_s"] is None else f"{row['target_cpu_s']:.0f} s")
    # the sentence on the targets names exactly the commands that miss theirs in the record, or says none does
    missed = sorted(r["command"].split()[0] for r in record["rows"] if r["meets"] is False)
    text = " ".join(README.split())
    said = re.search(r"The ((?:`\w+`(?:, | and )?)+) targets? (?:is|are) not met yet\.", text)
    if missed:
        assert said is not None and sorted(re.findall(r"`(\w+)`", said.group(1))) == missed, (said, missed)
    else:
        assert said is None and "Every target is met in the record." in text
        assert all(r["meets"] is True for r in record["rows"] if r["target_cpu_s"] is not None)


def test_subprocess_helper_runs_a_command_as_printed(tmp_path):
    code, out, _, cpu = run_shell("convbound list | head -n 1 > first.txt && cat first.txt", tmp_path, 600)
    assert code == 0 and out.strip() and (tmp_path / "first.txt").read_text().strip() == out.strip() and cpu > 0
    assert run_shell("exit 3", tmp_path, 60)[0] == 3  # the shell's status is the block's
