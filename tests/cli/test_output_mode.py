"""Output files and report folders take the mode the user's umask allows (not mkstemp's 0600 / mkdtemp's 0700).

Expected modes are the POSIX rule written out: 0666 & ~umask for a file, 0777 & ~umask for a folder.
"""

from __future__ import annotations

import os
import stat

import pytest

from reports.cli.common import atomic_write_text


@pytest.fixture
def set_umask():
    old = os.umask(0o022)
    os.umask(old)

    def apply(mask: int) -> None:
        os.umask(mask)

    yield apply
    os.umask(old)


@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600), (0o027, 0o640)])
def test_atomic_write_honours_the_umask(tmp_path, set_umask, mask, expected):
    set_umask(mask)
    out = atomic_write_text(tmp_path / "out.json", "{}")
    assert stat.S_IMODE(out.stat().st_mode) == expected
    assert out.read_text() == "{}"


@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o755), (0o077, 0o700), (0o027, 0o750)])
def test_report_folder_honours_the_umask(tmp_path, set_umask, mask, expected):
    from reports.build import write_report
    from tests.reports.report_fixtures import fixture_doc

    set_umask(mask)
    target = write_report(fixture_doc(), tmp_path / "rep")
    assert stat.S_IMODE(target.stat().st_mode) == expected
    assert stat.S_IMODE((target / "results.json").stat().st_mode) == expected & 0o666
