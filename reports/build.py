"""Write a report directory atomically: index.html, report.pdf and results.json.

The three files are built in a temporary directory beside the target and moved into place at the
end, so an interrupted run leaves either the old directory or the new one, never a mix.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bounds.core.errors import UserInputError
from bounds.core.filemode import created_mode
from bounds.core.files import short_path
from reports.jsonable import strict_json

FILES = ("index.html", "report.pdf", "results.json")


def report_dir(out: str | os.PathLike[str]) -> Path:
    """The directory a report is written to: ``out`` itself, or where ``out`` points when it is a link.

    The rule for a report directory (README, "report --out"): ``--out LINK``, a symbolic link to a
    directory, writes the report into the directory it points to and keeps the link as it is (a
    ``latest -> report-2026-11-24`` link keeps working); a link that points nowhere is refused. Every
    temporary directory is made beside the real directory, so nothing hidden is left beside the link.
    """
    text = os.fspath(out)
    if not str(text).strip():
        raise UserInputError("--out is empty; give a directory name (e.g. --out convbound-report)")
    target = Path(out)
    if target.is_symlink():
        real = Path(os.path.realpath(target))
        if not real.exists():
            raise UserInputError(f"--out {short_path(target)} is a symbolic link to {short_path(real)}, which does "
                                 "not exist; create it or choose another --out")
        return real
    return target


def check_target(out: str | os.PathLike[str], force: bool) -> Path:
    """Refuse a target that is a file, or a non-empty directory without ``force``; returns the directory
    written to (see :func:`report_dir`). A path we may not look into is refused in one line."""
    try:
        return _check_target(report_dir(out), force)
    except OSError as exc:  # e.g. a parent without search permission: stat() fails with EACCES
        raise UserInputError(f"cannot use --out {short_path(out)}: {exc.strerror or exc}; choose another --out") \
            from None


def _check_target(target: Path, force: bool) -> Path:
    # the temporary directory beside the target is named .NAME.tmp-XXXXXXXX: leave room for the affixes
    if len(os.fsencode(target.name)) > _name_max(target.parent if target.parent.is_dir() else Path(".")) - 16:
        raise UserInputError(f"--out name is longer than the file system allows ({len(target.name)} characters); "
                             "choose a shorter one")
    if target.exists() and not target.is_dir():
        raise UserInputError(f"{target} exists and is not a directory; choose another --out")
    if target.is_dir() and any(target.iterdir()):
        if not force:
            raise UserInputError(f"{target} is not empty; pass --force to replace it or choose another --out")
        # --force replaces an earlier report, never a directory holding anything else (e.g. --out .)
        others = sorted(p.name for p in target.iterdir() if p.name not in FILES)
        if others:
            what = ", ".join(others[:3])
            raise UserInputError(f"{target} holds files that are not part of a report ({what}); --force only "
                                 "replaces an earlier report: choose another --out")
    if target.is_dir() and Path.cwd().resolve().is_relative_to(target.resolve()):
        raise UserInputError(f"{target} is the working directory (or holds it); choose another --out")
    parent = target.resolve().parent
    if not parent.is_dir():
        raise UserInputError(f"directory {parent} does not exist; create it or choose another --out")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UserInputError(f"directory {parent} is not writable; choose another --out")
    return target


def _name_max(directory: Path) -> int:
    try:
        return int(os.pathconf(directory, "PC_NAME_MAX"))
    except (OSError, ValueError):
        return 255


def to_json(doc: Mapping[str, Any]) -> str:
    """Strict JSON (non-finite floats become null / "inf"), numpy scalars and arrays as lists."""
    return strict_json(doc, indent=1)


def write_report(doc: Mapping[str, Any], out: str | os.PathLike[str], *, force: bool = False,
                 progress=None) -> Path:
    """Render ``doc`` to ``out/{index.html, report.pdf, results.json}`` atomically; returns ``out``."""
    from reports.figures import report_figures
    from reports.html import render_html
    from reports.pdf import render_pdf

    target = check_target(out, force)
    step = progress or (lambda message: None)
    text = to_json(doc)
    plain = json.loads(text)  # render exactly what results.json holds (written from the same text: one encoding)
    try:
        tmp = Path(tempfile.mkdtemp(dir=target.resolve().parent, prefix=f".{target.name}.tmp-"))
    except OSError as exc:
        raise UserInputError(f"cannot write {target}: {exc.strerror or exc}") from None
    try:
        step("drawing figures")
        figures = report_figures(plain)
        step("writing index.html")
        (tmp / "index.html").write_text(render_html(plain, figures), encoding="utf-8")
        step("writing report.pdf")
        (tmp / "report.pdf").write_bytes(render_pdf(plain, figures))
        (tmp / "results.json").write_text(text, encoding="utf-8")
        _swap_into_place(tmp, target, force)
    except OSError as exc:  # a full disk, a file system that refuses: output not written is an error
        shutil.rmtree(tmp, ignore_errors=True)
        raise UserInputError(f"cannot write {target}: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def _swap_into_place(tmp: Path, target: Path, force: bool) -> None:
    check_target(target, force)  # the directory may have filled up while we were rendering
    if target.exists():
        old = Path(tempfile.mkdtemp(dir=target.resolve().parent, prefix=f".{target.name}.old-"))
        os.rmdir(old)
        os.replace(target, old)
        try:
            os.replace(tmp, target)
        except BaseException:
            os.replace(old, target)
            raise
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, target)
    os.chmod(target, created_mode(directory=True))  # mkdtemp's 0700, or a fixed 0755, would ignore the umask
