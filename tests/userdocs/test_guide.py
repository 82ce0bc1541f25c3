"""The user guide's pages run: every command and Python block of each page, in order, in a fresh directory.

Each page runs as a user would follow it: in a directory holding the clone's ``docs/examples``, commands
in page order (a command's ``> FILE`` writes its output there, as a shell would), each Python block run as
a program at its place among them; every command must exit 0 and print what the page quotes after it.
Commands run in this process (``convbound`` through its entry point; ``python -m`` in a child), except
those in ``SLOW``, which only the whole run (``CONVBOUND_GUIDE_RUN=1``, each command in its own shell as
printed) runs; each says why it is left out of every run.
"""

import os
import runpy
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from doc_blocks import ROOT, python_blocks, quoted_output_matches, run_shell, usage_blocks

GUIDE = ROOT / "docs" / "guide"
PAGES = sorted(GUIDE.glob("*.md"))
#: Commands each page shows but every run leaves to the whole run, with why.
SLOW = {
    "convbound report --quick": "the main job (tens of seconds of CPU): timed by tests/benchmarks/"
                                "bench_readme_commands.py; the end-to-end report test builds a smaller one",
    "convbound falsify FAST.T1 --problems quadratic --budget 200": "a search of about a minute of CPU: its "
                                                                    "finding is the saved record decide reads",
    "convbound campaign FAST.T1": "gathers a result's missing evidence for up to two minutes of CPU: the "
                                  "campaign tests run a smaller one (tests/verify/evidence/)",
    "convbound campaign all": "gathers every result's missing evidence (about a quarter of an hour of CPU)",
}
#: What a clone holds that the pages read.
CLONED = ("docs/examples",)


def steps(page: Path) -> list[tuple[int, str, object]]:
    """("cmd", command, quoted lines) and ("py", source, None) of a page, in page order, by line number."""
    text = page.read_text(encoding="utf-8")
    out = [(n, "cmd", (c, q)) for n, c, q in usage_blocks(text)]
    out += [(n, "py", src) for n, src in python_blocks(text)]
    return [(n, kind, body) for n, kind, body in sorted(out, key=lambda s: s[0])]


def _is_slow(cmd: str) -> bool:
    return any(cmd.startswith(s) for s in SLOW)


def test_every_page_is_in_the_toctree_and_has_blocks():
    index = (ROOT / "docs" / "index.rst").read_text(encoding="utf-8")
    assert {p.stem for p in PAGES} == {"quickstart", "checking", "breaking", "deciding", "your-code",
                                       "your-theorem", "reports"}
    for page in PAGES:
        assert f"guide/{page.stem}" in index
        assert any(kind == "cmd" for _, kind, _ in steps(page)), page.name


def test_slow_commands_are_on_the_pages():
    cmds = [c for p in PAGES for _, kind, body in steps(p) if kind == "cmd" for c in [body[0]]]
    for slow in SLOW:
        assert any(c.startswith(slow) for c in cmds), slow


def _in_process(convbound, cmd: str, cwd: Path) -> tuple[int, str, str]:
    """One command of a page, run here: ``convbound ... [> FILE]`` through the entry point, else in a shell."""
    argv = shlex.split(cmd, comments=True)
    if argv[0] != "convbound":
        code, out, err, _ = run_shell(cmd, cwd, 600)
        return code, out, err
    target = None
    if ">" in argv:
        at = argv.index(">")
        argv, target = argv[:at], argv[at + 1]
    run = convbound(*argv[1:])
    if target is not None:
        (cwd / target).write_text(run.out, encoding="utf-8")
    return run.code, run.out, run.err


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_page_runs_in_order(page, tmp_path, convbound, monkeypatch):
    from bounds import plugins

    for sub in CLONED:
        shutil.copytree(ROOT / sub, tmp_path / sub)
    monkeypatch.chdir(tmp_path)
    ran = 0
    try:
        for lineno, kind, body in steps(page):
            if kind == "py":
                script = tmp_path / f"block_{lineno}.py"
                script.write_text(str(body), encoding="utf-8")
                runpy.run_path(str(script), run_name="__main__")
                ran += 1
                continue
            cmd, quoted = body  # type: ignore[misc]
            if _is_slow(cmd):
                continue
            code, out, err = _in_process(convbound, cmd, tmp_path)
            assert code == 0, f"{page.name}:{lineno}: exit {code}: {cmd}\n{err[-800:]}"
            if quoted:
                assert (wrong := quoted_output_matches(quoted, out)) is None, f"{page.name}:{lineno}: {wrong}"
            ran += 1
    finally:
        plugins.clear_files()
    assert ran >= 2


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("CONVBOUND_GUIDE_RUN") != "1",
                    reason="runs every guide command in its own shell, the slow ones too (minutes): "
                           "set CONVBOUND_GUIDE_RUN=1")
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_page_runs_as_printed_in_a_shell(page, tmp_path):
    for sub in CLONED:
        shutil.copytree(ROOT / sub, tmp_path / sub)
    for lineno, kind, body in steps(page):
        if kind == "py":
            script = tmp_path / f"block_{lineno}.py"
            script.write_text(str(body), encoding="utf-8")
            cmd, quoted = f"python {script.name}", []
        else:
            cmd, quoted = body  # type: ignore[misc]
        code, out, err, cpu = run_shell(cmd, tmp_path, 3600)
        print(f"{page.name}:{lineno}: {cpu:.1f} s CPU, exit {code}: {cmd[:80]}", file=sys.__stderr__, flush=True)
        assert code == 0, f"{page.name}:{lineno}: exit {code}: {cmd}\n{err[-800:]}"
        if quoted:
            assert (wrong := quoted_output_matches(quoted, out)) is None, f"{page.name}:{lineno}: {wrong}"
