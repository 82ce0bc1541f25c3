"""`check` and `show` skip ``importlib.metadata`` only where no distribution can declare a convbound entry
point (``bounds.plugins._none_declared``, issue 30's start-up): its answer is compared with
``importlib.metadata`` itself on the same ``sys.path``, and it defers to it wherever it could miss one."""

import importlib
import importlib.machinery
import os
import subprocess
import sys
import zipfile
from importlib import metadata

import pytest

from bounds import plugins


def _dist(root, name, entry_points):
    info = root / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")


def _found(group="convbound.results"):
    importlib.invalidate_caches()  # the folders were just written (see the fixture)
    return [ep.name for ep in metadata.entry_points(group=group)]


#: These tests compare with importlib.metadata in a fresh interpreter (``test_in_a_fresh_interpreter`` runs
#: this file there): in a test worker, what earlier tests imported can leave importlib.metadata finding
#: nothing on a path it finds in a fresh process (seen under xdist), which is not what is asked here.
FRESH = os.environ.get("CONVBOUND_PREFILTER_FRESH") == "1"
needs_fresh = pytest.mark.skipif(not FRESH, reason="runs in a fresh interpreter (test_in_a_fresh_interpreter)")


def test_in_a_fresh_interpreter():
    if FRESH:
        pytest.skip("this is the fresh interpreter")
    env = {**os.environ, "CONVBOUND_PREFILTER_FRESH": "1"}
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", __file__],
                         capture_output=True, text=True, env=env, timeout=120, check=False)
    assert out.returncode == 0 and "4 passed" in out.stdout, out.stdout[-2000:] + out.stderr[-2000:]


@pytest.fixture()
def site(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    # the interpreter's own finders only: a test elsewhere in the worker may have left a distribution finder
    # (which rightly sends the reading to importlib.metadata, tested below), and importlib.metadata caches
    # folder listings by modification time, which a folder written within the same clock tick can defeat
    monkeypatch.setattr(sys, "meta_path", [importlib.machinery.BuiltinImporter, importlib.machinery.FrozenImporter,
                                           importlib.machinery.PathFinder])
    importlib.invalidate_caches()
    _dist(tmp_path, "other", "[console_scripts]\nother = other:main\n")
    _dist(tmp_path, "bare", None)  # no entry_points.txt at all
    return tmp_path


@needs_fresh
def test_no_convbound_group_is_certain_and_metadata_agrees(site):
    assert plugins._none_declared() is True
    assert _found() == [] and plugins._entry_points("convbound.results") == []


@needs_fresh
def test_a_declared_group_sends_the_reading_to_importlib_metadata(site):
    _dist(site, "demo", "[convbound.results]\ndemo = demo_mod:results\n")
    assert plugins._none_declared() is False
    assert _found() == ["demo"]
    assert [ep.name for ep in plugins._entry_points("convbound.results")] == ["demo"]


@needs_fresh
def test_an_egg_info_folder_is_read_too(site):
    info = site / "legacy.egg-info"
    info.mkdir()
    (info / "PKG-INFO").write_text("Metadata-Version: 1.0\nName: legacy\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[convbound.algorithms]\nlegacy = legacy:algorithms\n", encoding="utf-8")
    assert plugins._none_declared() is False
    assert _found("convbound.algorithms") == ["legacy"]


@needs_fresh
def test_a_zip_on_the_path_or_a_distribution_finder_defers_to_importlib_metadata(site, monkeypatch):
    archive = site / "wheel.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("zipped-0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipped\nVersion: 0.1\n")
        zf.writestr("zipped-0.1.dist-info/entry_points.txt", "[convbound.results]\nz = zipped:results\n")
    monkeypatch.setattr(sys, "path", [str(site), str(archive)])
    assert plugins._none_declared() is False
    assert _found() == ["z"]  # what a pre-filter reading folders only would have missed

    class Finder:  # a finder that finds distributions its own way
        @staticmethod
        def find_distributions(context=None):
            return iter(())

    monkeypatch.setattr(sys, "path", [str(site)])
    monkeypatch.setattr(sys, "meta_path", [Finder, *sys.meta_path])
    assert plugins._none_declared() is False
