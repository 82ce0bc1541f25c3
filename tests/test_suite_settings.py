"""The test suite's own settings (tests/conftest.py) that change how pytest runs, checked where they act."""

import os


def test_an_xdist_worker_ends_with_one_garbage_collection(request):
    """pytest's five collections at a worker's end are one (tests/conftest.py says why); a plain run keeps five."""
    from _pytest.unraisableexception import gc_collect_iterations_key

    expected = 1 if os.environ.get("PYTEST_XDIST_WORKER") else 5
    assert request.config.stash.get(gc_collect_iterations_key, 5) == expected


def test_a_tests_own_evidence_store_is_named_not_made(tmp_path_factory):
    """Each test's default store is a path of its own under the base folder, made only when written."""
    from verify.evidence.store import default_path

    path = default_path()
    assert tmp_path_factory.getbasetemp() in path.parents and not path.parent.exists()
