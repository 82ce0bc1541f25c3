"""The README speaks to a user who has only this repository (issue 18, defect 8).

On 26ec3e4 it pointed to ``../shared/spec`` (a folder of the project's authors, not shipped) and
described its benchmark machine as "this workplace's 2-core CPU machine".
"""

import re
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_readme_points_to_nothing_outside_the_repository():
    assert "../shared" not in README
    assert not re.search(r"\bshared/(spec|seeds)\b", README)


def test_benchmark_machine_is_described_in_plain_words():
    section = README[README.index("## Benchmarks"):]
    assert "workplace" not in README
    intro = section[:600]
    assert re.search(r"2-core", intro) and re.search(r"\d+ GiB of memory", intro) and "no GPU" in intro
